"""Whether and how much to retrieve (Self-RAG's adaptive decision, as the spec's heuristic), and
which episodes to replay (Mattar-Daw: gain times need)."""

from __future__ import annotations

from enum import StrEnum


class Decision(StrEnum):
    full = "full"                    # vector + BM25 + graph
    semantic_only = "semantic_only"  # knowledge entries only, no episodes
    light = "light"                  # a small k
    none = "none"                    # nothing: routine and well covered


def decide(curiosity: float, arousal: float, coverage: int) -> Decision:
    """The spec's rules in its order; `none` is added for the routine case it describes (nothing
    new, well covered, calm) but does not spell out."""
    if curiosity > 0.8:
        return Decision.full
    if coverage > 5 and curiosity < 0.4:
        return Decision.none if curiosity <= 0.1 and arousal <= 0.3 else Decision.semantic_only
    if arousal > 0.7:
        return Decision.full
    return Decision.light


def replay_utility(gain: float, max_gain: float, hours_since_replayed: float) -> float:
    """U = gain * need: |gain| normalised to [0, 1] by the largest among the candidates, need =
    1 / time since last replayed (hours, at least one)."""
    g = abs(gain) / max_gain if max_gain > 0 else 0.0
    return g / max(1.0, hours_since_replayed)
