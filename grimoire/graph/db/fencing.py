"""Fencing tokens: the writes of work done under a lease (graph/leases.py) commit only while the lease is still
its holder's.

The scheduler sets `current` to the leases a job (or one agent's unit of it) runs under; `Database.write`, `run`
and `run_all` (graph/db/connection.py) then begin each write transaction with `check`: one statement that
write-locks every lease node and reads whether it still has this holder, this token and time left. A holder that
lost its lease (paused past its expiry, then another replica took it with a higher token) gets LeaseLost and its
transaction writes nothing; and because the check holds the lease node's lock until the transaction ends, a take
by another replica waits for it: a write either commits before the lease changes hands or not at all.

A write transaction opened inside one already checked in the same context (a nested write) is not checked again:
the outer transaction holds the locks, so the leases cannot change hands before it ends, and a second lock on the
same nodes from another transaction would wait for the first forever."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from typing import TypeVar

from grimoire.graph.db import cypher
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import Conflict

T = TypeVar("T")
TxT = TypeVar("TxT", bound=Tx)


class LeaseLost(Conflict):
    """The lease this work ran under is no longer its holder's (it expired, another replica took it with a newer
    fencing token): the transaction was rolled back and the work stops; the lease's new holder does or redoes it."""


@dataclass(frozen=True)
class Fence:
    """A lease as its holder took it: the name, the holder (a replica's id) and the fencing token of this take."""

    name: str
    holder: str
    token: int


current: ContextVar[tuple[Fence, ...]] = ContextVar("grimoire_fences", default=())
"""The leases the work in this context runs under (set by the scheduler around a job, by graph/leases.py around
an agent's unit of work, and by the Curator's child process around a cycle it runs for a job)."""

_checked: ContextVar[bool] = ContextVar("grimoire_fenced_tx_open", default=False)


@contextmanager
def under(*fences: Fence) -> Iterator[None]:
    """The work inside runs under these leases too (besides any already set)."""
    token = current.set((*current.get(), *fences))
    try:
        yield
    finally:
        current.reset(token)


def active() -> bool:
    """Writes in this context must be checked (leases set, no checked transaction open around them)."""
    return bool(current.get()) and not _checked.get()


def check(tx: Tx, fences: tuple[Fence, ...]) -> None:
    """Lock the leases in `tx` and raise LeaseLost unless every one is still held with its token."""
    row = tx.run(cypher.query("leases/fence"), fences=[asdict(f) for f in fences]).single()
    held = set(row["held"]) if row is not None else set()
    lost = [f for f in fences if f.name not in held]
    if lost:
        names = ", ".join(f"{f.name} (token {f.token})" for f in lost)
        raise LeaseLost(f"lease lost by {lost[0].holder}: {names} expired or was taken by another replica, so "
                        f"this transaction was not committed")


def fenced(work: Callable[[TxT], T]) -> Callable[[TxT], T]:
    """`work` preceded, in its own transaction, by the check of the context's leases (itself when none)."""
    fences = current.get()
    if not fences or _checked.get():
        return work

    @functools.wraps(work)
    def run(tx: TxT) -> T:
        check(tx, fences)
        token = _checked.set(True)
        try:
            return work(tx)
        finally:
            _checked.reset(token)

    return run
