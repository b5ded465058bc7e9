"""What mentions an entity, and through it (GET /entities/{id}/related): the visible episodes that
mention it, newest first, each with the visible entries derived from it."""

from __future__ import annotations

from typing import Any

from graph.db.connection import Database
from graph.topology.entities import require_visible
from graph.visibility import Visibility


def related_to_entity(db: Database, entity_id: str, visibility: Visibility, limit: int = 100) -> list[dict[str, Any]]:
    """EntityNotFound (a 404) for an entity the viewer may not see, as for an unknown one."""
    require_visible(db, entity_id, visibility)
    return db.fetch("entities/related", id=entity_id, limit=limit, **visibility.params())
