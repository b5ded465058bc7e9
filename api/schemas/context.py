"""The Context Governor at the edge (graph/context/): a change to an agent's policy, and the situation whose
allocations are asked for."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from graph.context.categories import ContextCategory, ModelPreference, TaskType
from graph.model.common import StrictModel
from graph.model.enums import BehavioralPhase, MarketRegime

Fraction = Annotated[float, Field(ge=0.0, le=1.0)]
Allocations = dict[ContextCategory, Fraction]
Unit = Annotated[float, Field(ge=-1.0, le=1.0)]


class RetrievalIn(StrictModel):
    similarity_threshold: Fraction | None = None
    max_episode_count: Annotated[int, Field(ge=0, le=100)] | None = None
    min_insight_confidence: Fraction | None = None
    max_causal_depth: Annotated[int, Field(ge=0, le=6)] | None = None
    full_episode_slots: Annotated[int, Field(ge=0, le=50)] | None = None
    summary_episode_slots: Annotated[int, Field(ge=0, le=100)] | None = None


class CompressionIn(StrictModel):
    episode_summary_threshold: Annotated[int, Field(ge=1, le=100_000)] | None = None
    insight_summary_threshold: Annotated[int, Field(ge=1, le=100_000)] | None = None


class PolicyIn(StrictModel):
    """What changes in the policy (what is left out stays): a new revision."""

    allocations: Allocations | None = Field(default=None, description="base fractions per category (merged in)")
    task_overrides: dict[TaskType, Allocations] | None = Field(default=None, description="per task type (replaced)")
    phase_overrides: dict[BehavioralPhase, Allocations] | None = Field(default=None, description="per phase (replaced)")
    regime_overrides: dict[MarketRegime, Allocations] | None = Field(default=None,
                                                                     description="per regime (replaced)")
    retrieval: RetrievalIn | None = None
    compression: CompressionIn | None = None
    model_preference: ModelPreference | None = None
    reason: str = Field(min_length=1, max_length=500, description="why: kept with the revision and its audit record")


class PadIn(StrictModel):
    pleasure: Unit = 0.0
    arousal: Unit = 0.0
    dominance: Unit = 0.0


class SituationIn(StrictModel):
    task: TaskType | None = None
    phase: BehavioralPhase | None = None
    regime: MarketRegime | None = None
    pad: PadIn = PadIn()
