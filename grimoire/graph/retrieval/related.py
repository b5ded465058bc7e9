"""What mentions an entity, and through it (GET /entities/{id}/related): the visible episodes that
mention it, newest first, each with the visible entries derived from it."""

from __future__ import annotations

from pydantic import BaseModel

from grimoire.graph.db.connection import Database
from grimoire.graph.model.rows import Row
from grimoire.graph.topology.entities import require_visible
from grimoire.graph.visibility import Visibility


class EntityRef(BaseModel):
    id: str
    kind: str | None = None
    name: str | None = None


class RelatedEpisode(Row):
    """An episode that mentions the entity, with the entries derived from it that the caller may see."""

    query = "entities/related"
    entity: EntityRef
    episode_id: str
    text: str | None
    entry_ids: list[str]


def related_to_entity(db: Database, entity_id: str, visibility: Visibility, limit: int = 100) -> list[RelatedEpisode]:
    """EntityNotFound (a 404) for an entity the viewer may not see, as for an unknown one."""
    require_visible(db, entity_id, visibility)
    return db.typed(RelatedEpisode, id=entity_id, limit=limit, **visibility.params())
