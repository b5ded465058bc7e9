"""Decay status transitions (../shared/spec/moltbot-memory.md 9.2, 12.3 and 12.4): the decay system records each
memory's move between active, fading, dormant and archived, as `DECAY` by `system:decay`.

Reads keep computing a memory's relevance and status when they read it (graph/memory/relevance.py): what search
shows and hides follows the formula at that moment. The status stored here is the record of the transitions.
The scheduler's `memory.decay` job (daily by default, GRIMOIRE_MEMORY_DECAY_INTERVAL_HOURS; once per period
across replicas) pages through every live memory in id order, computes its status now with relevance.of, and for
each whose status is not the one recorded stores the new one (`decay_status`) and when it changed
(`decay_status_at`), with one audit record per memory in the same statement: action `memory.decay` (DECAY), actor
and tag `system:decay`, the memory's owner as the record's agent (so only its owner's trail shows it, as every
record of a memory), summary `from→to` with the relevance, and the status before as what reverts it. At most
BATCH memories per transaction.

- A memory stores its status when it is written (graph/memory/stores.py); one written before statuses were
  stored counts as active, where 9.2's table (and section 15's "active → fading → dormant → archived") begins.
- Reinforcement raises a status (fading → active): the next run records that move too.
- Forgotten (archived) memories are left alone: a person's archive is their record.
- Idempotent: a second run with nothing changed writes nothing; a memory reinforced or pinned between the read
  and the write is left to the next run (the statement checks its inputs are still those the status came from).
- Nothing else of a memory changes: not its scope, clade, owner, text or relevance inputs."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from grimoire.graph.audit import Audit, NodeLabel, SetProperties
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.ids import now_ms
from grimoire.graph.memory import relevance
from grimoire.graph.memory.relevance import Status
from grimoire.graph.model.rows import Params, Row

log = logging.getLogger(__name__)

ACTION = "memory.decay"
ACTOR = "system:decay"  # 12.3's actor tag of the decay system
BATCH = 1_000           # memories read, and transitions written, per transaction
EVERY_HOURS = 24.0      # the job's period (GRIMOIRE_MEMORY_DECAY_INTERVAL_HOURS): see spec_values.py
UNRECORDED = Status.active  # the status of a memory written before statuses were stored


class DecayInputs(Row):
    """A live memory's relevance inputs and its recorded status (cypher/memory/decay_page.cypher)."""

    query = "memory/decay_page"
    id: str
    agent_id: str
    store: str
    base_relevance: float
    access_count: int | None
    last_accessed_at: int | None
    recorded_at: int | None
    pinned: bool
    decay_status: str | None
    decay_status_at: int | None

    def inputs(self) -> list[object]:
        """What the status follows from, as decay_record.cypher compares it."""
        last = self.last_accessed_at if self.last_accessed_at is not None else self.recorded_at
        return [last if last is not None else -1, self.access_count or 0, self.pinned, self.store,
                self.base_relevance]


@dataclass
class DecayRun:
    """One run of the decay system: the memories read, the transitions recorded (by status reached) and the
    transactions that wrote them."""

    read: int = 0
    recorded: int = 0
    to: dict[str, int] = field(default_factory=dict)
    transactions: int = 0

    def __str__(self) -> str:
        moves = ", ".join(f"{n} to {s}" for s, n in sorted(self.to.items()))
        return f"{self.recorded} status transitions recorded ({moves or 'none'}) of {self.read} memories"


@dataclass
class _Page:
    rows: list[Params] = field(default_factory=list)
    to: dict[str, Status] = field(default_factory=dict)


def transition(memory: DecayInputs, now: int) -> tuple[Status, Status, float] | None:
    """(recorded, now, score) when the memory's status now is not the one recorded; None when it is."""
    rel = relevance.of({**memory.model_dump(), "archived_at": None}, now)
    was = Status(memory.decay_status) if memory.decay_status else UNRECORDED
    return None if rel.status is was else (was, rel.status, rel.score)


def _page(memories: list[DecayInputs], now: int) -> _Page:
    page = _Page()
    for m in memories:
        moved = transition(m, now)
        if moved is None:
            continue
        was, to, score = moved
        audit = Audit(action=ACTION, actor=ACTOR, agent_id=m.agent_id, at=now, tag=ACTOR)
        revert = [SetProperties(label=NodeLabel.Memory, id=m.id,
                                before={"decay_status": m.decay_status, "decay_status_at": m.decay_status_at})]
        page.rows.append({"id": m.id, "recorded": m.decay_status, "to": to.value, "inputs": m.inputs(),
                          "audit": audit.node([m.id], f"{was.value}→{to.value}: relevance {score:.3f}",
                                                    revert)})
        page.to[m.id] = to
    return page


def record(db: Database, now: int | None = None, *, batch: int = BATCH,
           cancelled: Callable[[], bool] = lambda: False) -> DecayRun:
    """Record every live memory's status transition since the last run (the scheduler's memory.decay job)."""
    at = now if now is not None else now_ms()
    out = DecayRun()
    after = ""
    while not cancelled():
        memories = db.typed(DecayInputs, after=after, limit=batch)
        if not memories:
            break
        out.read += len(memories)
        after = memories[-1].id
        page = _page(memories, at)
        if not page.rows:
            continue

        def work(tx: Tx, rows: list[Params] = page.rows) -> list[str]:
            return [r["id"] for r in tx.run(cypher.query("memory/decay_record"), rows=rows, now=at)]

        written = db.write(work)
        out.transactions += 1
        out.recorded += len(written)
        for i in written:
            out.to[page.to[i].value] = out.to.get(page.to[i].value, 0) + 1
    if out.recorded:
        log.info("memory decay: %s", out)
    return out
