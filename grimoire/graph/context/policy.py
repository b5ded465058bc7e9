"""An agent's ContextPolicy (context-governor.md S2.3) in the graph, with its revision history.

The policy is what the Governor learns: allocations per category, overrides by task type, phase and regime,
retrieval and compression settings and a model preference. Revision 0 is the spec's defaults (S2.4) and is not
stored; every revision after it is a ContextPolicyRevision node, immutable but for its close, chained from the
agent's ContextPolicy (graph/context/models.py). A revision is a change like any other: its audit record names
the revision before and after it, and rolling it back puts the policy's previous revision back.

`resolve` composes the allocations one decision gets (overrides.py, affect.py) and says how each layer moved them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any

from neomodel.exceptions import UniqueProperty
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel, SetProperties
from grimoire.graph.audit.versions import Step
from grimoire.graph.context import affect, overrides
from grimoire.graph.context.categories import (
    DEFAULT_ALLOCATIONS,
    DEFAULT_PHASE_OVERRIDES,
    DEFAULT_REGIME_OVERRIDES,
    DEFAULT_TASK_OVERRIDES,
    TURN_PHASE_MULTIPLIERS,
    Allocations,
    CompressionConfig,
    ModelPreference,
    RetrievalConfig,
    TaskComplexity,
    TaskType,
    TurnPhase,
)
from grimoire.graph.context.guidelines import Guideline
from grimoire.graph.context.models import ContextPolicy, ContextPolicyRevision
from grimoire.graph.context.strategy import DEFAULT_TASK_STRATEGIES, RetrievalStrategy
from grimoire.graph.db import cypher, ogm
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import Conflict, NotFound
from grimoire.graph.events.model import Event
from grimoire.graph.events.store import write as write_events
from grimoire.graph.model.enums import BehavioralPhase, MarketRegime


def _guideline(value: Any) -> Any:
    """A guideline as a policy of old kept it (its text only)."""
    return value if isinstance(value, Mapping | Guideline) else {"text": str(value)}


class Metrics(BaseModel):
    """S2.3 PolicyMetrics, as Loop 2 last measured them."""

    decision_quality_avg: float = 0.0
    token_efficiency: float = 0.0
    last_validated: int = 0            # ms: the newest decision Loop 2 read


class Policy(BaseModel):
    """An agent's context policy at one revision (S2.3), as it is stored (JSON) and answered."""

    revision: int = 0
    allocations: Allocations = Field(default_factory=lambda: dict(DEFAULT_ALLOCATIONS))
    task_overrides: dict[TaskType, Allocations] = Field(
        default_factory=lambda: {t: dict(v) for t, v in DEFAULT_TASK_OVERRIDES.items()})
    phase_overrides: dict[BehavioralPhase, Allocations] = Field(
        default_factory=lambda: {p: dict(v) for p, v in DEFAULT_PHASE_OVERRIDES.items()})
    regime_overrides: dict[MarketRegime, Allocations] = Field(
        default_factory=lambda: {r: dict(v) for r, v in DEFAULT_REGIME_OVERRIDES.items()})
    task_strategies: dict[TaskType, RetrievalStrategy] = Field(
        default_factory=lambda: {TaskType(t): s.model_copy() for t, s in DEFAULT_TASK_STRATEGIES.items()},
        description="S3.1's ContextStrategyMap: per task type, the collections drawn, their maxima, the relevance "
                    "threshold, the causal traversal and the ranking weights")
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    compression: CompressionConfig = Field(default_factory=CompressionConfig)
    guidelines: list[Annotated[Guideline, BeforeValidator(_guideline)]] = Field(
        default_factory=list)  # S3.8, learned from failures (guidelines.py)
    model_preference: ModelPreference = ModelPreference.balanced
    metrics: Metrics = Field(default_factory=Metrics)

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json"), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Policy:
        return cls.model_validate_json(text)

    def copy_as(self, **changes: Any) -> Policy:
        """A policy like this one (a deep copy, validated again) with `changes`."""
        return Policy.model_validate({**self.model_dump(mode="json"), **changes})


class PolicyRevision(BaseModel):
    """A stored revision of the policy: when it held (valid_from, valid_until: ms), who wrote it and why."""

    id: str
    revision: int
    valid_from: int
    valid_until: int | None
    recorded_at: int
    written_by: str | None
    reason: str | None
    audit_id: str | None
    policy: Policy


class PolicyDelta(BaseModel):
    """What moved between two revisions: each category's allocation that moved (after - before) and the other
    parts of the policy that changed."""

    model_config = ConfigDict(validate_by_name=True, serialize_by_alias=True)
    from_revision: int = Field(alias="from")
    to_revision: int = Field(alias="to")
    allocations: dict[str, float]
    changed: list[str]


# ---------------------------------------------------------------------------------------------- resolving


@dataclass(frozen=True)
class Situation:
    """What one decision is about: the layers its allocations are composed from (the task type, the phase and the
    regime) and the mood that modulates them. A Governor's request is one (graph/context/governor.py)."""

    task: TaskType | None = None
    phase: BehavioralPhase | None = None
    regime: MarketRegime | None = None
    pad: affect.Pad = affect.Pad()
    turn_phase: TurnPhase | None = None
    complexity: TaskComplexity | None = None


class Layer(BaseModel):
    layer: str                   # task:<type>, phase:<phase>, regime:<regime> or turn:<turn phase>
    set: dict[str, float]        # what it set, per category


class Resolved(BaseModel):
    """The allocations one decision gets, and how each layer moved them."""

    revision: int
    layers: list[Layer]
    composed: dict[str, float]   # after the overrides, normalised
    affect: list[str]            # the affect states the mood is in
    allocations: dict[str, float]


def resolve(policy: Policy, situation: Situation) -> Resolved:
    """The allocations one decision gets: base → task → phase → regime (later wins), normalised; then the affect
    modulation; then the turn phase's multipliers (S5.2), normalised. Each layer is shown with what it set, and the
    allocations after the overrides and after affect and the turn phase."""
    tables: list[tuple[str, StrEnum | None, Mapping[Any, Allocations]]] = [
        ("task", situation.task, policy.task_overrides), ("phase", situation.phase, policy.phase_overrides),
        ("regime", situation.regime, policy.regime_overrides)]
    layers = [overrides.Step(f"{kind}:{key.value}", table[key]) for kind, key, table in tables
              if key is not None and key in table]
    composed = overrides.compose(policy.allocations, layers)
    final = affect.modulate(situation.pad, composed)
    shown = [Layer(layer=s.layer, set={c.value: v for c, v in s.values.items()}) for s in layers]
    if situation.turn_phase is not None:   # S5.2: the pipeline step's share of each category, last
        multipliers = TURN_PHASE_MULTIPLIERS[situation.turn_phase]
        final = overrides.normalize({c: v * multipliers.get(c, 1.0) for c, v in final.items()})
        shown.append(Layer(layer=f"turn:{situation.turn_phase.value}",
                           set={c.value: v for c, v in multipliers.items()}))
    return Resolved(revision=policy.revision, layers=shown,
                    composed={c.value: v for c, v in composed.items()}, affect=affect.states(situation.pad),
                    allocations={c.value: v for c, v in final.items()})


# ---------------------------------------------------------------------------------------------- storing


def policy_id(agent_id: str) -> str:
    return f"{agent_id}:context-policy"


def revision_id(agent_id: str, n: int) -> str:
    return f"{policy_id(agent_id)}:r{n}"


def current(db: Database, agent_id: str) -> Policy:
    """The agent's policy at its current revision (the defaults, revision 0, before its first)."""
    node = ogm.read(db, lambda tx: ContextPolicy.nodes.get_or_none(uid=policy_id(agent_id)))
    return Policy.from_json(node.policy) if node is not None else Policy()


def revisions(db: Database, agent_id: str) -> list[PolicyRevision]:
    """Every stored revision, newest first, with the policy it holds."""
    def work(tx: Tx) -> list[PolicyRevision]:
        return [PolicyRevision(id=r.uid, revision=r.revision, valid_from=r.valid_from, valid_until=r.valid_until,
                               recorded_at=r.recorded_at, written_by=r.written_by, reason=r.reason,
                               audit_id=r.audit_id, policy=Policy.from_json(r.policy))
                for r in ContextPolicyRevision.nodes.filter(agent_id=agent_id).order_by("-revision")]

    return ogm.read(db, work)


def at_revision(db: Database, agent_id: str, n: int) -> Policy:
    if n == 0:
        return Policy()
    node = ogm.read(db, lambda tx: ContextPolicyRevision.nodes.get_or_none(uid=revision_id(agent_id, n)))
    if node is None:
        raise NotFound(f"no revision {n} of {agent_id}'s context policy")
    return Policy.from_json(node.policy)


def delta(before: Policy, after: Policy) -> PolicyDelta:
    """What moved between two revisions: each category's allocation (after - before, only those that moved),
    the overrides that changed, and the settings that changed."""
    cats = sorted(set(before.allocations) | set(after.allocations))
    moved = {c.value: round(after.allocations.get(c, 0.0) - before.allocations.get(c, 0.0), 6) for c in cats}
    a, b = before.model_dump(mode="json"), after.model_dump(mode="json")
    return PolicyDelta(from_revision=before.revision, to_revision=after.revision,
                       allocations={c: d for c, d in moved.items() if d != 0},
                       changed=sorted(k for k in a if k != "revision" and a[k] != b[k]))


def delta_between(db: Database, agent_id: str, from_revision: int, to_revision: int | None = None) -> PolicyDelta:
    """The delta from one stored revision to another (None: the current one); NotFound for a revision never made."""
    after = current(db, agent_id) if to_revision is None else at_revision(db, agent_id, to_revision)
    return delta(at_revision(db, agent_id, from_revision), after)


def revise(db: Database, agent_id: str, changed: Policy, *, actor: str, reason: str,
           base: int | None = None, events: Callable[[Policy, Policy], Sequence[Event]] | None = None,
           also: Callable[[Tx, Policy], None] | None = None) -> Policy:
    """A new revision of the agent's policy (its number one more than the last), the open one closed, with its
    audit record in the same transaction. `base`: the revision the change was made from; if another revision
    was written since, the change is refused (409) rather than losing that one. `events`: what to report of the
    change (from the policy before and the new revision), written in its transaction; `also`: what else the
    revision's transaction writes (a promoted mutation's mark)."""
    pid = policy_id(agent_id)
    audit = Audit(action="context.policy.revise", actor=actor, agent_id=agent_id)

    def work(tx: Tx) -> Policy:
        if tx.run(cypher.query("context/lock_agent"), agent_id=agent_id).single() is None:
            raise NotFound(f"no agent {agent_id!r}")
        node = ContextPolicy.nodes.get_or_none(uid=pid)
        at_now = node.current if node is not None else 0
        old = Policy.from_json(node.policy) if node is not None else Policy()
        if base is not None and base != at_now:
            raise Conflict(f"{agent_id}'s context policy is at revision {at_now} now, not {base}: read it again")
        state = tx.run(cypher.query("context/close_revisions"), agent_id=agent_id, now=audit.at).single()
        n = int(state["last"]) + 1 if state else 1
        new = changed.copy_as(revision=n)
        revision = ContextPolicyRevision(uid=revision_id(agent_id, n), agent_id=agent_id, revision=n,
                                         policy=new.to_json(), valid_from=audit.at, recorded_at=audit.at,
                                         written_by=actor, reason=reason, audit_id=audit.id).save()
        # undone, this revision never held (closed where it opened) and the one it closed holds again
        undo: list[Any] = [SetProperties(label=NodeLabel.ContextPolicyRevision, id=revision.uid,
                                         before={"valid_until": audit.at})]
        undo += [SetProperties(label=NodeLabel.ContextPolicyRevision, id=closed, before={"valid_until": None})
                 for closed in (state["closed"] if state else [])]
        if node is None:
            node = ContextPolicy(uid=pid, agent_id=agent_id, current=n, policy=new.to_json(), valid_from=audit.at,
                                 recorded_at=audit.at, written_by=actor, reason=reason).save()
            undo.append(DeleteNodes(label=NodeLabel.ContextPolicy, ids=[pid]))
            before = None
        else:
            undo.append(SetProperties(label=NodeLabel.ContextPolicy, id=pid, before={
                "current_revision": node.current, "policy": node.policy, "valid_from": node.valid_from,
                "recorded_at": node.recorded_at, "written_by": node.written_by, "reason": node.reason}))
            before = revision_id(agent_id, node.current) if node.current else None
            node.current, node.policy, node.valid_from = n, new.to_json(), audit.at
            node.recorded_at, node.written_by, node.reason = audit.at, actor, reason
            node.save()
        node.revisions.connect(revision)
        audit.write(tx, [pid], f"context policy revision {n}: {reason}", undo, [Step(pid, before, revision.uid)])
        if events is not None:
            write_events(tx, events(old, new))
        if also is not None:
            also(tx, new)
        return new

    try:
        return ogm.write(db, work)
    except UniqueProperty as exc:  # another revision was written at the same moment
        raise Conflict(f"{agent_id}'s context policy was revised at the same moment; read it and try again") from exc
