"""The access log: reads that mark what they returned as accessed (a retrieval for a decision restarts
the decay clocks and counts of the items it returned) leave one AccessRecord each, in the transaction
that marks them, instead of an audit record. They change no knowledge a rollback would take back, and
they are by far the most frequent writes: kept apart, the audit trail stays the list of mutations.

Every other read an agent makes (a search, a retrieval, a read by id) counts as access for a crystal's
relevance too (knowledge-crystals.md: accessCount, lastAccessedAt; issue 36): `Reads` notes the ids in memory
on the request path and writes them in one batch off it (`flush`, on the scheduler and before a consolidation
pass), as each crystal's `read_count` and `last_read_at` — kept apart from `access_count` and
`last_accessed_at`, which a retrieval for a decision moves and an entry's confidence decays from (grimoire.md:
the last retrieval for a deciding context). A flush leaves one AccessRecord (action `reads`).

A replay (POST /retrieve, mode replay: the episodes a dream cycle replays) is noted apart (`note_replay`) and
written by the same flush as each crystal's dream count, last dreamed and last ripple count
(knowledge-crystals.md lines 57-62; graph/model/crystal/ripples.py), so that the next replay puts the just replayed
after what was not (spaced repetition, cypher/retrieval/replay.cypher).

`prune` deletes records older than a retention period in bounded transactions (the range index on
`at` finds them); the scheduler runs it daily (graph/scheduler.py, GRIMOIRE_ACCESS_LOG_RETENTION_DAYS).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.ids import now_ms, uuid7
from grimoire.graph.model.crystal.ripples import ripple_count

log = logging.getLogger(__name__)


@dataclass
class Access:
    """One read that touched access counters: `action` says which (e.g. retrieval.for_decision)."""

    action: str
    agent_id: str | None
    id: str = field(default_factory=uuid7)
    at: int = field(default_factory=now_ms)

    def write(self, tx: Tx, ids: list[str], touched: int) -> None:
        """`ids`: the items the read returned, in order; `touched`: how many of them it marked."""
        tx.run(cypher.query("audit/access"), access={
            "id": self.id, "at": self.at, "recorded_at": now_ms(), "action": self.action,
            "agent_id": self.agent_id, "ids": ids, "count": len(ids), "touched": touched,
        }).consume()


MAX_PENDING = 50_000  # distinct ids noted before a read flushes them itself (a scheduler that stopped)
FLUSH_BATCH = 5_000  # ids per transaction


class Reads:
    """Reads noted on the request path (in memory, O(ids)), written in batches off it (`flush`)."""

    def __init__(self, db: Database, max_pending: int = MAX_PENDING) -> None:
        self.db, self.max_pending = db, max_pending
        self._lock = threading.Lock()
        self._pending: dict[str, tuple[int, int]] = {}  # id -> (reads, last read at)
        self._replayed: dict[str, tuple[int, int]] = {}  # id -> (replays, last replayed at)

    def note(self, ids: Iterable[str], at: int | None = None) -> None:
        self._count("_pending", ids, at)

    def note_replay(self, ids: Iterable[str], at: int | None = None) -> None:
        """Crystals a replay returned: each a dream more at the next flush (a read too: `note` them as well)."""
        self._count("_replayed", ids, at)

    def _count(self, which: str, ids: Iterable[str], at: int | None) -> None:
        when = at if at is not None else now_ms()
        with self._lock:  # the dict looked up under the lock: a flush swaps it for an empty one
            pending: dict[str, tuple[int, int]] = getattr(self, which)
            for i in ids:
                n, _ = pending.get(i, (0, 0))
                pending[i] = (n + 1, when)
            full = len(pending) >= self.max_pending
        if full:
            self.flush()

    def pending(self) -> int:
        with self._lock:
            return len(self._pending) + len(self._replayed)

    def flush(self) -> int:
        """Write what was noted: each crystal's read count and last read, then the replays' dream counts; how many
        crystals the reads touched."""
        touched = self._write("_pending", "reads", _reads)
        self._write("_replayed", "replays", _replays)
        return touched

    def _write(self, which: str, action: str, apply: Callable[[Tx, list[dict[str, object]]], int]) -> int:
        """One noted kind (`which`), taken and written in batches, each with its AccessRecord (`action`)."""
        with self._lock:
            taken: dict[str, tuple[int, int]] = getattr(self, which)
            setattr(self, which, {})
        rows: list[dict[str, object]] = [{"id": i, "count": n, "at": at} for i, (n, at) in taken.items()]
        touched = 0
        for start in range(0, len(rows), FLUSH_BATCH):
            chunk = rows[start:start + FLUSH_BATCH]
            access = Access(action=action, agent_id=None)

            def work(tx: Tx, chunk: list[dict[str, object]] = chunk, access: Access = access) -> int:
                n = apply(tx, chunk)
                access.write(tx, [str(r["id"]) for r in chunk], touched=n)
                return n

            touched += self.db.write(work)
        return touched


def _reads(tx: Tx, chunk: list[dict[str, object]]) -> int:
    row = tx.run(cypher.query("audit/reads"), rows=chunk).single()
    return int(row["touched"]) if row else 0


def _replays(tx: Tx, chunk: list[dict[str, object]]) -> int:
    # The ripple count is sampled for the dream count the crystal reaches (seeded by both), so the current counts
    # are read in the transaction that moves them.
    counts = {r["id"]: int(r["dreams"]) for r in tx.run(cypher.query("audit/dream_counts"),
                                                          ids=[r["id"] for r in chunk])}
    rows = [{**r, "ripples": ripple_count(str(r["id"]), counts[str(r["id"])] + int(str(r["count"])))}
            for r in chunk if r["id"] in counts]
    row = tx.run(cypher.query("audit/replays"), rows=rows).single()
    return int(row["touched"]) if row else 0


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
