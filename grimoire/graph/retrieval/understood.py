"""The full pipeline's lists from what the query says (graph/retrieval/query_understanding.py), fused
by RRF beside the backends' (RetrievalConfig.query): one per entity the query names (its mentions,
by similarity: the search joined through the graph to each thing it is about), one of the items
valid in the times it names (by similarity), and, for a question asking when, the candidates that
tell a time (in fused order: a boost of what the backends found)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from grimoire.graph.retrieval import backends, feedback_terms
from grimoire.graph.retrieval import query_understanding as qu
from grimoire.graph.retrieval import term_overlap as to
from grimoire.graph.retrieval.context import Context

ENTITY = "entity"   # list names: entity:<id>, time, time_telling
TIME = "time"
TELLING = "time_telling"
FOCUS = "entity_focus"
CONTEXT = "vector_context"
FEEDBACK = "bm25_feedback"


def entity_lists(ctx: Context, named: Sequence[str]) -> dict[str, list[str]]:
    """Per entity named (at most `entity_max`, those mentioned at most `entity_max_mentions` times): the
    ids of the visible items mentioning it, best first."""
    cfg = ctx.config.query
    wanted = list(dict.fromkeys(named))[:cfg.entity_max]
    if not cfg.entity_lists or not wanted or len(wanted) < cfg.entity_min:
        return {}
    rows = ctx.db.rows("retrieval/entity_mentions", entities=wanted, max_mentions=cfg.entity_max_mentions,
                       embedding=ctx.embedding.required(), top=cfg.top, **ctx.params)
    by: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(r["entity"], []).append(r)
    return {f"{ENTITY}:{e}": ctx.note(f"{ENTITY}:{e}", sorted(by[e], key=lambda r: (-r["score"], r["id"])))
            for e in wanted if e in by}


def _windows(ctx: Context) -> list[qu.Window]:
    cfg = ctx.config.query
    if not cfg.time_windows or not ctx.req.text:
        return []
    return qu.windows(ctx.req.text, ctx.at, cfg.slack_days)


def time_list(ctx: Context) -> dict[str, list[str]]:
    """The items valid in the times the query names, best first (none when it names none), when the caller's
    reach is ranked exactly (graph/retrieval/reach.py): the windows are read in full. A larger reach gets
    `time_boost` instead: a month of a busy agent's episodes is too many to score on every query."""
    found = _windows(ctx)
    if not found or not _exact_reach(ctx):
        return {}
    rows = ctx.db.rows("retrieval/time_window", windows=[[w.start, w.end] for w in found],
                       embedding=ctx.embedding.required(), top=ctx.config.query.top, **ctx.params)
    return {TIME: ctx.note(TIME, rows)}


def time_boost(ctx: Context, ranked: Sequence[str]) -> dict[str, list[str]]:
    """For a larger reach: the fused candidates valid in the times the query names, in fused order."""
    found = _windows(ctx)
    if not found or _exact_reach(ctx):
        return {}
    ids = [i for i in ranked if i in ctx.found and any(w.holds(ctx.found[i].valid_from) for w in found)]
    return {TIME: _traced(ctx, TIME, ids[:ctx.config.query.top])} if ids else {}


def _exact_reach(ctx: Context) -> bool:
    return (not ctx.visibility.sees_everything(ctx.params["agent_id"])
            and ctx.reach().result().exact(ctx.config.held_below))


def telling(ctx: Context, ranked: Sequence[str]) -> dict[str, list[str]]:
    """For a question asking when: the fused candidates whose text tells a time, in fused order."""
    cfg = ctx.config.query
    if not cfg.time_telling or not ctx.req.text or not qu.asks_time(ctx.req.text):
        return {}
    ids = [i for i in ranked if i in ctx.found and qu.tells_time(ctx.found[i].text)][:cfg.top]
    return {TELLING: _traced(ctx, TELLING, ids)} if ids else {}


def focus(ctx: Context, ranked: Sequence[str], entities: Sequence[str]) -> dict[str, list[str]]:
    """The fused candidates that mention an entity the query is about, in fused order: when a question names
    one of two people, the turns that mention the other are less likely to answer it."""
    cfg = ctx.config.query
    if not cfg.entity_focus or not entities:
        return {}
    head = list(ranked[:cfg.focus_among])
    about = {r["id"] for r in ctx.db.rows("retrieval/mentioning", ids=head, entities=list(entities))}
    ids = [i for i in head if i in about][:cfg.top]
    if len(ids) == len(head):
        return {}  # all of them: no boost tells them apart
    return {FOCUS: _traced(ctx, FOCUS, ids)} if ids else {}


def _traced(ctx: Context, name: str, ids: list[str]) -> list[str]:
    for rank, i in enumerate(ids, start=1):
        ctx.traces.setdefault(i, {})[name] = {"rank": rank, "score": 1.0}
    return ids


def reads_context(ctx: Context) -> bool:
    """Whether the vector ranking reads short turns with the turn before: on, and the caller's reach is ranked
    exactly anyway (graph/retrieval/reach.py; the admin without an agent filter reads the index)."""
    return (ctx.config.query.short_context and (ctx.req.text is not None or ctx.req.vector is not None)
            and _exact_reach(ctx))


def context_vector(ctx: Context) -> list[str]:
    """The vector ranking with the turn before as context for short turns (cypher/retrieval/vector_context.cypher),
    best first."""
    cfg = ctx.config.query
    return ctx.note("vector", ctx.exact(ctx.config.per_backend, short_chars=cfg.short_chars, weight=cfg.context_weight))


def feedback(ctx: Context, bm25: Sequence[str]) -> dict[str, list[str]]:
    """BM25 again with the words its first hits share (graph/retrieval/feedback_terms.py), when on and the first
    search found something: its own hits' texts only, searched with the first's scope and filters."""
    cfg, text = ctx.config.query, ctx.req.text
    if not cfg.feedback or not text or not bm25:
        return {}
    top = [ctx.found[i] for i in bm25[:cfg.feedback_docs] if i in ctx.found and ctx.found[i].text]
    weights = feedback_terms.candidate_terms([c.text or "" for c in top],
                                             [float(ctx.traces[c.id]["bm25"]["score"]) for c in top], text)
    pool = sorted(weights, key=lambda t: (-weights[t], t))[:cfg.feedback_pool]
    if not pool:
        return {}
    reach = ctx.reach().result()
    df = to.document_frequencies(ctx.db, pool, ctx.config.term_overlap.idf_cap, ctx.params)
    boosted = feedback_terms.expansion({t: weights[t] for t in pool}, to.idf(df, reach.visible, pool),
                                       cfg.feedback_terms, cfg.feedback_weight)
    if not boosted:
        return {}
    rows = backends.bm25(ctx.db, text, ctx.config.per_backend, ctx.params, ctx.config.candidates_factor, reach,
                         boosted=boosted)
    return {FEEDBACK: ctx.note(FEEDBACK, rows)}
