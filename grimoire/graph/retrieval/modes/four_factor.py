"""The four-factor score over the fused vector and BM25 candidates: semantic 0.40, temporal 0.20,
importance 0.25, emotional congruence 0.15."""

from __future__ import annotations

from collections.abc import Sequence

from grimoire.graph.knowledge.decay import DAY_MS, EPISODE, DecayConfig, retention
from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.retrieval.context import Context
from grimoire.graph.retrieval.modes.base import Needs
from grimoire.graph.retrieval.modes.recipe import scored_by_factors
from grimoire.graph.retrieval.rerank import cosine, quality


def emotional_congruence(item_pad: Sequence[float] | None, mood: Sequence[float] | None) -> float:
    """PAD cosine brought into [0, 1]; 0.5 (neutral) when either side has no PAD."""
    if not item_pad or not mood or not any(item_pad) or not any(mood):
        return 0.5
    return (1.0 + cosine(item_pad, mood)) / 2.0


def score(item: Candidate, query: Sequence[float] | None, *, now: int, mood: Sequence[float] | None,
          config: RetrievalConfig, decay: DecayConfig) -> dict[str, float]:
    """The four factors and their weighted sum, `score`."""
    w = config.four_factor
    hl = item.half_life_ms if item.kind == "entry" else decay.type_half_life_days[EPISODE] * DAY_MS
    f = {
        "semantic": cosine(item.embedding, query),
        "temporal": retention(now, item.last_accessed_at or now, hl, item.strength or 1.0),
        "importance": quality(item, config),
        "emotional": emotional_congruence(item.pad, mood),
    }
    f["score"] = (f["semantic"] * w.semantic + f["temporal"] * w.temporal + f["importance"] * w.importance
                  + f["emotional"] * w.emotional)
    return f


class FourFactor:
    name = "four_factor"
    needs = Needs.query

    def candidates(self, ctx: Context) -> list[Candidate]:
        weights = ctx.config.four_factor.model_dump()

        def factors(c: Candidate) -> dict[str, float]:
            c.weights = weights
            return score(c, ctx.embedding(), now=ctx.at, mood=ctx.req.mood, config=ctx.config, decay=ctx.decay)

        return scored_by_factors(ctx, factors)
