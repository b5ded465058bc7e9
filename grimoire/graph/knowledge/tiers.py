"""The two-tier language model (grimoire.md, Reflexion: "Haiku for routine observations, Opus for anomalous
outcomes and regime transitions ... escalates to Opus for any observation that falls outside the expected
distribution by more than 2 sigma").

A cheap (routine) reasoner answers everything — the Admission Gate's future utility, ExpeL's lessons, Reflexion's
interpretations — except the reflection on an anomalous outcome or at a regime transition, which goes to the
expensive (escalated) one. An outcome is anomalous when its deviation lies more than `SIGMAS` standard deviations
from the mean deviation of the earlier predictions of the same series (the agent's metric, tool and pair; Reflexion
gives them as the comparison's history), with at least `MIN_HISTORY` of them: fewer say nothing about a
distribution. A regime transition is an outcome whose market regime differs from the one of the series' newest
earlier outcome (both told: an untold regime is no transition). An agent in the
Conservation phase (its episode's emotional tag says so) is never escalated: "Haiku-only for all Reflexion, accepting
lower-quality reflections to conserve inference budget". Either tier
is a language model or the rule-based Reasoner (graph/services.py builds them from the settings), and each falls
back to the rules on its own."""

from __future__ import annotations

import math

from grimoire.graph.knowledge.reasoner import (
    Candidate,
    ClusterSummary,
    Comparison,
    Judged,
    Lesson,
    Reasoner,
    judged_utility,
)
from grimoire.graph.model.enums import BehavioralPhase

SIGMAS = 2.0
MIN_HISTORY = 3


def surprise(comparison: Comparison) -> float | None:
    """How many standard deviations this deviation lies from the series' earlier ones (None: too few earlier, or
    all equal and this one too)."""
    earlier = [actual - expected for expected, actual in comparison.history]
    if len(earlier) < MIN_HISTORY:
        return None
    mean = sum(earlier) / len(earlier)
    sd = math.sqrt(sum((d - mean) ** 2 for d in earlier) / (len(earlier) - 1))
    gap = abs(comparison.deviation - mean)
    if sd == 0:
        return None if gap == 0 else math.inf
    return gap / sd


def anomalous(comparison: Comparison, sigmas: float = SIGMAS) -> bool:
    s = surprise(comparison)
    return s is not None and s > sigmas


def regime_transition(comparison: Comparison) -> bool:
    """The outcome was observed in another regime than the series' previous one (both known)."""
    return bool(comparison.regime and comparison.previous_regime and comparison.regime != comparison.previous_regime)


class TieredReasoner:
    """The Reasoner protocol over two reasoners: `routine` for everything but the reflection on an anomalous
    outcome or a regime transition."""

    def __init__(self, routine: Reasoner, escalated: Reasoner, *, sigmas: float = SIGMAS) -> None:
        self.routine, self.escalated, self.sigmas = routine, escalated, sigmas
        self.name = f"tiered:{routine.name}|{escalated.name}"

    def future_utility(self, candidate: Candidate) -> float:
        return self.routine.future_utility(candidate)

    def future_utility_judged(self, candidate: Candidate) -> tuple[float, Judged]:
        return judged_utility(self.routine, candidate)

    def contradicts(self, claim: str, existing: str) -> bool:
        return self.routine.contradicts(claim, existing)

    def distill(self, cluster: ClusterSummary) -> tuple[Lesson | None, Judged]:
        return self.routine.distill(cluster)

    def reflect(self, comparison: Comparison) -> tuple[str, Lesson | None, Judged]:
        saving = comparison.phase == BehavioralPhase.conservation.value   # "Haiku-only for all Reflexion"
        escalate = anomalous(comparison, self.sigmas) or regime_transition(comparison)
        tier = self.escalated if escalate and not saving else self.routine
        return tier.reflect(comparison)
