"""Computing the cognitive metrics of one agent at one time: each metric with input runs its Cypher
file (cypher/metrics/) in one read transaction, and its rule (graph/metrics/catalog.py) judges the value
against the healthy range and the alarm, with the daily series where the rule needs history."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import NotFound
from grimoire.graph.metrics.catalog import CATALOG, DAY_MS, WEEK_MS, Metric, Reading, shift
from grimoire.graph.model.rows import Params, Record
from grimoire.graph.visibility import Visibility

# The windows of ../shared/spec/grimoire.md: most metrics look back 7 days; the PnL rolls over 30.
WINDOWS_MS: dict[str, int] = {"external_metric_trend": 30 * DAY_MS}
MIN_TICKS = 100  # heuristic survival: promoted at least this many ticks before the latest episode


class MetricsNotFound(NotFound):
    """Another agent's metrics: answered as if there were none (404), so existence does not leak."""


@dataclass(frozen=True)
class MetricValue:
    metric: Metric
    value: float | None
    healthy: bool | None
    alarm: bool
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.metric.name


def day_of(now: int) -> str:
    """The UTC day of an epoch-milliseconds time, as YYYY-MM-DD (the series' key)."""
    return datetime.fromtimestamp(now / 1000, tz=UTC).date().isoformat()


def require_own(visibility: Visibility, agent_id: str) -> None:
    """An agent sees only its own metrics; an admin sees anyone's."""
    if not (visibility.admin or visibility.viewer == agent_id):
        raise MetricsNotFound(f"no metrics for agent {agent_id!r}")


def _params(m: Metric, agent_id: str, now: int, day: str) -> Params:
    return {"agent_id": agent_id, "now": now, "window_ms": WINDOWS_MS.get(m.name, WEEK_MS), "day": day,
            "history_from": shift(day, -m.history_days), "min_ticks": MIN_TICKS}


def reading(m: Metric, row: dict[str, Any], day: str) -> Reading:
    """What a metric's Cypher returned, as its rule reads it."""
    value = row.get("value")
    history = {h["day"]: h["value"] for h in row.get("history") or []}
    return Reading(value=None if value is None else float(value), day=day, detail=dict(row.get("detail") or {}),
                   history=history)


def compute_agent(db: Database, agent_id: str, now: int) -> list[MetricValue]:
    """Every metric of the catalog for `agent_id` at `now` (epoch ms), in catalog order; those without
    input in this store have value None. The caller has checked who may see them (`require_own`)."""
    day = day_of(now)
    runnable = [m for m in CATALOG if m.cypher is not None]

    def work(tx: Tx) -> dict[str, Record]:
        rows: dict[str, dict[str, Any]] = {}
        for m in runnable:
            assert m.cypher is not None
            record = tx.run(cypher.query(m.cypher), _params(m, agent_id, now, day)).single()
            rows[m.name] = record.data() if record is not None else {}
        return rows

    rows = db.read(work)
    out = []
    for m in CATALOG:
        if m.cypher is None:
            out.append(MetricValue(metric=m, value=None, healthy=None, alarm=False))
            continue
        r = reading(m, rows[m.name], day)
        verdict = m.judge(r)
        out.append(MetricValue(metric=m, value=r.value, healthy=verdict.healthy, alarm=verdict.alarm,
                               detail=m.details(r)))
    return out


def metrics_for(db: Database, agent_id: str, visibility: Visibility, now: int) -> list[MetricValue]:
    """`compute_agent` for a caller: its own agent, or any agent for an admin (MetricsNotFound otherwise)."""
    require_own(visibility, agent_id)
    return compute_agent(db, agent_id, now)
