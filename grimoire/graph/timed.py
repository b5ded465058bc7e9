"""Values kept for a stated time: the in-process cache of small things read from the graph (api keys' principals,
reach counts, hormone levels and the network override; held vectors and kept workspaces have rules of their own).
Each entry leaves at its expiry, so what it holds is at most `seconds` stale; writes that know what they changed drop
entries at once (`drop`). Past `held` entries the expired go first, then all: a bound, not an eviction policy (held
values are cheap to read again)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Timed(Generic[K, V]):
    """A map whose entries expire `seconds` after they are put (or after the seconds `put` is given); thread-safe."""

    def __init__(self, seconds: float, held: int = 10_000, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.held = held
        self.clock = clock
        self._lock = threading.Lock()
        self._entries: dict[K, tuple[float, V]] = {}  # key -> (expiry, value)

    def __len__(self) -> int:
        return len(self._entries)

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
        keep = self.seconds if seconds is None else seconds
        now = self.clock()
        with self._lock:
            if keep <= 0:
                self._entries.pop(key, None)
                return
            if key not in self._entries and len(self._entries) >= self.held:
                self._entries = {k: v for k, v in self._entries.items() if v[0] > now}
                if len(self._entries) >= self.held:
                    self._entries.clear()
            self._entries[key] = (now + keep, value)

    def get_or_load(self, key: K, load: Callable[[], V]) -> V:
        """The current value, or `load()`'s, kept (the load runs outside the lock: two callers may both load)."""
        found, value = self.lookup(key)
        if found:
            return value  # type: ignore[return-value]
        value = load()
        self.put(key, value)
        return value

    def drop(self, match: Callable[[K, V], bool]) -> None:
        """Every entry `match` names (by key and value), current or not."""
        with self._lock:
            for key in [k for k, (_, v) in self._entries.items() if match(k, v)]:
                del self._entries[key]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
