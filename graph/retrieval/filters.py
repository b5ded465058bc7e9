"""What a retrieval may return: visibility (always), kinds, categories, status, regimes, an owning
agent, minimum confidence, time on both axes (valid at, known as of), and RAPTOR levels."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from graph.model.common import MAX_INT, AgentId, StrictModel, Unit
from graph.model.enums import EntryCategory, EntryStatus, MarketRegime
from graph.visibility import Visibility

LABELS = {"episodes": "Episode", "entries": "Entry"}
MAX_LEVEL = 3  # RAPTOR levels an entry may carry (an item without one is level 0)
Level = Annotated[int, Field(ge=0, le=MAX_LEVEL)]
KindName = Literal["episodes", "entries"]


def _both() -> list[KindName]:
    return ["episodes", "entries"]


class RetrievalFilters(StrictModel):
    kinds: Annotated[list[KindName], Field(min_length=1, max_length=2)] = Field(
        default_factory=_both, description="episodes, entries or both")
    categories: Annotated[list[EntryCategory], Field(max_length=6)] | None = None
    statuses: Annotated[list[EntryStatus], Field(min_length=1, max_length=4)] = Field(
        default_factory=lambda: [EntryStatus.active, EntryStatus.candidate])
    regimes: Annotated[list[MarketRegime], Field(max_length=6)] | None = None
    agent_id: AgentId | None = Field(default=None, description="only this agent's items (one memory)")
    min_confidence: Unit | None = Field(default=None, description="effective confidence now, after decay")
    valid_at: Annotated[int, Field(ge=0, le=MAX_INT)] | None = Field(default=None, description="valid time (ms)")
    known_as_of: Annotated[int, Field(ge=0, le=MAX_INT)] | None = Field(default=None, description="recorded time (ms)")
    levels: Annotated[list[Level], Field(min_length=1, max_length=MAX_LEVEL + 1)] | None = Field(
        default=None, description="RAPTOR levels: 0 the leaves (episodes and ordinary entries), 1 the summary "
                                  "insights the Curator's compression writes; e.g. [1] for the summary level only")

    def params(self, visibility: Visibility) -> dict[str, Any]:
        return {
            **visibility.params(), "labels": [LABELS[k] for k in self.kinds],
            "categories": [c.value for c in self.categories] if self.categories else None,
            "statuses": [s.value for s in self.statuses],
            "regimes": [r.value for r in self.regimes] if self.regimes else None,
            "agent_id": self.agent_id, "valid_at": self.valid_at, "known_as_of": self.known_as_of,
            "levels": sorted(set(self.levels)) if self.levels else None,
        }
