"""Cognitive quality metrics: an agent's metrics now with their healthy ranges and alarms, their daily
series for plotting, and recording today's samples (the scheduler does it daily)."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from fastapi import APIRouter, Query

from grimoire.api.auth import Reader, Writer
from grimoire.api.deps import DbDep
from grimoire.api.schemas.metrics import (
    HealthyRange,
    MetricOut,
    MetricsOut,
    SamplesIn,
    SamplesRecorded,
    SeriesOut,
)
from grimoire.graph import agents, metrics
from grimoire.graph.agents import Principal
from grimoire.graph.db.connection import Database
from grimoire.graph.errors import Invalid
from grimoire.graph.ids import now_ms
from grimoire.graph.model.common import from_ms

router = APIRouter(tags=["metrics"])

AgentQuery = Annotated[str | None, Query(description="an admin's choice of agent (an agent's key: its own only)")]


def _agent(db: Database, who: Principal, agent_id: str | None) -> str:
    """The agent whose metrics are asked for: the key's own, or the admin's choice (which must exist).
    Another agent's id from an agent's key is a 404, as if it had none."""
    if agent_id is None:
        if who.agent_id is None:
            raise Invalid("the admin key has no agent of its own: give agent_id")
        return who.agent_id
    if not who.is_admin and agent_id != who.agent_id:
        raise metrics.MetricsNotFound(f"no metrics for agent {agent_id!r}")
    return agents.require(db, agent_id)


def _iso(ms: int) -> str:
    return from_ms(ms).isoformat()  # type: ignore[union-attr]


@router.get("/metrics", response_model=MetricsOut, summary="An agent's cognitive quality metrics now, with alarms",
            description="Every metric of the spec's table: its value now (null when the store has no input for "
                        "it, no_input says why, or too little data), its healthy range, whether it is healthy, "
                        "and its alarm. The caller's own agent; an admin names one with agent_id.")
def get_metrics(db: DbDep, who: Reader, agent_id: AgentQuery = None) -> MetricsOut:
    agent = _agent(db, who, agent_id)
    now = now_ms()
    values = metrics.metrics_for(db, agent, who.visibility(), now)
    return MetricsOut(
        agent_id=agent, at=_iso(now), day=metrics.day_of(now), alarms=[v.name for v in values if v.alarm],
        metrics=[MetricOut(name=v.name, title=v.metric.title, value=v.value, unit=v.metric.unit,
                           healthy_range=HealthyRange(text=v.metric.healthy_range, low=v.metric.low,
                                                      high=v.metric.high),
                           healthy=v.healthy, alarm=v.alarm, alarm_rule=v.metric.alarm_rule,
                           computation=v.metric.computation, no_input=v.metric.no_input, detail=v.detail)
                 for v in values])


@router.get("/metrics/series", response_model=SeriesOut, summary="An agent's daily metric samples, for plotting",
            description="The recorded daily samples (one per metric and day), optionally of one metric and "
                        "between two days (inclusive). The caller's own agent; an admin names one with agent_id.")
def get_series(db: DbDep, who: Reader, agent_id: AgentQuery = None,
               name: Annotated[str | None, Query(description=f"one of: {', '.join(metrics.NAMES)}")] = None,
               since: Annotated[date | None, Query(description="first day (YYYY-MM-DD)")] = None,
               until: Annotated[date | None, Query(description="last day (YYYY-MM-DD)")] = None) -> SeriesOut:
    agent = _agent(db, who, agent_id)
    first, last = (since.isoformat() if since else None), (until.isoformat() if until else None)
    samples = metrics.read_series(db, agent, who.visibility(), name=name, since=first, until=last)
    return SeriesOut(agent_id=agent, samples=samples)


@router.post("/metrics/samples", response_model=SamplesRecorded, status_code=201,
             summary="Record today's metric samples now (the agent, or an admin)",
             description="Computes the metrics now and keeps them as today's samples (a day recorded again is "
                         "overwritten). An agent records its own; an admin names an agent, or none for all.")
def record_samples(body: SamplesIn, db: DbDep, who: Writer) -> SamplesRecorded:
    now = now_ms()
    ids = metrics.agent_ids(db) if who.is_admin and body.agent_id is None else [_agent(db, who, body.agent_id)]
    recorded = sum(metrics.record(db, agent, now, actor=who.key_id) for agent in ids)
    return SamplesRecorded(day=metrics.day_of(now), agents=ids, recorded=recorded)
