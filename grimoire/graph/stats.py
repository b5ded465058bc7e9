"""How many episodes and entries (by category and status) a caller may see (GET /stats)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from grimoire.graph.db.connection import Database
from grimoire.graph.model.rows import Row
from grimoire.graph.visibility import Visibility


class EntryCount(BaseModel):
    category: str
    status: str
    n: int


class VisibleCountsRow(Row):
    query = "stats/visible_counts"
    episodes: int
    pending: int
    entries: list[EntryCount]


class VisibleCounts(BaseModel):
    """What a caller may see, counted."""

    episodes: int
    episodes_pending_enrichment: int = Field(default=0, description="of those episodes, how many still wait for their "
                                                         "enrichment (mentions, FOLLOWS: graph/enrichment.py)")
    entries: int
    entries_by_category: dict[str, int]
    entries_by_status: dict[str, int]


def visible_counts(db: Database, visibility: Visibility, owner: str | None = None) -> VisibleCounts:
    """What the viewer may see, counted (of one agent's items when `owner` is given)."""
    row = db.typed(VisibleCountsRow, owner=owner, **visibility.params())[0]
    by_category: dict[str, int] = {}
    by_status: dict[str, int] = {}
    for e in row.entries:
        by_category[e.category] = by_category.get(e.category, 0) + e.n
        by_status[e.status] = by_status.get(e.status, 0) + e.n
    return VisibleCounts(episodes=row.episodes, episodes_pending_enrichment=row.pending,
                         entries=sum(e.n for e in row.entries), entries_by_category=by_category,
                         entries_by_status=by_status)
