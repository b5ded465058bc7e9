"""Knowledge crystals over REST (knowledge-crystals.md): a crystal's fields and governance, its lifecycle moves
(only the state diagram's: 409 otherwise), its provenance DAG (nodes, the derivation tree to depth 5, the
attribution chain), forks, merges, a frozen crystal's new version, and an on-demand consolidation pass (admin).
Every read is what the key may see; every change takes the owner's key that writes (or an admin's)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from grimoire.api.auth import Admin, Reader, Writer
from grimoire.api.deps import DbDep, KnowledgeDep, RetrieverDep, ServicesDep
from grimoire.api.ownership import guard
from grimoire.api.presentation import for_viewer
from grimoire.api.schemas.crystals import ForkIn, MergeIn, TransitionIn, VersionIn
from grimoire.graph.crystals import provenance, skills, store
from grimoire.graph.crystals.consolidation import PassSummary
from grimoire.graph.model.crystal import lifecycle
from grimoire.graph.services import consolidate_now

router = APIRouter(tags=["crystals"])


def _actor(who: Any) -> str:
    """The provenance actor: the agent, or `admin` for the admin key."""
    return str(who.agent_id or "admin")


@router.get("/crystals/{crystal_id}", response_model=store.Crystal, response_model_exclude_unset=True,
            summary="A crystal (episode, memory or entry) with its crystal fields: semantic type, origin, epistemic "
                    "layer, lifecycle, importance, access, hormonal influence, governance (scope, sensitivity, "
                    "lifespan, priority); an archived one only with include_archived=true")
def get_crystal(crystal_id: str, db: DbDep, who: Reader, retriever: RetrieverDep,
                include_archived: Annotated[bool, Query(description="answer for an archived crystal too")] = False,
                ) -> store.Crystal:
    found = store.get(db, crystal_id, who.visibility())
    if lifecycle.archived(found.model_dump()) and not include_archived:
        raise store.CrystalNotFound(crystal_id)
    retriever.reads.note([crystal_id])  # a read by id is access for relevance (written in batches)
    # What only its owner may read is left out for everyone else; what the item does not have is not shown.
    return for_viewer(found, who.visibility())


@router.post("/crystals/{crystal_id}/lifecycle", response_model=store.Transition,
             summary="Move a crystal along its lifecycle: only the state diagram's transitions (409 naming both "
                     "states otherwise); audited; expired removes it from every read path")
def transition(crystal_id: str, body: TransitionIn, db: DbDep, who: Writer) -> store.Transition:
    return store.transition(db, crystal_id, body.to, actor=who.key_id, visibility=who.visibility(),
                            reason=body.reason)


@router.get("/crystals/{crystal_id}/provenance", response_model=list[provenance.ProvenanceNode],
            summary="The crystal's provenance DAG to depth 5 as ProvenanceNodes (operation, actor, time, parents, "
                    "metadata), over the crystals the key may see")
def provenance_nodes(crystal_id: str, db: DbDep, who: Reader,
                     depth: Annotated[int, Query(ge=0, le=provenance.MAX_DEPTH)] = provenance.MAX_DEPTH,
                     ) -> list[provenance.ProvenanceNode]:
    return provenance.nodes(db, crystal_id, who.visibility(), depth)


@router.get("/crystals/{crystal_id}/provenance/tree", response_model=provenance.ProvenanceTree,
            summary="The derivation tree (getDerivationTree), to depth 5")
def provenance_tree(crystal_id: str, db: DbDep, who: Reader,
                    depth: Annotated[int, Query(ge=0, le=provenance.MAX_DEPTH)] = provenance.MAX_DEPTH,
                    ) -> provenance.ProvenanceTree:
    return provenance.tree(db, crystal_id, who.visibility(), depth)


@router.get("/crystals/{crystal_id}/provenance/attribution", response_model=provenance.Attribution,
            summary="The attribution chain (getAttributionChain): every distinct actor of the lineage, breadth first")
def attribution(crystal_id: str, db: DbDep, who: Reader) -> provenance.Attribution:
    return provenance.attribution(db, crystal_id, who.visibility())


@router.post("/crystals/{crystal_id}/fork", status_code=201,
             response_model=provenance.EntryForked | provenance.Forked,
             summary="Fork a crystal the key sees into a new one of the key's agent (a forked provenance link)")
def fork(crystal_id: str, body: ForkIn, k: KnowledgeDep, who: Writer) -> provenance.EntryForked | provenance.Forked:
    guard(k.db, who)
    # An entry's fork is a candidate for the Admission Gate (weighed as its clade's or the public's): the answer
    # carries the gate's outcome; an episode's or a memory's is a copy.
    return provenance.fork(k.db, crystal_id, scope=body.scope.value, actor=_actor(who), visibility=who.visibility(),
                           metadata=body.metadata, knowledge=k, memory_scope=k.memory_scope)


@router.post("/crystals/merge", response_model=provenance.Merged,
             summary="Merge crystals of the key's agent: the winner consolidated, the losers archived under it "
                     "(merged provenance links); audited")
def merge(body: MergeIn, db: DbDep, who: Writer) -> provenance.Merged:
    return provenance.merge(db, body.winner_id, body.loser_ids, actor=_actor(who), visibility=who.visibility(),
                            reason=body.reason)


@router.post("/crystals/{crystal_id}/versions", status_code=201, response_model=skills.NewVersion,
             summary="Change a frozen crystal: it is immutable, so the change is a new crystal, its next version "
                     "(mutated provenance link), and the version before is deprecated")
def new_version(crystal_id: str, body: VersionIn, k: KnowledgeDep, who: Writer) -> skills.NewVersion:
    guard(k.db, who)
    return skills.new_version(k.db, k.embedder, crystal_id, body.text, actor=who.key_id, visibility=who.visibility(),
                              reason=body.reason, knowledge=k)


@router.post("/crystals/consolidate", response_model=PassSummary,
             summary="Run a consolidation pass now (admin): importance rescored, the forgotten expired or archived, "
                     "near-duplicate promoted crystals merged")
def consolidate(services: ServicesDep, who: Admin) -> PassSummary:
    return PassSummary.of(consolidate_now(services))
