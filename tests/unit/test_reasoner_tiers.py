"""The two-tier model (graph/knowledge/tiers.py): an outcome beyond 2 sigma of its series' earlier deviations is
anomalous, and only its reflection or one at a regime transition goes to the expensive tier; fewer than three earlier
say nothing."""

from __future__ import annotations

import math

from grimoire.graph.knowledge.reasoner import ClusterSummary, Comparison, Judged, Lesson, RuleBasedReasoner
from grimoire.graph.knowledge.tiers import TieredReasoner, anomalous, regime_transition, surprise


def _c(actual: float, history: tuple[tuple[float, float], ...]) -> Comparison:
    return Comparison(metric="return_bps", expected=10.0, actual=actual, tolerance=50.0, history=history)


STEADY = ((10.0, 12.0), (10.0, 8.0), (10.0, 11.0), (10.0, 9.0))   # deviations +2, -2, +1, -1: sd 1.83


def test_surprise_is_the_distance_from_the_series_in_standard_deviations() -> None:
    assert surprise(_c(10.0, STEADY)) == 0.0
    assert surprise(_c(13.0, STEADY)) == 3.0 / math.sqrt(10 / 3)
    assert not anomalous(_c(13.0, STEADY))          # 1.64 sigma
    assert anomalous(_c(-290.0, STEADY)) and anomalous(_c(14.0, STEADY))   # 164 and 2.19 sigma
    assert surprise(_c(-290.0, STEADY[:2])) is None and not anomalous(_c(-290.0, STEADY[:2]))
    flat = ((10.0, 10.0),) * 3
    assert surprise(_c(10.0, flat)) is None and surprise(_c(11.0, flat)) == math.inf


class Named(RuleBasedReasoner):
    def __init__(self, name: str) -> None:
        self.name = name

    def reflect(self, comparison: Comparison) -> tuple[str, Lesson | None, Judged]:
        text, lesson, _ = super().reflect(comparison)
        return text, lesson, Judged(self.name)

    def distill(self, cluster: ClusterSummary) -> tuple[Lesson | None, Judged]:
        return None, Judged(self.name)


def test_only_an_anomalous_reflection_is_escalated() -> None:
    tiers = TieredReasoner(Named("cheap"), Named("expensive"))
    assert tiers.reflect(_c(11.0, STEADY))[2].reasoner == "cheap"
    assert tiers.reflect(_c(-290.0, STEADY))[2].reasoner == "expensive"
    assert tiers.reflect(_c(-290.0, ()))[2].reasoner == "cheap"      # no distribution yet
    saving = Comparison(metric="return_bps", expected=10.0, actual=-290.0, tolerance=50.0, history=STEADY,
                        phase="conservation")
    assert tiers.reflect(saving)[2].reasoner == "cheap"              # Conservation: the cheap tier only
    assert tiers.distill(ClusterSummary.__new__(ClusterSummary))[1].reasoner == "cheap"
    assert tiers.name == "tiered:cheap|expensive"


def _in(regime: str | None, previous: str | None, *, phase: str | None = None) -> Comparison:
    return Comparison(metric="return_bps", expected=10.0, actual=11.0, tolerance=50.0, history=STEADY,
                      regime=regime, previous_regime=previous, phase=phase)


def test_a_regime_transition_is_escalated_though_the_outcome_is_routine() -> None:
    """grimoire.md:1382 "Opus for anomalous outcomes and regime transitions": a routine deviation observed in another
    regime than the series' previous outcome goes to the expensive tier; the same regime, or one side untold, not."""
    tiers = TieredReasoner(Named("cheap"), Named("expensive"))
    assert regime_transition(_in("bear", "bull")) and tiers.reflect(_in("bear", "bull"))[2].reasoner == "expensive"
    for same_or_untold in (_in("bull", "bull"), _in("bear", None), _in(None, "bull"), _in(None, None)):
        assert not regime_transition(same_or_untold)
        assert tiers.reflect(same_or_untold)[2].reasoner == "cheap"
    # Conservation saves on a transition too: "Haiku-only for all Reflexion"
    assert tiers.reflect(_in("bear", "bull", phase="conservation"))[2].reasoner == "cheap"
