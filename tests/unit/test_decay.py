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
    ("regime-conditional (B)", EntryCategory.Insight, DecayClass.regime_conditional, Provenance.SelfLearned,
     False, False, 0.6, 21),
    ("cyclical (C)", EntryCategory.Insight, DecayClass.cyclical, Provenance.SelfLearned, False, False, 0.6, 90),
    ("ephemeral", EntryCategory.Heuristic, DecayClass.ephemeral, Provenance.SelfLearned, False, False, 0.6, 1),
    ("insight by type", EntryCategory.Insight, None, Provenance.SelfLearned, False, False, 0.6, 7),
    ("heuristic by type", EntryCategory.Heuristic, None, Provenance.SelfLearned, False, False, 0.6, 14),
    ("warning by type", EntryCategory.Warning, None, Provenance.SelfLearned, False, False, 0.6, 30),
    ("dream validated: half the rate", EntryCategory.Insight, DecayClass.tactical, Provenance.SelfLearned,
     True, False, 0.6, 14),
    ("dream provenance: half the rate", EntryCategory.Insight, DecayClass.regime_conditional, Provenance.Dream,
     False, False, 0.6, 42),
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


def test_the_first_tables_regime_half_life_is_a_setting() -> None:
    fourteen = decay.DecayConfig(class_half_life_days={DecayClass.regime_conditional: 14.0})
    assert half_life_ms(EntryCategory.Insight, DecayClass.regime_conditional, config=fourteen) == 14 * DAY_MS
    # a setting names what it changes: the other classes and types keep their half-lives
    assert half_life_ms(EntryCategory.Insight, DecayClass.cyclical, config=fourteen) == 90 * DAY_MS
    slow = decay.DecayConfig.model_validate({"type_half_life_days": {"Insight": 10.0}})
    assert half_life_ms(EntryCategory.Insight, config=slow) == 10 * DAY_MS
    assert half_life_ms(EntryCategory.Warning, config=slow) == 30 * DAY_MS


def test_a_live_confirmation_halves_the_rate_once() -> None:
    """Class D is a modifier: confirmed live (an upvote, a good outcome) the half-life doubles, once; an entry a dream
    validated has it already."""
    cfg = decay.DecayConfig()
    fresh = {"half_life_ms": 7 * DAY_MS, "dream_validated": False}
    assert decay.confirmed(fresh, cfg) == {"live_confirmed": True, "half_life_ms": 14 * DAY_MS}
    assert decay.confirmed({**fresh, "live_confirmed": True, "half_life_ms": 14 * DAY_MS}, cfg) == {}
    assert decay.confirmed({**fresh, "dream_validated": True, "half_life_ms": 14 * DAY_MS}, cfg) == {
        "live_confirmed": True}
    assert decay.confirmed({"half_life_ms": None}, cfg) == {"live_confirmed": True}  # structural: never decays
    assert half_life_ms(EntryCategory.Insight, DecayClass.tactical, confirmed=True, dream_validated=True) == (
        14 * DAY_MS)


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
