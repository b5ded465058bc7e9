"""The provenance DAG (knowledge-crystals.md, "Provenance DAG"): each derivation is a PROVENANCE relationship from
the derived crystal to each parent, with its operation (merged, mutated, imported, forked), actor, time and
metadata — a merge has several parents. A crystal that derives from nothing was created (by its owner, at its
recorded time; or imported, as its import says).

Two readings, over REST and as Browser-ready Cypher (cypher/crystals/lineage.cypher): the derivation tree to depth
5 (getDerivationTree) and the attribution chain, every distinct actor of the lineage breadth first
(getAttributionChain). Only crystals the caller may see are followed."""

from __future__ import annotations

import json
from collections import deque
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from grimoire.graph.audit import (
    Audit,
    DeleteNodes,
    DeleteRelationships,
    Endpoints,
    NodeLabel,
    RelationshipType,
    SetProperties,
)
from grimoire.graph.crystals import store
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import Invalid
from grimoire.graph.ids import now_ms, uuid7
from grimoire.graph.knowledge.entries import Knowledge, admit
from grimoire.graph.model.common import MAX_LIST
from grimoire.graph.model.crystal.lifecycle import Lifecycle, check
from grimoire.graph.model.crystal.privacy import MemoryScope, refuse_share
from grimoire.graph.model.entry import EntryIn, EntrySource
from grimoire.graph.model.enums import EntryCategory, Provenance, Scope
from grimoire.graph.model.rows import FreeForm, Row
from grimoire.graph.visibility import Visibility

MAX_DEPTH = 5


class Operation(StrEnum):
    created = "created"
    mutated = "mutated"
    merged = "merged"
    imported = "imported"
    forked = "forked"


class Derivation(BaseModel):
    parent: str
    operation: str | None = None
    actor: str | None = None
    at: int | None = None
    metadata: Any = None  # the JSON text the link was written with (an imported link: as it came)


class LineageRow(Row):
    """A crystal of the lineage, at its nearest depth, with the derivations (to visible parents) that made it."""

    query = "crystals/lineage"
    id: str
    depth: int
    owner: str | None
    recorded_at: int | None
    created_as: str
    creator: str | None
    derivations: list[Derivation]


class ProvenanceNode(BaseModel):
    """The spec's ProvenanceNode: the operation that made the crystal, its actor and time (ms), its parents."""

    crystal_id: str
    operation: str | None
    actor: str | None
    timestamp: int | None
    parent_ids: list[str]
    metadata: dict[str, Any]  # free-form: what the link's writer stored (a fork's or a merge's metadata)
    depth: int


class ProvenanceTree(BaseModel):
    """The derivation tree: a crystal's node with its parents' trees."""

    crystal_id: str
    operation: str | None
    actor: str | None
    timestamp: int | None
    parent_ids: list[str]
    metadata: dict[str, Any]  # free-form, as ProvenanceNode's
    parents: list[ProvenanceTree]


class Attribution(BaseModel):
    crystal_id: str
    actors: list[str]


class Forked(BaseModel):
    """An episode's or a memory's fork: the copy made."""

    id: str
    forked_from: str
    at: int


class EntryForked(BaseModel):
    """An entry's fork: the Admission Gate's outcome for the copy (id: the entry written or merged into; none
    when skipped)."""

    id: str | None
    forked_from: str
    at: int
    outcome: str
    confidence: float | None  # none when the gate skips the copy
    provenance: str
    decision_id: str


class Merged(BaseModel):
    winner: str
    losers: list[str]
    at: int


class Judged(BaseModel):
    """The Admission Gate's word on a frozen entry's change: the version's confidence and status."""

    confidence: float | None
    status: str | None


def _metadata(raw: Any) -> FreeForm:  # free-form: the JSON a link's writer stored
    if not raw:
        return {}
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return {"raw": raw}
    return value if isinstance(value, dict) else {"value": value}


def _node(r: LineageRow, depth: int) -> ProvenanceNode:
    derivations = r.derivations if r.depth < depth else []  # the last level's parents are not shown
    if not derivations:
        return ProvenanceNode(crystal_id=r.id, operation=r.created_as, actor=r.creator, timestamp=r.recorded_at,
                              parent_ids=[], metadata={}, depth=r.depth)
    first = derivations[0]
    return ProvenanceNode(crystal_id=r.id, operation=first.operation, actor=first.actor, timestamp=first.at,
                          parent_ids=[d.parent for d in derivations], metadata=_metadata(first.metadata),
                          depth=r.depth)


def nodes(db: Database, crystal_id: str, visibility: Visibility, depth: int = MAX_DEPTH) -> list[ProvenanceNode]:
    """The lineage as the spec's ProvenanceNodes (crystalId, operation, actor, timestamp, parentIds, metadata),
    nearest first; the crystal itself first."""
    depth = max(0, min(MAX_DEPTH, depth))
    rows = db.typed(LineageRow, id=crystal_id, depth=depth, **visibility.params())
    if not rows:
        raise store.CrystalNotFound(crystal_id)
    return [_node(r, depth) for r in rows]


def tree(db: Database, crystal_id: str, visibility: Visibility, depth: int = MAX_DEPTH) -> ProvenanceTree:
    """The derivation tree: the crystal's node with its parents' trees under `parents`, to `depth` levels."""
    by_id = {n.crystal_id: n for n in nodes(db, crystal_id, visibility, depth)}

    def build(cid: str, level: int) -> ProvenanceTree:
        node = by_id[cid]
        kids = [p for p in node.parent_ids if p in by_id] if level < depth else []
        return ProvenanceTree(**node.model_dump(exclude={"depth"}), parents=[build(p, level + 1) for p in kids])

    return build(crystal_id, 0)


def attribution(db: Database, crystal_id: str, visibility: Visibility) -> Attribution:
    """Every distinct actor of the lineage, breadth first from the crystal."""
    by_id = {n.crystal_id: n for n in nodes(db, crystal_id, visibility)}
    seen_actors: list[str] = []
    seen = {crystal_id}
    queue = deque([crystal_id])
    while queue:
        node = by_id[queue.popleft()]
        if node.actor and node.actor not in seen_actors:
            seen_actors.append(node.actor)
        for parent in node.parent_ids:
            if parent in by_id and parent not in seen:
                seen.add(parent)
                queue.append(parent)
    return Attribution(crystal_id=crystal_id, actors=seen_actors)


def fork(db: Database, crystal_id: str, *, scope: str, actor: str, visibility: Visibility,
         metadata: dict[str, Any] | None = None, knowledge: Knowledge | None = None,
         memory_scope: MemoryScope = MemoryScope.private) -> Forked | EntryForked:
    """A copy of a crystal the caller may see, owned by the caller, derived from it (forked). An entry is knowledge:
    its copy is a candidate for the Admission Gate, weighed by where it comes from (`fork_entry`)."""
    if visibility.admin and not visibility.viewer:
        raise Invalid("the admin key owns no crystals: fork with an agent's key")
    source = store.get(db, crystal_id, visibility)
    refuse_share(crystal_id, source.semantic_type, scope, memory_scope, "forked into a shared or public scope")
    if "Entry" in source.kinds and knowledge is not None:
        return fork_entry(knowledge, source, scope=scope, actor=actor, visibility=visibility, metadata=metadata)
    new_id = uuid7()
    now = now_ms()

    def work(tx: Tx) -> Forked:
        row = tx.run(cypher.query("crystals/fork"), id=crystal_id, label=store.label_of(source.kinds).value,
                     new_id=new_id, scope=scope, actor=actor, now=now,
                     metadata=json.dumps(metadata or {}), owner=visibility.viewer,
                     owner_clade=visibility.clade or None, **visibility.params()).single()
        if row is None:
            raise store.CrystalNotFound(crystal_id)
        label = store.label_of(list(row["kinds"]))
        Audit(action="crystal.fork", actor=actor, agent_id=visibility.viewer, at=now).write(
            tx, [new_id], f"forked {crystal_id} into {new_id}", [DeleteNodes(label=label, ids=[new_id])])
        return Forked(id=new_id, forked_from=crystal_id, at=now)

    return db.write(work)


SCOPE_RANK = {"private": 0, "shared": 1, "public": 2}


def fork_scope(source: store.CrystalFields, asked: str, owner_clade: str | None) -> str:
    """The narrower of the scope asked for and the source's, as cypher/crystals/fork.cypher sets it: private when
    the source is confidential, private, or shared in another clade than the fork's owner's."""
    src = source.scope or "private"
    if source.sensitivity == "confidential" or (src == "shared" and source.clade != owner_clade):
        return "private"
    return min((asked, src), key=lambda s: SCOPE_RANK.get(s, 0))


def fork_provenance(source: store.CrystalFields, visibility: Visibility,
                    weights: dict[Provenance, float]) -> Provenance:
    """Where a forked entry comes from, as the knowledge weighting hierarchy weighs it: the owner's own
    (SelfLearned), its clade's (Clade), or the public's (Lethe) — never above what the source itself was."""
    if source.agent_id == visibility.viewer:
        by_origin = Provenance.SelfLearned
    elif source.clade and source.clade == visibility.clade:
        by_origin = Provenance.Clade
    else:
        by_origin = Provenance.Lethe
    given = source.provenance or ""
    own = Provenance(given) if given in Provenance.__members__ else by_origin
    return min((by_origin, own), key=lambda p: weights[p])


def fork_entry(k: Knowledge, source: store.CrystalFields, *, scope: str, actor: str, visibility: Visibility,
               metadata: dict[str, Any] | None = None) -> EntryForked:
    """An entry forked: a candidate of the caller's, passed through the Admission Gate at the provenance weight of
    where it comes from (a clade mate's 0.8, the public's 0.5), so it is admitted, merged into the caller's own
    entry or skipped as the gate decides; when admitted, linked to its source (forked)."""
    owner_clade = visibility.clade or None
    narrowed = fork_scope(source, scope, owner_clade)
    candidate = EntryIn(
        id=uuid7(), agent_id=visibility.viewer, scope=Scope(narrowed), category=EntryCategory(str(source.category)),
        content=source.content, market_regime=source.market_regime, strategy=source.strategy,
        tags=list(source.tags or [])[:MAX_LIST], decay_class=source.decay_class,
        provenance=fork_provenance(source, visibility, k.admission.provenance_weight),
        # its author (its provenance chain and peer origin): the source's own author when it came from a peer
        source=EntrySource(golem_id=(source.provenance_chain or [source.agent_id or ""])[0] or None))
    extra = {str(candidate.id): {"requested_scope": scope}} if narrowed != scope else None
    [decision] = admit(k, [candidate], actor=actor, clade=owner_clade, extra=extra,
                       copy_of={str(candidate.id): source.id})
    now = now_ms()
    if decision.result.writes_entry:
        _link_fork(k.db, str(candidate.id), source.id, actor=visibility.viewer or actor, now=now,
                   metadata=metadata, audit_actor=actor)
    return EntryForked(id=decision.entry_id, forked_from=source.id, at=now, outcome=decision.result.outcome.value,
                       confidence=decision.result.confidence, provenance=candidate.provenance.value,
                       decision_id=decision.decision_id)


def judge_version(k: Knowledge, crystal: store.CrystalFields, text: str, scope: str) -> Judged:
    """A frozen entry's change through the Admission Gate before it is written as the next version: weighed as
    the crystal's own provenance weighs it, against everything its owner sees but the version it changes (never a
    merge or a duplicate of its own chain). A rejected change is refused (422); otherwise the version starts at the
    gate's confidence and status."""
    candidate = EntryIn(
        id=uuid7(), agent_id=crystal.agent_id, scope=Scope(scope), category=EntryCategory(str(crystal.category)),
        content=text, market_regime=crystal.market_regime, strategy=crystal.strategy,
        tags=list(crystal.tags or [])[:MAX_LIST], decay_class=crystal.decay_class,
        provenance=Provenance(crystal.provenance or Provenance.SelfLearned.value))
    [decision] = admit(k, [candidate], actor="gate", clade=crystal.clade, dry_run=True, merge=False,
                       copy_of={str(candidate.id): crystal.id})
    result = decision.result
    if not result.writes_entry:
        raise Invalid(f"the Admission Gate refuses this version ({result.outcome.value}): {result.explanation}")
    return Judged(confidence=result.confidence, status=result.status.value if result.status else None)


def _link_fork(db: Database, new_id: str, source_id: str, *, actor: str, now: int, metadata: dict[str, Any] | None,
               audit_actor: str) -> None:
    def work(tx: Tx) -> None:
        tx.run(cypher.query("crystals/fork_link"), new_id=new_id, id=source_id, actor=actor, now=now,
               metadata=json.dumps(metadata or {})).consume()
        Audit(action="crystal.fork", actor=audit_actor, agent_id=actor, at=now).write(
            tx, [new_id], f"forked {source_id} into {new_id} through the Admission Gate",
            [DeleteRelationships(type=RelationshipType.PROVENANCE, keys=[
                Endpoints(start_label=NodeLabel.Entry, start_id=new_id, end_ids=[source_id])])])

    db.write(work)


def merge(db: Database, winner_id: str, loser_ids: list[str], *, actor: str, visibility: Visibility,
          reason: str = "merged by hand") -> Merged:
    """An owner's merge: the winner consolidated, each loser archived under it, each move checked."""
    losers = list(dict.fromkeys(loser_ids))
    if not losers or winner_id in losers:
        raise Invalid("a merge needs at least one loser other than the winner")
    now = now_ms()

    def work(tx: Tx) -> Merged:
        winner, w_kinds = store.lock(tx, winner_id, visibility)
        label = store.label_of(w_kinds).value
        check(Lifecycle(winner.lifecycle), Lifecycle.consolidated, skill=store.is_skill(winner, w_kinds))
        revert: list[Any] = [SetProperties(label=store.label_of(w_kinds), id=winner_id,
                                           before={"lifecycle": winner.lifecycle,
                                                   "lifecycle_at": winner.lifecycle_at})]
        kinds: dict[str, list[str]] = {}
        for lid in losers:
            loser, l_kinds = store.lock(tx, lid, visibility)
            kinds[lid] = l_kinds
            if store.label_of(l_kinds).value != label:
                raise Invalid(f"{lid} is not a crystal of the winner's kind ({label}): one source merges")
            if any(getattr(loser, k) != getattr(winner, k) for k in ("agent_id", "scope", "clade")):
                raise Invalid(f"{lid} is not of the winner's owner, scope and clade: a merge never moves one "
                              f"partition's knowledge into another's")
            check(Lifecycle(loser.lifecycle), Lifecycle.archived, skill=store.is_skill(loser, l_kinds))
            before = {"lifecycle": loser.lifecycle, "lifecycle_at": loser.lifecycle_at, "parent_id": None}
            if "Entry" in l_kinds:
                before["status"] = loser.status
            revert.append(SetProperties(label=store.label_of(l_kinds), id=lid, before=before))
        revert.insert(0, DeleteRelationships(type=RelationshipType.PROVENANCE, keys=[
            Endpoints(start_label=store.label_of(w_kinds), start_id=winner_id, end_ids=losers)]))
        audit = Audit(action="crystal.merge", actor=actor, agent_id=winner.agent_id, at=now)
        steps = store.keep(tx, {winner_id: w_kinds, **kinds}, audit, reason)
        merge_in(tx, [{"winner": winner_id, "losers": losers, "cosine": None}], label=label, actor=actor, now=now,
                 reason=reason)
        audit.write(tx, [winner_id, *losers], f"merged {', '.join(losers)} into {winner_id}: {reason}", revert, steps)
        return Merged(winner=winner_id, losers=losers, at=now)

    return db.write(work)


def merge_in(tx: Tx, rows: list[dict[str, Any]], *, label: str, actor: str, now: int,
             reason: str) -> dict[str, list[str]]:
    """Rows of {winner, losers, cosine}, all crystals of `label`: the merges made, winner → losers (the states are
    checked again: a crystal that moved since the merge was decided is left out)."""
    return {r["winner"]: list(r["losers"]) for r in tx.run(cypher.query("crystals/merge"), rows=rows, label=label,
                                                           actor=actor, now=now, reason=reason)}

