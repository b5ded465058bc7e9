"""Sub-agents' proposals over REST (../shared/spec/moltbot-memory.md, section 13): a sub-agent proposes to its
main agent's memory; the main agent (its own key, its person's, or the admin's) lists, commits, rejects or
defers; a sub-agent reads only its own proposals."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import PlainTextResponse

from grimoire.api.auth import Proposer, Reader
from grimoire.api.deps import AgentMemoryDep
from grimoire.api.routes.agents import require_acting_for, require_person_for
from grimoire.api.schemas.proposals import ProposalDecisionIn, ProposalIn, ProposalsTrustIn, ReviewModeIn
from grimoire.graph import agents
from grimoire.graph.agents import Principal
from grimoire.graph.errors import NotFound
from grimoire.graph.memory import proposals as p
from grimoire.graph.memory.messages import AgentMemory
from grimoire.graph.model.enums import AgentKind

router = APIRouter(tags=["proposals"])


def _reader(memory: AgentMemory, who: Principal, agent_id: str) -> str | None:
    """Who may read the queue: the main agent's side (None: every proposal), or one of its sub-agents (its own)."""
    if who.is_admin or who.agent_id == agent_id:
        return None
    sub = agents.get(memory.db, who.agent_id) if who.agent_id else None
    if sub and sub.kind == AgentKind.sub and sub.parent_id == agent_id:
        return sub.id
    raise HTTPException(403, "only the main agent, its person, its sub-agents or an admin may read its proposals")


@router.post("/agents/{agent_id}/proposals", status_code=201, response_model=p.Proposal,
             response_model_exclude_unset=True,
             summary="A sub-agent proposes a memory to its main agent (13.2): pending, flagged as a conflict, or "
                     "committed at once when the main agent trusts it at this confidence")
def propose(agent_id: str, body: ProposalIn, memory: AgentMemoryDep, who: Proposer) -> p.Proposal:
    if not who.agent_id:
        raise HTTPException(403, "a sub-agent's key with the 'propose' (or 'write') scope proposes")
    sub = agents.get(memory.db, who.agent_id)
    if sub is None:
        raise NotFound(f"no agent {who.agent_id!r}")
    return memory.proposals.propose(agent_id, sub, p.ProposalIn(
        content=body.content, trigger=body.trigger, store=body.store,
        entities=tuple(body.entities) if body.entities is not None else None, confidence=body.confidence,
        core_worthy=body.core_worthy), actor=who.key_id)


@router.get("/agents/{agent_id}/proposals", response_model=list[p.Proposal], response_model_exclude_unset=True,
            summary="The proposals to this agent's memory, by number (a sub-agent: "
                                                    "its own)")
def list_proposals(agent_id: str, memory: AgentMemoryDep, who: Reader,
                   status: Annotated[list[p.Status] | None, Query()] = None,
                   limit: Annotated[int, Query(ge=1, le=500)] = 100) -> list[p.Proposal]:
    only = _reader(memory, who, agent_id)
    return memory.proposals.list(agent_id, status=status, from_agent=only, limit=limit)


@router.get("/agents/{agent_id}/proposals/pending.md", response_class=PlainTextResponse,
            summary="pending-memories.md (13.2): the open proposals, conflicts flagged (13.6)")
def pending_md(agent_id: str, memory: AgentMemoryDep, who: Reader) -> str:
    only = _reader(memory, who, agent_id)
    return p.pending_md(memory.proposals.list(agent_id, status=list(p.OPEN), from_agent=only, limit=500))


@router.post("/agents/{agent_id}/proposals/{proposal_id}/decision", response_model=p.Proposal,
             response_model_exclude_unset=True,
             summary="Commit (to the suggested store or another), reject with a reason, or defer a proposal (13.3)")
def decide(agent_id: str, proposal_id: str, body: ProposalDecisionIn, memory: AgentMemoryDep,
           who: Reader) -> p.Proposal:
    main = require_person_for(who, agent_id, "deciding a proposal")
    return memory.proposals.decide(main, proposal_id, body.decision, actor=who.key_id,
                                   store=body.store, reason=body.reason)


@router.put("/agents/{agent_id}/subagents/{sub_id}/trust", response_model=p.Trust,
            summary="Auto-commit (13.4): a sub-agent's proposals from this confidence up are committed at once")
def trust(agent_id: str, sub_id: str, body: ProposalsTrustIn, memory: AgentMemoryDep, who: Reader) -> p.Trust:
    main = require_acting_for(who, agent_id, "trusting a sub-agent")
    return memory.proposals.trust(main, sub_id, body.auto_commit_at, actor=who.key_id)


@router.put("/agents/{agent_id}/review-mode", response_model=p.ReviewModeSet,
            summary="How the agent's sub-agents' proposals are reviewed (13.4): auto, batch (the default) or manual "
                    "(a person's key or the admin's: an agent cannot lift its own person's review)")
def set_review_mode(agent_id: str, body: ReviewModeIn, memory: AgentMemoryDep, who: Reader) -> p.ReviewModeSet:
    main = require_person_for(who, agent_id, "setting the review mode")
    agents.require(memory.db, main)
    return memory.proposals.set_mode(main, body.mode, actor=who.key_id)
