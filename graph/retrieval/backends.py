"""The three candidate backends. Each returns rows best first (id, its own score, and the item's
kind and properties, so the rerank needs no second round trip): the native
vector index, the full-text index (Lucene BM25), and the graph (entities named in the query or the
agent's positions, and the neighbours of the strongest hits)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from graph.db.connection import Database, IndexOffline
from graph.search import escape_lucene

MAX_CANDIDATES = 10_000
BM25_CANDIDATES = 100  # the most hits per full-text index a BM25 backend asks for


def vector(db: Database, embedding: list[float], top: int, factor: int, params: dict[str, Any]) -> list[dict]:
    """Ask the approximate index for a few more than `top` (its cost grows with the number asked);
    when the filters leave fewer than `top`, ask again for five times as many, and when even
    MAX_CANDIDATES are not enough, search exactly over what passes the filters, so the k best
    visible items always come back. While an index is being rebuilt (graph/db/schema.py), the
    exact search answers."""
    try:
        rows = _widening(db, "retrieval/vector", top, factor, MAX_CANDIDATES, params, embedding=embedding)
    except IndexOffline:
        rows = []
    if len(rows) < top:
        rows = db.rows("retrieval/vector_exact", embedding=embedding, top=top, **params)
    return _best_first(rows)


def bm25(db: Database, text: str, top: int, params: dict[str, Any], factor: int = 1) -> list[dict]:
    """`factor` x `top` hits per index first (scoring and filtering fewer hits is most of the
    query's cost), then, when fewer than `top` remain (few matches, or the filters bite), once
    more with BM25_CANDIDATES."""
    query = escape_lucene(text).strip()
    if not query:
        return []
    return _best_first(_widening(db, "retrieval/fulltext", top, factor, max(BM25_CANDIDATES, factor * top), params,
                                 query=query))


def _widening(db: Database, name: str, top: int, factor: int, limit: int, params: dict[str, Any],
              **query: Any) -> list[dict]:
    """The rows of an index query asking each index for `candidates` hits, five times more (up to
    `limit`) each time the filters leave fewer than `top`."""
    candidates = min(factor * top, limit)
    while True:
        rows = db.rows(name, candidates=candidates, top=top, **query, **params)
        if len(rows) >= top or candidates >= limit:
            return rows
        candidates = min(candidates * 5, limit)


def _best_first(rows: list[dict]) -> list[dict]:
    # The queries order before they project each row's properties; keep that order explicit here.
    return sorted(rows, key=lambda r: (-r["score"], r["id"]))


_WORD = re.compile(r"[\w$./-]+")


def _words(text: str) -> str:
    return " " + " ".join(_WORD.findall(text.lower())) + " "


def named_entities(db: Database, text: str, limit: int = 5) -> list[str]:
    """Entities whose name, symbol or alias appears in the text as whole words."""
    query = escape_lucene(text).strip()
    if not query:
        return []
    lowered = _words(text)
    out = []
    for r in db.rows("retrieval/entity_candidates", query=query, limit=25):
        names = [n for n in [r["name"], r["symbol"], *(r["aliases"] or [])] if n]
        if any(_words(n) in lowered for n in names):
            out.append(r["id"])
    return out[:limit]


def graph(db: Database, embedding: list[float], *, seeds: Sequence[str], hits: Sequence[str], block: int | None,
          top: int, max_mentions: int, params: dict[str, Any], focus: Sequence[str] = ()) -> list[dict]:
    """Neighbours of the strongest hits first (by the hit's rank; in a thread, only those about the
    `focus` entities when there are any), then items around the seed entities (by similarity to the
    query)."""
    rows: list[dict] = []
    if hits:
        rows += sorted(db.rows("retrieval/graph_neighbours", hits=list(hits), embedding=embedding, top=top,
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
