"""Entities of the world model: upsert by canonical id, resolution of a name or address, and who
may see an entity.

An entity's id and name are content, so entities have a visibility of their own. Entities the
admin or a loader sends are public (for good: the admin sending an agent's entity makes it
public). Any other entity is visible to an agent that sent it (POST /entities: it is among the
entity's `creators`), or that may see an item that mentions it (an episode) or a fact that touches
it (a fact shows both its ends; a writer may only assert facts between entities it sees). Every
Cypher file that returns an entity from an id or a name holds ENTITY_VISIBLE word for word (the
entity bound to `en`); tests/integration/test_entity_visibility.py checks it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel, RemoveProperties, SetProperties, changed, versions
from grimoire.graph.audit.versions import Versioned
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.lucene import escape_lucene
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import NotFound
from grimoire.graph.ids import now_ms
from grimoire.graph.model.rows import Properties
from grimoire.graph.topology.answers import ResolvedEntity
from grimoire.graph.topology.model import EntityIn
from grimoire.graph.visibility import ENTITY_PREDICATE, Visibility

CHUNK = 1_000
BACKFILL_BATCH = 10_000
_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")

ENTITY_VISIBLE = f"({ENTITY_PREDICATE})"  # the form the Cypher files write, parentheses included


class EntityNotFound(NotFound):
    """No such entity, or one the caller may not see: the same answer, so existence does not leak."""

    def __init__(self, entity_id: str) -> None:
        super().__init__(f"no entity {entity_id!r}")
        self.entity_id = entity_id


def entity_row(e: EntityIn) -> Properties:  # a row of Cypher parameters (topology/upsert_entities's $rows)
    aliases = list(dict.fromkeys([*e.aliases, *([e.symbol] if e.symbol else [])]))
    return {"id": e.canonical_id, "kind": e.kind.value, "name": e.name, "symbol": e.symbol, "aliases": aliases,
            "chain_id": e.chain_id, "address": e.address.lower() if e.address else None}


def upsert(db: Database, entities: Sequence[EntityIn], *, actor: str, public: bool,
           creator: str | None = None) -> list[str]:
    """Idempotent: re-sending an entity only completes what was missing (name, symbol, aliases).
    `public`: sent by the admin or a loader; `creator`: the agent that sent it (sees it)."""
    rows = list({r["id"]: r for r in (entity_row(e) for e in entities)}.values())
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start:start + CHUNK]
        audit = Audit(action="entity.upsert", actor=actor, agent_id=creator)

        def work(tx: Tx, chunk: list[dict[str, Any]] = chunk, audit: Audit = audit) -> None:
            ids = [r["id"] for r in chunk]
            # To revert: the entities it created, and the previous values of what it changed on the others.
            before = {r["id"]: r["props"] for r in tx.run(cypher.query("audit/lock_entities"), ids=ids)}
            tx.run(cypher.query("topology/upsert_entities"), rows=chunk, now=now_ms(), audit_id=audit.id,
                   public=public, creator=creator).consume()
            after = {r["id"]: r["props"] for r in tx.run(cypher.query("audit/lock_entities"), ids=list(before))}
            moved = {i: props for i, props in before.items() if changed(props, after[i])}  # a re-send changes none
            kept = versions.keep(tx, Versioned.Entity, list(moved), now=audit.at, actor=actor,
                                 reason="properties completed", audit_id=audit.id, states=moved)
            audit.write(tx, ids, f"upserted {len(chunk)} entities",
                        [DeleteNodes(label=NodeLabel.Entity, ids=[i for i in ids if i not in before]),
                         *(SetProperties(label=NodeLabel.Entity, id=i, before=changed(props, after[i]))
                           for i, props in before.items())],
                        kept + versions.created(Versioned.Entity, [i for i in ids if i not in before]))

        db.write(work)
    return [r["id"] for r in rows]


def resolve(db: Database, text: str, limit: int = 10, *, visibility: Visibility) -> list[ResolvedEntity]:
    """A canonical id, an address (any chain), a name, symbol or alias; exact matches rank first."""
    text = text.strip()
    address = text.lower() if _ADDRESS.match(text) else None
    rows = db.fetch("topology/resolve_entity", text=text, lucene=escape_lucene(text), address=address, limit=limit,
                  **visibility.params())
    return [ResolvedEntity.model_validate({**r["entity"], "score": r["score"]}) for r in rows]


def visible_ids(db: Database, ids: Iterable[str], visibility: Visibility) -> set[str]:
    """Which of these ids are entities the viewer may see."""
    wanted = sorted(set(ids))
    if not wanted:
        return set()
    return {r["id"] for r in db.rows("topology/existing_entities", ids=wanted, **visibility.params())}


def require_visible(db: Database, entity_id: str, visibility: Visibility) -> None:
    if entity_id not in visible_ids(db, [entity_id], visibility):
        raise EntityNotFound(entity_id)


def backfill_visibility(db: Database, *, actor: str = "schema") -> int:
    """Give entities stored before entity visibility existed their `public` and `creators`
    (cypher/schema/backfill_entity_visibility.cypher says how), a batch per transaction with its
    audit record. Idempotent, and one cheap scan when there is nothing to do."""
    done = 0
    while True:
        audit = Audit(action="entity.backfill_visibility", actor=actor, agent_id=None)

        def work(tx: Tx, audit: Audit = audit) -> list[str]:
            ids = [r["id"] for r in tx.run(cypher.query("schema/backfill_entity_visibility"), batch=BACKFILL_BATCH)]
            if ids:
                audit.write(tx, ids, f"visibility of {len(ids)} entities stored before it existed",
                            [RemoveProperties(label=NodeLabel.Entity, ids=ids, properties=["public", "creators"])])
            return ids

        ids = db.write(work)
        done += len(ids)
        if len(ids) < BACKFILL_BATCH:
            return done
