"""A crystal's importance (knowledge-crystals.md, "Phase 1: Score All Chunks"), recalculated from scratch by each
consolidation pass, Ebbinghaus-style:

    I(t) = S · f(n) · e^(−λ_eff · Δt),  S = 1,  f(n) = 1 − e^(−0.1 (n + 1)),
    λ_eff = decayRate · (1 − |valence| · emotionDecayResistance) · (1 − hormonal decay resistance)

Δt in milliseconds since the last access, n the access count: every read counts (a retrieval for a decision, and
the searches, retrievals and reads by id graph/audit/access.py's Reads writes in batches). Emotional valence slows
decay without inflating the score; the hormonal system's decay resistance (at most 0.5) slows it further while the
agent is stressed. What the Grimoire seed keeps never expires whatever its score (cypher/crystals/score_*.cypher):
structural entries, bloodstains, warnings (and clade alerts), and playbook heuristics, which leave only by the
Curator's own rules."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class ConsolidationConfig:
    decay_rate: float = 5e-10             # per ms: a half-life of about 16 days
    promote_threshold: float = 0.7
    forget_threshold: float = 0.02
    merge_overlap_threshold: float = 0.92
    emotion_decay_resistance: float = 0.5


def frequency(access_count: int) -> float:
    """The saturating frequency factor f(n) = 1 − e^(−0.1 (n + 1))."""
    return 1.0 - math.exp(-0.1 * (max(0, access_count) + 1))


def effective_rate(valence: float | None, config: ConsolidationConfig, decay_resistance: float = 0.0) -> float:
    v = min(1.0, abs(valence or 0.0))
    return config.decay_rate * (1.0 - v * config.emotion_decay_resistance) * (1.0 - min(0.5, max(0.0,
                                                                                               decay_resistance)))


def importance(access_count: int, elapsed_ms: float, valence: float | None = None,
               config: ConsolidationConfig = ConsolidationConfig(), decay_resistance: float = 0.0) -> float:
    return frequency(access_count) * math.exp(-effective_rate(valence, config, decay_resistance) * max(0.0, elapsed_ms))


def forgotten(score: float, config: ConsolidationConfig = ConsolidationConfig(), *, skill: bool = False) -> bool:
    """Below the forget threshold a crystal expires — a skill never does."""
    return not skill and score < config.forget_threshold


def promoted(score: float, config: ConsolidationConfig = ConsolidationConfig()) -> bool:
    return score > config.promote_threshold
