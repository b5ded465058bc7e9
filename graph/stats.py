"""How many episodes and entries (by category and status) a caller may see (GET /stats)."""

from __future__ import annotations

from typing import Any

from graph.db.connection import Database
from graph.visibility import Visibility


def visible_counts(db: Database, visibility: Visibility) -> dict[str, Any]:
    row = db.fetch("stats/visible_counts", **visibility.params())[0]
    by_category: dict[str, int] = {}
    by_status: dict[str, int] = {}
    for e in row["entries"]:
        by_category[e["category"]] = by_category.get(e["category"], 0) + 1
        by_status[e["status"]] = by_status.get(e["status"], 0) + 1
    return {"episodes": row["episodes"], "entries": len(row["entries"]), "entries_by_category": by_category,
            "entries_by_status": by_status}
