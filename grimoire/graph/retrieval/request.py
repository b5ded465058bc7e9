"""What a retrieval is asked: the query, the mode (graph/retrieval/modes/), k and the token
budget, the filters, and the agent's state (block, positions, regime, mood, curiosity)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, field_validator, model_validator

from grimoire.graph.model.common import MAX_INT, StrictModel, Unit
from grimoire.graph.model.enums import MarketRegime
from grimoire.graph.model.vectors import Vector
from grimoire.graph.retrieval import modes
from grimoire.graph.retrieval.filters import RetrievalFilters
from grimoire.graph.retrieval.modes import Needs


def _mode_schema(schema: dict[str, Any]) -> None:
    schema["enum"] = modes.names()  # the modes registered when the schema is made


class RetrievalRequest(StrictModel):
    text: Annotated[str, Field(min_length=1, max_length=4_000)] | None = None
    vector: Vector | None = None
    mode: str = Field(default=modes.DEFAULT, json_schema_extra=_mode_schema, description=(
        "hybrid: vector + BM25 + graph, RRF, rerank, MMR; fusion: vector + BM25 by RRF; vector; bm25; "
        "four_factor; generative_agents; replay: Mattar-Daw over episodes with a gain"))
    k: Annotated[int, Field(ge=1, le=100)] = 10
    budget: Annotated[int, Field(ge=1, le=100_000)] | None = Field(
        default=None, description="tokens; the configured default (500) when absent")
    no_budget: bool = Field(default=False, description="return k results whatever their length")
    filters: RetrievalFilters = Field(default_factory=RetrievalFilters)
    block: Annotated[int, Field(ge=0, le=MAX_INT)] | None = Field(default=None, description="the current block")
    positions: Annotated[list[Annotated[str, Field(max_length=260)]], Field(max_length=100)] = Field(
        default_factory=list, description="entity ids of the agent's positions (graph seeds)")
    entities: Annotated[list[Annotated[str, Field(max_length=260)]], Field(max_length=100)] = Field(
        default_factory=list, description="entity ids the query is about (graph seeds)")
    regime: MarketRegime | None = None
    mood: Annotated[list[Annotated[float, Field(ge=-1, le=1)]], Field(min_length=3, max_length=3)] | None = Field(
        default=None, description="current PAD (pleasure, arousal, dominance)")
    adaptive: bool = Field(default=False, description="decide first whether and how much to retrieve")
    curiosity: Unit = 0.5
    arousal: Unit | None = None
    coverage: Annotated[int, Field(ge=0, le=MAX_INT)] | None = None
    for_decision: bool = Field(default=False, description=(
        "marks results accessed, counts toward contrarian, and returns a decision_id (for the episode that "
        "records the decision's outcome, and POST /retrieve/feedback)"))
    explain: bool = False

    @field_validator("mode")
    @classmethod
    def _registered(cls, mode: str) -> str:
        modes.get(mode)  # UnknownMode, a ValueError: a validation error like any other
        return str(mode)

    @model_validator(mode="after")
    def _query(self) -> RetrievalRequest:
        needs = modes.get(self.mode).needs
        if needs != Needs.nothing and self.text is None and self.vector is None:
            raise ValueError("give text or vector")
        if needs == Needs.text and self.text is None:
            raise ValueError(f"{self.mode} needs text")
        return self
