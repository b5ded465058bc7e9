"""The access log: reads that mark what they returned as accessed (a retrieval for a decision restarts
the decay clocks and counts of the items it returned) leave one AccessRecord each, in the transaction
that marks them, instead of an audit record. They change no knowledge a rollback would take back, and
they are by far the most frequent writes: kept apart, the audit trail stays the list of mutations.

`prune` deletes records older than a retention period in bounded transactions (the range index on
`at` finds them); the scheduler runs it daily (graph/scheduler.py, GRIMOIRE_ACCESS_LOG_RETENTION_DAYS).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from neo4j import ManagedTransaction

from graph.db import cypher
from graph.db.connection import Database
from graph.ids import now_ms, uuid7

log = logging.getLogger(__name__)


@dataclass
class Access:
    """One read that touched access counters: `action` says which (e.g. retrieval.for_decision)."""

    action: str
    agent_id: str | None
    id: str = field(default_factory=uuid7)
    at: int = field(default_factory=now_ms)

    def write(self, tx: ManagedTransaction, ids: list[str], touched: int) -> None:
        """`ids`: the items the read returned, in order; `touched`: how many of them it marked."""
        tx.run(cypher.query("audit/access"), access={
            "id": self.id, "at": self.at, "recorded_at": now_ms(), "action": self.action,
            "agent_id": self.agent_id, "ids": ids, "count": len(ids), "touched": touched,
        }).consume()


PRUNE_BATCH = 1_000
PROGRESS_EVERY_BATCHES = 10


def prune(db: Database, before_ms: int, *, batch: int = PRUNE_BATCH,
                     cancelled: Callable[[], bool] = lambda: False) -> int:
    """Delete AccessRecords whose read happened (`at`) before `before_ms`, `batch` per transaction
    (the range index on `at` finds them); how many were deleted. Stops early when `cancelled()`."""
    deleted = batches = 0
    while not cancelled():
        rows = db.run("audit/prune_access", before=before_ms, batch=batch)
        count = int(rows[0]["deleted"]) if rows else 0
        deleted += count
        batches += 1
        if count < batch:
            break
        if batches % PROGRESS_EVERY_BATCHES == 0:
            log.info("access log: %d records older than %d pruned so far", deleted, before_ms)
    return deleted
