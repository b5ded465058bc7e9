"""Requests first: the service counts the requests it is serving, and background work (the Curator's
cycles) starts each of its statements only when none is in flight, or after `max_wait` — so a cycle's
transactions run in the gaps between requests instead of beside them, and still finish under load.
The API's middleware (api/foreground.py) counts; a `PacedDatabase` is the background work's database."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from neo4j import Session

from graph.db.connection import Database

QUIET_SECONDS = 1.0  # no request for this long: background work runs flat out
MAX_PAUSE = 2.0

_serving: ContextVar[bool] = ContextVar("serving_a_request", default=False)


class Foreground:
    def __init__(self) -> None:
        self._in_flight = 0
        self._last_served = float("-inf")  # monotonic time the last request ended
        self._idle = threading.Condition()
        self.waited_seconds = 0.0  # how long background work has waited for requests, in all

    @contextmanager
    def serving(self) -> Iterator[None]:
        token = _serving.set(True)  # a request's own work (Reflexion at ingest) never waits for requests
        with self._idle:
            self._in_flight += 1
        try:
            yield
        finally:
            _serving.reset(token)
            with self._idle:
                self._in_flight -= 1
                self._last_served = time.monotonic()
                if not self._in_flight:
                    self._idle.notify_all()

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def busy(self, within: float) -> bool:
        """Whether requests are being served, or were within the last `within` seconds."""
        return bool(self._in_flight) or time.monotonic() - self._last_served < within

    def yield_to(self, max_wait: float) -> None:
        """Waits until no request is in flight, at most `max_wait` seconds."""
        if not self._in_flight or max_wait <= 0 or _serving.get():
            return
        started = time.monotonic()
        with self._idle:
            self._idle.wait_for(lambda: not self._in_flight, timeout=max_wait)
        self.waited_seconds += time.monotonic() - started


class PacedDatabase(Database):
    """The same driver and database, for background work: each session (a statement or a transaction)
    opens when the foreground is idle, or after `max_wait`."""

    def __init__(self, db: Database, foreground: Foreground, max_wait: float, pause_ratio: float = 0.0) -> None:
        # Not Database.__init__: no driver of its own, the service's.
        self.target, self.slow_ms, self.driver = db.target, db.slow_ms, db.driver
        self._bookmarks = db._bookmarks
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
