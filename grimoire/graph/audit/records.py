"""Audit records: every mutation writes one, in the same transaction, with the operations that revert it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from grimoire.graph.audit import channel as channels
from grimoire.graph.audit.revert import RevertOp, dump_revert
from grimoire.graph.audit.versions import Step, columns, implied
from grimoire.graph.audit.vocabulary import Approval, verb_of
from grimoire.graph.db import cypher
from grimoire.graph.db.tx import Tx
from grimoire.graph.ids import now_ms, uuid7


class AuditNode(TypedDict):
    """An audit record's node as cypher/audit/record.cypher creates it."""

    id: str
    at: int
    actor: str
    agent_id: str | None
    action: str
    verb: str
    tag: str | None
    trigger: str | None
    approval: str | None
    target_ids: list[str]
    summary: str
    revert: str
    before_versions: list[str]
    after_versions: list[str]
    rollback_id: str | None
    session_id: str | None
    channel: str


@dataclass
class Audit:
    action: str
    actor: str
    agent_id: str | None
    id: str = field(default_factory=uuid7)
    at: int = field(default_factory=now_ms)
    tag: str | None = None            # the actor's role (12.3: bot:trigger-remember, reflection:ID); else read
    trigger: str | None = None        # what set it off (12.3: 'user said "remember …"')
    approval: Approval | None = None  # else what the verb and tag imply (graph/audit/vocabulary.py)
    rollback_id: str | None = None    # the rollback this REVERT record is part of (graph/audit/rollback.py)
    session_id: str | None = None     # the agent's session the change was made in (a message's session_id)
    channel: str = field(default_factory=lambda: channels.current.get().value)  # rest, mcp, scheduler

    def write(self, tx: Tx, target_ids: list[str], summary: str, revert: Sequence[RevertOp],
              versions: Sequence[Step] = ()) -> None:
        """`revert`: what undoes this mutation, in the order to run (graph/audit/revert.py); operations
        with nothing to do are left out, so an empty list says there is nothing to undo. `versions`: each
        touched item's version before and after (graph/audit/versions.py)."""
        tx.run(cypher.query("audit/record"), audit=self.node(target_ids, summary, revert, versions)).consume()

    def node(self, target_ids: list[str], summary: str, revert: Sequence[RevertOp],
                   versions: Sequence[Step] = ()) -> AuditNode:
        """The record's node as `write` creates it: for a statement that writes many records with its change
        (one UNWIND row each, graph/memory/decay_status.py)."""
        stepped = {s.item for s in versions}
        implicit = [s for s in implied(target_ids, revert) if s.item not in stepped]
        before, after = columns(target_ids, [*implicit, *versions])
        return {
            "id": self.id, "at": self.at, "actor": self.actor, "agent_id": self.agent_id,
            "action": self.action, "verb": verb_of(self.action).value, "tag": self.tag, "trigger": self.trigger,
            "approval": self.approval.value if self.approval else None,
            "target_ids": target_ids, "summary": summary, "revert": dump_revert(revert),
            "before_versions": before, "after_versions": after, "rollback_id": self.rollback_id,
            "session_id": self.session_id, "channel": self.channel,
        }
