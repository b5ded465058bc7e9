"""Whether and how much to retrieve (Self-RAG's adaptive decision, as the spec's heuristic), and
which episodes to replay (Mattar-Daw: gain times need)."""

from __future__ import annotations

from enum import StrEnum

from grimoire.graph.retrieval.config import AdaptiveDecisionConfig

DEFAULT = AdaptiveDecisionConfig()


class RetrievalDecision(StrEnum):
    full = "full"                    # vector + BM25 + graph
    semantic_only = "semantic_only"  # knowledge entries only, no episodes
    light = "light"                  # a small k
    none = "none"                    # nothing: routine and well covered


def decide(curiosity: float, arousal: float, coverage: int, t: AdaptiveDecisionConfig = DEFAULT) -> RetrievalDecision:
    """The spec's rules in its order, at the thresholds of RetrievalConfig.adaptive; `none` is added for the
    routine case it describes (nothing new, well covered, calm) but does not spell out."""
    if curiosity > t.full_curiosity:
        return RetrievalDecision.full
    if coverage > t.covered and curiosity < t.covered_curiosity:
        return (RetrievalDecision.none if curiosity <= t.routine_curiosity and arousal <= t.routine_arousal
                else RetrievalDecision.semantic_only)
    if arousal > t.full_arousal:
        return RetrievalDecision.full
    return RetrievalDecision.light


def replay_utility(gain: float, max_gain: float, hours_since_replayed: float) -> float:
    """U = gain * need: |gain| normalised to [0, 1] by the largest among the candidates, need =
    1 / time since last replayed (hours, at least one)."""
    g = abs(gain) / max_gain if max_gain > 0 else 0.0
    return g / max(1.0, hours_since_replayed)
