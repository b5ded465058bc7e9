"""What the metrics routes answer (api/routes/metrics.py)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from grimoire.graph.metrics.series import SampleOut
from grimoire.graph.model.common import AgentId


class HealthyRange(BaseModel):
    text: str = Field(description="the spec's healthy range, in words")
    low: float | None = Field(description="its lower bound as a number, where it has one")
    high: float | None = Field(description="its upper bound as a number, where it has one")


class MetricOut(BaseModel):
    name: str
    title: str
    value: float | None = Field(description="null when the store has no input for it (no_input) or too little data")
    unit: str = Field(description="fraction (a share in [0, 1]), score, entries or gain")
    healthy_range: HealthyRange
    healthy: bool | None = Field(description="the value is in the healthy range; null: not judged (no value, "
                                             "or too early for the range to apply)")
    alarm: bool = Field(description="the spec's alarm condition holds (never for a null value)")
    alarm_rule: str
    computation: str = Field(description="the spec's computation and what this store computes it from")
    no_input: str | None = Field(description="why this store cannot compute it, when it cannot")
    detail: dict[str, Any] = Field(description="the counts behind the value (decisions, hits, growth_7d, ...)")


class MetricsOut(BaseModel):
    agent_id: str
    at: str = Field(description="when they were computed (ISO 8601)")
    day: str = Field(description="the UTC day of `at`: the day a sample recorded now is kept under")
    alarms: list[str] = Field(description="the names of the metrics whose alarm is raised")
    metrics: list[MetricOut]


class SeriesOut(BaseModel):
    agent_id: str
    samples: list[SampleOut] = Field(description="by metric name, then day")


class SamplesIn(BaseModel):
    agent_id: AgentId | None = Field(default=None, description="an admin's choice of agent; an admin giving none "
                                                               "records every registered agent; an agent's key "
                                                               "records its own")


class SamplesRecorded(BaseModel):
    day: str
    agents: list[str]
    recorded: int = Field(description="how many samples were written (a day recorded again is overwritten)")
