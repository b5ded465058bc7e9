"""Artifact quality scoring (../shared/spec/grimoire.md, "Artifact Quality Scoring"), rule-based.

Five weighted dimensions minus 0.1 per red flag, clamped to [0, 1]:
specificity 0.25, actionability 0.25, novelty 0.20, verifiability 0.15, consistency 0.15.
Consistency (regenerating the artifact three times) needs a language model and is kept for
Curator promotions in the spec; until then it is the spec's own evidence signal,
1 - contradicted / (validated + contradicted + 1), which is 1.0 for a new entry.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

WEIGHTS = {"specificity": 0.25, "actionability": 0.25, "novelty": 0.20, "verifiability": 0.15, "consistency": 0.15}
RED_FLAG_PENALTY = 0.1

_NUMBER = re.compile(r"(?<![\w.])[-+]?\$?\d[\d,]*(?:\.\d+)?\s*(?:%|bps|gwei|eth|usd|x|k|m|h|hours?|days?|blocks?)?",
                     re.IGNORECASE)
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{40}\b")
_TX_HASH = re.compile(r"\b0x[0-9a-fA-F]{64}\b")
_BLOCK = re.compile(r"\bblock\s*#?\s*\d[\d,]*", re.IGNORECASE)
_TIME = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}(?::\d{2})?\s*(?:am|pm|utc)\b|\butc\b", re.IGNORECASE)
_HEDGES = re.compile(r"\b(might|maybe|perhaps|possibly|could be|seems?|somewhat|probably|likely|generally|"
                     r"sometimes|often|arguably|in some cases|kind of|sort of)\b", re.IGNORECASE)
_IF_THEN = re.compile(r"\b(if|when|whenever|once|unless)\b.+\b(then|do|execute|avoid|sell|buy|exit|enter|reduce|"
                      r"increase|hedge|rebalance|swap|withdraw|deposit|close|open|wait|skip|use)\b",
                      re.IGNORECASE | re.DOTALL)
_IMPERATIVE = re.compile(r"^\s*(avoid|execute|use|reduce|increase|exit|enter|hedge|rebalance|swap|withdraw|deposit|"
                         r"close|open|wait|skip|never|always|do not|don't|prefer|limit|set)\b", re.IGNORECASE)
_TRIGGER = re.compile(r"\b(trigger|threshold|above|below|exceeds?|drops? below|rises? above|crosses)\b",
                      re.IGNORECASE)

RED_FLAGS: dict[str, re.Pattern[str]] = {
    "empty_rhetoric": re.compile(r"\b(game[- ]changer|revolutionary|paradigm shift|synerg\w*|cutting[- ]edge|"
                                 r"next[- ]level|unprecedented|world[- ]class)\b", re.IGNORECASE),
    "weasel_words": re.compile(r"\b(some (?:say|people|experts)|many (?:believe|say|think)|it is (?:said|believed|"
                               r"known)|experts agree|studies show|everyone knows|widely regarded)\b", re.IGNORECASE),
    "self_praise": re.compile(r"\b(my (?:brilliant|excellent|great|genius)|i am (?:always )?(?:right|great|smart)|"
                              r"(?:brilliant|excellent|genius) (?:insight|idea|analysis) of mine)\b", re.IGNORECASE),
}
_CAUSAL = re.compile(r"\b(causes?|caused|leads? to|results? in|drives?|because)\b", re.IGNORECASE)
_TAUTOLOGY_SPLIT = re.compile(r"\b(?:when|because|if|means|is|causes?|leads? to)\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+")
_STOP = {"the", "a", "an", "of", "to", "in", "on", "and", "or", "it", "its", "this", "that", "goes", "go", "will"}


@dataclass(frozen=True)
class QualityScore:
    specificity: float
    actionability: float
    novelty: float
    verifiability: float
    consistency: float
    red_flags: tuple[str, ...]
    score: float

    def as_properties(self) -> dict[str, object]:
        d = asdict(self)
        d["red_flags"] = list(self.red_flags)
        return {("quality_score" if k == "score" else f"quality_{k}"): v for k, v in d.items()}


def _clamp(x: float) -> float:
    return max(0.0, min(1.0, x))


def concrete_claims(text: str) -> int:
    """Numbers, addresses, transaction hashes and times (an address is not also a number)."""
    bare = _ADDRESS.sub(" ", _TX_HASH.sub(" ", text))
    return (len(_NUMBER.findall(bare)) + len(_ADDRESS.findall(text)) + len(_TX_HASH.findall(text))
            + len(_TIME.findall(bare)))


def specificity(text: str) -> float:
    return _clamp(0.2 + 0.2 * concrete_claims(text) - 0.15 * len(_HEDGES.findall(text)))


def actionability(text: str) -> float:
    if _IF_THEN.search(text):
        return 1.0
    if _IMPERATIVE.search(text) or _TRIGGER.search(text):
        return 0.7
    return 0.2


def verifiability(text: str) -> float:
    if _ADDRESS.search(text) or _TX_HASH.search(text) or _BLOCK.search(text):
        return 1.0
    if _NUMBER.search(text) or _TIME.search(text):
        return 0.5
    return 0.1


def consistency(validated: int = 0, contradicted: int = 0) -> float:
    return 1.0 - contradicted / (validated + contradicted + 1)


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def red_flags(text: str, evidence: int = 0) -> tuple[str, ...]:
    flags = [name for name, pattern in RED_FLAGS.items() if pattern.search(text)]
    if _CAUSAL.search(text) and evidence == 0 and concrete_claims(text) == 0:
        flags.append("unverified_causal_claim")
    parts = [p for p in _TAUTOLOGY_SPLIT.split(text) if p.strip()]
    if len(parts) >= 2:
        left, right = _content_words(parts[0]), _content_words(" ".join(parts[1:]))
        if left and right and len(left & right) / len(left | right) >= 0.6:
            flags.append("tautology")
    return tuple(flags)


def score(text: str, novelty: float, *, evidence: int = 0, validated: int = 0, contradicted: int = 0) -> QualityScore:
    """`novelty` is 1 - the highest cosine similarity to existing entries; `evidence` counts parent episodes."""
    dims = {
        "specificity": specificity(text),
        "actionability": actionability(text),
        "novelty": _clamp(novelty),
        "verifiability": verifiability(text),
        "consistency": consistency(validated, contradicted),
    }
    flags = red_flags(text, evidence)
    total = _clamp(sum(WEIGHTS[k] * v for k, v in dims.items()) - RED_FLAG_PENALTY * len(flags))
    return QualityScore(**dims, red_flags=flags, score=total)
