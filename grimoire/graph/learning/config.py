"""Every threshold of the learning loop, with the spec's defaults (../shared/spec/grimoire.md: Learning
Pipeline, Curator Cycle, Curator Cycle Pipeline, Rewrite4 Curator Specification); GRIMOIRE_LEARNING (JSON)
overrides them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from grimoire.graph.model.enums import EntryCategory


class LearningConfig(BaseModel):
    every_ticks: int = Field(default=50, ge=1, description="a cycle every N ticks of the agent")
    interval_seconds: float = Field(default=600.0, gt=0, description="and a sweep of all agents on this interval")
    batch: int = Field(default=1_000, ge=1, le=10_000, description="rows per transaction")
    yield_seconds: float = Field(default=0.5, ge=0, description="each statement of a cycle waits up to this long "
                                 "for the requests in flight to finish (requests first)")
    pause_ratio: float = Field(default=3.0, ge=0, le=20, description="while requests come in, a cycle pauses this "
                               "many times as long as each statement took (0: only waits for requests in flight)")
    niceness: int = Field(default=10, ge=0, le=19, description="cycles run on a thread this much nicer than the "
                          "service's (Linux): requests beside a cycle keep their pace")
    switch_interval_ms: float = Field(default=0.5, gt=0, le=50, description="the service's interpreter hands its "
                                      "lock between threads this often (Python's default: 5 ms), so a request "
                                      "waits less behind a cycle's Python work")
    # DISTILL
    min_cluster: int = 3
    coherence: float = 0.7                 # compression needs mean pairwise cosine above it
    compression_discount: float = 0.9      # the compressed insight's confidence: cluster mean x 0.9
    compression_sample: int = 64           # coherence is measured on at most this many (newest) episodes
    episode_confidence: float = 0.6        # an episode without a stated confidence counts this
    lesson_confidence: float = 0.5         # ADD: a new lesson's confidence
    edit_share: float = 0.7                # a lesson is refined when this share of its cluster contradicts it
    # ExpeL (grimoire.md:1388-1391): after every `expel_every` episodes recorded within a strategy (counted per agent
    # and strategy since its last distillation), that strategy's recent episodes are distilled on the scheduler.
    expel_every: int = Field(default=10, ge=1, description="ExpeL distils an agent's strategy after this many new "
                             "episodes of it (grimoire.md: every 10 episodes within a strategy)")
    expel_add: Literal["insight", "lesson"] = Field(
        default="insight", description="what ExpeL's ADD writes: an Insight (the document's operation) or, as the "
        "Curator cycle's DISTILL does, a Heuristic ('Use ...') or a Warning ('Avoid ...')")
    expel_interval_seconds: float = Field(default=60.0, gt=0, description="the scheduler looks for strategies past "
                                          "`expel_every` this often (ingest also asks for a run at once)")
    # Votes net per entry (3 up and 1 down nets +2): +0.1 per net up, -0.15 per net down.
    upvote_step: float = 0.1
    downvote_step: float = 0.15
    # PROMOTE
    promote_at: dict[str, float] = Field(default_factory=lambda: {
        EntryCategory.Insight.value: 0.6, EntryCategory.Heuristic.value: 0.7, EntryCategory.CausalLink.value: 0.6,
        EntryCategory.StrategyFragment.value: 0.6, EntryCategory.DreamJournal.value: 0.6,
    })
    # The consistency check of a promotion, with a language model configured (graph/learning/consistency.py): held
    # below this mean pairwise cosine. The admission table gives consistency no threshold; this is the document's
    # alarm line for the same measure, reflection consistency (grimoire.md:1495, < 0.5).
    consistency_hold_below: float = Field(default=0.5, ge=0, le=1, description="with a language model configured, "
                                          "a promotion is held when the claim's consistency (the mean pairwise "
                                          "cosine of it and three restatements) is under this")
    # DECAY
    demote_below: float = 0.4
    low_below: float = 0.1
    low_cycles: int = 3
    prune_quality: float = 0.05
    prune_access: int = 2
    # What the prune compares with prune_quality (grimoire.md:1444): "document" (the default) is confidence x
    # validated / (validated + contradicted + 1); "artifact" is the entry's stored quality_score (line 1440's name).
    prune_rule: Literal["document", "artifact"] = Field(
        default="document", description="the quality the Curator prunes on: document = confidence x validated / "
        "(validated + contradicted + 1) (grimoire.md:1444); artifact = the entry's stored quality_score")
    # Validate recorded predictions: correct x1.05 (capped at 0.99), wrong x0.90.
    prediction_up: float = 0.05
    prediction_cap: float = 0.99
    prediction_down: float = 0.10
