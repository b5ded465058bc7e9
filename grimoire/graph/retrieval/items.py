"""What retrieval knows of a candidate: built from the properties every backend query returns
with its rows (so no second round trip for the rerank), or fetched by id when a candidate came
without them (replay, contrarian). Embeddings are fetched apart, only for the few items that need
one (MMR's head, the four-factor and Generative Agents relevance): reading and shipping 384 floats
per candidate was the largest cost of a retrieval in the database."""

from __future__ import annotations

from collections.abc import Sequence

from grimoire.graph.db.connection import Database
from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.visibility import Visibility


def fetch(db: Database, ids: list[str], visibility: Visibility) -> dict[str, Candidate]:
    """The candidates of these ids that the caller may see (an item whose scope narrowed since the query that
    named it is left out)."""
    if not ids:
        return {}
    return {r["id"]: Candidate.from_row(r) for r in db.rows("retrieval/items", ids=ids, **visibility.params())}


def embeddings(db: Database, ids: list[str]) -> dict[str, list[float]]:
    return {r["id"]: r["embedding"] for r in db.rows("retrieval/embeddings", ids=ids)} if ids else {}


def with_embeddings(db: Database, items: Sequence[Candidate]) -> None:
    """Sets each item's `embedding`, fetched in one round trip for those that lack one."""
    found = embeddings(db, [it.id for it in items if it.embedding is None])
    for it in items:
        if it.id in found:
            it.embedding = found[it.id]
