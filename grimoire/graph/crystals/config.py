"""Knowledge crystals' configuration, with the spec's defaults; GRIMOIRE_CRYSTALS (JSON) overrides any of them."""

from __future__ import annotations

from pydantic import BaseModel, Field

from grimoire.graph.model.crystal.importance import ConsolidationConfig
from grimoire.graph.model.crystal.privacy import MemoryScope


class CrystalsConfig(BaseModel):
    decay_rate: float = Field(default=5e-10, gt=0, description="λ per millisecond (about a 16-day half-life)")
    promote_threshold: float = Field(default=0.7, gt=0, le=1, description="importance above it: promoted")
    forget_threshold: float = Field(default=0.02, ge=0, lt=1, description="importance below it: forgotten")
    merge_overlap_threshold: float = Field(default=0.92, gt=0, le=1, description="the merge's base cosine")
    emotion_decay_resistance: float = Field(default=0.5, ge=0, le=1, description="how much |valence| slows decay")
    consolidation_interval_minutes: float = Field(default=30.0, gt=0, description="a consolidation pass's interval")
    lifespan_interval_seconds: float = Field(default=60.0, gt=0, description="time-to-live expiry's interval")
    reads_flush_seconds: float = Field(default=30.0, gt=0, description="how often the reads noted (searches, "
                                       "retrievals, reads by id) are written as access for relevance")
    purge_retention_days: float = Field(default=30.0, ge=0, description="expired and archived crystals are deleted "
                                        "this long after they reached that state")
    batch: int = Field(default=1_000, ge=10, le=10_000, description="crystals per transaction")
    single_transaction_below: int = Field(
        default=5_000, ge=0, le=100_000, description="a consolidation run over at most this many crystals (episodes "
        "and entries) is one transaction, as knowledge-crystals.md has it; a larger store pages (`batch` per "
        "transaction) under one resumable, audited run; 0: always pages")
    consolidation_max_attempts: int = Field(
        default=3, ge=1, le=100, description="a paged consolidation run that fails this many times (raises, or its "
        "process dies) is given up: marked failed and audited, and the next run starts fresh instead of resuming it")
    memory_scope: MemoryScope = Field(
        default=MemoryScope.private, description="private (the document's): a memory crystal (episode, preference, "
        "relationship, fact, goal) is stored private whatever scope its writer asks for and is never shared, listed "
        "or packaged; as_written: it keeps the scope it is written with (grimoire.md's clade warnings)")
    merge_neighbours: int = Field(default=10, ge=2, le=100, description="vector-index neighbours per promoted "
                                  "crystal considered for a merge")

    def consolidation(self) -> ConsolidationConfig:
        return ConsolidationConfig(decay_rate=self.decay_rate, promote_threshold=self.promote_threshold,
                                   forget_threshold=self.forget_threshold,
                                   merge_overlap_threshold=self.merge_overlap_threshold,
                                   emotion_decay_resistance=self.emotion_decay_resistance)
