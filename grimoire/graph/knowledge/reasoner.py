"""The judgement calls of the knowledge lifecycle: the Admission Gate's future utility and
contradiction, ExpeL's distillation of an episode cluster into a lesson, and Reflexion's
interpretation of a prediction's outcome (steps 3-5: comparison, counterfactual, insight).

The spec asks a language model for these. Grimoire's default Reasoner is deterministic and
rule-based (no network); a language-model Reasoner can be plugged in behind the same interface.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from grimoire.graph.knowledge import quality
from grimoire.graph.model.enums import DecayClass, EntryCategory, MarketRegime


@dataclass(frozen=True)
class Candidate:
    """What the gate judges: a knowledge entry before it is written."""

    content: str
    category: EntryCategory
    decay_class: DecayClass | None = None
    regime: MarketRegime | None = None
    evidence: int = 0  # parent episodes
    tags: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class ClusterSummary:
    """What ExpeL distils: episodes of one agent sharing tool, chain and token pair (and, for
    compression, one regime). `texts` are a few of the episodes' texts, newest first."""

    key: str                      # tool|chain|token_pair
    tool: str | None
    chain: str | None
    token_pair: str | None
    regime: str | None            # the regime every episode shares, if they do
    strategy: str | None          # the strategy every episode shares, if they do
    positives: int
    negatives: int
    neutrals: int
    mean_gain: float | None
    texts: tuple[str, ...] = ()

    @property
    def decided(self) -> int:
        return self.positives + self.negatives


@dataclass(frozen=True)
class Lesson:
    """A rule a cluster or a reflection teaches: `polarity` +1 (do it), -1 (avoid it), 0 (descriptive)."""

    category: EntryCategory
    content: str
    polarity: int


@dataclass(frozen=True)
class Comparison:
    """Reflexion's steps 1-2: a prediction against its verified outcome (deterministic)."""

    metric: str
    expected: float
    actual: float
    tolerance: float
    tool: str | None = None
    token_pair: str | None = None
    regime: str | None = None
    # Earlier (expected, actual) pairs of the same agent, metric, tool and pair, oldest first.
    history: tuple[tuple[float, float], ...] = ()
    phase: str | None = None  # the agent's behavioural phase when it acted (its episode's emotional tag)
    previous_regime: str | None = None  # the regime of the series' newest earlier comparison (None: none, or untold)

    @property
    def deviation(self) -> float:
        return self.actual - self.expected

    @property
    def within_tolerance(self) -> bool:
        return abs(self.deviation) <= self.tolerance

    @property
    def direction_correct(self) -> bool:
        return (self.expected >= 0) == (self.actual >= 0)

    @property
    def verdict(self) -> str:
        """correct (within tolerance), miscalibrated (right direction, off by more than the
        tolerance) or wrong (the other direction)."""
        if self.within_tolerance:
            return "correct"
        return "miscalibrated" if self.direction_correct else "wrong"


@dataclass(frozen=True)
class Judged:
    """A reasoner's answer and who gave it: `reasoner` names the path that answered; `fallback`
    says why the rule-based path ran instead of a configured language model (None when it did not)."""

    reasoner: str
    fallback: str | None = None

    @property
    def label(self) -> str:
        """As a decision or an event records it: "language-model:m", "rule-based (fallback: timeout)"."""
        return f"{self.reasoner} (fallback: {self.fallback})" if self.fallback else self.reasoner


class Reasoner(Protocol):
    name: str

    def future_utility(self, candidate: Candidate) -> float:
        """Will this be useful for future decisions in similar conditions? 0.0 to 1.0."""
        ...

    def contradicts(self, claim: str, existing: str) -> bool:
        """Does `claim` assert the opposite of `existing` (both about the same thing)?"""
        ...

    def distill(self, cluster: ClusterSummary) -> tuple[Lesson | None, Judged]:
        """ExpeL: the lesson a cluster of three or more episodes teaches, if any."""
        ...

    def reflect(self, comparison: Comparison) -> tuple[str, Lesson | None, Judged]:
        """Reflexion steps 3-5: an interpretation of the comparison (with its counterfactual), and
        a candidate insight when the outcome shows a pattern."""
        ...


_NEGATIONS = re.compile(r"\b(not|no|never|none|cannot|can't|don't|doesn't|isn't|aren't|won't|didn't|without|"
                        r"avoid|fails?|neither|nor)\b", re.IGNORECASE)
_ANTONYMS = [
    ("increase", "decrease"), ("increases", "decreases"), ("rise", "fall"), ("rises", "falls"), ("rose", "fell"),
    ("up", "down"), ("above", "below"), ("higher", "lower"), ("high", "low"), ("bullish", "bearish"),
    ("buy", "sell"), ("long", "short"), ("more", "less"), ("gain", "loss"), ("profit", "loss"),
    ("widen", "narrow"), ("widens", "narrows"), ("strengthen", "weaken"), ("strengthens", "weakens"),
    ("safe", "risky"), ("safe", "unsafe"), ("cheap", "expensive"), ("positive", "negative"),
    ("inflow", "outflow"), ("inflows", "outflows"), ("drops", "rises"), ("drop", "rise"), ("before", "after"),
]
_WORDS = re.compile(r"[a-z']+")
_POLARITY = {w for pair in _ANTONYMS for w in pair} | {
    "not", "no", "never", "none", "cannot", "can't", "don't", "doesn't", "isn't", "aren't", "won't", "didn't",
    "without", "avoid", "fail", "fails", "neither", "nor", "use", "do"}
_FUNCTION = {"the", "a", "an", "is", "are", "was", "were", "be", "been", "at", "in", "on", "of", "for", "to", "by",
             "with", "and", "or", "it", "its", "this", "that", "these", "those", "as", "from", "into", "during",
             "when", "then", "than", "there", "here", "s"}
# Claims that differ in more than three, and more than this share, of their content words (polarity and function
# words aside) are about different things whatever their polarity: "Use X for P" and "Avoid Y for Q" are two
# lessons, not one reversed.
SAME_SUBJECT_MAX_DIFFERENT = 1 / 3


def same_subject(a: set[str], b: set[str]) -> bool:
    """Whether two claims' words (lower-cased) say the same thing apart from their polarity: at most three, or a
    third, of their content words belong to one claim only."""
    ca, cb = a - _POLARITY - _FUNCTION, b - _POLARITY - _FUNCTION
    different = len(ca ^ cb)
    return different <= max(3, SAME_SUBJECT_MAX_DIFFERENT * len(ca | cb))
_PRESCRIPTIVE = {EntryCategory.Warning, EntryCategory.Heuristic, EntryCategory.CausalLink}


@runtime_checkable
class JudgesUtility(Protocol):
    """A reasoner that says who answered its future utility (both built-in reasoners do): a language
    model's answer, or the rule-based one with the reason it fell back."""

    def future_utility_judged(self, candidate: Candidate) -> tuple[float, Judged]: ...


def judged_utility(reasoner: Reasoner, candidate: Candidate) -> tuple[float, Judged]:
    """future_utility and who answered it, for any Reasoner."""
    if isinstance(reasoner, JudgesUtility):
        return reasoner.future_utility_judged(candidate)
    return reasoner.future_utility(candidate), Judged(reasoner.name)


class RuleBasedReasoner:
    """Deterministic: the same input always gets the same answer."""

    name = "rule-based"

    def future_utility_judged(self, candidate: Candidate) -> tuple[float, Judged]:
        """future_utility with who answered (always this reasoner)."""
        return self.future_utility(candidate), Judged(self.name)

    def future_utility(self, candidate: Candidate) -> float:
        text = candidate.content
        score = 0.3
        if quality.actionability(text) >= 0.7:
            score += 0.2
        if quality.concrete_claims(text) > 0:
            score += 0.2
        if candidate.regime is not None:
            score += 0.1
        if candidate.category in _PRESCRIPTIVE:
            score += 0.1
        if candidate.evidence >= 2:
            score += 0.1
        if len(_WORDS.findall(text.lower())) < 5:
            score -= 0.2
        if candidate.decay_class == DecayClass.ephemeral:
            score -= 0.1
        return max(0.0, min(1.0, score))

    def contradicts(self, claim: str, existing: str) -> bool:
        a, b = set(_WORDS.findall(claim.lower())), set(_WORDS.findall(existing.lower()))
        if not same_subject(a, b):
            return False
        if (len(_NEGATIONS.findall(claim)) % 2) != (len(_NEGATIONS.findall(existing)) % 2):
            return True
        for x, y in _ANTONYMS:
            if (x in a and y in b and y not in a and x not in b) or (y in a and x in b and x not in a and y not in b):
                return True
        return False

    # ExpeL: a cluster teaches "do it" when at least 70% of its decided outcomes were positive,
    # "avoid it" when at most 30% were; in between it teaches nothing yet.
    do_share = 0.7
    avoid_share = 0.3
    # Reflexion: three or more misses to the same side (the latest included) are a calibration pattern.
    pattern_misses = 3

    def distill(self, cluster: ClusterSummary) -> tuple[Lesson | None, Judged]:
        judged = Judged(self.name)
        if cluster.decided < 3:
            return None, judged
        share = cluster.positives / cluster.decided
        where = _where(cluster)
        record = f"{cluster.positives} of {cluster.decided} outcomes positive"
        if cluster.mean_gain is not None:
            record += f", mean gain {cluster.mean_gain:+.4g}"
        tool = cluster.tool or "this action"
        if share >= self.do_share:
            return Lesson(EntryCategory.Heuristic, f"Use {tool} {where}: {record}.", 1), judged
        if share <= self.avoid_share:
            return Lesson(EntryCategory.Warning, f"Avoid {tool} {where}: {record}.", -1), judged
        return None, judged

    def reflect(self, comparison: Comparison) -> tuple[str, Lesson | None, Judged]:
        c = comparison
        text = (f"predicted {c.metric} {c.expected:+.4g}, actual {c.actual:+.4g} (deviation {c.deviation:+.4g}, "
                f"tolerance {c.tolerance:.4g}): {c.verdict}")
        if c.verdict == "wrong":
            text += "; the opposite action would have been the better one"
        misses = [a - e for e, a in (*c.history, (c.expected, c.actual)) if abs(a - e) > c.tolerance]
        recent = misses[-self.pattern_misses:]
        if c.within_tolerance or len(recent) < self.pattern_misses:
            return text, None, Judged(self.name)
        if all(m > 0 for m in recent) or all(m < 0 for m in recent):
            mean = sum(recent) / len(recent)
            side = "underestimate" if mean > 0 else "overestimate"
            where = " ".join(x for x in (f"for {c.tool}" if c.tool else "",
                                         f"on {c.token_pair}" if c.token_pair else "",
                                         f"in {c.regime} regimes" if c.regime else "") if x)
            content = (f"Predictions of {c.metric} {where} {side} the actual value by {abs(mean):.4g} on average "
                       f"over the last {len(recent)} misses; correct for it.").replace("  ", " ")
            return text, Lesson(EntryCategory.Insight, content, 0), Judged(self.name)
        return text, None, Judged(self.name)


def _where(cluster: ClusterSummary) -> str:
    parts = []
    if cluster.token_pair:
        parts.append(f"for {cluster.token_pair}")
    if cluster.chain:
        parts.append(f"on chain {cluster.chain}")
    if cluster.regime:
        parts.append(f"in {cluster.regime} regimes")
    return " ".join(parts) or "here"
