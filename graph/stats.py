"""How many episodes and entries (by category and status) a caller may see (GET /stats)."""

from __future__ import annotations

from typing import Any

from graph.db.connection import Database
from graph.visibility import Visibility


def visible_counts(db: Database, visibility: Visibility, owner: str | None = None) -> dict[str, Any]:
    """What the viewer may see, counted (of one agent's items when `owner` is given)."""
    row = db.fetch("stats/visible_counts", owner=owner, **visibility.params())[0]
    by_category: dict[str, int] = {}
    by_status: dict[str, int] = {}
    for e in row["entries"]:
        by_category[e["category"]] = by_category.get(e["category"], 0) + e["n"]
        by_status[e["status"]] = by_status.get(e["status"], 0) + e["n"]
    return {"episodes": row["episodes"], "entries": sum(e["n"] for e in row["entries"]),
            "entries_by_category": by_category, "entries_by_status": by_status}
