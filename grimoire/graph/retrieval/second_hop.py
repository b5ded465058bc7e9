"""A vector second hop for evidence spread over several turns (issue 41, multi-hop; RetrievalConfig.multihop, off by
default): Rocchio's relevance feedback on embeddings.

The first fused ranking finds the turns most like the question; a multi-hop question's other evidence is often less
like the question than like that first evidence (the same activity, another session). So the visible items are ranked
again by q' = unit(unit(q) + beta x mean(unit(h))) over the first `hop_from` fused hits h (or by one such query per
hit, `hop_each`, their rankings fused), exactly as the vector backend ranks the query itself (the exact path from the
replica's held vectors, with the short-turn context when that applies; else the index), and the ranking is one more
list fused by RRF at `hop_weight`. It reads only what the caller may see: the hits are its own candidates, and the
ranking goes through the same visibility as the first."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from grimoire.graph.retrieval import backends, exact, items, understood
from grimoire.graph.retrieval.context import Context
from grimoire.graph.retrieval.fusion import rrf

SECOND_HOP = "second_hop"  # the list's name (its rank and score in an explanation)


def _unit(v: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else v


def rocchio(query: Sequence[float] | np.ndarray, hits: Sequence[Sequence[float] | np.ndarray],
            beta: float) -> np.ndarray:
    """q' = unit(unit(q) + beta x mean(unit(h))): the query moved toward its hits (each counted at unit length, so
    none weighs more for its norm). No hits: the query's unit vector."""
    q = _unit(np.asarray(query, dtype=np.float32))
    if not len(hits) or beta == 0:
        return q
    mean = np.mean([_unit(np.asarray(h, dtype=np.float32)) for h in hits], axis=0)
    return _unit(q + beta * mean)


def queries(query: Sequence[float] | np.ndarray, hits: Sequence[Sequence[float] | np.ndarray], beta: float,
            each: bool) -> list[np.ndarray]:
    """The second hop's query vectors: one toward the hits' mean, or one toward each hit (none without hits)."""
    if not len(hits):
        return []
    return [rocchio(query, [h], beta) for h in hits] if each else [rocchio(query, hits, beta)]


def ranked_by(ctx: Context, vector: Sequence[float], top: int) -> Sequence[Mapping[str, Any]]:
    """The `top` visible items by similarity to `vector`, rows best first, ranked as the vector backend ranks the
    query (graph/retrieval/modes/recipe.py `search`, understood.py `context_vector`): a small reach from the held
    vectors (the members' block is reused: one matrix-vector product), else the index."""
    cfg, reach = ctx.config, ctx.reach().result()
    if ctx.ranks_exactly(reach):
        context = understood.reads_context(ctx)
        short, weight = (cfg.query.short_chars, cfg.query.context_weight) if context else (-1, 0.0)
        held = ctx.held if ctx.held is not None else exact.HeldVectors(held=0)
        rows, _ = exact.rank(ctx.db, held, vector, ctx.params, top, short_chars=short, weight=weight,
                             found=ctx.exact_members().result())
        return rows
    return backends.vector(ctx.db, list(vector), top, cfg.candidates_factor, ctx.params, reach, ctx.exact_rule(),
                           cfg.exact_fallback_below)


def fused_rows(rankings: Sequence[Sequence[Mapping[str, Any]]], k: int, top: int) -> list[Mapping[str, Any]]:
    """Several rankings' rows as one: a single one as it is, several fused by RRF (equal weights; the score the
    fused one), the first `top`."""
    if len(rankings) == 1:
        return [dict(r) for r in rankings[0][:top]]
    first: dict[str, Mapping[str, Any]] = {}
    for rows in rankings:
        for r in rows:
            first.setdefault(r["id"], r)
    fused = rrf({str(n): [r["id"] for r in rows] for n, rows in enumerate(rankings)}, k)
    return [{**first[i], "score": round(s, 6)} for i, s in list(fused.items())[:top]]


def _vectors(ctx: Context, ids: Sequence[str]) -> list[np.ndarray]:
    """The hits' vectors: those the exact ranking read, else the candidates', else read (one round trip)."""
    have: dict[str, np.ndarray] = {i: ctx.vectors[i] for i in ids if i in ctx.vectors}
    for i in ids:
        c = ctx.found.get(i)
        if i not in have and c is not None and c.embedding:
            have[i] = np.asarray(c.embedding, dtype=np.float32)
    read = items.embeddings(ctx.db, [i for i in ids if i not in have])
    have |= {i: np.asarray(v, dtype=np.float32) for i, v in read.items() if v}
    return [have[i] for i in ids if i in have]


def second_hop(ctx: Context, ranked: Sequence[str]) -> dict[str, list[str]]:
    """The visible items ranked by the Rocchio query (or queries) from the first fused hits (none when off)."""
    cfg = ctx.config.multihop
    if not cfg.second_hop or not ranked:
        return {}
    query = ctx.embedding()
    if query is None:
        return {}
    asked = queries(query, _vectors(ctx, list(ranked[:cfg.hop_from])), cfg.hop_beta, cfg.hop_each)
    rows = fused_rows([ranked_by(ctx, q.tolist(), cfg.top) for q in asked], ctx.config.rrf_k, cfg.top)
    return {SECOND_HOP: ctx.note(SECOND_HOP, rows)} if rows else {}


def weights(ctx: Context) -> dict[str, float]:
    return {SECOND_HOP: ctx.config.multihop.hop_weight}
