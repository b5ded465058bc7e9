"""The judgement calls the Admission Gate needs: future utility and contradiction.

The spec asks a language model for these. Grimoire's default Reasoner is deterministic and
rule-based (no network); a language-model Reasoner can be plugged in behind the same interface.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from graph.knowledge import quality
from graph.model.enums import DecayClass, EntryCategory, MarketRegime


@dataclass(frozen=True)
class Candidate:
    """What the gate judges: a knowledge entry before it is written."""

    content: str
    category: EntryCategory
    decay_class: DecayClass | None = None
    regime: MarketRegime | None = None
    evidence: int = 0  # parent episodes
    tags: tuple[str, ...] = field(default_factory=tuple)


class Reasoner(Protocol):
    name: str

    def future_utility(self, candidate: Candidate) -> float:
        """Will this be useful for future decisions in similar conditions? 0.0 to 1.0."""
        ...

    def contradicts(self, claim: str, existing: str) -> bool:
        """Does `claim` assert the opposite of `existing` (both about the same thing)?"""
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
_PRESCRIPTIVE = {EntryCategory.Warning, EntryCategory.Heuristic, EntryCategory.CausalLink}


class RuleBasedReasoner:
    """Deterministic: the same input always gets the same answer."""

    name = "rule-based"

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
        if (len(_NEGATIONS.findall(claim)) % 2) != (len(_NEGATIONS.findall(existing)) % 2):
            return True
        for x, y in _ANTONYMS:
            if (x in a and y in b and y not in a and x not in b) or (y in a and x in b and x not in a and y not in b):
                return True
        return False
