"""The Generative Agents score over the fused vector and BM25 candidates: alpha recency + beta
importance + gamma relevance (Park et al.), with the agent's weights learned from the outcomes of
its decisions (graph/retrieval/weights.py, feedback.py; the configured 0.3, 0.3, 0.4 until then)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.retrieval.context import Context
from grimoire.graph.retrieval.modes.base import Needs
from grimoire.graph.retrieval.modes.recipe import scored_by_factors
from grimoire.graph.retrieval.rerank import cosine, quality
from grimoire.graph.retrieval.weights import Weights, configured, of_agent


def score(item: Candidate, query: Sequence[float] | None, *, now: int, block: int | None,
          config: RetrievalConfig, weights: Weights | None = None) -> dict[str, float]:
    """Recency (per block behind the current one, else per hour since valid_from), importance and
    relevance, and their sum weighted by `weights` (default: the configured ones), `score`."""
    g = config.generative_agents
    w = weights or configured(g)
    if block is not None and item.block is not None:
        rec = math.exp(-g.decay_per_block * max(0, block - item.block))
    else:
        hours = max(0, now - (item.valid_from or now)) / 3_600_000
        rec = math.exp(-g.decay_per_hour * hours)
    f = {"recency": rec, "importance": quality(item, config), "relevance": cosine(item.embedding, query)}
    f["score"] = w.recency * f["recency"] + w.importance * f["importance"] + w.relevance * f["relevance"]
    return f


class GenerativeAgents:
    name = "generative_agents"
    needs = Needs.query

    def candidates(self, ctx: Context) -> list[Candidate]:
        cfg = ctx.config
        learned = (ctx.submit(of_agent, ctx.db, ctx.agent_id or ctx.filters.agent_id, cfg.generative_agents)
                   if cfg.hedge.enabled else None)

        def factors(c: Candidate) -> dict[str, float]:
            w = learned.result() if learned else configured(cfg.generative_agents)
            h = cfg.hormones
            if h.importance_boost != 1.0 or h.recency_bias != 1.0:  # the caller's hormones (config.modulated)
                w = replace(w, recency=w.recency * h.recency_bias, importance=w.importance * h.importance_boost)
            c.weights = w.as_dict()
            return score(c, ctx.embedding(), now=ctx.at, block=ctx.req.block, config=cfg, weights=w)

        return scored_by_factors(ctx, factors)
