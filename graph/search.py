"""Search that respects visibility: vector (with over-fetch and an exact fallback) and full-text
(with Lucene syntax escaped), over episodes or entries."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any

from graph.db.connection import Database, IndexOffline
from graph.visibility import Visibility


class Kind(StrEnum):
    episodes = "episodes"
    entries = "entries"


VECTOR_INDEX = {Kind.episodes: "episode_embedding", Kind.entries: "entry_embedding"}
TEXT_INDEX = {Kind.episodes: "episode_text", Kind.entries: "entry_text"}
LABEL = {Kind.episodes: "Episode", Kind.entries: "Entry"}
OVERFETCH = 10
MAX_CANDIDATES = 10_000

_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
_LUCENE_OPERATORS = re.compile(r"\b(AND|OR|NOT|TO)\b")


def escape_lucene(text: str) -> str:
    """Every Lucene operator becomes a plain character, and AND/OR/NOT/TO plain words."""
    escaped = _LUCENE_SPECIAL.sub(r"\\\1", text)
    return _LUCENE_OPERATORS.sub(lambda m: m.group(1).lower(), escaped)


def vector(db: Database, kind: Kind, embedding: list[float], k: int, visibility: Visibility) -> list[dict]:
    """The k best visible items. The approximate index is over-fetched; when the visibility filter
    leaves fewer than k, or while the index is being rebuilt, an exact search over the visible set
    answers instead."""
    candidates = min(max(OVERFETCH * k, 100), MAX_CANDIDATES)
    try:
        rows = db.run("search/vector", index=VECTOR_INDEX[kind], embedding=embedding, k=k, candidates=candidates,
                      **visibility.params())
    except IndexOffline:
        rows = []
    if len(rows) < k:
        rows = db.run("search/vector_exact", label=LABEL[kind], embedding=embedding, k=k, **visibility.params())
    return rows


def fulltext(db: Database, kind: Kind, query: str, k: int, visibility: Visibility) -> list[dict]:
    escaped = escape_lucene(query).strip()
    if not escaped:
        return []
    return db.run("search/fulltext", index=TEXT_INDEX[kind], query=escaped, k=k, **visibility.params())


def visible_counts(db: Database, visibility: Visibility) -> dict[str, Any]:
    row = db.run("stats/visible_counts", **visibility.params())[0]
    by_category: dict[str, int] = {}
    by_status: dict[str, int] = {}
    for e in row["entries"]:
        by_category[e["category"]] = by_category.get(e["category"], 0) + 1
        by_status[e["status"]] = by_status.get(e["status"], 0) + 1
    return {"episodes": row["episodes"], "entries": len(row["entries"]), "entries_by_category": by_category,
            "entries_by_status": by_status}


def related_to_entity(db: Database, entity_id: str, visibility: Visibility, limit: int = 100) -> list[dict]:
    """What mentions an entity the viewer may see; EntityNotFound for one it may not (or unknown)."""
    from graph.topology.entities import require_visible  # graph.topology.entities imports this module

    require_visible(db, entity_id, visibility)
    return db.run("entities/related", id=entity_id, limit=limit, **visibility.params())
