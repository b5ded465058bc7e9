"""Quality scoring: each dimension and red flag on texts whose score is known by hand."""

from __future__ import annotations

import pytest

from grimoire.graph.knowledge import quality


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


# Each case's score by hand, novelty 0.5 and consistency 1.0 (a new entry) throughout:
#   one number: specificity 0.2 + 0.2 = 0.4, actionability 0.2, verifiability 0.5 (a number)
#       0.25 * 0.4 + 0.25 * 0.2 + 0.20 * 0.5 + 0.15 * 0.5 + 0.15 * 1.0 = 0.475
#   no number:  specificity 0.2, actionability 0.2, verifiability 0.1
#       0.25 * 0.2 + 0.25 * 0.2 + 0.20 * 0.5 + 0.15 * 0.1 + 0.15 * 1.0 = 0.365
# and 0.1 off for each red flag.
@pytest.mark.parametrize(("text", "flags", "before", "expected"), [
    ("This revolutionary strategy is a game-changer for yields of 5%", ("empty_rhetoric",), 0.475, 0.375),
    ("Many believe the ETH price will hold 2000", ("weasel_words",), 0.475, 0.375),
    ("My brilliant read of the market says 3 more days", ("self_praise",), 0.475, 0.375),
    ("Rate hikes cause sell pressure", ("unverified_causal_claim",), 0.365, 0.265),
    ("The price goes up when the price goes up", ("tautology",), 0.365, 0.265),
    ("Many believe this revolutionary game-changer strategy is brilliant", ("empty_rhetoric", "weasel_words"),
     0.365, 0.165),
    ("My brilliant read: many believe rate hikes cause sell pressure",
     ("weasel_words", "self_praise", "unverified_causal_claim"), 0.365, 0.065),
])
def test_red_flags_cost_0_1_each(text: str, flags: tuple[str, ...], before: float, expected: float) -> None:
    q = quality.score(text, novelty=0.5)
    assert set(q.red_flags) == set(flags)
    assert (q.specificity, q.actionability, q.verifiability) == ((0.4, 0.2, 0.5) if before == 0.475
                                                                  else (0.2, 0.2, 0.1))
    assert q.score == pytest.approx(expected)
    assert before - q.score == pytest.approx(0.1 * len(flags))


def test_causal_claim_with_evidence_is_not_flagged() -> None:
    assert "unverified_causal_claim" not in quality.red_flags("Rate hikes cause sell pressure", evidence=3)


def test_consistency_is_the_spec_evidence_signal() -> None:
    assert quality.consistency(validated=3, contradicted=1) == pytest.approx(1 - 1 / 5)
