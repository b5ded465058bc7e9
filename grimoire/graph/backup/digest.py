"""A canonical digest of the whole store: what a restore must give back. Counts per label and per relationship
type, one hash over every node (its labels and properties, vectors included) and one over every relationship
(its type, properties and its endpoints' own hashes), and the schema (each constraint and index as the statement
that creates it). Neo4j's internal ids take no part: two stores with the same items in another order, or written
at other times, digest the same."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any

from pydantic import BaseModel

from grimoire.graph.backup import values
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database


class StoreDigest(BaseModel):
    labels: dict[str, int]
    """Nodes per label (a node with two labels counts under each)."""
    relationship_types: dict[str, int]
    nodes: int
    relationships: int
    node_hash: str
    relationship_hash: str
    schema_statements: list[str]


def _hash(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":"),
                                     allow_nan=False).encode()).hexdigest()


def _combined(hashes: list[str]) -> str:
    h = hashlib.sha256()
    for x in sorted(hashes):
        h.update(x.encode())
    return h.hexdigest()


def digest(db: Database) -> StoreDigest:
    labels: Counter[str] = Counter()
    types: Counter[str] = Counter()
    node_of: dict[str, str] = {}
    rel_hashes: list[str] = []
    with db.session(read=True, fetch_size=1_000) as s, s.begin_transaction() as tx:
        for row in tx.run(cypher.query("backup/nodes")):
            labels.update(row["labels"])
            node_of[row["element"]] = _hash({"labels": sorted(row["labels"]), "properties": {
                k: values.encode(v) for k, v in row["properties"].items()}})
        for row in tx.run(cypher.query("backup/relationships")):
            types[row["type"]] += 1
            rel_hashes.append(_hash({"start": node_of.get(row["start"]), "end": node_of.get(row["end"]),
                                     "type": row["type"], "properties": {
                                         k: values.encode(v) for k, v in row["properties"].items()}}))
    schema = sorted(r["statement"] for r in (*db.rows("backup/constraints"), *db.rows("backup/indexes")))
    return StoreDigest(labels=dict(sorted(labels.items())), relationship_types=dict(sorted(types.items())),
                       nodes=len(node_of), relationships=len(rel_hashes), node_hash=_combined(list(node_of.values())),
                       relationship_hash=_combined(rel_hashes), schema_statements=schema)
