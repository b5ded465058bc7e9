"""Request and response models of the learning loop's routes (api/routes/learning.py)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from grimoire.graph.learning.strategies import StrategyOut as StrategyOut  # declared beside what computes it
from grimoire.graph.learning.strategies import StrategyPackageOut as StrategyPackageOut
from grimoire.graph.learning.strategy_import import ImportedEntry as ImportedEntry
from grimoire.graph.learning.strategy_import import StrategyImported as StrategyImported
from grimoire.graph.learning.strategy_import import StrategyImportIn as StrategyImportIn


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
