"""Writing events in the caller's transaction, and reading them back for a viewer."""

from __future__ import annotations

import json
from collections.abc import Sequence

from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.events.model import Event, EventOut, EventType
from grimoire.graph.ids import now_ms
from grimoire.graph.model.rows import Properties
from grimoire.graph.visibility import Visibility

MAX_LIMIT = 1_000


def rows(events: Sequence[Event]) -> list[Properties]:
    """The properties of each event's node (payload as a JSON string)."""
    return [{"id": e.id, "type": EventType(e.type).value, "agent_id": e.agent_id, "clade": e.clade, "at": e.at,
             "payload": json.dumps(e.payload, sort_keys=True, default=str)} for e in events]


def write(tx: Tx, events: Sequence[Event]) -> None:
    """Store `events` in `tx`, the transaction of the mutation they report (one statement)."""
    if events:
        tx.run(cypher.query("events/write"), rows=rows(events), now=now_ms()).consume()


def list_events(db: Database, visibility: Visibility, *, types: Sequence[EventType | str] | None = None,
                agent_id: str | None = None, since: int | None = None, until: int | None = None,
                after_id: str | None = None, limit: int = 100) -> list[EventOut]:
    """Events the viewer may see (its own; an admin all), oldest first (ordered by id, which is
    time-ordered), after `after_id` when given; `since` (inclusive) and `until` (exclusive) are epoch
    milliseconds of `at`."""
    return db.typed(EventOut, types=[EventType(t).value for t in types] if types else None,
                    agent_id=agent_id, since=since, until=until, after_id=after_id or "",
                    limit=max(1, min(limit, MAX_LIMIT)), **visibility.params())
