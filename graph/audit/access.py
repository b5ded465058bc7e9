"""The access log: reads that mark what they returned as accessed (a retrieval for a decision restarts
the decay clocks and counts of the items it returned) leave one AccessRecord each, in the transaction
that marks them, instead of an audit record. They change no knowledge a rollback would take back, and
they are by far the most frequent writes: kept apart, the audit trail stays the list of mutations.

Nothing prunes the log yet: a job that deletes AccessRecords older than a retention period (the
range index on `at` finds them) belongs with the other scheduled maintenance.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from neo4j import ManagedTransaction

from graph.db import cypher
from graph.ids import now_ms, uuid7


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
