"""A crystal's epistemic layer, priority and bounty boost in retrieval's final score (knowledge-crystals.md lines 64,
70, 118): a directive ranks above inferred knowledge, a higher priority above a lower one and a skill that fulfilled a
bounty above one that did not, as tie-breakers (RetrievalConfig.directive_boost, priority_boost, bounty_boost); and
the ripple count the dream path samples."""

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


def test_a_matched_bountys_multiplier_is_a_bounded_tie_breaker() -> None:
    def bounty(multiplier: float | None, weight: float = CFG.bounty_boost) -> float:
        return boost(Candidate(id="c", kind="entry", bounty_priority_boost=multiplier), CFG.directive_boost,
                     CFG.priority_boost, weight)

    assert bounty(None) == bounty(1.0) == bounty(0.5) == 1.0  # no bounty, or a nonsense one: neutral
    assert bounty(2.0) == pytest.approx(1.02) and bounty(10.0) == pytest.approx(1.18)
    assert bounty(50.0) == pytest.approx(1.18)  # the largest multiplier a bounty offers, 10
    assert bounty(3.0, weight=0.0) == 1.0
    both = boost(Candidate(id="c", kind="entry", priority=100, bounty_priority_boost=2.0), CFG.directive_boost,
                 CFG.priority_boost, CFG.bounty_boost)
    assert both == pytest.approx(1.02 * 1.02)


def test_ripple_counts_are_poisson_and_reproducible() -> None:
    samples = [ripple_count(f"crystal-{i}", 1) for i in range(4_000)]
    mean = sum(samples) / len(samples)
    variance = sum((x - mean) ** 2 for x in samples) / len(samples)
    assert abs(mean - RIPPLE_MEAN) < 0.15 and abs(variance - RIPPLE_MEAN) < 0.3  # Poisson: variance = mean
    assert ripple_count("en-1", 1) == ripple_count("en-1", 1)
    assert min(samples) == 0
