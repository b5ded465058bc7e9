"""The counter a replica's held vectors are checked against (graph/retrieval/exact.py): every write that changes a
stored vector in place, or erases items, moves it in its own transaction, so no replica ranks with a vector it read
before the change. Here, at the bottom, because the writers (versions, rollback, erasure, import) sit beside and
above retrieval."""

from __future__ import annotations

from grimoire.graph.db import cypher
from grimoire.graph.db.tx import Tx
from grimoire.graph.ids import now_ms


def vectors_changed(tx: Tx) -> None:
    """In the transaction of the change (cypher/retrieval/vectors_changed.cypher)."""
    tx.run(cypher.query("retrieval/vectors_changed"), now=now_ms()).consume()
