"""Effective confidence by hand from the spec's numbers, in Python and in Cypher."""

from __future__ import annotations

import math

import pytest

from graph.knowledge import decay
from graph.knowledge.decay import DAY_MS, DecayConfig, effective_confidence, half_life_ms, retention
from graph.knowledge.entries import Knowledge, admit, effective_confidences
from graph.model.entry import EntryIn
from graph.model.enums import DecayClass, EntryCategory, Provenance

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


def test_cypher_computes_the_same_effective_confidence(db, embedder) -> None:
    """Entries with each decay class and modifier, clocks set in the past: Cypher equals Python equals hand."""
    k = Knowledge(db=db, embedder=embedder)
    texts = {
        "tactical": "Gas on Ethereum mainnet drops below 8 gwei between 02:00 and 04:00 UTC on weekdays",
        "regime": "During high volatility the WETH/USDC 0.05% pool's depth falls by 40% within an hour",
        "structural": "Aave v3 liquidations close at most 50% of a position when the health factor is above 0.95",
        "warning": "Avoid supplying to markets whose oracle is a single low-liquidity DEX pool",
        "dream": "If funding turns negative for 3 days then basis trades unwind within 48 hours",
        "bloodstain": "When utilisation passes 95% the variable borrow rate jumps above 60% and liquidations follow",
    }
    specs = {
        "tactical": dict(category=EntryCategory.Insight, decay_class=DecayClass.tactical),
        "regime": dict(category=EntryCategory.Insight, decay_class=DecayClass.regime_conditional),
        "structural": dict(category=EntryCategory.Insight, decay_class=DecayClass.structural),
        "warning": dict(category=EntryCategory.Warning),
        "dream": dict(category=EntryCategory.Heuristic, dream_validated=True),
        "bloodstain": dict(category=EntryCategory.Warning, provenance=Provenance.DeathReflection, is_bloodstain=True),
    }
    batch = [EntryIn(id=f"decay-{name}", agent_id="agent-a", content=texts[name], confidence=0.8, **spec)
             for name, spec in specs.items()]
    decisions = admit(k, batch, actor="test")
    assert all(d.result.writes_entry for d in decisions), [d.result.explanation for d in decisions]
    elapsed = {"tactical": 7, "regime": 3, "structural": 400, "warning": 45, "dream": 10, "bloodstain": 200}
    strengths = {"tactical": 1.0, "regime": 2.0, "structural": 1.0, "warning": 1.0, "dream": 1.5, "bloodstain": 1.0}
    for name, days in elapsed.items():
        db.run("testing/set_entry_props", id=f"decay-{name}",
               props={"last_accessed_at": NOW - days * DAY_MS, "strength": strengths[name]})
    got = effective_confidences(k, [f"decay-{n}" for n in elapsed], NOW)
    by_hand = {
        "tactical": 0.8 * math.exp(-7 / 7),
        "regime": 0.8 * math.exp(-3 / (14 * 2.0)),
        "structural": 0.8,
        "warning": 0.8 * math.exp(-45 / 30),
        "dream": 0.8 * math.exp(-10 / (14 * 2 * 1.5)),
        "bloodstain": max(0.05, 0.8 * math.exp(-200 / (30 * 3))),
    }
    cfg = DecayConfig()
    for name, expected in by_hand.items():
        entry = db.run("entries/get", id=f"decay-{name}", now=NOW, floor=0.05, viewer="agent-a", clade="",
                       admin=False)[0]
        props = entry["entry"]
        python = effective_confidence(props["confidence"], NOW, props["last_accessed_at"],
                                      props.get("half_life_ms"), props["strength"], cfg.floor)
        assert got[f"decay-{name}"] == pytest.approx(expected, rel=1e-9), name
        assert python == pytest.approx(expected, rel=1e-9), name
        assert entry["effective_confidence"] == pytest.approx(expected, rel=1e-9), name
    # The floor holds in Cypher too.
    db.run("testing/set_entry_props", id="decay-tactical", props={"last_accessed_at": NOW - 365 * DAY_MS})
    assert effective_confidences(k, ["decay-tactical"], NOW)["decay-tactical"] == 0.05
