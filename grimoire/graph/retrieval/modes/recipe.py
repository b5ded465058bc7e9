"""The index backends, and the modes that are only a recipe of them: vector, BM25, or both fused
by reciprocal rank fusion (graph/retrieval/fusion.py), scored by the one backend's score or the
fused one, then weighted by source and Zeigarnik (graph/retrieval/stages.py). The other modes
start from the same candidates (hybrid.py, four_factor.py, generative_agents.py)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from grimoire.graph.retrieval import backends, exact, items, stages
from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.retrieval.context import Context
from grimoire.graph.retrieval.fusion import rrf
from grimoire.graph.retrieval.modes.base import Needs

INDEXES = ("vector", "bm25")


def search(ctx: Context, wanted: Collection[str] = INDEXES) -> dict[str, list[str]]:
    """The ids each wanted index backend ranks, best first, noted in the context. What the caller
    can see decides how the backends search (graph/retrieval/reach.py). It and BM25 need no vector:
    they run while the query is embedded, as does the exact ranking's read of who sees what. Both vector
    indexes are asked in one query: a round trip costs more than a second index search."""
    cfg, req, top = ctx.config, ctx.req, ctx.config.per_backend
    reach_f = ctx.reach()
    if all(name in wanted for name in INDEXES):
        ctx.start_unembedded()  # both need no vector: with text, read in one statement (context.py ONE_READ)
    bm_f = ctx.bm25() if req.text and "bm25" in wanted else None
    if "vector" in wanted:
        ctx.exact_members()  # read while the query is embedded, if the reach is ranked exactly
    embedding = ctx.embedding() if "vector" in wanted else None
    ctx.clock.lap("embed")
    reach = reach_f.result() if embedding is not None else None
    vec: Sequence[Mapping[str, Any]]
    if reach is None:
        vec = []
    elif reach.exact(cfg.held_below) and reach.visible and exact.applies(ctx.params):
        vec = ctx.exact(top)  # a small reach: ranked from the replica's held vectors (graph/retrieval/exact.py)
    else:
        vec = backends.vector(ctx.db, embedding or [], top, cfg.candidates_factor, ctx.params, reach,
                              cfg.exact_below, cfg.exact_fallback_below)
    ctx.clock.lap("vector")
    bm = bm_f.result() if bm_f else []
    ctx.clock.lap("bm25")
    return {name: ctx.note(name, rows) for name, rows in (("vector", vec), ("bm25", bm)) if name in wanted}


def fuse(ctx: Context, lists: Mapping[str, Sequence[str]], weights: Mapping[str, float] | None = None) -> list[str]:
    """The ids of several backends fused by RRF (by `weights`, else the backends'), best first; each candidate's
    trace gets its `rrf`."""
    fused = rrf(lists, ctx.config.rrf_k, ctx.config.backend_weights if weights is None else weights)
    for doc, score in fused.items():
        ctx.traces.setdefault(doc, {})["rrf"] = score
    return list(fused)


@dataclass(frozen=True)
class Recipe:
    """Candidates from `backends`; one backend: its ranking and score, several: fused by RRF."""

    name: str
    backends: tuple[str, ...]
    needs: Needs = Needs.query

    def candidates(self, ctx: Context) -> list[Candidate]:
        stages.prefetch(ctx)
        lists = search(ctx, self.backends)
        ranked = fuse(ctx, lists) if len(lists) > 1 else lists[self.backends[0]]
        found = ctx.load(ranked)
        for c in found:
            c.score = c.trace["rrf"] if "rrf" in c.trace else c.trace[self.backends[0]]["score"]
        ctx.clock.lap("rerank")
        return stages.finish(ctx, found)


def scored_by_factors(ctx: Context, factors: Callable[[Candidate], dict[str, float]]) -> list[Candidate]:
    """The fused vector and BM25 candidates, each scored by `factors` (its factors and their
    weighted sum, `score`) and the final stages (graph/retrieval/stages.py), best first: the modes
    that replace the rerank with a formula of their own."""
    stages.prefetch(ctx)
    found = ctx.load(fuse(ctx, search(ctx)))
    items.with_embeddings(ctx.db, found)
    for c in found:
        f = factors(c)
        c.score, c.factors = f.pop("score"), f
    ctx.clock.lap("rerank")
    return stages.finish(ctx, found)
