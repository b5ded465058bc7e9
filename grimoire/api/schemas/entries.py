"""What the knowledge entry and admission routes answer (api/routes/entries.py).

Stored entries and decisions come back as their node's properties, times in ISO 8601 (api/presentation.py)
and without the embedding."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from grimoire.graph.model.enums import (
    AdmissionOutcome,
    BehavioralPhase,
    DecayClass,
    EntryCategory,
    EntryStatus,
    MarketRegime,
    PlutchikEmotion,
    Provenance,
    Scope,
)


class NeighbourOut(BaseModel):
    id: str
    similarity: float
    effective_confidence: float


class DecisionOut(BaseModel):
    candidate_id: str
    decision_id: str | None
    outcome: AdmissionOutcome
    entry_id: str | None
    composite: float
    factors: dict[str, float]
    confidence: float | None
    status: EntryStatus | None
    target_id: str | None
    flags: list[str]
    contradicted: list[str]
    aligned: list[str]
    max_similarity: float
    nearest: list[NeighbourOut]
    quality: dict[str, Any] | None
    reasoner: str
    explanation: str
    existing: bool
    dry_run: bool


class EntryOut(BaseModel):
    """A knowledge entry as stored. Open: an import (POST /agents/import) restores an entry's
    properties as exported, which may be more than these."""

    model_config = ConfigDict(extra="allow")

    id: str
    agent_id: str | None = None
    clade: str | None = None
    scope: Scope | None = None
    category: EntryCategory | None = None
    content: str | None = None
    confidence: float | None = None
    effective_confidence: float | None = None  # now, after decay (reads only)
    status: EntryStatus | None = None
    validated_count: int | None = None
    contradicted_count: int | None = None
    decay_class: DecayClass | None = None
    half_life_ms: float | None = None
    strength: float | None = None
    market_regime: MarketRegime | None = None
    valid_from: str | None = None
    valid_until: str | None = None
    recorded_at: str | None = None
    recorded_until: str | None = None
    last_accessed_at: str | None = None
    updated_at: str | None = None
    tags: list[str] | None = None
    provenance: Provenance | None = None
    source_golem_id: str | None = None
    source_generation: int | None = None
    source_owner_address: str | None = None
    is_bloodstain: bool | None = None
    dream_validated: bool | None = None
    admission_id: str | None = None
    audit_id: str | None = None
    version: int | None = None
    access_count: int | None = None
    inherited_from: str | None = None
    inherited_from_agent: str | None = None
    quality_specificity: float | None = None
    quality_actionability: float | None = None
    quality_novelty: float | None = None
    quality_verifiability: float | None = None
    quality_consistency: float | None = None
    quality_red_flags: list[str] | None = None
    quality_score: float | None = None
    emotion_primary: PlutchikEmotion | None = None
    pad: list[float] | None = None
    emotion_phase: BehavioralPhase | None = None
    emotion_intensity: float | None = None
    emotion_label: str | None = None
    parent_episode_ids: list[str] | None = None  # GET /entries/{id} only
    decision_ids: list[str] | None = None  # GET /entries/{id} only


class StoredDecisionOut(BaseModel):
    """An admission decision as kept, with one factor_<name> per factor score. Open: an import
    restores a decision's properties as exported."""

    model_config = ConfigDict(extra="allow")

    id: str
    agent_id: str | None = None
    at: str | None = None
    candidate_id: str | None = None
    candidate_category: EntryCategory | None = None
    candidate_content: str | None = None
    outcome: AdmissionOutcome | None = None
    composite: float | None = None
    factor_future_utility: float | None = None
    factor_factual_confidence: float | None = None
    factor_semantic_novelty: float | None = None
    factor_temporal_recency: float | None = None
    factor_content_type_prior: float | None = None
    confidence: float | None = None
    status: EntryStatus | None = None
    target_id: str | None = None
    entry_id: str | None = None
    flags: list[str] | None = None
    contradicted: list[str] | None = None
    aligned: list[str] | None = None
    max_similarity: float | None = None
    reasoner: str | None = None
    explanation: str | None = None


class EditOut(BaseModel):
    entry_id: str
    version_id: str = Field(description="the earlier version, kept as an EntryVersion")
    revision: int = Field(description="the entry's revision now")


class VersionOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str
    entry_id: str
    revision: int
    content: str
    market_regime: str | None = None
    valid_from: int | None = None
    valid_until: int | None = Field(default=None, description="when the refinement replaced it")
    recorded_at: int | None = None
    recorded_until: int | None = None
    reason: str | None = None
