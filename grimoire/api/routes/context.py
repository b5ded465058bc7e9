"""The Context Governor's policy over REST (context-governor.md S2.3, S2.4, S3.3, S3.6, S3.7): an agent's policy,
its revisions and the delta between two, a change as a new revision, and the allocations a situation resolves to.
An agent (and its person) reads its own; a change takes the agent's key that writes, its person's or an admin's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from grimoire.api.auth import Reader
from grimoire.api.deps import DbDep, ServicesDep
from grimoire.api.routes.agents import require_acting_for, require_self_or_admin
from grimoire.api.schemas.context import AssembleIn, ContextFeedbackIn, PolicyIn, ReasoningIn, SituationIn
from grimoire.graph import agents
from grimoire.graph.agents import AgentOut, Principal, UnknownAgent
from grimoire.graph.context import feedback, mutations, reasoning
from grimoire.graph.context import policy as cp
from grimoire.graph.context.feedback import Belief, FeedbackDecision, Outcome, Recorded
from grimoire.graph.context.governor import Assembly, Preassembled, Request
from grimoire.graph.context.mutations import Mutation, Staged
from grimoire.graph.context.reasoning import ReasoningChain, Replayable
from grimoire.graph.context.recalibration import Recalibrated, Unchanged
from grimoire.graph.context.sources import Supplied

router = APIRouter(tags=["context"])


@router.get("/agents/{agent_id}/context/policy", response_model=cp.Policy,
            summary="The agent's context policy at its current revision (revision 0: the spec's defaults)")
def read_policy(agent_id: str, db: DbDep, who: Reader) -> cp.Policy:
    require_self_or_admin(who, agent_id)
    return cp.current(db, agents.require(db, agent_id))


@router.put("/agents/{agent_id}/context/policy", response_model=cp.Policy,
            summary="Change the agent's context policy: a new revision (audited), the previous one closed")
def change_policy(agent_id: str, body: PolicyIn, db: DbDep, who: Reader) -> cp.Policy:
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
    if body.task_strategies is not None:
        now.task_strategies = {k: v.model_copy() for k, v in body.task_strategies.items()}
    if body.retrieval is not None:
        now.retrieval = now.retrieval.model_copy(update=body.retrieval.model_dump(exclude_none=True))
    if body.compression is not None:
        now.compression = now.compression.model_copy(update=body.compression.model_dump(exclude_none=True))
    if body.model_preference is not None:
        now.model_preference = body.model_preference
    return cp.revise(db, owner, now, actor=who.key_id, reason=body.reason, base=now.revision)


@router.get("/agents/{agent_id}/context/policy/revisions", response_model=list[cp.PolicyRevision],
            summary="The policy's revisions, newest first, each with the policy it held, who wrote it, when and why")
def policy_revisions(agent_id: str, db: DbDep, who: Reader) -> list[cp.PolicyRevision]:
    require_self_or_admin(who, agent_id)
    return cp.revisions(db, agents.require(db, agent_id))


@router.get("/agents/{agent_id}/context/policy/delta", response_model=cp.PolicyDelta,
            summary="What moved between two revisions of the policy: allocations per category and what else changed")
def policy_delta(agent_id: str, db: DbDep, who: Reader,
                 from_revision: Annotated[int, Query(ge=0, alias="from")],
                 to_revision: Annotated[int | None, Query(ge=0, alias="to", description="default: the current")]
                 = None) -> cp.PolicyDelta:
    require_self_or_admin(who, agent_id)
    return cp.delta_between(db, agents.require(db, agent_id), from_revision, to_revision)


@router.post("/agents/{agent_id}/context/policy/resolve", response_model=cp.Resolved,
             summary="The allocations one decision gets: base, then the task's, phase's and regime's overrides "
                     "(later wins), normalised, then the affect modulation of the PAD vector; nothing is written")
def resolve(agent_id: str, body: SituationIn, db: DbDep, who: Reader) -> cp.Resolved:
    require_self_or_admin(who, agent_id)
    return cp.resolve(cp.current(db, agents.require(db, agent_id)), _situation(body))


def _situation(body: SituationIn) -> cp.Situation:
    return cp.Situation(task=body.task, phase=body.phase, regime=body.regime, pad=body.pad.pad(),
                        turn_phase=body.turn_phase, complexity=body.task_complexity)


def _request(body: AssembleIn) -> Request:
    return Request(task=body.task, phase=body.phase, regime=body.regime, pad=body.pad.pad(), query=body.query,
                   turn_phase=body.turn_phase, complexity=body.task_complexity,
                   budget=body.budget, context_tokens=body.context_tokens, max_context_tokens=body.max_context_tokens,
                   tick=body.tick, vitality=body.vitality,
                   supplied={c: tuple(Supplied(text=s.text, id=s.id, summary=s.summary) for s in items)
                             for c, items in body.supplied.items()})


def _agent(db: Any, agent_id: str) -> AgentOut:
    found = agents.get(db, agent_id)
    if found is None:
        raise UnknownAgent(f"no agent {agent_id!r}")
    return found


def _clade(db: Any, who: Principal, agent_id: str) -> str | None:
    """The agent's clade: its own key says it (a key exists only for an agent that does); else read (404)."""
    if who.agent_id == agent_id:
        return who.clade
    return _agent(db, agent_id).clade


@router.post("/agents/{agent_id}/context/assemble", response_model=Assembly,
             summary="The agent's workspace for one decision (S2.1, S5.1): each category fetched and budgeted, "
                     "disclosed, masked and ordered; the rendered prompt text, the reasons per category and the "
                     "delta from its previous workspace; from the kept workspace while it is fresh")
def assemble(agent_id: str, body: AssembleIn, services: ServicesDep, who: Reader) -> Response:
    require_self_or_admin(who, agent_id)
    built = services.context.assemble(agent_id, _clade(services.db, who, agent_id), _request(body),
                                      prefer_kept=body.preassembled)
    # serialized once by its model: the workspace is large, and validating it again would walk it for nothing
    return Response(built.answer().model_dump_json(), media_type="application/json")


@router.post("/agents/{agent_id}/context/preassemble", response_model=Preassembled,
             summary="Build the agent's workspace ahead of its next decision (its state changed): kept, so the next "
                     "assemble in this situation answers from it")
def preassemble(agent_id: str, body: AssembleIn, services: ServicesDep, who: Reader) -> Preassembled:
    require_self_or_admin(who, agent_id)
    return services.context.preassemble(agent_id, _clade(services.db, who, agent_id), _request(body)).kept()


@router.post("/agents/{agent_id}/context/feedback", response_model=Recorded,
             summary="Loop 1: a decision made with a workspace — what it referenced (cited, quoted or paraphrased), "
                     "its outcome, cost and missing context; moves the Beta beliefs of its categories in its regime "
                     "(audited); a mutation's trial, a compression guideline, Loop 2 on a regime change")
def context_feedback(agent_id: str, body: ContextFeedbackIn, services: ServicesDep, who: Reader) -> Recorded:
    owner = require_acting_for(who, agent_id, "recording a decision's outcome")
    clade = _clade(services.db, who, owner)
    outcome = Outcome(assembly_id=body.assembly_id, response=body.response, cited=tuple(body.cited),
                      quality=body.quality, cost=body.cost, missing=tuple(body.missing),
                      over_contexted=body.over_contexted, tick=body.tick, model_tier=body.model_tier,
                      prediction=body.prediction, actual=body.actual,
                      reasoning=_reasoning(body.reasoning, services.context.count_one))
    return services.context.feedback(owner, clade, outcome, actor=who.key_id)


def _reasoning(body: ReasoningIn | None, count: Callable[[str], int]) -> ReasoningChain | None:
    if body is None:
        return None
    return reasoning.normalize(body.provider, model=body.model, blocks=body.blocks, text=body.text,
                               reasoning_tokens=body.reasoning_tokens, count=count)


@router.get("/agents/{agent_id}/context/decisions", response_model=list[FeedbackDecision],
            summary="The agent's decision records (Loop 1), newest first: what was injected and referenced, the "
                    "outcome, cost and missing context")
def context_decisions(agent_id: str, db: DbDep, who: Reader,
                      limit: Annotated[int, Query(ge=1, le=1_000)] = 50) -> list[FeedbackDecision]:
    require_self_or_admin(who, agent_id)
    return feedback.decisions(db, agents.require(db, agent_id), limit)


@router.get("/agents/{agent_id}/context/reasoning", response_model=list[Replayable],
            summary="The agent's decisions' reasoning chains kept for dream replay (normalised from the provider's "
                    "thinking blocks, reasoning summaries or text), each beside its outcome's quality and "
                    "prediction error; newest first, or the worst outcomes first")
def context_reasoning(agent_id: str, db: DbDep, who: Reader,
                      limit: Annotated[int, Query(ge=1, le=1_000)] = 50,
                      worst_first: bool = False) -> list[Replayable]:
    require_self_or_admin(who, agent_id)
    return reasoning.replayable(db, agents.require(db, agent_id), limit, worst_first)


@router.get("/agents/{agent_id}/context/beliefs", response_model=list[Belief],
            summary="The agent's Beta beliefs per regime and category (Beta(2, 2) at first): how its decisions "
                    "went with the category in context; under 0.3 a soft category is left out")
def context_beliefs(agent_id: str, db: DbDep, who: Reader) -> list[Belief]:
    require_self_or_admin(who, agent_id)
    return feedback.beliefs(db, agents.require(db, agent_id))


@router.post("/agents/{agent_id}/context/recalibrate", response_model=Recalibrated | Unchanged,
             summary="Loop 2 now: the policy recalibrated from the decisions since it was last validated — a new "
                     "revision, each category moved by at most 0.02 (none when there is nothing new to read)")
def context_recalibrate(agent_id: str, services: ServicesDep, who: Reader) -> Recalibrated | Unchanged:
    owner = require_acting_for(who, agent_id, "recalibrating the context policy")
    done = services.context.recalibrate(owner, _clade(services.db, who, owner), trigger="manual", actor=who.key_id)
    return done or Unchanged()


@router.get("/agents/{agent_id}/context/mutations", response_model=list[Mutation],
            summary="Loop 3's policy mutations, newest first: staged (with their confidence and trials), "
                    "validated (and the revision each became) or refuted")
def context_mutations(agent_id: str, db: DbDep, who: Reader) -> list[Mutation]:
    require_self_or_admin(who, agent_id)
    return mutations.listing(db, agents.require(db, agent_id))


@router.post("/agents/{agent_id}/context/mutations/stage", response_model=Staged,
             summary="Loop 3 now: stage policy mutations (confidence 0.2) from the agent's worst recent decisions "
                     "(with a language model configured, only those whose replay beats the decision's quality by "
                     "0.15)")
def context_stage(agent_id: str, services: ServicesDep, who: Reader) -> Staged:
    owner = require_acting_for(who, agent_id, "staging context policy mutations")
    return Staged(staged=mutations.stage(services.db, owner, _clade(services.db, who, owner),
                                         services.settings.context, actor=who.key_id,
                                         replayer=services.context.replayer))
