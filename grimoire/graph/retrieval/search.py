"""POST /search: one retrieval backend at a time, over episodes or entries, with retrieval's own
code (backends.py), so its visibility, its reach (a small visible set ranked exactly) and its
exact fallback (when the index's candidates leave too few visible hits, or while an index is
rebuilt) hold here too. No fusion, rerank or budget: the backend's own ranking and score.

Scores: vector search, the cosine similarity of the item's embedding to the query, in [-1, 1]
(what retrieval's vector backend reports); full-text search, the Lucene BM25 score (0 or more,
unbounded, comparable only within one query)."""

from __future__ import annotations

from enum import StrEnum

from grimoire.graph.db.connection import Database
from grimoire.graph.model.enums import EntryStatus
from grimoire.graph.model.rows import Params, Record
from grimoire.graph.retrieval import backends, reach
from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.retrieval.filters import RetrievalFilters
from grimoire.graph.visibility import Visibility

DEFAULT = RetrievalConfig()


class Kind(StrEnum):
    episodes = "episodes"
    entries = "entries"


def _params(kind: Kind, visibility: Visibility) -> Params:
    """Visibility and the kind only: entries of every status, any time (retrieval's defaults leave
    archived and quarantined entries out; search does not)."""
    return RetrievalFilters(kinds=[kind.value], statuses=list(EntryStatus)).params(visibility)


def vector(db: Database, kind: Kind, embedding: list[float], k: int, visibility: Visibility,
           config: RetrievalConfig = DEFAULT) -> list[Record]:
    """The k visible items nearest the embedding, best first, each scored by cosine in [-1, 1]."""
    return backends.vector_measured(db, embedding, k, _params(kind, visibility), config)


def fulltext(db: Database, kind: Kind, text: str, k: int, visibility: Visibility,
             config: RetrievalConfig = DEFAULT) -> list[Record]:
    """The k visible items best matching the text (BM25), best first; Lucene syntax in the text is
    searched for, not interpreted (graph/db/lucene.py)."""
    params = _params(kind, visibility)
    seen = reach.measure(db, params, config.visible_count_cap)
    return backends.bm25(db, text, k, params, config.candidates_factor, seen)
