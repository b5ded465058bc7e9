"""Curator operations: what a cycle does to an entry (ADD, UPVOTE, DOWNVOTE, EDIT, COMPRESS, NET, PROMOTE,
DEMOTE, PROPAGATE, ARCHIVE, PRUNE, VALIDATE, CAUSAL, LOW), why, and from which episodes.

Each operation is a CuratorOperation node with a deterministic id (cycle, kind, entry), written with the
changes it makes in one statement that applies them only when the node is new: a cycle interrupted
and run again skips what it already did, so it ends where an uninterrupted run ends. Every batch of
operations is one transaction with its audit record (the entries' earlier values, to revert)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel, RevertOp, SetProperties
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.ids import now_ms, uuid7
from grimoire.graph.model.rows import Properties, Record

PHASE_BASE = {"distill": 0, "net": 100_000, "promote": 200_000, "decay": 300_000}


@dataclass
class Op:
    op: str                          # ADD, UPVOTE, ... (see the module docstring)
    phase: str                       # distill, net, promote, decay
    entry_id: str | None
    reason: str
    changes: dict[str, Any] = field(default_factory=dict)   # set on the entry, once
    before: dict[str, Any] = field(default_factory=dict)    # the entry's values of those properties
    episode_ids: list[str] = field(default_factory=list)
    category: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)    # counts, net, the admission outcome...
    key: str = ""                                           # makes the id unique within cycle, op, entry


def op_id(cycle_id: str, op: Op) -> str:
    digest = hashlib.sha1(f"{cycle_id}|{op.op}|{op.entry_id}|{op.key}".encode()).hexdigest()[:20]
    return f"op-{digest}"


@dataclass
class Cycle:
    """The cycle being run: its node's properties and the clock every decision of it uses."""

    id: str
    agent_id: str
    clade: str | None
    seq: int
    now: int
    through: int
    tick: int | None
    trigger: str
    actor: str

    @classmethod
    def of(cls, props: dict[str, Any]) -> Cycle:
        return cls(id=props["id"], agent_id=props["agent_id"], clade=props.get("clade"), seq=props["seq"],
                   now=props["now"], through=props["through"], tick=props.get("tick"), trigger=props["trigger"],
                   actor=props["actor"])


def _row(cycle: Cycle, op: Op, seq: int) -> Properties:
    after = op.changes.get("confidence")
    props = {"op": op.op, "phase": op.phase, "agent_id": cycle.agent_id, "reason": op.reason,
             "episode_ids": op.episode_ids[:1000], "episode_count": len(op.episode_ids), "seq": seq,
             "at": cycle.now, "recorded_at": now_ms(), "category": op.category,
             "before_confidence": op.before.get("confidence"), "after_confidence": after,
             "changes": json.dumps(op.changes, sort_keys=True, default=str),
             "detail": json.dumps(op.detail, sort_keys=True, default=str)}
    return {"id": op_id(cycle.id, op), "entry_id": op.entry_id,
            "changes": op.changes, "props": {k: v for k, v in props.items() if v is not None}}


def apply(tx: Tx, cycle: Cycle, ops: list[Op], *, first_seq: int, action: str,
          extra_revert: list[RevertOp] | None = None, targets: list[str] | None = None) -> list[str]:
    """Writes the operations and their changes (each once) and the audit record (on their entries and
    `targets`, what else they changed); returns the ids of those applied now (not those an earlier run
    of the cycle applied)."""
    rows = [_row(cycle, op, first_seq + i) for i, op in enumerate(ops)]
    token = uuid7()
    applied = {r["id"] for r in tx.run(cypher.query("learning/apply_operations"), cycle_id=cycle.id, token=token,
                                       ops=rows)}
    done = [(row, op) for row, op in zip(rows, ops, strict=True) if row["id"] in applied]
    revert: list[RevertOp] = [SetProperties(label=NodeLabel.Entry, id=op.entry_id, before=op.before)
                              for _, op in done if op.entry_id and op.changes]
    revert += extra_revert or []
    revert.append(DeleteNodes(label=NodeLabel.CuratorOperation, ids=[row["id"] for row, _ in done]))
    Audit(action=action, actor=cycle.actor, agent_id=cycle.agent_id, at=cycle.now).write(
        tx, sorted({op.entry_id for _, op in done if op.entry_id} | set(targets or [])),
        f"cycle {cycle.id}: {len(done)} {action.split('.')[-1]} operations", revert)
    return [row["id"] for row, _ in done]


def write(db: Database, cycle: Cycle, ops: list[Op], *, first_seq: int, action: str, batch: int,
          then: Any = None) -> int:
    """`ops` in transactions of `batch`; `then(tx, ops)` runs in each transaction after them (marks what
    the batch consumed: deltas, episodes, reflections)."""
    written = 0
    for start in range(0, max(len(ops), 1), batch):
        chunk = ops[start:start + batch]

        def work(tx: Tx, chunk: list[Op] = chunk, start: int = start) -> int:
            done = apply(tx, cycle, chunk, first_seq=first_seq + start, action=action) if chunk else []
            if then is not None:
                then(tx, chunk)
            return len(done)

        if chunk or then is not None:
            written += db.write(work)
        if not chunk:
            break
    return written


def fit(rows: list[dict[str, Any]], batch: int) -> list[Record]:
    """Pending-delta rows (an entry and its deltas) that one transaction of at most `batch` rows takes:
    an operation per entry and a mark per delta. An entry with more deltas than fit takes what fits;
    the rest stay pending for the next transaction."""
    taken: list[dict[str, Any]] = []
    room = batch
    for r in rows:
        need = 1 + len(r["deltas"])
        if need <= room:
            taken.append(r)
            room -= need
        elif not taken:
            taken.append({**r, "deltas": r["deltas"][:max(1, batch - 1)]})
            break
        else:
            break
    return taken


def stored(db: Database, cycle_id: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in db.fetch("learning/cycle_counts", cycle_id=cycle_id):
        counts[r["op"]] = counts.get(r["op"], 0) + r["n"]
        if r["category"]:
            key = f"{r['op']}:{r['category']}"
            counts[key] = counts.get(key, 0) + r["n"]
    return counts
