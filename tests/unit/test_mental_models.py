"""The 13 core mental models as data: the spec's table, fixed ids, the properties of an always-available entry."""

from __future__ import annotations

from grimoire.graph.knowledge import mental_models as mm
from grimoire.graph.knowledge.decay import DecayConfig, effective_confidence, half_life_ms
from grimoire.graph.model.enums import DecayClass, EntryCategory

SPEC = ["First Principles", "Inversion", "Second-Order Thinking", "Probabilistic Thinking", "Margin of Safety",
        "Circle of Competence", "Occam's Razor", "Compounding", "Hanlon's Razor", "Regret Minimization",
        "Antifragility", "Kelly Criterion", "Causal Reasoning"]


def test_the_thirteen_of_the_spec_in_order_with_fixed_ids() -> None:
    assert [m.name for m in mm.MODELS] == SPEC
    assert [m.number for m in mm.MODELS] == list(range(1, 14))
    assert len(set(mm.IDS)) == 13 and mm.IDS[0] == "mental-model:first-principles"
    assert mm.BY_ID["mental-model:kelly-criterion"].application == "Optimal position sizing given edge and odds"
    assert all(m.name in m.content and m.application in m.content for m in mm.MODELS)


def test_each_is_a_public_active_structural_insight_of_the_system_agent() -> None:
    for m in mm.MODELS:
        p = mm.properties(m, now=1_700_000_000_000)
        assert (p["agent_id"], p["scope"], p["category"], p["status"], p["decay_class"]) == (
            "grimoire", "public", "Insight", "active", "structural")
        assert p["mental_model"] is True and p["tags"] == ["mental-model"] and p["valid_from"] == 0
        assert "half_life_ms" not in p  # never decays: no half-life, as admission writes structural entries
        assert p["quality_score"] > 0.05  # never under the Curator's prune threshold
    assert half_life_ms(EntryCategory.Insight, DecayClass.structural, config=DecayConfig()) is None
    # Years later, the same confidence.
    assert effective_confidence(mm.CONFIDENCE, 10**13, 0, None, 1.0) == mm.CONFIDENCE
