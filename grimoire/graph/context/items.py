"""What a category is filled from: items from the Grimoire (episodes, entries, causal edges) or from the caller
(invariants, strategy, the DeFi snapshot, mortality, tool state, owner control), each with its full text, a
one-line summary, the tag it is rendered under and what it is ranked by (its attention score, graph/context/
attention.py; before it is scored, S3.2's relevance x 0.5 + recency x 0.3 + confidence x 0.2)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from grimoire.graph.context.categories import ContextCategory

SUMMARY_WORDS = 24
_SENTENCE = re.compile(r"(?<=[.!?])\s")


@dataclass(frozen=True)
class Item:
    id: str
    category: ContextCategory
    text: str
    summary: str
    tag: str                                      # the element it is rendered as: heuristic, episode, warning, …
    attrs: tuple[tuple[str, str], ...] = ()       # rendered attributes besides its ref
    relevance: float = 0.0                        # cosine to the query, [0, 1]
    recency: float = 1.0                          # [0, 1]
    confidence: float = 0.5                       # [0, 1]
    at: int = 0                                   # when it happened (ms): observation masking's order
    source: str = "grimoire"                      # grimoire | caller | service
    pad: tuple[float, ...] | None = None          # its PAD association (the affective part of its score)
    ranked: float | None = None                   # its attention score, once scored (graph/context/attention.py)
    dominant: str | None = None                   # the part of that score that weighed most

    @property
    def score(self) -> float:
        if self.ranked is not None:
            return self.ranked
        return self.relevance * 0.5 + self.recency * 0.3 + self.confidence * 0.2


def one_line(text: str, words: int = SUMMARY_WORDS) -> str:
    """The first sentence, at most `words` words (an ellipsis when cut): an item's one-line summary."""
    flat = " ".join(text.split())
    first = _SENTENCE.split(flat, maxsplit=1)[0]
    cut = first.split(" ")
    return " ".join(cut[:words]) + ("…" if len(cut) > words or len(first) < len(flat) else "")


def recency(at: int | None, now: int, half_life_ms: float) -> float:
    """exp(-ln 2 x age / half-life), 1 for an item from now or the future."""
    if not at or half_life_ms <= 0:
        return 0.0 if not at else 1.0
    return math.exp(-math.log(2) * max(0, now - at) / half_life_ms)


def unit(x: float | None, default: float = 0.0) -> float:
    return default if x is None else min(1.0, max(0.0, float(x)))
