"""The Pi hooks as endpoints (graph/hooks.py): after_turn writes a turn as one batch of episodes,
before_compact returns what must survive a context compaction. An agent's key acts for its own agent
only; the admin names the agent."""

from __future__ import annotations

from fastapi import APIRouter

from grimoire.api.auth import Reader, Writer
from grimoire.api.deps import KnowledgeDep, ServicesDep
from grimoire.api.ownership import claim
from grimoire.api.schemas.hooks import CompactState, TurnWritten
from grimoire.graph import hooks
from grimoire.graph.hooks import CompactIn, TurnIn
from grimoire.graph.services import enrichment_queued, lazy_enrichment

router = APIRouter(prefix="/hooks", tags=["hooks"])


@router.post("/after_turn", response_model=TurnWritten, status_code=201,
             summary="Pi hook after_turn: write one agent turn as one batch of episodes (idempotent by turn id)")
def after_turn(turn: TurnIn, k: KnowledgeDep, who: Writer, services: ServicesDep) -> TurnWritten:
    [turn], owner, clade = claim(k.db, who, [turn])
    result = hooks.after_turn(k.db, k.embedder, turn, agent_id=owner, clade=clade, actor=who.key_id,
                              memory_scope=k.memory_scope, lazy=lazy_enrichment(services))
    enrichment_queued(services, result.created)  # lazy: the turn's mentions and FOLLOWS, moments later
    return TurnWritten(**vars(result), last_id=result.last_id)


@router.post("/before_compact", response_model=CompactState,
             summary="Pi hook session(before_compact): the agent's warnings, playbook heuristics and recent "
                     "unconsolidated episodes to keep across a context compaction (read-only)")
def before_compact(body: CompactIn, k: KnowledgeDep, who: Reader) -> CompactState:
    [body], owner, clade = claim(k.db, who, [body])
    return hooks.before_compact(k.db, body, agent_id=owner, clade=clade, floor=k.decay.floor)
