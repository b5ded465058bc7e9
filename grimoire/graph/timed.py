"""Values kept for a stated time: the in-process cache of small things read from the graph (api keys' principals,
reach counts, hormone levels and the network override; held vectors and kept workspaces have rules of their own).
Each entry leaves at its expiry, so what it holds is at most `seconds` stale; writes that know what they changed drop
entries at once (`drop`). Past `held` entries the expired go first, then all: a bound, not an eviction policy (held
values are cheap to read again).

Read ahead (`get_or_load`, `cached`): an entry asked for once `REFRESH_AT` of its time has passed is read again off the
caller's path (a small pool of this module's), so a key asked for steadily (a busy agent's key, its hormone levels) is
never read on a request's path: before, every `seconds` one request paid the statements (issue 41). What a caller gets
is still an entry that has not expired: the bound is the same. Reaches (graph/retrieval/reach.py ReachCache) use
`get`/`put` only: they are counted on the request's path when not held, never read ahead. A load begun before a
`drop` (the caller's own or one ahead) keeps nothing: what it read may be older than the drop."""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

log = logging.getLogger(__name__)

REFRESH_AT = 0.5  # of an entry's time: past it, the next `get_or_load` hit reads it again in the background
# The reads ahead: small statements, one per key at a time; two threads so that a slow one does not hold the others.
_AHEAD = ThreadPoolExecutor(max_workers=2, thread_name_prefix="timed-ahead")


class Timed(Generic[K, V]):
    """A map whose entries expire `seconds` after they are put (or after the seconds `put` is given); thread-safe.
    `ahead`: whether `get_or_load` reads an entry again in the background once REFRESH_AT of its time has passed."""

    def __init__(self, seconds: float, held: int = 10_000, *, clock: Callable[[], float] = time.monotonic,
                 ahead: bool = True) -> None:
        self.seconds = seconds
        self.held = held
        self.clock = clock
        self.ahead = ahead
        self._lock = threading.Lock()
        self._entries: dict[K, tuple[float, V, float]] = {}  # key -> (expiry, value, when to read it again)
        self._reading: set[K] = set()  # keys being read ahead
        self._generation = 0  # moved by every drop: a read ahead begun before one puts nothing

    def __len__(self) -> int:
        return len(self._entries)

    def reading(self) -> frozenset[K]:
        """The keys being read ahead now."""
        with self._lock:
            return frozenset(self._reading)

    def lookup(self, key: K) -> tuple[bool, V | None]:
        """(True, value) while `key`'s entry is current, else (False, None): a held None is a value too."""
        with self._lock:
            hit = self._entries.get(key)
        if hit is not None and hit[0] > self.clock():
            return True, hit[1]
        return False, None

    def get(self, key: K) -> V | None:
        return self.lookup(key)[1]

    def put(self, key: K, value: V, seconds: float | None = None) -> None:
        """Keep `value` for `seconds` (the map's own when None; 0 or less: drop any entry instead)."""
        with self._lock:
            self._put(key, value, seconds)

    def _put(self, key: K, value: V, seconds: float | None) -> None:
        keep = self.seconds if seconds is None else seconds
        now = self.clock()
        if keep <= 0:
            self._entries.pop(key, None)
            return
        if key not in self._entries and len(self._entries) >= self.held:
            self._entries = {k: v for k, v in self._entries.items() if v[0] > now}
            if len(self._entries) >= self.held:
                self._entries.clear()
        self._entries[key] = (now + keep, value, now + REFRESH_AT * keep)

    def get_or_load(self, key: K, load: Callable[[], V], keep: Callable[[V], float | None] | None = None) -> V:
        """The current value, or `load()`'s, kept for `keep(value)` seconds (the map's own without `keep`; the load
        runs outside the lock: two callers may both load; a drop while it loads: its value is returned, not kept). A
        current entry past REFRESH_AT of its time is read again in the background (`cached`)."""
        found, value = self.cached(key, load, keep)
        if found:
            return value  # type: ignore[return-value]
        with self._lock:
            generation = self._generation
        value = load()
        with self._lock:
            if generation == self._generation:  # a drop since the load began (a key revoked): what it read is not kept
                self._put(key, value, keep(value) if keep is not None else None)
        return value

    def cached(self, key: K, load: Callable[[], V],
             keep: Callable[[V], float | None] | None = None) -> tuple[bool, V | None]:
        """`lookup`, and when the entry is current and past REFRESH_AT of its time, `load` run again in the background
        (with `ahead`; once at a time per key) and its value kept as `get_or_load` keeps it. Never loads on the
        caller's thread: for a caller that must not wait (the event loop)."""
        now = self.clock()
        with self._lock:
            hit = self._entries.get(key)
            if hit is None or hit[0] <= now:
                return False, None
            again = self.ahead and now >= hit[2] and key not in self._reading
            if again:
                self._reading.add(key)
                generation = self._generation
        if again:
            # A context of its own: nothing of the request (its bookmarks, its log fields) goes with the read.
            try:
                _AHEAD.submit(contextvars.Context().run, self._read_ahead, key, load, keep, generation)
            except Exception:  # the pool shut down (interpreter exit: RuntimeError): no read ahead; a later hit may try
                with self._lock:
                    self._reading.discard(key)
                log.warning("could not read a held value again ahead", exc_info=True)
        return True, hit[1]

    def _read_ahead(self, key: K, load: Callable[[], V], keep: Callable[[V], float | None] | None,
                    generation: int) -> None:
        try:
            value = load()
            with self._lock:
                if generation == self._generation:  # no drop since it began: what it read is not older than one
                    self._put(key, value, keep(value) if keep is not None else None)
        except Exception:  # the entry expires as it would have; the next caller after that reads it itself
            log.warning("reading a held value again failed", exc_info=True)
        finally:
            with self._lock:
                self._reading.discard(key)

    def drop(self, match: Callable[[K, V], bool]) -> None:
        """Every entry `match` names (by key and value), current or not."""
        with self._lock:
            self._generation += 1
            for key in [k for k, (_, v, _) in self._entries.items() if match(k, v)]:
                del self._entries[key]

    def clear(self) -> None:
        with self._lock:
            self._generation += 1
            self._entries.clear()
