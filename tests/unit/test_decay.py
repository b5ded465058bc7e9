"""Effective confidence by hand from the spec's numbers, in Python and in Cypher."""

from __future__ import annotations

import math

import pytest

from grimoire.graph.knowledge import decay
from grimoire.graph.knowledge.decay import DAY_MS, effective_confidence, half_life_ms, retention
from grimoire.graph.model.enums import DecayClass, EntryCategory, Provenance

NOW = 1_760_000_000_000

# (case, kind, decay class, provenance, dream validated, bloodstain, quality, expected half-life in days)
CASES = [
    ("tactical", EntryCategory.Insight, DecayClass.tactical, Provenance.SelfLearned, False, False, 0.6, 7),
    ("regime-conditional", EntryCategory.Insight, DecayClass.regime_conditional, Provenance.SelfLearned,
     False, False, 0.6, 14),
    ("ephemeral", EntryCategory.Heuristic, DecayClass.ephemeral, Provenance.SelfLearned, False, False, 0.6, 1),
    ("insight by type", EntryCategory.Insight, None, Provenance.SelfLearned, False, False, 0.6, 7),
    ("heuristic by type", EntryCategory.Heuristic, None, Provenance.SelfLearned, False, False, 0.6, 14),
    ("warning by type", EntryCategory.Warning, None, Provenance.SelfLearned, False, False, 0.6, 30),
    ("dream validated: half the rate", EntryCategory.Insight, DecayClass.tactical, Provenance.SelfLearned,
     True, False, 0.6, 14),
    ("dream provenance: half the rate", EntryCategory.Insight, DecayClass.regime_conditional, Provenance.Dream,
     False, False, 0.6, 28),
    ("bloodstain: three times slower", EntryCategory.Warning, None, Provenance.DeathReflection, False, True, 0.6, 90),
    ("low quality: twice as fast", EntryCategory.Insight, DecayClass.tactical, Provenance.SelfLearned,
     False, False, 0.29, 3.5),
    ("quality 0.3 is not low", EntryCategory.Insight, DecayClass.tactical, Provenance.SelfLearned,
     False, False, 0.3, 7),
    ("bloodstain, dream validated, low quality", EntryCategory.Heuristic, None, Provenance.DeathReflection,
     True, True, 0.1, 14 * 2 * 3 * 0.5),
]


@pytest.mark.parametrize(("case", "kind", "cls", "prov", "dream", "blood", "quality", "days"), CASES,
                         ids=[c[0] for c in CASES])
def test_half_life(case, kind, cls, prov, dream, blood, quality, days) -> None:
    got = half_life_ms(kind, cls, provenance=prov, dream_validated=dream, is_bloodstain=blood, quality=quality)
    assert got == pytest.approx(days * DAY_MS)


def test_structural_never_decays() -> None:
    assert half_life_ms(EntryCategory.Insight, DecayClass.structural) is None
    assert retention(NOW, NOW - 10_000 * DAY_MS, None, 1) == 1.0
    assert effective_confidence(0.8, NOW, NOW - 10_000 * DAY_MS, None, 1) == 0.8


def test_episode_half_life_is_48_hours() -> None:
    assert half_life_ms(decay.EPISODE) == 2 * DAY_MS


def test_retention_and_effective_confidence_by_hand() -> None:
    hl = 7 * DAY_MS
    # One half-life after the last access: e^-1 (the spec's formula uses the half-life as time constant).
    assert retention(NOW, NOW - 7 * DAY_MS, hl, 1) == pytest.approx(math.exp(-1))
    assert effective_confidence(0.8, NOW, NOW - 7 * DAY_MS, hl, 1) == pytest.approx(0.8 * 0.36787944117)
    # Strength 3 decays three times slower: 21 days at strength 3 equals 7 days at strength 1.
    assert retention(NOW, NOW - 21 * DAY_MS, hl, 3) == pytest.approx(math.exp(-1))
    # Two days: e^(-2/7) = 0.75148.
    assert effective_confidence(0.6, NOW, NOW - 2 * DAY_MS, hl, 1) == pytest.approx(0.6 * 0.751477293)


def test_floor_is_0_05() -> None:
    hl = 7 * DAY_MS
    assert 0.5 * retention(NOW, NOW - 100 * DAY_MS, hl, 1) < 1e-6
    assert effective_confidence(0.5, NOW, NOW - 100 * DAY_MS, hl, 1) == 0.05
    assert effective_confidence(0.5, NOW, NOW - 100 * DAY_MS, hl, 1, floor=0.1) == 0.1
