"""The daily series of the cognitive metrics: one (:MetricSample {id: agent_id:day:name}) per agent,
day and metric with input, merged on its id so that recording a day again overwrites that day's value
(the daily job is idempotent), and read back by name and day range for plotting.

Samples are derived measurements, recomputable from the graph at any time: recording them changes no
knowledge, so each recording's audit record carries a Noop revert."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from grimoire.graph.audit import Audit, Noop
from grimoire.graph.audit.versions import counted
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import Invalid
from grimoire.graph.metrics.catalog import NAMES
from grimoire.graph.metrics.compute import MetricValue, compute_agent, day_of, require_own
from grimoire.graph.model.common import StoredTime
from grimoire.graph.model.rows import Row
from grimoire.graph.visibility import Visibility

SCHEDULER = "scheduler"  # the actor of the daily job's audit records


class UnknownMetric(Invalid):
    """A series asked for by a name the catalog does not have (422)."""


@dataclass(frozen=True)
class Sample:
    agent_id: str
    day: str
    name: str
    value: float | None
    at: int

    @property
    def id(self) -> str:
        return f"{self.agent_id}:{self.day}:{self.name}"


def samples_of(agent_id: str, values: list[MetricValue], now: int) -> list[Sample]:
    """Today's samples of the metrics that have input (a null value is kept: a gap in the plot)."""
    day = day_of(now)
    return [Sample(agent_id, day, v.name, v.value, now) for v in values if v.metric.no_input is None]


def write(db: Database, samples: list[Sample], *, actor: str) -> int:
    """Merge the samples (one transaction, with its audit record); returns how many were written."""
    if not samples:
        return 0
    agents = {s.agent_id for s in samples}
    audit = Audit(action="metrics.record", actor=actor, agent_id=agents.pop() if len(agents) == 1 else None,
                  at=max(s.at for s in samples))
    rows = [{"id": s.id, "agent_id": s.agent_id, "day": s.day, "name": s.name, "value": s.value, "at": s.at}
            for s in samples]

    def work(tx: Tx) -> int:
        row = tx.run(cypher.query("metrics/record_samples"), samples=rows).single()
        audit.write(tx, [s.id for s in samples], f"{len(samples)} metric samples for {samples[0].day}",
                    [Noop(reason="metric samples are derived measurements: recomputed from the graph, "
                                 "a day recorded again is overwritten")],
                    [counted("MetricSample", v["id"], v["version"]) for v in (row["versions"] if row else [])])
        return int(row["recorded"]) if row else 0

    return db.write(work)


def record(db: Database, agent_id: str, now: int, *, actor: str) -> int:
    """Compute the agent's metrics at `now` and record them as the samples of `now`'s day."""
    return write(db, samples_of(agent_id, compute_agent(db, agent_id, now), now), actor=actor)


def agent_ids(db: Database) -> list[str]:
    return [r["id"] for r in db.rows("metrics/agents")]


def record_all(db: Database, now: int, *, actor: str = SCHEDULER) -> int:
    """The daily job: record `now`'s day of samples for every registered agent (one transaction per
    agent); returns how many samples were written. Running it again the same day overwrites them."""
    return sum(record(db, agent_id, now, actor=actor) for agent_id in agent_ids(db))


class SampleOut(Row):
    """One recorded daily sample (cypher/metrics/series.cypher)."""

    query = "metrics/series"
    name: str
    day: str
    value: float | None
    at: StoredTime = Field(description="when the sample was computed (ISO 8601)")


def read_series(db: Database, agent_id: str, visibility: Visibility, *, name: str | None = None,
                since: str | None = None, until: str | None = None) -> list[SampleOut]:
    """The agent's samples (by name, then day), optionally of one metric and between two days inclusive."""
    require_own(visibility, agent_id)
    if name is not None and name not in NAMES:
        raise UnknownMetric(f"no metric named {name!r}; the metrics are {', '.join(NAMES)}")
    return db.typed(SampleOut, agent_id=agent_id, name=name, since=since, until=until, **visibility.params())
