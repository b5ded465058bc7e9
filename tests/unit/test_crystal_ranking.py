"""A crystal's epistemic layer and priority in retrieval's final score (knowledge-crystals.md lines 64, 118): a
directive ranks above inferred knowledge and a higher priority above a lower one, as tie-breakers (x1.02 at most
each, RetrievalConfig.directive_boost and priority_boost); and the ripple count the dream path samples."""

from __future__ import annotations

import pytest

from grimoire.graph.model.crystal.ripples import RIPPLE_MEAN, ripple_count
from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.retrieval.governance import boost

CFG = RetrievalConfig()


def _boost(layer: str | None = None, priority: int | None = None) -> float:
    return boost(Candidate(id="c", kind="entry", epistemic_layer=layer, priority=priority), CFG.directive_boost,
                 CFG.priority_boost)


def test_a_directive_outranks_inferred_knowledge_by_a_tie_breaker() -> None:
    assert _boost("directive") == pytest.approx(1.02)
    assert _boost("world_fact") == _boost("experience") == _boost("mental_model") == _boost() == 1.0


def test_priority_scales_up_to_the_boost() -> None:
    assert _boost(priority=0) == 1.0 and _boost(priority=50) == pytest.approx(1.01)
    assert _boost(priority=100) == pytest.approx(1.02) and _boost(priority=500) == pytest.approx(1.02)
    assert _boost("directive", 100) == pytest.approx(1.02 * 1.02)
    off = boost(Candidate(id="c", kind="entry", epistemic_layer="directive", priority=100), 0.0, 0.0)
    assert off == 1.0


def test_ripple_counts_are_poisson_and_reproducible() -> None:
    samples = [ripple_count(f"crystal-{i}", 1) for i in range(4_000)]
    mean = sum(samples) / len(samples)
    variance = sum((x - mean) ** 2 for x in samples) / len(samples)
    assert abs(mean - RIPPLE_MEAN) < 0.15 and abs(variance - RIPPLE_MEAN) < 0.3  # Poisson: variance = mean
    assert ripple_count("en-1", 1) == ripple_count("en-1", 1)
    assert min(samples) == 0
