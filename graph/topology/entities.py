"""Entities of the world model: upsert by canonical id, and resolution of a name or address."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from graph.audit import Audit
from graph.db import cypher
from graph.db.connection import Database
from graph.ids import now_ms
from graph.search import escape_lucene
from graph.topology.model import EntityIn

CHUNK = 1_000
_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")


def entity_row(e: EntityIn) -> dict[str, Any]:
    aliases = list(dict.fromkeys([*e.aliases, *([e.symbol] if e.symbol else [])]))
    return {"id": e.canonical_id, "kind": e.kind.value, "name": e.name, "symbol": e.symbol, "aliases": aliases,
            "chain_id": e.chain_id, "address": e.address.lower() if e.address else None}


def upsert(db: Database, entities: Sequence[EntityIn], *, actor: str) -> list[str]:
    """Idempotent: re-sending an entity only completes what was missing (name, symbol, aliases)."""
    rows = list({r["id"]: r for r in (entity_row(e) for e in entities)}.values())
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start:start + CHUNK]
        audit = Audit(action="entity.upsert", actor=actor, agent_id=None)

        def work(tx, chunk=chunk, audit=audit) -> None:
            tx.run(cypher.query("topology/upsert_entities"), rows=chunk, now=now_ms(), audit_id=audit.id).consume()
            audit.write(tx, [r["id"] for r in chunk], f"upserted {len(chunk)} entities",
                        {"op": "merge_nodes", "label": "Entity", "ids": [r["id"] for r in chunk]})

        db.write(work)
    return [r["id"] for r in rows]


def resolve(db: Database, text: str, limit: int = 10) -> list[dict[str, Any]]:
    """A canonical id, an address (any chain), a name, symbol or alias; exact matches rank first."""
    text = text.strip()
    address = text.lower() if _ADDRESS.match(text) else None
    rows = db.run("topology/resolve_entity", text=text, lucene=escape_lucene(text), address=address, limit=limit)
    return [{**r["entity"], "score": r["score"]} for r in rows]
