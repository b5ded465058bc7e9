"""Concurrent requests' texts embedded in one model call, and recent query embeddings kept.

The micro-batcher: FastAPI runs sync routes on a thread pool, so several requests embed their query at
once, each a model call of one text. A call of a few texts costs little more than a call of one
(tokenizing, the session's set-up and the short matrices are per call), so the batcher lets callers
that arrive together share one call. The first caller to find no open batch leads one: while another
model call is running it waits up to `wait_ms` for others to join (a lone caller, with nothing running,
does not wait at all), then closes the batch, embeds every text in it on its own thread and hands each
caller its rows; callers that joined block on a future. A batch holds at most `max_batch` texts; a
caller with more bypasses it. Nothing here runs on the event loop: a caller on a thread that runs one
is answered directly, never made to wait for others.

The query cache: an LRU of query embeddings keyed by (model name, text), under a lock. A model's vector
for a text never changes, so an entry is never stale: the bound is the entry count, not time.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future

import numpy as np

Encode = Callable[[list[str]], np.ndarray]


class _Batch:
    def __init__(self) -> None:
        self.texts: list[str] = []
        self.futures: list[tuple[Future[np.ndarray], int, int]] = []  # a caller's future, its rows [start, end)
        self.full = threading.Event()


class MicroBatcher:
    """`embed(texts)` gives `encode(texts)`'s rows, sharing one `encode` call with concurrent callers."""

    def __init__(self, encode: Encode, *, wait_ms: float, max_batch: int) -> None:
        self.encode = encode
        self.wait = max(0.0, wait_ms) / 1000
        self.max_batch = max(1, max_batch)
        self._lock = threading.Lock()
        self._open: _Batch | None = None
        self._running = 0  # model calls under way (any batch's)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not self.wait or len(texts) > self.max_batch or _on_event_loop():
            return self.encode(list(texts))
        future: Future[np.ndarray] = Future()
        with self._lock:
            batch = self._open
            if batch is not None and len(batch.texts) + len(texts) <= self.max_batch:
                leader = False
            else:
                batch = self._open = _Batch()
                leader = True
            start = len(batch.texts)
            batch.texts.extend(texts)
            batch.futures.append((future, start, len(batch.texts)))
            if len(batch.texts) >= self.max_batch:
                batch.full.set()
                self._open = None
            busy = self._running > 0
        if leader:
            self._lead(batch, busy)
        return future.result()

    def _lead(self, batch: _Batch, busy: bool) -> None:
        if busy:  # others are embedding: the ones arriving meanwhile join this batch, for at most `wait`
            batch.full.wait(self.wait)
        with self._lock:
            if self._open is batch:
                self._open = None
            self._running += 1
        try:
            vectors = self.encode(batch.texts)
        except BaseException as exc:
            for future, _, _ in batch.futures:
                future.set_exception(exc)
            return
        finally:
            with self._lock:
                self._running -= 1
        for future, start, end in batch.futures:
            future.set_result(vectors[start:end])


def _on_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class QueryCache:
    """The last `size` query embeddings by (model, text); size 0 keeps none."""

    def __init__(self, size: int) -> None:
        self.size = max(0, size)
        self._items: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, model: str, text: str) -> np.ndarray | None:
        with self._lock:
            vector = self._items.get((model, text))
            if vector is None:
                self.misses += 1
                return None
            self._items.move_to_end((model, text))
            self.hits += 1
            return vector

    def put(self, model: str, text: str, vector: np.ndarray) -> None:
        if not self.size:
            return
        kept = np.array(vector, dtype=np.float32)  # a copy of its own, read-only: no caller can change it
        kept.flags.writeable = False
        with self._lock:
            self._items[(model, text)] = kept
            self._items.move_to_end((model, text))
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
