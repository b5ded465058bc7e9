"""An item's attention score (context-governor.md "EFE Composite Attention Score"): the sum of four parts, each in
[0, 1] — pragmatic value, epistemic value, affective bias (|cos(PAD now, PAD of the item)|) and mortality urgency
((1 - vitality) x relevance) — with the part that dominated kept on the item, so its entry shows why it ranked
where it did. The document's sources for the first two (a risk engine's delta-CVaR, an oracle's prediction error,
a surprise domain) are not in a memory service; the Grimoire's own signals stand in for them:

- pragmatic: relevance x confidence — how much an item bears on this decision, by how far its lesson has held;
- epistemic: relevance x recency x (1 - confidence) — what the agent would learn: a fresh item it is unsure of.

`weighted` ranking is S3.2's fixed-weight sum (relevance x 0.5 + recency x 0.3 + confidence x 0.2), kept as a
setting (GovernorConfig.attention_ranking). A task's strategy (graph/context/strategy.py) may weigh the parts."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from grimoire.graph.context.affect import Pad
from grimoire.graph.context.categories import ContextCategory
from grimoire.graph.context.items import Item


class Ranking(StrEnum):
    efe = "efe"              # the document's four-part score (the default)
    weighted = "weighted"    # S3.2's relevance x 0.5 + recency x 0.3 + confidence x 0.2


EFE_PARTS = ("pragmatic", "epistemic", "affective", "mortality")
WEIGHTED_PARTS = ("relevance", "recency", "confidence")
EFE_WEIGHTS = dict.fromkeys(EFE_PARTS, 1.0)            # the parts compose additively, no weights (the document)
WEIGHTED = {"relevance": 0.5, "recency": 0.3, "confidence": 0.2}   # S3.2
DEFAULT_WEIGHTS: dict[Ranking, dict[str, float]] = {Ranking.efe: EFE_WEIGHTS, Ranking.weighted: WEIGHTED}


@dataclass(frozen=True)
class Scorer:
    """What an assembly ranks its candidates by: the ranking, the mood, the agent's vitality and the weights
    (a task's strategy may set them; a part it does not name keeps its default)."""

    ranking: Ranking = Ranking.efe
    pad: Pad = Pad()
    vitality: float = 1.0
    weights: Mapping[str, float] | None = None

    def weight(self, part: str) -> float:
        given = self.weights or {}
        return float(given[part]) if part in given else DEFAULT_WEIGHTS[self.ranking].get(part, 0.0)

    def parts(self, item: Item) -> dict[str, float]:
        if self.ranking == Ranking.weighted:
            return {"relevance": item.relevance, "recency": item.recency, "confidence": item.confidence}
        rel, conf = item.relevance, item.confidence
        return {"pragmatic": min(1.0, rel * conf),
                "epistemic": min(1.0, rel * item.recency * (1.0 - conf)),
                "affective": affective(self.pad, item.pad),
                "mortality": (1.0 - min(1.0, max(0.0, self.vitality))) * rel}

    def score(self, item: Item) -> Item:
        """The item with its score and the part that weighed most in it."""
        weighted = {k: v * self.weight(k) for k, v in self.parts(item).items()}
        dominant = max(weighted, key=lambda k: weighted[k]) if any(v > 0 for v in weighted.values()) else None
        return replace(item, ranked=sum(weighted.values()), dominant=dominant)

    def rank(self, found: Mapping[ContextCategory, Sequence[Item]]) -> dict[ContextCategory, list[Item]]:
        return {c: [self.score(i) for i in items] for c, items in found.items()}


def affective(now: Pad, item: Sequence[float] | None) -> float:
    """|cos(PAD now, the item's PAD)|: congruent and incongruent affect both draw attention; 0 for a neutral
    vector on either side."""
    if not item or len(item) < 3:
        return 0.0
    a = (now.pleasure, now.arousal, now.dominance)
    b = tuple(float(x) for x in item[:3])
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(x * x for x in b))
    if na == 0 or nb == 0:
        return 0.0
    return min(1.0, abs(sum(x * y for x, y in zip(a, b, strict=True)) / (na * nb)))
