"""Request and response models of the learning loop's routes (api/routes/learning.py)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class CycleIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    agent_id: str | None = Field(default=None, description="whose cycle; default: the key's agent (admin: required)")


class CycleOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str
    agent_id: str
    seq: int
    status: str = Field(description="running (interrupted: the next run resumes it) or complete")
    trigger: str
    now: int = Field(description="the cycle's clock (epoch ms): every decision in it uses this time")
    through: int = Field(description="the newest episode it worked on (recorded_at, epoch ms)")
    tick: int | None = None


class CycleReportOut(BaseModel):
    status: str = Field(description="complete, or up_to_date: no episode since the last cycle, nothing changed")
    cycle: CycleOut | None
    counts: dict[str, int] = Field(default_factory=dict, description="operations by kind (ADD, UPVOTE, ...)")
    resumed: bool = False
    seconds: float = 0.0


class OperationOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str
    op: str
    phase: str
    entry_id: str | None = None
    category: str | None = None
    reason: str
    episode_ids: list[str] = Field(default_factory=list)
    episode_count: int = 0
    before_confidence: float | None = None
    after_confidence: float | None = None
    changes: dict[str, Any] = Field(default_factory=dict)
    detail: dict[str, Any] = Field(default_factory=dict)
    seq: int


class StrategyOut(BaseModel):
    strategy: str
    decided: int = Field(description="episodes of the strategy with a positive or negative outcome")
    positives: int
    safety_failures: int = Field(description="negative outcomes at critical or emergency importance")
    performance: float
    safety: float
    psr: float = Field(description="Performance-Safety Ratio: performance x safety")
    eligible: bool = Field(description="PSR above 0.90 over at least 20 decided episodes: it can be packaged")


class StrategyPackageOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    format: str
    agent_id: str
    strategy: str
    performance: StrategyOut
    playbook_section: str
    heuristics: list[dict[str, Any]]
    warnings: list[dict[str, Any]]
    insights: list[dict[str, Any]]
    causal_links: list[dict[str, Any]]
    digest: str = Field(description="sha-256 of the artifact: the same graph packages the same bytes")
