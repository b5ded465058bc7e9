"""What the episode routes answer (api/routes/episodes.py)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from grimoire.graph.model.enums import (
    BehavioralPhase,
    EntityKind,
    EpisodeType,
    Importance,
    MarketRegime,
    Outcome,
    PlutchikEmotion,
    Scope,
)


class IngestOut(BaseModel):
    ids: list[str]
    created: list[str]
    existing: list[str]
    audit_ids: list[str]


class MentionOut(BaseModel):
    id: str
    kind: EntityKind | None
    name: str | None


class EpisodeOut(BaseModel):
    """An episode as stored, times in ISO 8601, without its embedding, with the entities it mentions.
    Open: an import (POST /agents/import) restores an episode's properties as exported, which may
    be more than these."""

    model_config = ConfigDict(extra="allow")

    id: str
    agent_id: str | None = None
    clade: str | None = None
    scope: Scope | None = None
    type: EpisodeType | None = None
    text: str | None = None
    tool: str | None = None
    outcome: Outcome | None = None
    outcome_detail: str | None = None
    chain: str | None = None
    token_pair: str | None = None
    tick: int | None = None
    block: int | None = None
    importance: Importance | None = None
    regime: MarketRegime | None = None
    actions: list[str] | None = None
    gain: float | None = None
    consolidated: bool | None = None
    valid_from: str | None = None
    valid_until: str | None = None
    valid_from_block: int | None = None
    valid_until_block: int | None = None
    time_axis: str | None = None  # "block" or "timestamp": which valid time the episode has
    recorded_at: str | None = None
    recorded_until: str | None = None
    last_accessed_at: str | None = None
    access_count: int | None = None
    audit_id: str | None = None
    emotion_primary: PlutchikEmotion | None = None
    pad: list[float] | None = None
    emotion_phase: BehavioralPhase | None = None
    emotion_intensity: float | None = None
    emotion_label: str | None = None
    mentions: list[MentionOut] = []
