"""What lies around the fused candidates, as lists the full pipeline fuses by RRF beside the backends' (issue 41,
multi-hop and open-domain; RetrievalConfig.neighbourhood, both off by default).

Hierarchical (`threads`): a conversation's evidence sits in sessions, so the thread is scored first and the turn
within it second. A candidate's thread score is the max (or sum) of the fused scores of the candidates at most
`thread_hops` FOLLOWS steps from it, itself counted; the list orders the candidates by it, then by their own fused
score: a turn of the best thread rises over an equally scored turn of another. It reads only the candidates.

Expansion (`expand`): the items around the first `expand_from` fused candidates, their turns before and after and
the items mentioning an entity they mention (hubs skipped, as the graph backend skips them), at a lower RRF weight
(`expand_weight`): the turn that answers the hit's question, or another mention of what it talks about. The query
applies the caller's visibility and filters (cypher/retrieval/expansion.cypher): it reaches only what the first
search could have found."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Literal

from grimoire.graph.retrieval.context import Context

THREAD = "thread"        # list names
EXPANSION = "expansion"


def thread_scores(fused: Mapping[str, float], mates: Mapping[str, Collection[str]],
                  how: Literal["max", "sum"]) -> dict[str, float]:
    """Each candidate's thread score: the max or sum of the fused scores of itself and its thread mates among the
    candidates."""
    out = {}
    for i, own in fused.items():
        scores = [own, *(fused[m] for m in mates.get(i, ()) if m in fused)]
        out[i] = max(scores) if how == "max" else sum(scores)
    return out


def thread_order(fused: Mapping[str, float], scores: Mapping[str, float], top: int) -> list[str]:
    """The candidates by their thread's score (`scores`, thread_scores'), then their own, then id: the first
    `top`."""
    return sorted(fused, key=lambda i: (-scores[i], -fused[i], i))[:top]


def thread_list(fused: Mapping[str, float], mates: Mapping[str, Collection[str]], how: Literal["max", "sum"],
                top: int) -> list[tuple[str, float]]:
    """The first `top` candidates in thread order, each with its thread score: the scores computed once, for the
    order and the traces."""
    scores = thread_scores(fused, mates, how)
    return [(i, scores[i]) for i in thread_order(fused, scores, top)]


def threads(ctx: Context, ranked: Sequence[str]) -> dict[str, list[str]]:
    """The hierarchical list of the fused candidates (none when off, or no two share a thread)."""
    cfg = ctx.config.neighbourhood
    if not cfg.threads or len(ranked) < 2:
        return {}
    ids = list(ranked)
    mates: dict[str, set[str]] = {}
    for r in ctx.db.rows("retrieval/thread_mates", ids=ids, hops=cfg.thread_hops):
        mates.setdefault(r["id"], set()).add(r["mate"])
    if not mates:
        return {}
    fused = {i: float(ctx.traces[i]["rrf"]) for i in ids}
    listed = thread_list(fused, mates, cfg.thread_score, cfg.top)
    for rank, (i, score) in enumerate(listed, start=1):
        ctx.traces.setdefault(i, {})[THREAD] = {"rank": rank, "score": round(score, 6)}
    return {THREAD: [i for i, _ in listed]}


def expansion(ctx: Context, ranked: Sequence[str]) -> dict[str, list[str]]:
    """The visible items around the first fused candidates, best first (none when off)."""
    cfg = ctx.config.neighbourhood
    hits = list(ranked[:cfg.expand_from])
    if not cfg.expand or not hits:
        return {}
    rows = ctx.db.rows("retrieval/expansion", hits=hits, hops=cfg.expand_hops, entities=cfg.expand_entities,
                       max_mentions=ctx.config.graph_entity_max_mentions, embedding=ctx.embedding.required(),
                       top=cfg.top, **ctx.params)
    return {EXPANSION: ctx.note(EXPANSION, rows)} if rows else {}


def weights(ctx: Context) -> dict[str, float]:
    """The RRF weights with the thread list's and the expansion's."""
    cfg = ctx.config.neighbourhood
    return {**ctx.config.backend_weights, THREAD: cfg.thread_weight, EXPANSION: cfg.expand_weight}
