"""The cognitive quality metrics of ../shared/spec/grimoire.md ("Cognitive Quality Metrics"), one
definition each: what the spec computes, what this store computes it from, the healthy range, and the
alarm rule as code (pure functions of a `Reading`, tested in tests/unit/test_metrics_catalog.py).

Values that are shares are fractions in [0, 1] (the spec's 40-60% is 0.4-0.6). A metric whose input is
not in the store names the reason in `no_input` and is served with value null; a metric with too little
data (no decisions in the window, say) is null too. A null value is never healthy or unhealthy (None)
and never raises the alarm. Rules that need history read the daily series (graph/metrics/series.py):
`Reading.history` holds the samples of the days before the reading's own day, by day."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from grimoire.graph.model.rows import FreeForm

DAY_MS = 86_400_000
WEEK_MS = 7 * DAY_MS
EPSILON = 1e-9  # float noise: a series of equal values is not declining


@dataclass(frozen=True)
class Reading:
    """A metric's value for one agent on one day, what the Cypher returned besides (`detail`), and the
    recorded samples of the days before `day` (`history`: day -> value; a day without a sample is absent)."""

    value: float | None
    day: str
    detail: Mapping[str, Any] = field(default_factory=dict)
    history: Mapping[str, float | None] = field(default_factory=dict)

    def back(self, days: int) -> float | None:
        """The sample `days` days before `day` (0: the value itself); None when there is none."""
        if days == 0:
            return self.value
        return self.history.get(shift(self.day, -days))


@dataclass(frozen=True)
class Verdict:
    healthy: bool | None  # None: not judged (no value, or too early for the range to apply)
    alarm: bool


UNJUDGED = Verdict(healthy=None, alarm=False)
Rule = Callable[[Reading], Verdict]


@dataclass(frozen=True)
class Metric:
    name: str
    title: str
    computation: str          # the spec's computation, and what this store computes it from
    healthy_range: str        # the spec's healthy range, in words
    alarm_rule: str           # the spec's alarm, in words, as `rule` implements it
    unit: str                 # fraction | score | entries | gain
    low: float | None = None  # the healthy range as numbers, where it has them (inclusive unless said)
    high: float | None = None
    cypher: str | None = None  # cypher/<cypher>.cypher returns value, detail and (when history_days) history
    history_days: int = 0     # how many days of this metric's own series the rule reads
    rule: Rule | None = None
    no_input: str | None = None  # why this store cannot compute it
    derived: Callable[[Reading], dict[str, Any]] | None = None  # detail computed from the series

    def details(self, reading: Reading) -> FreeForm:
        """The Cypher's detail with what `derived` adds from the series (keys each metric's statement chooses)."""
        extra = self.derived(reading) if self.derived is not None and reading.value is not None else {}
        return {**reading.detail, **extra}

    def judge(self, reading: Reading) -> Verdict:
        if reading.value is None or self.rule is None:
            return UNJUDGED
        return self.rule(reading)


def shift(day: str, days: int) -> str:
    """An ISO day moved by `days` (negative: earlier)."""
    return (date.fromisoformat(day) + timedelta(days=days)).isoformat()


def _between(v: float, low: float, high: float) -> bool:
    return low <= v <= high


# ---------------------------------------------------------------- the rules


def admission_rate(r: Reading) -> Verdict:
    v = _value(r)
    return Verdict(healthy=_between(v, 0.4, 0.6), alarm=v < 0.2 or v > 0.8)


def previous_mean(r: Reading, days: int = 7) -> float | None:
    """The mean of the samples of the `days` days before the reading's day (None without any)."""
    values = [x for d in range(1, days + 1) if (x := r.back(d)) is not None]
    return sum(values) / len(values) if values else None


def average_quality(r: Reading) -> Verdict:
    v = _value(r)
    before = previous_mean(r)
    declining = before is not None and v < before - EPSILON
    return Verdict(healthy=_between(v, 0.5, 0.8), alarm=v < 0.4 or declining)


def growth(r: Reading, days: int = 7) -> float | None:
    """(size now - size `days` days ago) / size then; None without that sample, or from an empty store."""
    then = r.back(days)
    if then is None or then == 0:
        return None
    return (_value(r) - then) / then


def grew_every_day(r: Reading, days: int = 7) -> bool:
    """Each of the last `days` days ended larger than the day before (every sample present)."""
    values = [r.back(d) for d in range(days, -1, -1)]
    return all(a is not None and b is not None and b > a for a, b in zip(values, values[1:], strict=False))


def grimoire_size(r: Reading) -> Verdict:
    """Unbounded growth: larger every day of the last 7 days and more than 50% larger than 7 days ago
    (from an empty store, any growth is more than 50%)."""
    g = growth(r)
    then = r.back(7)
    over_half = then is not None and (then == 0 or (g is not None and g > 0.5))
    return Verdict(healthy=None if then is None else not over_half, alarm=grew_every_day(r) and over_half)


def retrieval_hit_rate(r: Reading) -> Verdict:
    """The range applies once the agent has decided for 7 days (its first retrieval for a decision is
    a week old): before that, not judged and no alarm."""
    if not r.detail.get("mature"):
        return UNJUDGED
    v = _value(r)
    return Verdict(healthy=v > 0.3, alarm=v < 0.1)


def heuristic_survival(r: Reading) -> Verdict:
    v = _value(r)
    return Verdict(healthy=_between(v, 0.4, 0.7), alarm=v < 0.2 or v > 0.9)


def consecutive_declines(r: Reading, limit: int) -> int:
    """How many days in a row, up to `limit`, ended lower than the day before, counting back from the value."""
    n = 0
    while n < limit:
        later, earlier = r.back(n), r.back(n + 1)
        if later is None or earlier is None or not later < earlier - EPSILON:
            break
        n += 1
    return n


def external_trend(r: Reading) -> Verdict:
    """Improving or stable: not lower than the day before. Alarm: lower than the day before on 14
    consecutive days (15 daily values, each below the one before)."""
    yesterday = r.back(1)
    healthy = None if yesterday is None else _value(r) >= yesterday - EPSILON
    return Verdict(healthy=healthy, alarm=consecutive_declines(r, 14) >= 14)


def dream_yield(r: Reading) -> Verdict:
    v = _value(r)
    return Verdict(healthy=_between(v, 0.1, 0.3), alarm=v < 0.05 or v > 0.5)


def prediction_accuracy(r: Reading) -> Verdict:
    v = _value(r)
    return Verdict(healthy=v > 0.9, alarm=v < 0.8)


# The document's numbers for the three metrics it gives no store for (grimoire.md:1495-1498).
REFLECTION_HEALTHY, REFLECTION_ALARM = 0.7, 0.5
CACHE_HEALTHY, CACHE_ALARM = 0.3, 0.1
CACHE_MATURE_DAYS, CACHE_ALARM_DAYS = 7, 14
THREATS_HEALTHY = 1.0


def reflection_consistency(r: Reading) -> Verdict:
    v = _value(r)
    return Verdict(healthy=v > REFLECTION_HEALTHY, alarm=v < REFLECTION_ALARM)


def decision_cache_hit_rate(r: Reading) -> Verdict:
    """> 30% once the agent has decided for 7 days (before: not judged); the alarm, < 10%, after 14 days."""
    days = float(r.detail.get("days") or 0.0)
    if days < CACHE_MATURE_DAYS:
        return UNJUDGED
    v = _value(r)
    return Verdict(healthy=v > CACHE_HEALTHY, alarm=v < CACHE_ALARM and days >= CACHE_ALARM_DAYS)


def threat_coverage(r: Reading) -> Verdict:
    v = _value(r)
    covered = v >= THREATS_HEALTHY - EPSILON
    return Verdict(healthy=covered, alarm=not covered)


def _value(r: Reading) -> float:
    assert r.value is not None  # Metric.judge never calls a rule without a value
    return r.value


# ---------------------------------------------------------------- the catalog

CATALOG: tuple[Metric, ...] = (
    Metric(
        name="admission_rate", title="Admission rate",
        computation="% of candidates passing the Admission Gate: the agent's AdmissionDecision nodes of the last "
                    "7 days (by `at`) whose outcome is admitted, admitted_low or merged, over all of them "
                    "(rejected, skipped and quarantined do not pass)",
        healthy_range="40-60%", alarm_rule="< 20% or > 80%", unit="fraction", low=0.4, high=0.6,
        cypher="metrics/admission_rate", rule=admission_rate),
    Metric(
        name="average_quality_7d", title="Average quality score (7d)",
        computation="Mean of admitted entries: the mean quality_score of the agent's entries recorded in the "
                    "last 7 days (by `recorded_at`)",
        healthy_range="0.5-0.8",
        alarm_rule="< 0.4, or declining: below the mean of this metric's daily samples of the previous 7 days",
        unit="score", low=0.5, high=0.8, cypher="metrics/average_quality_7d", history_days=7,
        rule=average_quality),
    Metric(
        name="grimoire_size", title="Grimoire size",
        computation="Active entry count: the agent's entries with status active; detail.growth_7d is the growth "
                    "over the sample of 7 days before, from the daily series",
        healthy_range="slow growth, plateau (at most 50% over 7 days)",
        alarm_rule="unbounded growth: larger than the day before on every day of the last 7 days, and more than "
                   "50% larger than 7 days before",
        unit="entries", cypher="metrics/grimoire_size", history_days=7, rule=grimoire_size,
        derived=lambda r: {"growth_7d": growth(r)}),
    Metric(
        name="retrieval_hit_rate", title="Retrieval hit rate",
        computation="% DECIDING ticks referencing retrieved entries: the agent's AccessRecord nodes of action "
                    "retrieval.for_decision of the last 7 days (by `at`) that an Episode of the agent names as "
                    "its decision_id, over all of them",
        healthy_range="> 30% after 7 days",
        alarm_rule="< 10%, once the agent's first retrieval for a decision is 7 days old (before: not judged)",
        unit="fraction", low=0.3, cypher="metrics/retrieval_hit_rate", rule=retrieval_hit_rate),
    Metric(
        name="heuristic_survival", title="Heuristic survival rate",
        computation="% promoted heuristics active after 100 ticks: the Heuristic entries the agent's Curator "
                    "PROMOTE operations act on, in cycles (IN_CYCLE, the CuratorCycle's tick) at least 100 "
                    "ticks before the agent's latest episode tick, that still have status active, over all of them",
        healthy_range="40-70%", alarm_rule="< 20% or > 90%", unit="fraction", low=0.4, high=0.7,
        cypher="metrics/heuristic_survival", rule=heuristic_survival),
    Metric(
        name="external_metric_trend", title="External metric trend",
        computation="PnL (30d rolling): the sum of the `gain` of the agent's episodes of the last 30 days (by "
                    "valid_from); detail.max_drawdown is the largest fall of their cumulative gain (from 0, in "
                    "valid_from order) below its running peak. No Sharpe: episodes carry no return series",
        healthy_range="improving or stable (not below the day before)",
        alarm_rule="declining 14+ days: the daily series of the rolling PnL lower than the day before on 14 "
                   "consecutive days",
        unit="gain", cypher="metrics/external_metric_trend", history_days=14, rule=external_trend),
    Metric(
        name="reflection_consistency", title="Reflection consistency",
        computation="Cosine across regenerated reflections (weekly): the agent's Reflexion comparisons of the last 7 "
                    "days (by `at`) that reflect on the same recurring prediction (one series in one regime), the "
                    "mean pairwise cosine of their verdicts (one-hot: 1 when two agree, 0 when not), pooled over "
                    "the pairs",
        healthy_range="> 0.7", alarm_rule="< 0.5", unit="score", low=0.7,
        cypher="metrics/reflection_consistency", rule=reflection_consistency),
    Metric(
        name="decision_cache_hit_rate", title="DecisionCache hit rate",
        computation="% T2-eligible ticks from cache: the agent's decisions of the last 7 days (ContextDecision, "
                    "each a tick that called a model) decided on a workspace served from the context governor's "
                    "kept one (built ahead by pre-assembly, or built for an earlier decision and served again)",
        healthy_range="> 30% after 7 days", alarm_rule="< 10% once the agent's first decision is 14 days old",
        unit="fraction", low=0.3, cypher="metrics/decision_cache_hit_rate", rule=decision_cache_hit_rate),
    Metric(
        name="dream_yield", title="Dream yield",
        computation="% staged revisions reaching validated: the agent's staged context-policy mutations (Loop 3, "
                    "which context-governor.md runs in dream cycles) decided in the last 7 days that were validated",
        healthy_range="10-30%", alarm_rule="< 5% or > 50%", unit="fraction", low=0.1, high=0.3,
        cypher="metrics/dream_yield", rule=dream_yield),
    Metric(
        name="threat_coverage", title="Threat coverage",
        computation="% Tier 1 threats rehearsed in last 7 dream cycles: of the agent's warnings (candidate or "
                    "active, bloodstains among them), the share read, given in a workspace or retrieved for a "
                    "decision in the last 7 days (one cycle a day)",
        healthy_range="100%", alarm_rule="< 100%", unit="fraction", low=1.0, high=1.0,
        cypher="metrics/threat_coverage", rule=threat_coverage),
    Metric(
        name="prediction_accuracy", title="Prediction accuracy",
        computation="% of predictions within tolerance of the actual (the spec: simulateContract() within 50bps): "
                    "the agent's Reflection nodes of the last 7 days (by `at`) with verdict correct, over all of them",
        healthy_range="> 90%", alarm_rule="< 80%", unit="fraction", low=0.9,
        cypher="metrics/prediction_accuracy", rule=prediction_accuracy),
)

BY_NAME: dict[str, Metric] = {m.name: m for m in CATALOG}
NAMES: tuple[str, ...] = tuple(BY_NAME)
WITH_INPUT: tuple[Metric, ...] = tuple(m for m in CATALOG if m.no_input is None)


def metric(name: str) -> Metric:
    """The definition named `name` (KeyError when there is none: callers check against NAMES)."""
    return BY_NAME[name]
