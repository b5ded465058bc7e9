"""Loop 1 (context-governor.md S4, S5.3 after_turn): a decision's outcome record. What its workspace injected (read
back from the assembly record), what the response referenced (graph/context/referencing.py), the outcome's
quality, its cost, whether it was over-contexted and the context it said it missed. Its outcome moves the Beta
beliefs — Beta(2, 2) at first, one per category per regime — of every category it had in context: a good outcome
(quality 0.5 or more) adds to alpha, a bad one to beta. A decision made under a staged mutation is one of its
trials (graph/context/mutations.py). The record, the beliefs and the tallies are written in one transaction with
their audit record.

After it: a bad outcome whose missing context was in a category the workspace had compressed teaches a compression
guideline (graph/context/guidelines.py); a decision in another regime than the one before runs Loop 2 at once
(graph/context/recalibration.py); a mutation whose trials decide it is validated or refuted."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel, SetProperties
from grimoire.graph.context import events as context_events
from grimoire.graph.context import guidelines, mutations, recalibration, referencing
from grimoire.graph.context import policy as cp
from grimoire.graph.context import reasoning as reasoning_chain
from grimoire.graph.context.categories import ContextCategory
from grimoire.graph.context.config import GovernorConfig
from grimoire.graph.context.verification import OutcomeVerification, Prediction, verify
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import Conflict, NotFound
from grimoire.graph.events.store import write as write_events
from grimoire.graph.ids import now_ms, uuid7
from grimoire.graph.model.rows import Row

GOOD = 0.5
SKIPPED_TIER = "T0"


class AssemblyNotFound(NotFound):
    """No workspace with this id was assembled for the agent (404)."""


@dataclass(frozen=True)
class Outcome:
    assembly_id: str
    response: str | None = None
    cited: Sequence[str] = ()
    quality: float | None = None          # [0, 1]; None: not known yet
    cost: float = 0.0                     # of the inference, in the caller's unit (USD)
    missing: Sequence[str] = ()           # missing-context signals
    over_contexted: bool = False
    tick: int | None = None
    model_tier: str | None = None         # T0 (a probe, no model call), T1, T2: the cognitive tier that decided
    prediction: Prediction | None = None
    actual: float | None = None           # what happened, beside the prediction
    reasoning: reasoning_chain.ReasoningChain | None = None   # the decision's reasoning, normalised


class Recorded(BaseModel):
    """A decision's record (Loop 1) and what followed from it: a mutation judged, a guideline learned, Loop 2."""

    decision_id: str | None = Field(description="the decision record; none for a T0 turn (nothing is learned)")
    assembly_id: str
    skipped: str | None = Field(default=None, description="why nothing was recorded (a T0 turn: no model call)")
    verification: OutcomeVerification | None = Field(
        default=None, description="the prediction beside the outcome (context-governor.md S3.4), when one was given")
    referenced: list[referencing.Reference]
    influenced: list[str]
    outcome: str | None                     # good | bad | None (not known yet)
    beliefs: dict[str, float]               # each category's Beta value in the regime, after
    mutation: mutations.Judged | None = None
    guideline: guidelines.Guideline | None = None
    loop2: recalibration.Recalibrated | None = None
    reasoning: reasoning_chain.ReasoningChain | None = Field(
        default=None, description="the decision's reasoning as kept (normalised; for dream replay)")
    audit_id: str = ""
    deferred: dict[str, str] = Field(default_factory=dict)   # a consequence refused (409), and why
    crossed: list[str] = Field(default_factory=list, exclude=True)   # categories across the filter's threshold


class StoredDecision(BaseModel):
    """A decision record as stored: what it injected (tokens per category) and referenced, as JSON text."""

    id: str
    assembly_id: str | None
    at: int                                 # ms
    task: str | None
    phase: str | None
    regime: str | None
    policy_revision: int | None
    mutation_id: str | None
    injected_tokens: str | None
    referenced: str | None
    influenced: list[str] | None
    outcome_quality: float | None
    cost: float | None
    over_contexted: bool | None
    missing: list[str] | None
    tick: int | None
    model_tier: str | None
    reasoning: str | None = None            # the ReasoningChain, JSON


class DecisionRow(Row):
    query = "context/decisions"
    decision: StoredDecision


class FeedbackDecision(StoredDecision):
    """A decision record (Loop 1): what was injected and referenced, the outcome, cost and missing context."""

    injected_tokens: dict[str, int]         # type: ignore[assignment]
    referenced: list[referencing.Reference]  # type: ignore[assignment]
    reasoning: reasoning_chain.ReasoningChain | None = None  # type: ignore[assignment]

    @classmethod
    def of(cls, d: StoredDecision) -> FeedbackDecision:
        return cls.model_validate({**d.model_dump(), "injected_tokens": json.loads(d.injected_tokens or "{}"),
                                   "referenced": json.loads(d.referenced or "[]"),
                                   "reasoning": reasoning_chain.stored(d.reasoning)})


class Belief(Row):
    """A Beta belief of the agent: how its decisions went with the category in context, in the regime."""

    query = "context/beliefs"
    regime: str
    category: str
    alpha: float
    beta: float
    value: float
    updated_at: int | None                  # ms


def decisions(db: Database, agent_id: str, limit: int) -> list[FeedbackDecision]:
    """The agent's decision records, newest first."""
    return [FeedbackDecision.of(r.decision) for r in db.typed(DecisionRow, agent_id=agent_id, limit=limit)]


def beliefs(db: Database, agent_id: str) -> list[Belief]:
    """The agent's Beta beliefs, per regime and category."""
    return db.typed(Belief, agent_id=agent_id)


class AssemblyRecord(BaseModel):
    """A workspace as it was recorded (graph/context/governor.py): what went in, its budgets, what was compacted
    and squeezed (JSON), and the situation and policy revision it was built for."""

    id: str
    task: str | None
    phase: str | None
    regime: str | None
    policy_revision: int | None
    mutation_id: str | None
    injected: str | None
    budgets: str | None
    compacted: str | None
    squeezed: str | None


class AssemblyRead(Row):
    """One of the agent's workspaces, the regime of its last decision, and whether this one has a decision."""

    query = "context/assembly"
    assembly: AssemblyRecord
    last_regime: str | None
    last_decision: str | None
    decided: bool


def _value(b: dict[str, Any] | None) -> float:
    """A Beta belief's value, alpha / (alpha + beta); 0.5 (the prior's) for one not there yet."""
    return float(b["alpha"]) / (float(b["alpha"]) + float(b["beta"])) if b else 0.5


def _belief_id(agent_id: str, regime: str, category: str) -> str:
    return f"{agent_id}:context-belief:{regime}:{category}"


def record(db: Database, agent_id: str, clade: str | None, outcome: Outcome, *, actor: str,
           config: GovernorConfig, embed: Callable[[list[str]], np.ndarray]) -> Recorded:
    rows = db.typed(AssemblyRead, id=outcome.assembly_id, agent_id=agent_id)
    if not rows:
        raise AssemblyNotFound(f"no workspace {outcome.assembly_id!r} was assembled for {agent_id}")
    a, last_regime = rows[0].assembly, rows[0].last_regime
    if outcome.model_tier == SKIPPED_TIER:  # S5.3 after_turn: a probe-only turn made no model call to learn from
        return Recorded(decision_id=None, assembly_id=outcome.assembly_id, skipped=f"{SKIPPED_TIER}: a probe-only "
                        "turn made no model call; Loop 1 learns nothing from it", referenced=[], influenced=[],
                        outcome=None, beliefs={})
    injected: list[dict[str, Any]] = json.loads(a.injected or "[]")
    refs = referencing.detect(injected, outcome.response, outcome.cited, embed)
    good = None if outcome.quality is None else outcome.quality >= GOOD
    influenced = sorted({r.category for r in refs}) if good is not False else []
    tokens: dict[str, int] = {}
    for item in injected:
        tokens[item["c"]] = tokens.get(item["c"], 0) + int(item["t"])
    regime = a.regime or "any"
    decision_id = uuid7()
    audit = Audit(action="context.feedback", actor=actor, agent_id=agent_id)
    verified = _verified(outcome, tokens, refs)
    decision = {"id": decision_id, "agent_id": agent_id, "assembly_id": outcome.assembly_id, "at": audit.at,
                "recorded_at": now_ms(), "task": a.task, "phase": a.phase, "regime": a.regime,
                "policy_revision": a.policy_revision, "mutation_id": a.mutation_id,
                "injected_tokens": json.dumps(tokens, sort_keys=True),
                "referenced": json.dumps([asdict(r) for r in refs]), "influenced": influenced,
                "outcome_quality": outcome.quality, "cost": outcome.cost, "over_contexted": outcome.over_contexted,
                "missing": list(outcome.missing), "tick": outcome.tick, "model_tier": outcome.model_tier,
                "reasoning": outcome.reasoning.model_dump_json() if outcome.reasoning else None,
                "reasoning_hash": outcome.reasoning.hash if outcome.reasoning else None,
                "prediction_error": verified.prediction_error if verified else None}
    beliefs = [{"id": _belief_id(agent_id, regime, c), "agent_id": agent_id, "regime": regime, "category": c}
               for c in sorted(tokens)] if good is not None else []

    def work(tx: Tx) -> tuple[dict[str, float], dict[str, float]]:
        """The decision recorded; each category's Beta value after it, and before."""
        row = tx.run(cypher.query("context/record_decision"), decision=decision, beliefs=beliefs,
                     good=1.0 if good else 0.0, bad=0.0 if good or good is None else 1.0,
                     trial=a.mutation_id, quality=outcome.quality, regime=a.regime,
                     tally=not rows[0].decided, threshold=config.beta_filter).single()
        assert row is not None
        undo: list[Any] = [DeleteNodes(label=NodeLabel.ContextDecision, ids=[decision_id])]
        undo += [DeleteNodes(label=NodeLabel.ContextBelief, ids=[b["id"]]) if b["before"] is None else
                 SetProperties(label=NodeLabel.ContextBelief, id=b["id"], before=b["before"]) for b in row["beliefs"]]
        undo += [SetProperties(label=NodeLabel.ContextMutation, id=m["id"],
                               before={k: v for k, v in m["before"].items() if k != "id"}) for m in row["mutations"]]
        targets = [decision_id, *(b["id"] for b in row["beliefs"]), *(m["id"] for m in row["mutations"])]
        audit.write(tx, targets, f"decision on workspace {outcome.assembly_id}: quality {outcome.quality}, "
                                 f"{len(refs)} items referenced", undo)
        write_events(tx, [context_events.feedback_loop(
            agent_id, clade, loop_id=1, tick=outcome.tick, record_count=1,
            adjustments={"outcome": None if good is None else ("good" if good else "bad"),
                         "categories": sorted(tokens), "influenced": influenced})])
        return ({b["id"].rsplit(":", 1)[1]: _value(b) for b in row["beliefs"]},
                {b["id"].rsplit(":", 1)[1]: _value(b["before"]) for b in row["beliefs"]})

    after, before = db.write(work)
    threshold = config.beta_filter
    out = Recorded(decision_id=decision_id, assembly_id=outcome.assembly_id, referenced=refs,
                   influenced=influenced, outcome=None if good is None else ("good" if good else "bad"),
                   beliefs=after, audit_id=audit.id, verification=verified, reasoning=outcome.reasoning,
                   crossed=[c for c, v in after.items() if (v < threshold) != (before[c] < threshold)])
    # what follows the record is its consequence, each its own audited change; one refused (a policy revised at
    # the same moment) is reported, not raised: the decision itself is recorded
    def attempt(step: str, work: Callable[[], Any]) -> Any:
        try:
            return work()
        except Conflict as e:
            out.deferred[step] = str(e)
            return None

    if a.mutation_id:
        trial = a.mutation_id
        out.mutation = attempt("mutation", lambda: mutations.judge(db, agent_id, clade, trial, config)) or (
            mutations.Judged(mutation_id=trial, verdict=None))
    if good is False and config.enable_compression_evolution:
        out.guideline = attempt("guideline", lambda: _learn_guideline(db, agent_id, a, outcome, injected, actor))
    if config.loop2_on_regime_change and last_regime is not None and last_regime != a.regime:
        out.loop2 = attempt("loop2", lambda: recalibration.recalibrate(db, agent_id, clade, config,
                                                                       trigger="regime_change", tick=outcome.tick,
                                                                       regime=a.regime))
    return out


def _verified(outcome: Outcome, tokens: dict[str, int], refs: Sequence[referencing.Reference]
              ) -> OutcomeVerification | None:
    if outcome.prediction is None or outcome.actual is None:
        return None
    return verify(outcome.prediction, outcome.actual, tokens, (r.category for r in refs))


def _squeezed(a: AssemblyRecord, injected: list[dict[str, Any]]) -> dict[str, int]:
    """The categories the workspace compressed (some item as one line or left out by the budget, or shrunk by
    compaction), with the tokens each used."""
    used: dict[str, int] = {}
    for item in injected:
        used[item["c"]] = used.get(item["c"], 0) + int(item["t"])
    squeezed = set(json.loads(a.squeezed or "[]"))
    squeezed |= {item["c"] for item in injected if item["d"] == "summary"}
    compacted = json.loads(a.compacted) if a.compacted else {}
    squeezed |= set(compacted.get("categories_compressed", []))
    return {c: used.get(c, 0) for c in squeezed}


def _learn_guideline(db: Database, agent_id: str, a: AssemblyRecord, outcome: Outcome,
                     injected: list[dict[str, Any]], actor: str) -> guidelines.Guideline | None:
    squeezed = _squeezed(a, injected)
    budgets = json.loads(a.budgets or "{}")
    for signal in outcome.missing:
        category = recalibration.signal_category(signal)
        if category is None or category.value not in squeezed:
            continue
        policy = cp.current(db, agent_id)
        if any(g.category == category.value and g.task_type == a.task and g.regime == a.regime
               for g in policy.guidelines):
            return None
        learned = guidelines.learn(ContextCategory(category), a.task, a.regime,
                                   original_tokens=int(budgets.get(category.value, 0)),
                                   compressed_tokens=squeezed[category.value], lost=signal,
                                   impact=f"scored {outcome.quality:.2f}" if outcome.quality is not None
                                   else "went badly", now=now_ms())
        changed = policy.copy_as()
        changed.guidelines = [*policy.guidelines, learned]
        cp.revise(db, agent_id, changed, actor=actor, base=policy.revision,
                  reason=f"compression guideline for {category.value}: {learned.text}")
        return learned
    return None
