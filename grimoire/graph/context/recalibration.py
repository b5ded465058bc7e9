"""Loop 2 (context-governor.md S4, "Context Category -> Decision Quality -> Weight Evolution"): the decision
records since the policy was last validated, aggregated into a new revision of its allocations.

The spec's rules (recalibrate_context_weights, ContextCategoryOptimizer): for each category injected, its
reference rate (decisions where one of its items influenced the decision, over decisions where it was injected)
— under 0.1, it shrinks by min(its average tokens x 0.1, 0.015); over 0.6, it grows by 0.02; each missing-context
signal that names it adds 0.005; a category rarely referenced in at least ten decisions while costing tokens (the
attribution fold: efficiency under 0.001 references per token) shrinks by the cap once more. Each change is capped
at 0.02, a category kept at 0.01 at least, and the whole normalised. Normalising moves every category a little, so
the changes are then scaled down together until no category moved by more than the cap: the cap holds for the
allocations the revision stores, not only for the adjustments.

An item "influenced" the decision when it was referenced and the outcome was not bad (quality under 0.5): what
went into a poor decision is not evidence for more of it. Runs on the scheduler (every loop2_interval_hours) and
when a decision's regime differs from the one before (loop2_on_regime_change).

On a regime change it also learns the new regime's policy from experience (S4, learn_regime_policy): with at least
20 decisions recorded in that regime, 5 of them good (quality over 0.7), the tokens the good ones injected per
category, normalised, become the regime's override; fewer, and the regime keeps the override it had."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from grimoire.graph.context import events as context_events
from grimoire.graph.context import policy as cp
from grimoire.graph.context.categories import Allocations, ContextCategory
from grimoire.graph.context.config import GovernorConfig
from grimoire.graph.context.overrides import normalize
from grimoire.graph.db.connection import Database
from grimoire.graph.model.enums import MarketRegime
from grimoire.graph.model.rows import Row

FLOOR = 0.01
SIGNAL_BOOST = 0.005
RARE, FREQUENT = 0.1, 0.6
REGIME_RECORDS, REGIME_GOOD, GOOD_QUALITY = 20, 5, 0.7  # learn_regime_policy's (the document's)

# Missing-context signals, read as the category they ask for (signal_maps_to_category).
SIGNAL_WORDS: dict[ContextCategory, tuple[str, ...]] = {
    ContextCategory.episodes: ("episode", "history", "last time", "previous", "happened", "past trade"),
    ContextCategory.playbook: ("heuristic", "playbook", "rule of thumb", "how to", "procedure"),
    ContextCategory.insights: ("insight", "lesson", "pattern"),
    ContextCategory.causal_edges: ("cause", "causal", "why", "because", "effect"),
    ContextCategory.invariants: ("invariant", "warning", "limit", "constraint", "policy cage", "risk limit"),
    ContextCategory.defi_snapshot: ("price", "pool", "liquidity", "tvl", "gas", "snapshot", "market data",
                                    "position"),
    ContextCategory.strategy: ("strategy", "plan", "goal", "thesis"),
    ContextCategory.contrarian: ("contrarian", "counter", "opposite", "bear case", "downside"),
    ContextCategory.dream_hypotheses: ("dream", "hypothesis"),
    ContextCategory.tool_state: ("tool", "api state", "pending transaction"),
    ContextCategory.mortality: ("mortality", "runway", "vitality", "budget left", "death"),
    ContextCategory.affect: ("mood", "emotion", "affect", "feeling"),
    ContextCategory.owner_control: ("owner", "operator", "instruction", "directive"),
}


class Recalibrated(BaseModel):
    """Loop 2 for one agent: the revision it wrote, from how many decisions, each category's adjustment (before
    the cap and normalising) and how far it moved (after), and the metrics measured."""

    revision: int
    trigger: str
    records: int
    adjustments: dict[str, float]
    delta: dict[str, float]
    metrics: cp.Metrics
    regime_policy: dict[str, float] | None = None  # the regime's override learned at a regime change, if any


class Unchanged(BaseModel):
    """Loop 2 had nothing to read: no revision."""

    revision: None = None
    reason: str = "no decisions since the policy was last validated"


def signal_category(signal: str) -> ContextCategory | None:
    """The category a missing-context signal asks for: its name, or the first whose words it uses."""
    s = signal.strip().lower()
    if s in ContextCategory.__members__:
        return ContextCategory(s)
    for category, words in SIGNAL_WORDS.items():
        if any(w in s for w in words):
            return category
    return None


@dataclass(frozen=True)
class Record:
    """One decision as Loop 2 reads it."""

    injected: Mapping[str, int]          # category → tokens injected
    referenced: frozenset[str]           # categories with an item that influenced the decision
    quality: float | None
    cost: float
    missing: tuple[str, ...]


class DecisionRead(Row):
    """A decision record as the loops read it (the tokens injected per category: JSON)."""

    query = "context/decisions_since"
    id: str
    at: int                               # ms
    regime: str | None
    injected: str | None
    influenced: list[str] | None
    outcome_quality: float | None
    cost: float | None
    missing: list[str] | None


class AgentWithDecisions(Row):
    query = "context/agents_with_decisions"
    agent_id: str
    clade: str | None


def decisions_since(db: Database, agent_id: str, since: int, limit: int) -> list[DecisionRead]:
    """The agent's decision records after `since` (ms), the newest `limit`."""
    return db.typed(DecisionRead, agent_id=agent_id, since=since, limit=limit)


def of_row(row: DecisionRead) -> Record:
    return Record(injected=json.loads(row.injected or "{}"), referenced=frozenset(row.influenced or []),
                  quality=row.outcome_quality, cost=float(row.cost or 0.0), missing=tuple(row.missing or []))


def learn_regime_policy(records: Sequence[Record]) -> Allocations | None:
    """S4 learn_regime_policy: a regime's allocations from the decisions made in it — none under 20 of them or
    under 5 good ones (quality over 0.7); else the tokens the good ones injected per category over all they injected
    (as the document normalises: before it leaves out what is no category, so the shares may sum under 1)."""
    if len(records) < REGIME_RECORDS:
        return None
    good = [r for r in records if r.quality is not None and r.quality > GOOD_QUALITY]
    if len(good) < REGIME_GOOD:
        return None
    known = {c.value for c in ContextCategory}
    tokens: dict[str, float] = {}
    for r in good:
        for category, n in r.injected.items():
            tokens[category] = tokens.get(category, 0.0) + float(n)
    total = sum(tokens.values())
    if total <= 0:
        return None
    return {ContextCategory(c): round(n / total, 6) for c, n in sorted(tokens.items()) if c in known}


def _regime_learned(db: Database, agent_id: str, regime: str | None, window: int) -> Allocations | None:
    if regime is None:
        return None
    return learn_regime_policy([of_row(r) for r in decisions_since(db, agent_id, 0, window) if r.regime == regime])


def adjustments(records: Sequence[Record], cap: float) -> dict[ContextCategory, float]:
    stats: dict[str, list[float]] = {}   # category → [injected, referenced, tokens]
    for r in records:
        for c, n in r.injected.items():
            s = stats.setdefault(c, [0.0, 0.0, 0.0])
            s[0] += 1
            s[1] += 1.0 if c in r.referenced else 0.0
            s[2] += n
    out: dict[ContextCategory, float] = {}
    for c, (injected, referenced, tokens) in stats.items():
        if c not in ContextCategory.__members__:
            continue
        rate, average = referenced / injected, tokens / injected
        if rate < RARE:
            out[ContextCategory(c)] = -min(average * 0.1, 0.015)
            if injected >= 10 and referenced / max(tokens, 1.0) < 0.001:   # the attribution fold
                out[ContextCategory(c)] -= cap
        elif rate > FREQUENT:
            out[ContextCategory(c)] = cap
    for r in records:
        for signal in r.missing:
            category = signal_category(signal)
            if category is not None:
                out[category] = out.get(category, 0.0) + SIGNAL_BOOST
    return out


def apply(before: Mapping[ContextCategory, float], moves: Mapping[ContextCategory, float],
          cap: float) -> Allocations:
    """The allocations after `moves` (each capped, floored at 0.01, normalised), scaled down together until no
    category moved by more than `cap` from `before`."""
    def after(scale: float) -> Allocations:
        return normalize({c: max(FLOOR, v + scale * max(-cap, min(cap, moves.get(c, 0.0))))
                          for c, v in before.items()})

    def worst(a: Allocations) -> float:
        return max(abs(a[c] - before[c]) for c in before)

    if worst(after(1.0)) <= cap + 1e-12:
        return after(1.0)
    low, high = 0.0, 1.0
    for _ in range(40):
        mid = (low + high) / 2
        low, high = (mid, high) if worst(after(mid)) <= cap else (low, mid)
    return after(low)


def metrics(records: Sequence[Record], now: int) -> cp.Metrics:
    judged = [r.quality for r in records if r.quality is not None]
    good = sum(1 for q in judged if q > 0.5)
    return cp.Metrics(decision_quality_avg=sum(judged) / len(judged) if judged else 0.0,
                      token_efficiency=good / (sum(r.cost for r in records) * 1000 + 1.0), last_validated=now)


def recalibrate(db: Database, agent_id: str, clade: str | None, config: GovernorConfig, *, trigger: str,
                actor: str = "context.loop2", tick: int | None = None, regime: str | None = None
                ) -> Recalibrated | None:
    """Loop 2 for one agent over its decisions since the policy was last validated: a new revision (audited, with
    context:policy_updated and context:feedback_loop in its transaction), or None when there was nothing to read."""
    policy = cp.current(db, agent_id)
    since = policy.metrics.last_validated
    rows = decisions_since(db, agent_id, since, config.record_window)
    if not rows:
        return None
    records = [of_row(r) for r in rows]
    moves = adjustments(records, config.max_allocation_delta)
    changed = policy.copy_as()
    changed.allocations = apply(policy.allocations, moves, config.max_allocation_delta)
    # validated up to the newest decision read: one recorded while this ran is read next time
    changed.metrics = metrics(records, max(r.at for r in rows))
    moved = {c.value: round(changed.allocations[c] - policy.allocations.get(c, 0.0), 6) for c in changed.allocations}
    learned = _regime_learned(db, agent_id, regime, config.record_window)  # `regime`: the one just entered
    reason = f"loop 2 ({trigger}): {len(records)} decisions"
    if learned is not None and regime is not None:
        changed.regime_overrides = {**policy.regime_overrides, MarketRegime(regime): learned}
        reason += f"; the {regime} regime's policy learned from its decisions"

    def report(old: cp.Policy, new: cp.Policy) -> list[Any]:
        return [context_events.policy_updated(agent_id, clade, revision=new.revision, trigger=trigger, delta=moved),
                context_events.feedback_loop(agent_id, clade, loop_id=2, tick=tick, record_count=len(records),
                                             adjustments={c.value: round(v, 6) for c, v in moves.items()})]

    new = cp.revise(db, agent_id, changed, actor=actor, reason=reason,
                    base=policy.revision, events=report)
    return Recalibrated(revision=new.revision, trigger=trigger, records=len(records),
                        adjustments={c.value: round(v, 6) for c, v in moves.items()}, delta=moved, metrics=new.metrics,
                        regime_policy={c.value: v for c, v in learned.items()} if learned is not None else None)


def due_agents(db: Database) -> list[AgentWithDecisions]:
    return db.typed(AgentWithDecisions)
