"""The decay formula in Cypher (cypher/entries/effective_confidence.cypher) equals Python's and the hand's."""

from __future__ import annotations

import math

import pytest

from grimoire.graph.knowledge.decay import DAY_MS, DecayConfig, effective_confidence
from grimoire.graph.knowledge.entries import Knowledge, admit, effective_confidences
from grimoire.graph.model.entry import EntryIn
from grimoire.graph.model.enums import DecayClass, EntryCategory, Provenance
from tests.unit.test_decay import NOW


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
        "regime": 0.8 * math.exp(-3 / (21 * 2.0)),  # B: 21 days
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
