"""What the Pi hook routes answer (api/routes/hooks.py); the requests are graph/hooks.py's TurnIn and CompactIn."""

from __future__ import annotations

from pydantic import BaseModel

from grimoire.graph.model.enums import EpisodeType, Importance, MarketRegime, Outcome, Scope


class TurnWritten(BaseModel):
    turn_id: str
    agent_id: str
    ids: list[str]  # one episode per item, in order (deterministic: re-sending the turn gives the same ids)
    created: list[str]
    existing: list[str]  # already stored: the turn was sent before
    audit_ids: list[str]
    last_id: str  # what the next turn `follows`


class PreservedEntry(BaseModel):
    id: str
    agent_id: str | None
    scope: Scope | None
    content: str | None
    confidence: float | None
    effective_confidence: float  # now, after decay
    strategy: str | None = None
    market_regime: MarketRegime | None = None
    own: bool  # false: shared with the agent's clade by another agent
    recorded_at: int | None  # ms
    is_bloodstain: bool | None = None
    validated_count: int | None = None


class PreservedEpisode(BaseModel):
    id: str
    type: EpisodeType | None
    text: str | None
    tool: str | None = None
    outcome: Outcome | None = None
    tick: int | None = None
    block: int | None = None
    regime: MarketRegime | None = None
    strategy: str | None = None
    interrupted: bool | None = None
    decision_id: str | None = None
    importance: Importance | None = None
    valid_from: int | None  # ms
    recorded_at: int | None  # ms


class PreservedMentalModel(BaseModel):
    id: str
    number: int
    name: str
    application: str


class CompactState(BaseModel):
    """What must survive a context compaction, as data and as the markdown block to put back."""

    agent_id: str
    at: int  # ms: when it was read
    warnings: list[PreservedEntry]
    heuristics: list[PreservedEntry]
    episodes: list[PreservedEpisode]  # the last N unconsolidated, oldest first
    mental_models: list[PreservedMentalModel]
    markdown: str
