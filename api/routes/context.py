"""The Context Governor's policy over REST (context-governor.md S2.3, S2.4, S3.3, S3.6, S3.7): an agent's policy,
its revisions and the delta between two, a change as a new revision, and the allocations a situation resolves to.
An agent (and its person) reads its own; a change takes the agent's key that writes, its person's or an admin's."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from api.auth import Reader
from api.deps import DbDep, ServicesDep
from api.routes.agents import require_acting_for, require_self_or_admin
from api.schemas.context import AssembleIn, PolicyIn, SituationIn
from graph import agents
from graph.agents import UnknownAgent
from graph.context import affect
from graph.context import policy as cp
from graph.context.governor import Request
from graph.context.sources import Supplied

router = APIRouter(tags=["context"])


@router.get("/agents/{agent_id}/context/policy",
            summary="The agent's context policy at its current revision (revision 0: the spec's defaults)")
def read_policy(agent_id: str, db: DbDep, who: Reader) -> dict[str, Any]:
    require_self_or_admin(who, agent_id)
    return cp.current(db, agents.require(db, agent_id)).out()


@router.put("/agents/{agent_id}/context/policy",
            summary="Change the agent's context policy: a new revision (audited), the previous one closed")
def change_policy(agent_id: str, body: PolicyIn, db: DbDep, who: Reader) -> dict[str, Any]:
    owner = require_acting_for(who, agent_id, "changing the context policy")  # revise() 404s an unknown agent
    now = cp.current(db, owner)
    if body.allocations is not None:
        now.allocations.update(body.allocations)
    if body.task_overrides is not None:
        now.task_overrides = {k: dict(v) for k, v in body.task_overrides.items()}
    if body.phase_overrides is not None:
        now.phase_overrides = {k: dict(v) for k, v in body.phase_overrides.items()}
    if body.regime_overrides is not None:
        now.regime_overrides = {k: dict(v) for k, v in body.regime_overrides.items()}
    if body.retrieval is not None:
        now.retrieval.update(body.retrieval.model_dump(exclude_none=True))
    if body.compression is not None:
        now.compression.update(body.compression.model_dump(exclude_none=True))
    if body.model_preference is not None:
        now.model_preference = body.model_preference
    return cp.revise(db, owner, now, actor=who.key_id, reason=body.reason, base=now.revision).out()


@router.get("/agents/{agent_id}/context/policy/revisions",
            summary="The policy's revisions, newest first, each with the policy it held, who wrote it, when and why")
def policy_revisions(agent_id: str, db: DbDep, who: Reader) -> list[dict[str, Any]]:
    require_self_or_admin(who, agent_id)
    return cp.revisions(db, agents.require(db, agent_id))


@router.get("/agents/{agent_id}/context/policy/delta",
            summary="What moved between two revisions of the policy: allocations per category and what else changed")
def policy_delta(agent_id: str, db: DbDep, who: Reader,
                 from_revision: Annotated[int, Query(ge=0, alias="from")],
                 to_revision: Annotated[int | None, Query(ge=0, alias="to", description="default: the current")]
                 = None) -> dict[str, Any]:
    require_self_or_admin(who, agent_id)
    return cp.delta_between(db, agents.require(db, agent_id), from_revision, to_revision)


@router.post("/agents/{agent_id}/context/policy/resolve",
             summary="The allocations one decision gets: base, then the task's, phase's and regime's overrides "
                     "(later wins), normalised, then the affect modulation of the PAD vector; nothing is written")
def resolve(agent_id: str, body: SituationIn, db: DbDep, who: Reader) -> dict[str, Any]:
    require_self_or_admin(who, agent_id)
    situation = cp.Situation(task=body.task, phase=body.phase, regime=body.regime,
                             pad=affect.Pad(body.pad.pleasure, body.pad.arousal, body.pad.dominance))
    return cp.resolve(cp.current(db, agents.require(db, agent_id)), situation)


def _request(body: AssembleIn) -> Request:
    return Request(task=body.task, phase=body.phase, regime=body.regime,
                   pad=affect.Pad(body.pad.pleasure, body.pad.arousal, body.pad.dominance), query=body.query,
                   budget=body.budget, context_tokens=body.context_tokens, max_context_tokens=body.max_context_tokens,
                   tick=body.tick, supplied={c: tuple(Supplied(text=s.text, id=s.id, summary=s.summary) for s in items)
                                             for c, items in body.supplied.items()})


def _agent(db: Any, agent_id: str) -> dict[str, Any]:
    found = agents.get(db, agent_id)
    if found is None:
        raise UnknownAgent(f"no agent {agent_id!r}")
    return found


@router.post("/agents/{agent_id}/context/assemble",
             summary="The agent's workspace for one decision (S2.1, S5.1): each category fetched and budgeted, "
                     "disclosed, masked and ordered; the rendered prompt text, the reasons per category and the "
                     "delta from its previous workspace; from the kept workspace while it is fresh")
def assemble(agent_id: str, body: AssembleIn, services: ServicesDep, who: Reader) -> dict[str, Any]:
    require_self_or_admin(who, agent_id)
    agent = _agent(services.db, agent_id)
    return services.context.assemble(agent_id, agent.get("clade"), _request(body),
                                     prefer_kept=body.preassembled).out()


@router.post("/agents/{agent_id}/context/preassemble",
             summary="Build the agent's workspace ahead of its next decision (its state changed): kept, so the next "
                     "assemble in this situation answers from it")
def preassemble(agent_id: str, body: AssembleIn, services: ServicesDep, who: Reader) -> dict[str, Any]:
    require_self_or_admin(who, agent_id)
    agent = _agent(services.db, agent_id)
    built = services.context.preassemble(agent_id, agent.get("clade"), _request(body))
    return {"assembly_id": built.id, "agent_id": agent_id, "total_tokens": built.composed.tokens,
            "policy_revision": built.revision, "timings_ms": built.timings_ms}
