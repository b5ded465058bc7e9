"""The Admission Gate's arithmetic by hand: factors, the 0.45 and 0.55 boundaries, merge and skip
at the novelty boundaries, and the hallucination firewall."""

from __future__ import annotations

import math

import pytest

from grimoire.graph.knowledge.admission import (
    AdmissionConfig,
    Neighbour,
    composite_score,
    evaluate,
    standard_confidence,
)
from grimoire.graph.knowledge.decay import DAY_MS
from grimoire.graph.knowledge.reasoner import Candidate, RuleBasedReasoner
from grimoire.graph.model.enums import AdmissionOutcome, DecayClass, EntryCategory, EntryStatus, Provenance

NOW = 1_760_000_000_000
HL = 7 * DAY_MS
ANCIENT = NOW - 10_000 * HL  # temporal recency e^-10000 == 0.0


class FixedUtility(RuleBasedReasoner):
    """The rule-based reasoner with a chosen future utility, to place composites exactly."""

    def __init__(self, utility: float):
        self.utility = utility

    def future_utility(self, candidate: Candidate) -> float:
        return self.utility


def judge(utility: float, neighbours: list[Neighbour] | None = None, *, content: str = "Gas is cheap at night",
          event_ms: int = ANCIENT, category: EntryCategory = EntryCategory.Insight,
          provenance: Provenance = Provenance.SelfLearned, decay_class: DecayClass | None = None,
          config: AdmissionConfig | None = None):
    return evaluate(Candidate(content, category, decay_class), neighbours or [], provenance=provenance,
                    requested_confidence=None, now_ms=NOW, event_ms=event_ms, half_life_ms=HL,
                    reasoner=FixedUtility(utility), config=config)


FLAG = AdmissionConfig(per_factor="flag")  # failing a factor's threshold flags only: the composite bands decide


def test_factors_and_composite_by_hand() -> None:
    # Insight, self-learned, nothing similar stored, event one half-life ago, utility 0.6:
    # 0.25*0.6 + 0.25*0.6 + 0.20*1.0 + 0.15*e^-1 + 0.15*0.5
    r = judge(0.6, event_ms=NOW - HL)
    assert r.factors == pytest.approx({"future_utility": 0.6, "factual_confidence": 0.6, "semantic_novelty": 1.0,
                                       "temporal_recency": math.exp(-1), "content_type_prior": 0.5})
    assert r.composite == pytest.approx(0.15 + 0.15 + 0.2 + 0.15 * math.exp(-1) + 0.075)
    assert r.outcome == AdmissionOutcome.admitted and r.confidence == 0.5 and r.status == EntryStatus.candidate


@pytest.mark.parametrize(("utility", "composite", "outcome", "confidence"), [
    (0.0996, 0.4499, AdmissionOutcome.rejected, None),
    (0.1, 0.45, AdmissionOutcome.admitted_low, 0.3),      # the lower boundary is admitted
    (0.3, 0.50, AdmissionOutcome.admitted_low, 0.3),
    (0.5, 0.55, AdmissionOutcome.admitted_low, 0.3),      # 0.55 is still the low band
    (0.504, 0.551, AdmissionOutcome.admitted, 0.5),       # above 0.55: standard confidence
])
def test_composite_boundaries(utility: float, composite: float, outcome: AdmissionOutcome,
                              confidence: float | None) -> None:
    # Fixed part: factual 0.6*0.25 + novelty 1.0*0.20 + recency 0*0.15 + prior 0.5*0.15 = 0.425. Recency 0 fails
    # its threshold, so the bands are read with per-factor flags only (test_a_factor_at_its_threshold_rejects has
    # the default).
    r = judge(utility, config=FLAG)
    assert r.factors["temporal_recency"] == 0.0
    assert r.composite == pytest.approx(composite, abs=1e-12)
    assert r.outcome == outcome
    assert r.confidence == confidence


def _near(similarity: float, conf: float = 0.6, content: str = "Gas is cheap at night") -> Neighbour:
    return Neighbour("e-old", content, similarity, conf)


@pytest.mark.parametrize(("similarity", "outcome"), [
    (0.9, AdmissionOutcome.rejected),         # not above 0.9: judged on its factors (recency 0; composite 0.4355)
    (0.9001, AdmissionOutcome.merged),
    (0.95, AdmissionOutcome.merged),          # not above 0.95: merged, not skipped
    (0.9501, AdmissionOutcome.skipped),
    (1.0, AdmissionOutcome.skipped),
])
def test_merge_and_skip_at_the_novelty_boundaries(similarity: float, outcome: AdmissionOutcome) -> None:
    r = judge(0.6, [_near(similarity)])
    assert r.outcome == outcome
    assert r.factors["semantic_novelty"] == pytest.approx(1 - similarity)
    if similarity == 0.9:
        # 0.25*0.6 + 0.25*(0.6 + 0.3*0.9*0.6) + 0.20*0.1 + 0.15*0 + 0.15*0.5
        assert r.composite == pytest.approx(0.15 + 0.25 * 0.762 + 0.02 + 0.075)
    if outcome in (AdmissionOutcome.merged, AdmissionOutcome.skipped):
        assert r.target_id == "e-old" and not r.writes_entry and r.confidence is None


def test_off_topic_flag_below_0_5_similarity() -> None:
    assert "off_topic" in judge(0.6, [_near(0.49)]).flags
    assert "off_topic" not in judge(0.6, [_near(0.5)]).flags


def test_hallucination_firewall_quarantines() -> None:
    stored = Neighbour("e-strong", "ETH gas rises above 10 gwei between 2 and 4 AM UTC", 0.8, 0.9)
    r = judge(0.9, [stored], content="ETH gas drops below 10 gwei between 2 and 4 AM UTC", event_ms=NOW)
    # factual = 0.6 - 0.6 * 0.9 = 0.06 < 0.3, and the contradicted entry has confidence >= 0.7
    assert r.factors["factual_confidence"] == pytest.approx(0.06)
    assert r.contradicted == ("e-strong",)
    assert r.outcome == AdmissionOutcome.quarantined and r.status == EntryStatus.quarantined
    assert r.writes_entry and "contradicts_high_confidence" in r.flags


def test_contradicting_a_weak_entry_is_not_quarantined() -> None:
    weak = Neighbour("e-weak", "ETH gas rises above 10 gwei between 2 and 4 AM UTC", 0.8, 0.5)
    r = judge(0.9, [weak], content="ETH gas drops below 10 gwei between 2 and 4 AM UTC", event_ms=NOW)
    assert r.factors["factual_confidence"] == pytest.approx(0.3)  # 0.6 - 0.6 * 0.5: not below 0.3
    assert r.outcome != AdmissionOutcome.quarantined


def test_a_contradicting_near_duplicate_is_not_merged() -> None:
    stored = Neighbour("e-strong", "ETH gas rises above 10 gwei between 2 and 4 AM UTC", 0.96, 0.9)
    r = judge(0.9, [stored], content="ETH gas drops below 10 gwei between 2 and 4 AM UTC", event_ms=NOW)
    assert r.outcome == AdmissionOutcome.quarantined


def test_aligned_neighbours_raise_factual_confidence() -> None:
    aligned = Neighbour("e-a", "Gas is cheapest overnight", 0.8, 0.5)
    r = judge(0.6, [aligned])
    assert r.factors["factual_confidence"] == pytest.approx(0.6 + 0.3 * 0.8 * 0.5)
    assert r.aligned == ("e-a",)


def test_content_type_priors() -> None:
    cfg = AdmissionConfig()
    priors = {c: judge(0.5, category=c).factors["content_type_prior"] for c in EntryCategory}
    assert priors[EntryCategory.Warning] == 0.9 and priors[EntryCategory.CausalLink] == 0.7
    assert priors[EntryCategory.Heuristic] == 0.6 and priors[EntryCategory.Insight] == 0.5
    assert priors[EntryCategory.StrategyFragment] == 0.4
    assert judge(0.5, decay_class=DecayClass.ephemeral).factors["content_type_prior"] == cfg.ephemeral_prior == 0.2


def test_standard_confidence_by_provenance() -> None:
    cfg = AdmissionConfig()
    assert standard_confidence(EntryCategory.Insight, Provenance.SelfLearned, None, cfg) == 0.5
    assert standard_confidence(EntryCategory.Insight, Provenance.Clade, None, cfg) == 0.4
    assert standard_confidence(EntryCategory.Insight, Provenance.Lethe, None, cfg) == 0.25
    assert standard_confidence(EntryCategory.Heuristic, Provenance.Predecessor, None, cfg) == 0.3
    assert standard_confidence(EntryCategory.Warning, Provenance.Dream, None, cfg) == 0.3
    assert standard_confidence(EntryCategory.Warning, Provenance.Dream, 0.7, cfg) == 0.7
    # Provenance also weights the factual base: a Lethe entry starts at 0.6 * 0.5.
    assert judge(0.5, provenance=Provenance.Lethe).factors["factual_confidence"] == pytest.approx(0.3)


def test_composite_uses_the_spec_weights() -> None:
    cfg = AdmissionConfig()
    assert sum(cfg.weights.values()) == pytest.approx(1.0)
    factors = {"future_utility": 1.0, "factual_confidence": 0.0, "semantic_novelty": 0.0,
               "temporal_recency": 0.0, "content_type_prior": 0.0}
    assert composite_score(factors, cfg) == 0.25


def test_rule_based_reasoner_is_deterministic_and_explained_by_hand() -> None:
    reasoner = RuleBasedReasoner()
    heuristic = Candidate("When gas < 10 gwei then execute large swaps", EntryCategory.Heuristic, evidence=3)
    # 0.3 base + 0.2 actionable + 0.2 concrete numbers + 0.1 prescriptive type + 0.1 evidence >= 2
    assert reasoner.future_utility(heuristic) == pytest.approx(0.9)
    vague = Candidate("Things happen", EntryCategory.Insight)
    assert reasoner.future_utility(vague) == pytest.approx(0.1)  # 0.3 - 0.2 for fewer than five words
    assert reasoner.contradicts("Gas rises at night", "Gas falls at night")
    assert reasoner.contradicts("The pool is safe", "The pool is not safe")
    assert not reasoner.contradicts("Gas is cheap at night", "Gas is cheapest overnight")


def test_opposite_polarity_about_different_things_is_no_contradiction() -> None:
    """Two of a Curator cycle's lessons: a "Use" and an "Avoid" about different tools and pairs share a template,
    not a subject; the same lesson reversed is a contradiction."""
    reasoner = RuleBasedReasoner()
    use = "Use uniswap-swap for WETH/USDC on chain 1 in bull regimes: 9 of 10 outcomes positive, mean gain +10."
    avoid_other = "Avoid aave-supply for USDC on chain 1 in bull regimes: 0 of 5 outcomes positive, mean gain -8."
    avoid_same = "Avoid uniswap-swap for WETH/USDC on chain 1 in bull regimes: 1 of 6 outcomes positive, mean gain -4."
    assert not reasoner.contradicts(use, avoid_other)
    assert not reasoner.contradicts(avoid_other, use)
    assert reasoner.contradicts(use, avoid_same)
    assert reasoner.contradicts("ETH gas fees climb during US mornings", "ETH gas fees don't climb in the morning")


# Issue 39: the document's Threshold column rejects (per_factor "reject", the default). Each case is an Insight
# whose other factors pass and whose composite is above 0.55, so only the factor at its threshold decides.
RECENT = NOW  # temporal recency 1.0


@pytest.mark.parametrize(("utility", "outcome"), [
    (0.4, AdmissionOutcome.rejected),       # the document's "> 0.4": 0.4 is not above it
    (0.4001, AdmissionOutcome.admitted),
])
def test_future_utility_rejects_at_its_threshold(utility: float, outcome: AdmissionOutcome) -> None:
    r = judge(utility, event_ms=RECENT)
    assert r.composite > 0.55 and r.outcome == outcome
    if outcome == AdmissionOutcome.rejected:
        assert r.flags == ("low_future_utility", "off_topic") and r.confidence is None and r.status is None
        assert r.explanation == "future utility 0.400 is not above its threshold 0.4: rejected"
        assert not r.writes_entry
    else:
        assert "low_future_utility" not in r.flags and r.confidence == 0.5


@pytest.mark.parametrize(("base", "outcome"), [
    (0.6, AdmissionOutcome.rejected),       # public (Lethe, weight 0.5): 0.6 x 0.5 = 0.3, not above "> 0.3"
    (0.6004, AdmissionOutcome.admitted),    # 0.3002
])
def test_factual_confidence_rejects_at_its_threshold(base: float, outcome: AdmissionOutcome) -> None:
    r = judge(0.8, event_ms=RECENT, provenance=Provenance.Lethe, config=AdmissionConfig(factual_base=base))
    assert r.factors["factual_confidence"] == pytest.approx(base * 0.5)
    assert r.composite > 0.55 and r.outcome == outcome
    assert ("low_factual_confidence" in r.flags) == (outcome == AdmissionOutcome.rejected)
    if outcome == AdmissionOutcome.rejected:
        assert r.explanation == "factual confidence 0.300 is not above its threshold 0.3: rejected"


@pytest.mark.parametrize(("age_half_lives", "outcome"), [
    (math.log(5), AdmissionOutcome.rejected),   # e^-ln 5 = 0.2 (to the millisecond), not above "> 0.2"
    (1.6, AdmissionOutcome.admitted),           # e^-1.6 = 0.2019
])
def test_temporal_recency_rejects_at_its_threshold(age_half_lives: float, outcome: AdmissionOutcome) -> None:
    r = judge(0.8, event_ms=NOW - math.ceil(age_half_lives * HL))
    assert r.factors["temporal_recency"] == pytest.approx(math.exp(-age_half_lives), abs=1e-9)
    assert r.composite > 0.55 and r.outcome == outcome
    assert ("low_temporal_recency" in r.flags) == (outcome == AdmissionOutcome.rejected)


def test_every_failing_factor_is_named() -> None:
    r = judge(0.2, event_ms=ANCIENT, provenance=Provenance.Lethe)
    assert r.outcome == AdmissionOutcome.rejected
    assert r.flags[:3] == ("low_future_utility", "low_factual_confidence", "low_temporal_recency")
    assert r.explanation == ("future utility 0.200 is not above its threshold 0.4; factual confidence 0.300 is not "
                             "above its threshold 0.3; temporal recency 0.000 is not above its threshold 0.2: "
                             "rejected")


def test_the_flag_setting_keeps_a_failing_factor_to_a_flag() -> None:
    # The same candidate as the first rejection above, under GRIMOIRE_ADMISSION per_factor=flag: the composite
    # bands decide, and the failing factor is a flag on the decision.
    r = judge(0.4, event_ms=RECENT, config=FLAG)
    assert r.outcome == AdmissionOutcome.admitted and r.confidence == 0.5 and r.writes_entry
    assert r.flags == ("low_future_utility", "off_topic")
    assert r.explanation.startswith("composite")


def test_the_flag_setting_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from grimoire.graph.settings import Settings

    assert Settings().admission.per_factor == "reject"
    monkeypatch.setenv("GRIMOIRE_ADMISSION", '{"per_factor": "flag"}')
    assert Settings().admission.per_factor == "flag"


def test_the_firewall_quarantines_before_the_factual_threshold_rejects() -> None:
    # factual 0.06 fails "> 0.3" too, but contradicting a high-confidence entry is the firewall's to decide: it is
    # quarantined for the Curator's review (grimoire.md line 306), not rejected.
    stored = Neighbour("e-strong", "ETH gas rises above 10 gwei between 2 and 4 AM UTC", 0.8, 0.9)
    r = judge(0.9, [stored], content="ETH gas drops below 10 gwei between 2 and 4 AM UTC", event_ms=NOW)
    assert "low_factual_confidence" in r.flags
    assert r.outcome == AdmissionOutcome.quarantined and r.explanation.startswith("factual confidence 0.060 < 0.3")


def test_an_agents_first_entry_has_maximal_novelty_and_passes() -> None:
    # Nothing stored: novelty 1 - 0 = 1.0; novelty's row rejects nothing (its 0.5-0.9 range is merge and skip above
    # 0.9, and the off-topic flag below 0.5, which the document says to flag).
    r = judge(0.6, [], event_ms=RECENT)
    assert r.factors["semantic_novelty"] == 1.0
    assert r.outcome == AdmissionOutcome.admitted and r.writes_entry
    assert not [f for f in r.flags if f.startswith("low_")]
