"""The Generative Agents score over the fused vector and BM25 candidates: alpha recency + beta
importance + gamma relevance (Park et al.)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from graph.retrieval.candidate import Candidate
from graph.retrieval.config import RetrievalConfig
from graph.retrieval.context import Context
from graph.retrieval.modes.base import Needs
from graph.retrieval.modes.recipe import scored_by_factors
from graph.retrieval.rerank import cosine, quality


def score(item: Candidate, query: Sequence[float] | None, *, now: int, block: int | None,
          config: RetrievalConfig) -> dict[str, float]:
    """Recency (per block behind the current one, else per hour since valid_from), importance and
    relevance, and their weighted sum, `score`."""
    w = config.generative_agents
    if block is not None and item.block is not None:
        rec = math.exp(-w.decay_per_block * max(0, block - item.block))
    else:
        hours = max(0, now - (item.valid_from or now)) / 3_600_000
        rec = math.exp(-w.decay_per_hour * hours)
    f = {"recency": rec, "importance": quality(item), "relevance": cosine(item.embedding, query)}
    f["score"] = w.recency * f["recency"] + w.importance * f["importance"] + w.relevance * f["relevance"]
    return f


class GenerativeAgents:
    name = "generative_agents"
    needs = Needs.query

    def candidates(self, ctx: Context) -> list[Candidate]:
        return scored_by_factors(ctx, lambda c: score(c, ctx.embedding(), now=ctx.at, block=ctx.req.block,
                                                      config=ctx.config))
