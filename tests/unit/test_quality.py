"""Quality scoring: each dimension and red flag on texts whose score is known by hand."""

from __future__ import annotations

import pytest

from graph.knowledge import quality


def test_dimensions_of_a_specific_actionable_verifiable_heuristic() -> None:
    text = ("If the WETH borrow rate on 0x87870Bca3F3fD6335C3F4ce8392D69350B4fA4E2 exceeds 8% "
            "then reduce leverage to 2x before block 19000000")
    q = quality.score(text, novelty=0.4)
    # numbers: 8%, 2x, 19000000 -> 3 concrete (the address counts once as an address) + 1 address = 4 claims
    assert quality.concrete_claims(text) == 4
    assert q.specificity == pytest.approx(min(1.0, 0.2 + 0.2 * 4))
    assert q.actionability == 1.0       # IF ... THEN
    assert q.verifiability == 1.0       # an address and a block number
    assert q.consistency == 1.0         # new: 1 - 0 / (0 + 0 + 1)
    assert q.novelty == 0.4
    assert q.red_flags == ()
    assert q.score == pytest.approx(0.25 * 1.0 + 0.25 * 1.0 + 0.20 * 0.4 + 0.15 * 1.0 + 0.15 * 1.0)


def test_hedged_vague_text_scores_low() -> None:
    text = "Markets might perhaps go somewhere"
    q = quality.score(text, novelty=1.0)
    assert q.specificity == pytest.approx(max(0.0, 0.2 - 0.15 * 2))
    assert q.actionability == 0.2
    assert q.verifiability == 0.1
    assert q.score == pytest.approx(0.25 * 0.0 + 0.25 * 0.2 + 0.2 * 1.0 + 0.15 * 0.1 + 0.15 * 1.0)


@pytest.mark.parametrize(("text", "flag"), [
    ("This revolutionary strategy is a game-changer for yields of 5%", "empty_rhetoric"),
    ("Many believe the ETH price will hold 2000", "weasel_words"),
    ("My brilliant read of the market says 3 more days", "self_praise"),
    ("Rate hikes cause sell pressure", "unverified_causal_claim"),
    ("The price goes up when the price goes up", "tautology"),
])
def test_red_flags_cost_0_1_each(text: str, flag: str) -> None:
    q = quality.score(text, novelty=0.5)
    assert flag in q.red_flags
    dims = 0.25 * q.specificity + 0.25 * q.actionability + 0.2 * q.novelty + 0.15 * q.verifiability + 0.15
    assert q.score == pytest.approx(max(0.0, dims - 0.1 * len(q.red_flags)))


def test_causal_claim_with_evidence_is_not_flagged() -> None:
    assert "unverified_causal_claim" not in quality.red_flags("Rate hikes cause sell pressure", evidence=3)


def test_consistency_is_the_spec_evidence_signal() -> None:
    assert quality.consistency(validated=3, contradicted=1) == pytest.approx(1 - 1 / 5)
