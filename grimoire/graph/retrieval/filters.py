"""What a retrieval may return: visibility (always), kinds, categories, status, regimes, an owning
agent, minimum confidence, time on both axes (valid at, known as of), and RAPTOR levels. Known as of a time,
an entry reads as it was recorded then (`as_known`): its text, confidence and scope from the version valid then."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import Field

from grimoire.graph.db.connection import Database
from grimoire.graph.model.common import MAX_INT, AgentId, StrictModel, Unit
from grimoire.graph.model.enums import EntryCategory, EntryStatus, MarketRegime
from grimoire.graph.model.rows import Params
from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.visibility import Visibility

LABELS = {"episodes": "Episode", "entries": "Entry"}
MAX_LEVEL = 3  # RAPTOR levels an entry may carry (an item without one is level 0)
Level = Annotated[int, Field(ge=0, le=MAX_LEVEL)]
KindName = Literal["episodes", "entries"]


def filter_block(var: str) -> str:
    """The retrieval filters as every statement that ranks episodes and entries writes them, word for word
    (tests/unit/test_cypher_contract.py holds the copies in cypher/retrieval/ to it): status and category for
    entries, regimes, valid at, known as of, RAPTOR levels."""
    return (f"({var}:Episode OR (({var}.status IN $statuses) AND ($categories IS NULL OR {var}.category IN "
            "$categories)))"
            f" AND ($regimes IS NULL OR coalesce({var}.regime, {var}.market_regime) IN $regimes)"
            f" AND {_time_and_levels(var)}")


def episode_filter_block(var: str) -> str:
    """The same for a statement that reads episodes only (no status or category; an episode's regime)."""
    return f"($regimes IS NULL OR {var}.regime IN $regimes) AND {_time_and_levels(var)}"


def _time_and_levels(var: str) -> str:
    return (f"($valid_at IS NULL OR ({var}.valid_from <= $valid_at AND ({var}.valid_until IS NULL OR "
            f"{var}.valid_until > $valid_at))) AND ($known_as_of IS NULL OR {var}.recorded_at <= $known_as_of)"
            f" AND ($levels IS NULL OR coalesce({var}.level, 0) IN $levels)")


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

    def params(self, visibility: Visibility) -> Params:
        return {
            **visibility.params(), "labels": [LABELS[k] for k in self.kinds],
            "categories": [c.value for c in self.categories] if self.categories else None,
            "statuses": [s.value for s in self.statuses],
            "regimes": [r.value for r in self.regimes] if self.regimes else None,
            "agent_id": self.agent_id, "valid_at": self.valid_at, "known_as_of": self.known_as_of,
            "levels": sorted(set(self.levels)) if self.levels else None,
        }


def as_known(db: Database, found: Sequence[Candidate], known_as_of: int | None,
             visibility: Visibility) -> list[Candidate]:
    """The candidates as they were recorded at `known_as_of` (ranked as they are now): each entry's text,
    confidence, scope and regime from its version valid then (cypher/retrieval/as_known.cypher); an entry not
    recorded yet then, or whose state then the viewer may not see, is left out. Episodes never change their text.
    Without a time, the candidates as they are."""
    entries = [c.id for c in found if c.kind == "entry"]
    if known_as_of is None or not entries:
        return list(found)
    states = {r["id"]: r["state"] for r in db.rows("retrieval/as_known", ids=entries, known_as_of=known_as_of,
                                                   **visibility.params())}
    out = []
    for c in found:
        if c.kind == "entry":
            s = states.get(c.id)
            if s is None:
                continue
            c.text, c.confidence, c.scope, c.clade = s["content"], s["confidence"], s["scope"], s["clade"]
            c.regime = s["market_regime"] or c.regime
        out.append(c)
    return out
