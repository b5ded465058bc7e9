"""Audit records: every mutation writes one, in the same transaction, with what is needed to revert it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from neo4j import ManagedTransaction

from graph.db import cypher
from graph.ids import now_ms, uuid7


@dataclass
class Audit:
    action: str
    actor: str
    agent_id: str | None
    id: str = field(default_factory=uuid7)
    at: int = field(default_factory=now_ms)

    def write(self, tx: ManagedTransaction, target_ids: list[str], summary: str, revert: dict[str, Any]) -> None:
        tx.run(cypher.query("audit/record"), audit={
            "id": self.id, "at": self.at, "actor": self.actor, "agent_id": self.agent_id, "action": self.action,
            "target_ids": target_ids, "summary": summary, "revert": json.dumps(revert, sort_keys=True),
        }).consume()
