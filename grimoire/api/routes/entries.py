from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from grimoire.api.auth import Reader, Writer
from grimoire.api.deps import KnowledgeDep, RetrieverDep
from grimoire.api.ownership import claim
from grimoire.api.presentation import for_viewer
from grimoire.api.schemas.entries import (
    DecisionOut,
    EditOut,
    EntryOut,
    EntryVersionOut,
    NeighbourOut,
    StoredDecisionOut,
)
from grimoire.graph.errors import NotFound
from grimoire.graph.knowledge import entries, versions
from grimoire.graph.knowledge.entries import EntryDecision
from grimoire.graph.model.common import Instant, to_ms
from grimoire.graph.model.crystal import lifecycle
from grimoire.graph.model.entry import EntryBatch, EntryIn, EntryOutcomeIn
from grimoire.graph.model.enums import EntryCategory, EntryStatus, MarketRegime, VoteDirection

router = APIRouter(tags=["knowledge entries"])


def _out(d: EntryDecision, dry_run: bool) -> DecisionOut:
    r = d.result
    return DecisionOut(
        candidate_id=d.candidate_id, decision_id=None if dry_run or d.existing else d.decision_id,
        outcome=r.outcome, entry_id=d.entry_id, composite=r.composite, factors=r.factors, confidence=r.confidence,
        status=r.status, target_id=r.target_id, flags=list(r.flags), contradicted=list(r.contradicted),
        aligned=list(r.aligned), max_similarity=r.max_similarity,
        nearest=[NeighbourOut(id=n.id, similarity=n.similarity, effective_confidence=n.effective_confidence)
                 for n in r.nearest],
        quality=d.quality.as_properties() if d.quality else None, reasoner=r.reasoner, explanation=r.explanation,
        existing=d.existing, dry_run=dry_run,
    )


@router.post("/entries", response_model=DecisionOut, status_code=201,
             summary="Propose one knowledge entry; the Admission Gate decides")
def create_entry(entry: EntryIn, k: KnowledgeDep, who: Writer) -> DecisionOut:
    items, _, clade = claim(k.db, who, [entry])
    return _out(entries.admit(k, items, actor=who.key_id, clade=clade)[0], dry_run=False)


@router.post("/entries/batch", response_model=list[DecisionOut], status_code=201,
             summary="Propose up to 1,000 entries; one decision each")
def create_entries(batch: EntryBatch, k: KnowledgeDep, who: Writer) -> list[DecisionOut]:
    items, _, clade = claim(k.db, who, batch.entries)
    return [_out(d, False) for d in entries.admit(k, items, actor=who.key_id, clade=clade)]


@router.post("/admission/dry-run", response_model=DecisionOut,
             summary="What the Admission Gate would decide, with its factor scores; writes nothing")
def dry_run(entry: EntryIn, k: KnowledgeDep, who: Reader) -> DecisionOut:
    items, _, clade = claim(k.db, who, [entry])
    return _out(entries.admit(k, items, actor=who.key_id, clade=clade, dry_run=True)[0], dry_run=True)


@router.get("/admission/decisions/{decision_id}", response_model=StoredDecisionOut, response_model_exclude_unset=True,
            summary="A stored admission decision, to explain it")
def get_decision(decision_id: str, k: KnowledgeDep, who: Reader) -> StoredDecisionOut:
    found = entries.get_decision(k, decision_id, who.visibility())
    if found is None:
        raise NotFound(f"no admission decision {decision_id!r}")
    return found


@router.get("/entries/{entry_id}", response_model=EntryOut, response_model_exclude_unset=True,
            summary="One entry with its effective confidence now; an archived one only with include_archived=true")
def get_entry(entry_id: str, k: KnowledgeDep, who: Reader, retriever: RetrieverDep,
              include_archived: Annotated[bool, Query(description="answer for an archived entry too")] = False,
              ) -> EntryOut:
    found = entries.get(k, entry_id, who.visibility())
    if lifecycle.archived(found.model_dump()) and not include_archived:
        raise entries.EntryNotFound(entry_id)
    retriever.reads.note([entry_id])  # a read by id is access for relevance (written in batches)
    return for_viewer(found, who.visibility())


@router.get("/entries", response_model=list[EntryOut], response_model_exclude_unset=True,
            summary="Entries by category, status, regime, agent, time and minimum confidence")
def list_entries(
    k: KnowledgeDep,
    who: Reader,
    retriever: RetrieverDep,
    agent_id: str | None = None,
    category: EntryCategory | None = None,
    status: EntryStatus | None = None,
    regime: MarketRegime | None = None,
    valid_at: Instant | None = None,
    known_at: Instant | None = None,
    min_confidence: Annotated[float, Query(ge=0.0, le=1.0)] | None = None,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    limit: Annotated[int, Query(ge=1, le=1_000)] = 50,
) -> list[EntryOut]:
    rows = entries.list_entries(
        k, who.visibility(), agent_id=agent_id, category=category.value if category else None,
        status=status.value if status else None,
        regime=regime.value if regime else None, valid_at=to_ms(valid_at), known_at=to_ms(known_at),
        min_confidence=min_confidence, offset=offset, limit=limit,
    )
    retriever.reads.note([r.id for r in rows])  # a list read is access for relevance too (written in batches)
    return [for_viewer(r, who.visibility()) for r in rows]


@router.post("/entries/{entry_id}/upvote", response_model=EntryOut, response_model_exclude_unset=True,
             summary="Confirmed again: confidence +0.1, decay clock reset")
def upvote(entry_id: str, k: KnowledgeDep, who: Writer) -> EntryOut:
    return for_viewer(entries.vote(k, entry_id, VoteDirection.up, actor=who.key_id, visibility=who.visibility()),
                      who.visibility())


@router.post("/entries/{entry_id}/downvote", response_model=EntryOut, response_model_exclude_unset=True,
             summary="Contradicted: confidence -0.15 (floor 0.05)")
def downvote(entry_id: str, k: KnowledgeDep, who: Writer) -> EntryOut:
    return for_viewer(entries.vote(k, entry_id, VoteDirection.down, actor=who.key_id, visibility=who.visibility()),
                      who.visibility())


@router.post("/entries/{entry_id}/outcome", response_model=EntryOut, response_model_exclude_unset=True,
             summary="After a decision: strength +1 only if the entry was used and the outcome was positive")
def outcome(entry_id: str, body: EntryOutcomeIn, k: KnowledgeDep, who: Writer) -> EntryOut:
    return for_viewer(entries.record_outcome(k, entry_id, body, actor=who.key_id, visibility=who.visibility()),
                      who.visibility())


@router.post("/entries/{entry_id}/edit", response_model=EditOut,
             summary="EDIT: refine an entry's content and conditions; the earlier version is kept")
def edit(entry_id: str, body: versions.EditIn, k: KnowledgeDep, who: Writer) -> EditOut:
    entry = entries.get(k, entry_id, who.visibility())
    if not (who.is_admin or entry.agent_id == who.agent_id):
        raise HTTPException(403, "only the entry's owner (or an admin key) may edit it")
    return versions.edit(k.db, k.embedder, entry, body, actor=who.key_id)


@router.post("/entries/{entry_id}/scope", response_model=EditOut,
             summary="Set an entry's scope (its owner, a person acting for it, or the admin): the only way a scope "
                     "widens; a confidential entry stays private; the earlier scope is kept as a version")
def set_scope(entry_id: str, body: versions.ScopeIn, k: KnowledgeDep, who: Writer) -> EditOut:
    entry = entries.get(k, entry_id, who.visibility())
    if not (who.is_admin or entry.agent_id == who.agent_id):
        raise HTTPException(403, "only the entry's owner, a person acting for it, or an admin key sets its scope")
    return versions.rescope(k.db, entry, body, actor=who.key_id, memory_scope=k.memory_scope)


@router.get("/entries/{entry_id}/versions", response_model=list[EntryVersionOut], response_model_exclude_unset=True,
            summary="An entry's earlier versions, newest first")
def entry_versions(entry_id: str, k: KnowledgeDep, who: Reader) -> list[EntryVersionOut]:
    entry = entries.get(k, entry_id, who.visibility())  # 404 for an entry the caller may not see
    return [for_viewer(v, who.visibility(), entry.agent_id)
            for v in versions.versions(k.db, entry_id, who.visibility().params())]
