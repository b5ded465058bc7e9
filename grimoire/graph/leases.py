"""Leases on background work, held in Neo4j: each scheduled job runs once per period across every replica of the
service, per-agent work is spread over the replicas, and a replica that lost its lease cannot write.

A lease is a `:Lease` node by name (unique: cypher/schema/constraints.cypher): a job's (`access_log.prune`) or one
agent's unit of a job's work (`curator:golem-1`, `reflection:golem-1`). It holds `holder` (the replica's id,
host:pid:random, graph/replica.py), `expires_at` (the database's clock, so hosts' clocks need not agree), a
`token` that grows by one on every take (the fencing token) and `period`, the last period whose run completed.
Taken and renewed by one conditional write (cypher/leases/acquire.cypher: free or expired, or the caller's own
with its token), renewed by a heartbeat every third of the lease time while the work runs, released when it
ends (recording the period when the run completed). A holder killed with `kill -9` stops renewing: its lease
expires within the lease time (GRIMOIRE_LEASE_SECONDS) and the next replica to try takes it with a new token.

Periods. A job's period is its grid in wall-clock epoch time, `floor(now / every_seconds)` (`period_of`), the same
on every replica whatever its start time; each replica's scheduler still runs on its own local grid (one point per
interval, hence one per period), and at each point asks for the job's lease for the current period. The first
replica to ask takes it and runs; one that asks while the run is under way finds the lease held and tries again
as soon as it expires (not a period later: a holder that died leaves the period to it); one that asks after the
run completed finds the period done and skips it. A run asked for by hand (`POST /scheduler/jobs/{name}/run`) takes
the lease without a period: it runs once more, never beside another replica's run of the same job, and leaves the
period's scheduled run alone.

How the three kinds of job combine the leases (graph/scheduler.py `Job.lease`):
- `once` (the default: TTL purge, audit retention, metrics, consolidation, index upkeep...): one lease per job.
  Exactly one replica runs it per period; the others skip. Its writes are fenced with the job lease.
- `per_agent` (the Curator sweep, reflections): no job lease. Every replica whose grid reaches a period not yet
  done runs the job, and the job takes a lease per agent (`unit`) with the same period before it works on that
  agent: a replica that finds an agent's lease held or its period done goes on to the next agent. Two replicas
  running the sweep at once therefore split the agents between them (each in its own order: `spread`, so they
  seldom meet on one agent), no agent is done twice in a period, and the work is spread rather than done by one
  leader. A replica whose run found no agent left to anyone else marks the job's period done (`complete`, on the
  job's own lease node) and replicas reaching the period later skip the job without listing its agents; one that
  found an agent held elsewhere comes back when that lease expires, to take over the agent if its holder died.
  Each agent's writes are fenced with its agent lease.
- `local`: every replica runs it on its own state (the reads it noted, the context workspaces it keeps, the
  Curator cycles its own ingest asked for), with no job lease; per-agent work inside still takes the agent's
  lease without a period (a cycle never runs beside another replica's cycle of the same agent).

Why a lease writes no audit record: it is control-plane bookkeeping, not a change to anything an agent remembers
or a person may review, revert or erase. It holds no content, belongs to no agent, and reverting a take would
break the fencing it exists for; its own node keeps what a person needs (holder, last holder, token, the period
done, when it was taken and released) and `GET /scheduler/jobs` shows it. Heartbeats would add a record every few
seconds per replica to the trail and its retention. What the work under a lease changes is audited as before, by
the job's own transactions (channel `scheduler`), and only while the lease is held (graph/db/fencing.py)."""

from __future__ import annotations

import logging
import math
import threading
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.fencing import Fence, under
from grimoire.graph.model.rows import Record

log = logging.getLogger(__name__)
T = TypeVar("T")
LEASE_SECONDS = 30.0  # GRIMOIRE_LEASE_SECONDS
RETRY_MARGIN_SECONDS = 0.25  # after a lease held elsewhere expires, before trying it again


def period_of(now: float, every_seconds: float) -> int:
    """The period `now` (epoch seconds) falls in on a grid of `every_seconds` from the epoch: the same number on
    every replica, whenever it started."""
    if not every_seconds > 0:
        raise ValueError(f"every_seconds must be positive, not {every_seconds}")
    return math.floor(now / every_seconds)


def spread(items: Sequence[T], holder: str) -> list[T]:
    """`items` rotated to start at a place that depends on the holder: replicas walking the same list in their own
    order take different agents first, instead of queueing on the same one."""
    if not items:
        return []
    start = zlib.crc32(holder.encode()) % len(items)
    return [*items[start:], *items[:start]]


@dataclass(frozen=True)
class Seen:
    """A lease as one attempt to take (or look at) it found it."""

    name: str
    held: bool                  # this attempt holds it now
    holder: str | None          # who holds it (this replica when `held`); None when free
    token: int                  # its fencing token (this take's when `held`)
    period: int | None          # the last period whose run completed
    expires_in: float | None    # seconds the holder's time still runs (negative: expired)
    last_holder: str | None = None  # who released it last (the replica that ran the last completed period)

    def done(self, period: int | None) -> bool:
        """The run of `period` completed (somewhere)."""
        return period is not None and self.period is not None and self.period >= period

    @classmethod
    def of(cls, name: str, row: dict[str, Any]) -> Seen:
        ms = row.get("expires_in_ms")
        return cls(name=name, held=bool(row.get("held")), holder=row.get("holder"), token=int(row.get("token") or 0),
                   period=row.get("period"), expires_in=None if ms is None else ms / 1000.0,
                   last_holder=row.get("last_holder"))


class _Heartbeat:
    """Renews one held lease every `every` seconds on its own thread until stopped; notes when a renewal fails."""

    def __init__(self, leases: Leases, fence: Fence, every: float) -> None:
        self.leases, self.fence, self.every = leases, fence, every
        self.lost = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"lease-{fence.name}", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            try:
                if not self.leases.renew(self.fence):
                    self.lost = True
                    log.warning("lease %s lost by %s (token %d)", self.fence.name, self.fence.holder, self.fence.token)
                    return
            except Exception as exc:  # the database away: the lease may run out; the fenced writes will tell
                log.warning("lease %s not renewed: %s", self.fence.name, exc)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(self.every + 10.0)


class Leases:
    """This replica's leases on one database: take, renew, release; `hold` runs work under one."""

    def __init__(self, db: Database, holder: str, lease_seconds: float = LEASE_SECONDS,
                 heartbeat_seconds: float | None = None) -> None:
        if not lease_seconds > 0:
            raise ValueError(f"lease_seconds must be positive, not {lease_seconds}")
        self.db, self.holder, self.lease_seconds = db, holder, lease_seconds
        self.heartbeat_seconds = heartbeat_seconds if heartbeat_seconds is not None else lease_seconds / 3
        self._beats: list[_Heartbeat] = []
        self._guard = threading.Lock()

    # -- the statements (never fenced themselves: they are what the fences check)

    def _write(self, query: str, **params: Any) -> list[Record]:
        with self.db.session() as s:
            return s.execute_write(lambda tx: [r.data() for r in tx.run(cypher.query(query), params)])

    def take(self, name: str, period: int | None = None) -> Seen:
        """Take `name` when it is free or expired and (with `period`) that period's run has not completed."""
        [row] = self._write("leases/acquire", name=name, holder=self.holder, token=None, period=period,
                            lease_ms=int(self.lease_seconds * 1000))
        return Seen.of(name, row)

    def renew(self, fence: Fence) -> bool:
        """Push the expiry of a lease this replica holds with `fence.token` one lease time on; False when lost."""
        [row] = self._write("leases/acquire", name=fence.name, holder=fence.holder, token=fence.token, period=None,
                            lease_ms=int(self.lease_seconds * 1000))
        return bool(row["held"])

    def release(self, fence: Fence, period: int | None = None) -> bool:
        """Let the lease go (recording `period` as done); False when it was no longer this replica's."""
        return bool(self._write("leases/release", name=fence.name, holder=fence.holder, token=fence.token,
                                period=period))

    def complete(self, name: str, period: int) -> None:
        """A `per_agent` job's period done: every agent's unit ran (here or elsewhere)."""
        self._write("leases/complete", name=name, period=period, holder=self.holder)

    def seen(self, names: Sequence[str]) -> dict[str, Seen]:
        """The leases of these names as they stand (those never taken are missing)."""
        rows = self.db.rows("leases/leases", names=list(names))
        return {r["name"]: Seen.of(r["name"], {**r, "held": r["holder"] == self.holder}) for r in rows}

    # -- work under a lease

    @contextmanager
    def hold(self, name: str, period: int | None = None) -> Iterator[Seen]:
        """Take `name` (for `period`) and, when taken, run the block under it: its writes fenced with this take's
        token, the lease renewed meanwhile, released at the end (the period recorded when the block completed).
        The block sees what the attempt found (`held` False: another replica has it or the period is done; the
        block must not do the work then)."""
        seen = self.take(name, period)
        if not seen.held:
            yield seen
            return
        fence = Fence(name, self.holder, seen.token)
        beat = _Heartbeat(self, fence, self.heartbeat_seconds)
        with self._guard:
            self._beats.append(beat)
        completed = False
        try:
            with under(fence):
                yield seen
            completed = True
        finally:
            beat.stop()
            with self._guard:
                self._beats.remove(beat)
            self._let_go(fence, period if completed else None, beat.lost)

    def _let_go(self, fence: Fence, period: int | None, lost: bool) -> None:
        try:
            released = self.release(fence, period)
        except Exception as exc:  # the database away: the lease runs out by itself
            log.warning("lease %s not released (it expires in %g s): %s", fence.name, self.lease_seconds, exc)
            return
        if not released and not lost:
            log.warning("lease %s was no longer %s's when released (token %d)", fence.name, fence.holder,
                        fence.token)

    def lost(self) -> bool:
        """A lease held by this replica failed to renew: the work under it should stop (its writes would fail)."""
        with self._guard:
            return any(b.lost for b in self._beats)


@dataclass
class Units:
    """The per-agent leases one run of a job takes (`unit`): the period they are for (None: a run asked for by
    hand, or a `local` job's) and what the run met."""

    leases: Leases
    period: int | None
    here: int = 0                                       # units this replica did
    done_elsewhere: int = 0                             # units whose period another replica completed
    held_elsewhere: list[float] = field(default_factory=list)  # seconds until each held unit's lease expires

    @contextmanager
    def claim(self, name: str) -> Iterator[bool]:
        with self.leases.hold(name, self.period) as seen:
            if seen.held:
                self.here += 1
            elif seen.done(self.period):
                self.done_elsewhere += 1
            else:
                self.held_elsewhere.append(seen.expires_in if seen.expires_in is not None else 0.0)
            yield seen.held

    def retry_in(self) -> float | None:
        """When to come back for the units held elsewhere (their holder may have died): soon after the first
        of those leases expires; None when there were none."""
        if not self.held_elsewhere:
            return None
        return max(0.0, min(self.held_elsewhere)) + RETRY_MARGIN_SECONDS


_units: ContextVar[Units | None] = ContextVar("grimoire_lease_units", default=None)


@contextmanager
def running(units: Units) -> Iterator[Units]:
    """The block is one run of a job whose per-agent work takes its leases from `units` (the scheduler sets it)."""
    token = _units.set(units)
    try:
        yield units
    finally:
        _units.reset(token)


@contextmanager
def unit(name: str) -> Iterator[bool]:
    """One agent's unit of the running job's work under its lease `name` (`curator:golem-1`): True when this
    replica holds it and does the unit, False when another replica holds it or already did it this period. Outside
    a job run with leases (the CLI, tests, a service without a scheduler) it is always True."""
    units = _units.get()
    if units is None:
        yield True
        return
    with units.claim(name) as mine:
        yield mine


def holder_order(items: Sequence[T]) -> list[T]:
    """`items` in this run's order (`spread` by the holder's id), unchanged outside a job run with leases."""
    units = _units.get()
    return list(items) if units is None else spread(items, units.leases.holder)

