"""What the knowledge reads answer: an entry and an admission decision as stored, typed at the database's edge
(their rows below, `Database.typed`), times as ISO 8601 (`StoredTime`), never an embedding; and the 13 mental
models each with the entry that holds it."""

from __future__ import annotations

from pydantic import BaseModel, Field

from grimoire.graph.model.common import StoredNode, StoredTime
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
from grimoire.graph.model.rows import Row


class EntryOut(StoredNode):
    """A knowledge entry as stored. Open: an import (POST /agents/import) restores an entry's
    properties as exported, which may be more than these."""

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
    valid_from: StoredTime | None = None
    valid_until: StoredTime | None = None
    recorded_at: StoredTime | None = None
    recorded_until: StoredTime | None = None
    last_accessed_at: StoredTime | None = None
    updated_at: StoredTime | None = None
    tags: list[str] | None = None
    provenance: Provenance | None = None
    source_golem_id: str | None = None
    source_generation: int | None = None
    source_owner_address: str | None = None
    is_bloodstain: bool | None = None
    dream_validated: bool | None = None
    live_confirmed: bool | None = None  # upvoted or used well: half the decay rate (grimoire.md class D)
    dream_count: int | None = None  # dreams that validated it (the dream path: a dream-validated outcome)
    last_dreamed_at: StoredTime | None = None
    last_ripple_count: int | None = None  # Poisson-sampled on the dream path (graph/model/crystal/ripples.py)
    admission_id: str | None = None
    audit_id: str | None = None
    version: int | None = None
    access_count: int | None = None
    inherited_from: str | None = None
    inherited_from_agent: str | None = None
    imported_from: str | None = None  # a clade mate's strategy package imported: the source entry (its owner's)
    imported_from_agent: str | None = None
    import_strategy: str | None = None
    import_digest: str | None = None  # the package's sha-256
    source_confidence: float | None = None  # the source entry's confidence, before the clade's 0.8x
    quality_specificity: float | None = None
    quality_actionability: float | None = None
    quality_novelty: float | None = None
    quality_verifiability: float | None = None
    quality_consistency: float | None = None
    quality_red_flags: list[str] | None = None
    quality_score: float | None = None
    promotion_held: bool | None = None  # PROMOTE held it: its consistency (a model configured) under the threshold
    emotion_primary: PlutchikEmotion | None = None
    pad: list[float] | None = None
    emotion_phase: BehavioralPhase | None = None
    emotion_intensity: float | None = None
    emotion_label: str | None = None
    # the crystal's payload (knowledge-crystals.md, lines 25-29): its source, the file lines it was read from
    # (a writer that imports from files), and the content hash that deduplicates before cosine
    memory_source: str | None = None
    source_path: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    content_hash: str | None = None
    parent_episode_ids: list[str] | None = None  # GET /entries/{id} only
    decision_ids: list[str] | None = None  # GET /entries/{id} only


class StoredDecisionOut(StoredNode):
    """An admission decision as kept, with one factor_<name> per factor score. Open: an import
    restores a decision's properties as exported."""

    id: str
    agent_id: str | None = None
    at: StoredTime | None = None
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


class EntryRow(Row):
    """One entry read by id (cypher/entries/get.cypher): its properties, its effective confidence now, and the
    episodes and decisions the viewer may see behind it."""

    query = "entries/get"
    entry: EntryOut
    effective_confidence: float | None  # null for an entry without a confidence (an import's)
    parent_episode_ids: list[str]
    decision_ids: list[str]

    def answer(self) -> EntryOut:
        return self.entry.model_copy(update={"effective_confidence": self.effective_confidence,
                                             "parent_episode_ids": self.parent_episode_ids,
                                             "decision_ids": self.decision_ids})


class EntryListRow(Row):
    query = "entries/list"
    entry: EntryOut
    effective_confidence: float | None  # null for an entry without a confidence (an import's)

    def answer(self) -> EntryOut:
        return self.entry.model_copy(update={"effective_confidence": self.effective_confidence})


class DecisionRow(Row):
    query = "entries/get_decision"
    decision: StoredDecisionOut


class EditOut(BaseModel):
    entry_id: str
    version_id: str = Field(description="the earlier version, kept as an EntryVersion")
    revision: int = Field(description="the entry's revision now")


class EntryVersionOut(StoredNode):
    """An earlier version of an entry (an EntryVersion node), times in epoch milliseconds as stored."""

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


class VersionRow(Row):
    query = "entries/versions"
    version: EntryVersionOut


class MentalModelOut(BaseModel):
    """One of the 13 core mental models (the spec's Mental Models Library) and the entry that holds it.
    `stored` is false only when its entry is missing from the graph (it is seeded at start-up and by
    `grimoire schema`); the entry's fields are null then."""

    id: str  # the entry id, e.g. mental-model:first-principles
    number: int
    name: str
    application: str  # the spec's "DeFi Application"
    content: str  # the entry's text, what retrieval matches
    stored: bool
    agent_id: str | None = None
    scope: Scope | None = None
    category: EntryCategory | None = None
    status: EntryStatus | None = None
    decay_class: DecayClass | None = None
    confidence: float | None = None
    effective_confidence: float | None = None
    quality_score: float | None = None
    tags: list[str] | None = None
    recorded_at: StoredTime | None = None
