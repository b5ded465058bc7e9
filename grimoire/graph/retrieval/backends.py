"""The three candidate backends. Each returns rows best first (id, its own score, and the item's
kind and properties, so the rerank needs no second round trip): the native
vector index, the full-text index (Lucene BM25), and the graph (entities named in the query or the
agent's positions, and the neighbours of the strongest hits)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from grimoire.graph.db.connection import Database, IndexOffline
from grimoire.graph.db.lucene import escape_lucene, matchable, scope_clauses, scoped
from grimoire.graph.model.rows import Record
from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.retrieval.reach import ExactRule, Reach, ReachCache, exact_rule, measure
from grimoire.graph.visibility import PARAMS as VISIBILITY_PARAMS
from grimoire.graph.visibility import Visibility

MAX_CANDIDATES = 10_000
BM25_CANDIDATES = 100        # what BM25 widens to when the filters leave too few hits
BM25_MAX_CANDIDATES = 1_000  # the most it asks for a caller who sees a small share of the store


def vector(db: Database, embedding: list[float], top: int, factor: int, params: dict[str, Any],
           reach: Reach | None = None, exact_below: int | ExactRule = 0, exact_fallback_below: int = 0) -> list[Record]:
    """The `top` best visible items. With the caller's reach known (graph/retrieval/reach.py): none
    when it sees nothing, an exact ranking when it sees at most `exact_below` items (or as many as the rule allows
    it: reach.ExactRule), else an index
    search asked for enough candidates for its visible share, widened (five times, at most twice)
    while the filters leave fewer than `top`. When that is not enough, or while an index is being
    rebuilt (graph/schema.py), the exact search answers if the caller sees at most
    `exact_fallback_below` items; beyond that the cost stays bounded and fewer rows may come back
    (BM25 and the graph backend still contribute). Without a reach: widen up to MAX_CANDIDATES,
    then search exactly."""
    if reach is not None and reach.visible == 0:
        return []
    if reach is not None and reach.exact(exact_below):
        return _best_first(db.rows(exact_query(params), embedding=embedding, top=top, **params))
    first = reach.candidates(top, factor, MAX_CANDIDATES) if reach is not None else factor * top
    limit = MAX_CANDIDATES if reach is None else min(MAX_CANDIDATES, max(first * 25, reach.widest(top, factor,
                                                                                                MAX_CANDIDATES)))
    try:
        rows = _widening(db, "retrieval/vector", top, first, limit, params, embedding=embedding)
    except IndexOffline:
        rows = []
    if len(rows) < top and (reach is None or not reach.capped and reach.visible <= exact_fallback_below):
        rows = db.rows(exact_query(params), embedding=embedding, top=top, **params)
    return _best_first(rows)


def vector_measured(db: Database, embedding: list[float], top: int, params: dict[str, Any],
                    config: RetrievalConfig, reaches: ReachCache | None = None) -> list[Record]:
    """`vector` for one caller, its reach measured first (or reused from `reaches`), with the configured
    thresholds: /search and the adaptive decision's coverage (the modes measure the reach beside the
    embedding)."""
    seen = (reaches.measure if reaches is not None else measure)(db, params, config.visible_count_cap)
    return vector(db, embedding, top, config.candidates_factor, params, seen, exact_rule(config, MAX_CANDIDATES),
                  config.exact_fallback_below)


def exact_query(params: dict[str, Any]) -> str:
    """The exact search over what the caller sees: gathered through the indexes, or all of it for the
    admin without an agent filter (the `_all` variant)."""
    return _viewer(params).variant("retrieval/vector_exact", params["agent_id"])


Ask = Callable[..., list[Record]]  # an index statement's rows, as Database.rows(name, **params)


def bm25(db: Database, text: str, top: int, params: dict[str, Any], factor: int = 1,
         reach: Reach | None = None, memories: bool = False,
         boosted: Sequence[tuple[str, float]] = (), first_ask: Ask | None = None) -> list[Record]:
    """The best `top` visible hits. The indexes hand back only hits the caller may see (`scope_of`), so a
    caller seeing a small share of the store gets its own best matches: about `factor` x `top` of them first,
    and when the other filters leave fewer than `top` (memories only, a status), once more as many as the
    caller's reach allows (up to BM25_MAX_CANDIDATES). Where the caller's scope cannot narrow the index (an id
    of stop words only) or need not (the admin), the hits are the store's: about `factor` x `top` visible ones
    first (a caller seeing a small share asks for more, up to BM25_MAX_CANDIDATES), then five times more while
    too few remain. `memories`: agent memories only (graph/retrieval/lookup.py). `boosted`: words added to the
    query at their weight (pseudo-relevance feedback: graph/retrieval/feedback_terms.py). `first_ask`: runs the
    first statement instead of `db.rows` (graph/retrieval/context.py reads it with the exact ranking's members, in
    one round trip); a wider ask after it goes through `db.rows`."""
    if not matchable(text) or (reach is not None and reach.visible == 0):
        return []  # words the analyzer keeps none of match nothing (a scoped query would match its whole scope)
    required = scope_of(params)
    words = " ".join([escape_lucene(text).strip(), *(f"{escape_lucene(w)}^{b}" for w, b in boosted if b > 0)])
    query = scoped(words.strip(), required)
    widest = reach.widest(top, factor, BM25_MAX_CANDIDATES) if reach is not None else 0
    if required:  # hits are the caller's: few are filtered, so when too few are left the matches ran out, or
        # the other filters bite (memories only, a status): then once more, as wide as the reach allows
        first, step = factor * top, 0
    else:
        first, step = reach.candidates(top, factor, BM25_MAX_CANDIDATES) if reach is not None else factor * top, 5
    return _best_first(_widening(db, "retrieval/fulltext", top, first, max(BM25_CANDIDATES, first, widest), params,
                                 step=step, first_ask=first_ask, query=query, memories=memories))


def scope_of(params: dict[str, Any]) -> list[str] | None:
    """The Lucene clauses the caller of `params` requires of a full-text hit (its visibility, the agent filter:
    graph/db/lucene.py `scope_clauses`), for `scoped`."""
    return scope_clauses(_viewer(params), params.get("agent_id"))


def _viewer(params: dict[str, Any]) -> Visibility:
    return Visibility(**{key: params[key] for key in VISIBILITY_PARAMS})


def _widening(db: Database, name: str, top: int, first: int, limit: int, params: dict[str, Any], step: int = 5,
              first_ask: Ask | None = None, **query: Any) -> list[Record]:
    """The rows of an index query asking each index for `first` hits, then `step` times more (up to `limit`;
    0: `limit` at once) each time the filters leave fewer than `top`. `first_ask`: what runs the first ask."""
    candidates = min(first, limit)
    ask: Ask = first_ask or db.rows
    while True:
        rows = ask(name, candidates=candidates, top=top, **query, **params)
        ask = db.rows
        if len(rows) >= top or candidates >= limit:
            return rows
        candidates = min(candidates * step, limit) if step else limit


def _best_first(rows: list[dict[str, Any]]) -> list[Record]:
    # The queries order before they project each row's properties; keep that order explicit here.
    return sorted(rows, key=lambda r: (-r["score"], r["id"]))


_WORD = re.compile(r"[\w$./-]+")


def _words(text: str) -> str:
    return " " + " ".join(_WORD.findall(text.lower())) + " "


_POSSESSIVE = re.compile(r"(?<=\w)['’]s\b", re.IGNORECASE)


def named_entities(db: Database, text: str, visibility: Visibility, limit: int = 5,
                   possessives: bool = False) -> list[str]:
    """Entities the viewer may see whose name, symbol or alias appears in the text as whole words
    (an invisible one would show up in the explanation as the entity a result came through).
    `possessives`: "Caroline's" names Caroline (the name index's analyzer keeps "caroline's" a word)."""
    query = entity_query(text, possessives)
    if not query:
        return []
    return named_in(db.rows("retrieval/entity_candidates", query=query, limit=ENTITY_CANDIDATES,
                            **visibility.params()), text, limit, possessives)


ENTITY_CANDIDATES = 25  # entities the name index is asked for (the viewer's), before the whole-word check


def entity_query(text: str, possessives: bool = False) -> str:
    """The name index's query for the text (empty: nothing to ask)."""
    if possessives:
        text = _POSSESSIVE.sub("", text)
    return escape_lucene(text).strip()


def named_in(rows: Sequence[Record], text: str, limit: int = 5, possessives: bool = False) -> list[str]:
    """Of entity_candidates.cypher's rows (best first), the ids of those the text names as whole words."""
    return [i for i, _ in naming(rows, text, possessives)][:limit]


def naming(rows: Sequence[Record], text: str, possessives: bool = False) -> list[tuple[str, list[str]]]:
    """Of entity_candidates.cypher's rows (best first), those the text names as whole words: each one's id and the
    names (its name, symbol, aliases) the text holds (graph/retrieval/decompose.py splits the question at them)."""
    if possessives:
        text = _POSSESSIVE.sub("", text)
    lowered = _words(text)
    out = []
    for r in rows:
        names = [n for n in [r["name"], r["symbol"], *(r["aliases"] or [])] if n]
        held = [n for n in names if _words(n) in lowered]
        if held:
            out.append((r["id"], held))
    return out


def graph(db: Database, embedding: list[float], *, seeds: Sequence[str], hits: Sequence[str], block: int | None,
          top: int, max_mentions: int, params: dict[str, Any], focus: Sequence[str] = (),
          neighbours_ask: Ask | None = None) -> list[Record]:
    """Neighbours of the strongest hits first (by the hit's rank; in a thread, only those about the
    `focus` entities when there are any), then items around the seed entities (by similarity to the
    query). `neighbours_ask`: runs the neighbours' statement instead of `db.rows` (graph/retrieval/context.py reads
    them with the exact ranking's candidates, in one round trip)."""
    rows: list[dict[str, Any]] = []
    if hits:
        ask: Ask = neighbours_ask or db.rows
        rows += sorted(ask("retrieval/graph_neighbours", hits=list(hits), embedding=embedding, top=top,
                           focus=list(focus), **params), key=lambda r: (r["order_key"], -r["score"], r["id"]))
    if seeds:
        rows += [{**r, "via": ["entity"]} for r in
                 _best_first(db.rows("retrieval/graph_entities", seeds=list(seeds), block=block, embedding=embedding,
                                     top=top, max_mentions=max_mentions, **params))]
    seen: set[str] = set()
    out = []
    for r in rows:
        if r["id"] not in seen:
            seen.add(r["id"])
            out.append(r)
    return out[:top]
