"""Requests first: the service counts the requests it is serving, and background work (the Curator's
cycles) starts each of its statements only when none is in flight, or after `max_wait` — so a cycle's
transactions run in the gaps between requests instead of beside them, and still finish under load.
The API's middleware (api/foreground.py) counts; a `PacedDatabase` is the background work's database."""

from __future__ import annotations

import gc
import multiprocessing as mp
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from neo4j import Session

from grimoire.graph.db.connection import Database

QUIET_SECONDS = 1.0  # no request for this long: background work runs flat out
MAX_PAUSE = 2.0
POLL_SECONDS = 0.002  # how often waiting background work looks at the requests in flight

_serving: ContextVar[bool] = ContextVar("serving_a_request", default=False)


def background() -> None:
    """In a context copied from a request's (to keep its id and channel): this work is background work."""
    _serving.set(False)


class Counters:
    """The requests in flight and when the last one ended (monotonic clock, which Linux shares between
    processes), in shared memory: a child process running the Curator's cycles (graph/background.py)
    reads the same numbers the service's middleware writes."""

    def __init__(self) -> None:
        ctx = mp.get_context("spawn")
        # Raw (no semaphore): only the service's threads write them, under `lock`; the child only reads.
        self.in_flight = ctx.RawValue("i", 0)
        self.last_served = ctx.RawValue("d", float("-inf"))
        self.lock = threading.Lock()

    def __getstate__(self) -> dict[str, object]:
        return {"in_flight": self.in_flight, "last_served": self.last_served}  # a lock does not cross processes

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.lock = threading.Lock()


class Foreground:
    def __init__(self, counters: Counters | None = None) -> None:
        self.counters = counters or Counters()
        self.waited_seconds = 0.0  # how long background work has waited for requests, in all (this process)

    @contextmanager
    def serving(self) -> Iterator[None]:
        token = _serving.set(True)  # a request's own work (Reflexion at ingest) never waits for requests
        c = self.counters
        with c.lock:
            c.in_flight.value += 1
        try:
            yield
        finally:
            _serving.reset(token)
            with c.lock:
                c.in_flight.value -= 1
                c.last_served.value = time.monotonic()

    @property
    def in_flight(self) -> int:
        value: int = self.counters.in_flight.value
        return value

    def busy(self, within: float) -> bool:
        """Whether requests are being served, or were within the last `within` seconds."""
        return bool(self.in_flight) or time.monotonic() - self.counters.last_served.value < within

    def yield_to(self, max_wait: float) -> None:
        """Waits until no request is in flight, at most `max_wait` seconds (polled: the requests may be
        another process's)."""
        if not self.in_flight or max_wait <= 0 or _serving.get():
            return
        started = time.monotonic()
        while self.in_flight and time.monotonic() - started < max_wait:
            time.sleep(POLL_SECONDS)
        self.waited_seconds += time.monotonic() - started


def favour_requests(switch_interval_ms: float) -> None:
    """Process-wide settings that keep a request's latency from depending on background work in the same
    interpreter: the interpreter lock changes hands every `switch_interval_ms` (Python's default is 5 ms,
    and a request that waits on the database takes the lock back dozens of times, each time behind a
    cycle's Python work), and what start-up loaded (models, modules) is frozen out of the collector, so
    a full collection triggered by a cycle's thousands of rows does not walk millions of objects while
    requests wait."""
    sys.setswitchinterval(switch_interval_ms / 1000)
    gc.collect()
    gc.freeze()


class PacedDatabase(Database):
    """The same driver and database, for background work: each session (a statement or a transaction)
    opens when the foreground is idle, or after `max_wait`."""

    def __init__(self, db: Database, foreground: Foreground, max_wait: float, pause_ratio: float = 0.0) -> None:
        # Not Database.__init__: no driver of its own, the service's.
        self.target, self.slow_ms, self.driver = db.target, db.slow_ms, db.driver
        self._bookmarks = db._bookmarks
        self.rebuilds = db.rebuilds  # a vector index the service is rebuilding is one for the Curator too
        self.pool = db.pool  # the pool's gauges: the same driver's pool (graph/meters.py)
        self.foreground, self.max_wait, self.pause_ratio = foreground, max_wait, pause_ratio

    @contextmanager
    def session(self, *, read: bool = False, **kwargs: Any) -> Iterator[Session]:
        self.foreground.yield_to(self.max_wait)
        started = time.monotonic()
        with super().session(read=read, **kwargs) as s:
            yield s
        # While requests come in, leave the machine to them for `pause_ratio` times what this took.
        if self.pause_ratio > 0 and not _serving.get() and self.foreground.busy(within=QUIET_SECONDS):
            pause = min(MAX_PAUSE, self.pause_ratio * (time.monotonic() - started))
            time.sleep(pause)
            self.foreground.waited_seconds += pause

    def close(self) -> None:
        """The driver is the service's: it closes it."""
