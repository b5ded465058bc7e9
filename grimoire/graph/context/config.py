"""The Context Governor's configuration (context-governor.md S7), with the spec's defaults; GRIMOIRE_CONTEXT (JSON)
overrides any of them. The per-agent policy (allocations, overrides, retrieval and compression settings) is not
here: it is learned and kept in the graph (graph/context/policy.py)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from grimoire.graph.context.attention import Ranking


class GovernorConfig(BaseModel):
    soft_budget_tokens: int = Field(default=8_000, ge=1, le=1_000_000, description="a workspace's default budget")
    loop2_interval_hours: float = Field(default=24.0, gt=0, description="Loop 2 recalibrates on this interval")
    max_allocation_delta: float = Field(default=0.02, gt=0, le=1, description="a category's largest move per cycle")
    loop2_on_regime_change: bool = Field(default=True, description="Loop 2 also runs when the regime changes")
    enable_loop3: bool = Field(default=True, description="stage policy mutations from poor outcomes (Loop 3)")
    dream_mutation_confidence: float = Field(default=0.2, gt=0, lt=1, description="a staged mutation's confidence")
    mutation_trial_every: int = Field(default=5, ge=2, le=100, description="one cold assembly in N tries a staged "
                                      "mutation, so later outcomes can validate or refute it")
    mutation_min_trials: int = Field(default=10, ge=1, description="decisions under a mutation before it is judged")
    mutation_max_trials: int = Field(default=30, ge=1, description="undecided after this many: refuted")
    validate_at: float = Field(default=0.6, gt=0, le=1, description="a mutation's confidence that promotes it")
    refute_at: float = Field(default=0.1, ge=0, lt=1, description="a mutation's confidence that discards it")
    enable_contrarian_injection: bool = Field(default=True, description="inject entries of the opposite valence")
    contrarian_count: int = Field(default=3, ge=0, le=20, description="at most this many contrarian entries")
    min_contrarian_tokens: int = Field(default=200, ge=0, description="the contrarian budget's floor while the "
                                       "mood is negative (pleasure < 0)")
    enable_compression_evolution: bool = Field(default=True, description="learn compression guidelines (S3.8)")
    full_episode_slots: int = Field(default=3, ge=0, le=50, description="observation masking: episodes in full")
    summary_episode_slots: int = Field(default=7, ge=0, le=100, description="observation masking: one-line episodes")
    beta_filter: float = Field(default=0.3, ge=0, le=1, description="a soft category whose Beta value in the regime "
                               "is below this is left out (S3.1: Filter)")
    entry_candidates: int = Field(default=120, ge=10, le=1_000, description="entries fetched per assembly, "
                                  "best first, before they are shared out among their categories")
    attention_ranking: Ranking = Field(default=Ranking.efe, description="how a category's candidates are ranked: "
                                       "efe, the four-part attention score (pragmatic + epistemic + affective + "
                                       "mortality urgency), or weighted, relevance x 0.5 + recency x 0.3 + "
                                       "confidence x 0.2 (S3.2)")
    causal_seeds: int = Field(default=12, ge=0, le=100, description="entries whose causal neighbourhood is read")
    causal_edges: int = Field(default=20, ge=0, le=200, description="causal edges fetched at most")
    preassembly_interval_seconds: float = Field(default=5.0, gt=0, description="the kept workspaces are checked "
                                                "(and rebuilt when stale) on this interval")
    preassembly_max_age_seconds: float = Field(default=60.0, gt=0, description="a kept workspace older than this "
                                               "is rebuilt before it is served")
    pad_shift: float = Field(default=0.1, ge=0, le=2, description="a PAD move (Euclidean) beyond this makes the "
                             "kept workspace stale")
    record_window: int = Field(default=500, ge=1, le=100_000, description="Loop 2 reads at most this many records")
    mental_models_in_context: bool = Field(default=True, description="the 13 core mental models go first in every "
                                           "workspace, a fixed block (grimoire.md: always loaded)")
    mental_models_max_share: float = Field(default=0.1, gt=0, le=1, description="the most of a workspace's budget "
                                           "the mental models' block takes: past it, their names on one line")
