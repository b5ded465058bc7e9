"""The Zeigarnik effect: episodes of interrupted or incomplete actions are retrieved more readily
than those of completed ones (spec: Episodes; Zeigarnik 1927). An episode recorded with
`interrupted` (absent on older episodes: not interrupted) has its final score multiplied by the
configured boost (RetrievalConfig.zeigarnik_boost, 1.2)."""

from __future__ import annotations

from grimoire.graph.retrieval.candidate import Candidate


def boost(item: Candidate, factor: float) -> float:
    """The multiplier of the item's final score: `factor` for an interrupted episode, else 1."""
    return factor if item.interrupted else 1.0
