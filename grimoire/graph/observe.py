"""One way to time work (issue 38, section 4), and the one place that hears about it.

- `span(kind, name)` around a piece of work: a Cypher statement or transaction (`Database.timed`), a scheduled job,
  a learning cycle. It yields a `Span` whose `seconds` is set when the block ends.
- `Stopwatch(kind)` for work done in consecutive stages, each timed from the end of the one before: the retrieval
  pipeline's stages, the context Governor's, a consolidation pass's phases, a GDS run's projection and algorithm.
  Its `laps` (milliseconds by stage) are what a response's `timings_ms` shows.

Both tell every registered `Observer` of each span and lap as it ends (tracing and metrics, issue 40, register
one). None is registered by default, and then a span costs two clock reads and an empty loop: the price of
graphiti's tracer when it is off. An observer that fails is logged and the work goes on: timing never breaks what
it times."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Timing:
    """One piece of work, ended: what kind (`cypher`, `retrieval`, `context`, `job`, ...), its name within the kind
    (a statement's name, a stage), when it started (`time.perf_counter()`), how long it took, and the error that
    ended it, if one did."""

    kind: str
    name: str
    started: float
    seconds: float
    error: BaseException | None = None

    @property
    def ms(self) -> float:
        return self.seconds * 1000


class Observer:
    """Told of every `Timing` as it ends. Override `ended`; an observer that opens a span when the work begins (a
    tracer) also overrides `began`, whose return value comes back to it as `handle`."""

    def began(self, kind: str, name: str) -> object:
        return None

    def ended(self, timing: Timing, handle: object = None) -> None:
        raise NotImplementedError


_observers: tuple[Observer, ...] = ()  # replaced whole under the lock, read without one
_lock = threading.Lock()


def register(observer: Observer) -> Callable[[], None]:
    """Add an observer; the function returned removes it."""
    global _observers
    with _lock:
        _observers = (*_observers, observer)

    def unregister() -> None:
        global _observers
        with _lock:
            _observers = tuple(o for o in _observers if o is not observer)

    return unregister


def now() -> float:
    """The clock every timing here reads (seconds, monotonic, high resolution)."""
    return time.perf_counter()


@dataclass
class Span:
    kind: str
    name: str
    started: float
    seconds: float | None = None  # set when the block ends

    @property
    def ms(self) -> float:
        """Milliseconds so far, or in all once ended."""
        return (self.seconds if self.seconds is not None else now() - self.started) * 1000


@contextmanager
def span(kind: str, name: str) -> Iterator[Span]:
    """Time the block and tell the observers; the error that ends it, if any, goes with the timing (and on up)."""
    observers = _observers
    handles = [_safely(o.began, kind, name) for o in observers] if observers else []
    s = Span(kind, name, now())
    error: BaseException | None = None
    try:
        yield s
    except BaseException as exc:
        error = exc
        raise
    finally:
        s.seconds = now() - s.started
        if observers:
            _tell(observers, Timing(kind, name, s.started, s.seconds, error), handles)


class Stopwatch:
    """Consecutive stages of one piece of work: `lap(stage)` ends the stage that began at the previous lap (or at
    the start). A stage lapped twice adds up. `laps`: milliseconds by stage, rounded for a response."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.laps: dict[str, float] = {}
        self.started = self._last = now()

    def lap(self, stage: str) -> float:
        """End `stage` here; its milliseconds this time."""
        t = now()
        seconds = t - self._last
        self.laps[stage] = round(self.laps.get(stage, 0.0) + seconds * 1000, 2)
        if observers := _observers:
            _tell(observers, Timing(self.kind, stage, self._last, seconds), [None] * len(observers))
        self._last = t
        return seconds * 1000

    def total_ms(self) -> float:
        """Milliseconds since the start, rounded as the laps are."""
        return round((now() - self.started) * 1000, 2)

    def seconds(self, stage: str) -> float:
        """A stage's time in seconds (rounded to the millisecond), for reports kept in seconds."""
        return round(self.laps.get(stage, 0.0) / 1000, 3)


def _safely(began: Callable[[str, str], object], kind: str, name: str) -> object:
    try:
        return began(kind, name)
    except Exception:
        log.exception("observer failed at the start of %s %s", kind, name)
        return None


def _tell(observers: tuple[Observer, ...], timing: Timing, handles: list[object]) -> None:
    for observer, handle in zip(observers, handles, strict=True):
        try:
            observer.ended(timing, handle)
        except Exception:
            log.exception("observer failed at the end of %s %s", timing.kind, timing.name)
