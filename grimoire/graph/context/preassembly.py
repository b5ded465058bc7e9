"""Pre-assembly (context-governor.md S5.3, "Predictive Context Pre-Assembly"): each agent's last workspace is kept
with the request it answered, so the common case — the agent asks again in the same situation — answers from it
without fetching anything. A kept workspace is served only while it is what a fresh assembly would give:

- the same request: task, phase, regime, query, budget, pressure and the caller's own items;
- the mood within the spec's tolerance: the PAD vector moved by at most 0.1 (Euclidean) and the affect states
  (which decide the allocations) are the same;
- younger than the maximum age (time moves the recency and decay scores);
- nothing changed that it was built from: no change in the audit trail by the agent, its clade or the service
  since it was built (a policy revision included), none by anyone to an item it holds or to a causal link, no
  Beta belief of the agent across the filter's threshold, and no new episode or entry the agent may see
  (cypher/context/changed_since.cypher, one read);
- the same sign of pleasure (it decides which entries are contrarian).

Otherwise the assembly is built cold (and kept). The scheduler's `context.preassembly` job rebuilds the kept
workspaces that went stale in the meantime (new entries, age), so the next request finds a fresh one; an agent
that knows its state changed says so (POST …/context/preassemble) and the rebuilt workspace waits for it."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from grimoire.graph.context import affect
from grimoire.graph.db.connection import Database
from grimoire.graph.model.rows import Row
from grimoire.graph.visibility import Visibility

T = TypeVar("T")


@dataclass
class Kept(Generic[T]):
    agent_id: str
    clade: str | None
    key: str                  # the request, less its mood and tick
    pad: affect.Pad
    request: object           # what to rebuild it from
    built: T                  # the assembled workspace
    ids: list[str]            # the items it holds
    since: int                # ms: the time it was built from (taken before it fetched anything)
    built_at: float           # monotonic seconds
    served_at: float = 0.0    # monotonic seconds: when the agent last asked for it (0: built for it, not yet)


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def pad_shift(a: affect.Pad, b: affect.Pad) -> float:
    return math.dist((a.pleasure, a.arousal, a.dominance), (b.pleasure, b.arousal, b.dominance))


MARGIN_MS = 1_000   # a write stamped this long before the build may commit after it: it counts as a change


class Changed(Row):
    query = "context/changed_since"
    changed: bool


def changed_since(db: Database, agent_id: str, clade: str | None, since: int, ids: list[str]) -> bool:
    rows = db.typed(Changed, since=since - MARGIN_MS, agent=agent_id, agent_clade=clade or "", ids=ids,
                    **Visibility.of(agent_id, clade).params())
    return bool(rows and rows[0].changed)


class Keeper(Generic[T]):
    """The kept workspaces, one per agent, in this process."""

    def __init__(self, db: Database, max_age_seconds: float, pad_tolerance: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.db, self.max_age, self.tolerance, self.clock = db, max_age_seconds, pad_tolerance, clock
        self._kept: dict[str, Kept[T]] = {}
        self._lock = threading.Lock()

    def keep(self, kept: Kept[T]) -> None:
        with self._lock:
            old = self._kept.get(kept.agent_id)
            if old is None or old.since <= kept.since:
                self._kept[kept.agent_id] = kept

    def get(self, agent_id: str) -> Kept[T] | None:
        with self._lock:
            return self._kept.get(agent_id)

    def idle(self, kept: Kept[T], seconds: float) -> bool:
        """Nobody asked for it for `seconds`: not worth rebuilding."""
        return self.clock() - max(kept.served_at, kept.built_at) > seconds

    def served(self, kept: Kept[T]) -> None:
        kept.served_at = self.clock()

    def drop(self, agent_id: str) -> None:
        with self._lock:
            self._kept.pop(agent_id, None)

    def all(self) -> list[Kept[T]]:
        with self._lock:
            return list(self._kept.values())

    def stale(self, kept: Kept[T], key: str | None = None, pad: affect.Pad | None = None) -> str | None:
        """Why `kept` may not answer a request with this key and mood (None: it may)."""
        if key is not None and key != kept.key:
            return "another situation or request"
        if pad is not None and (pad_shift(pad, kept.pad) > self.tolerance
                                or affect.states(pad) != affect.states(kept.pad)
                                or _sign(pad.pleasure) != _sign(kept.pad.pleasure)):
            return "the mood moved"   # the states set the allocations, the sign of pleasure the contrarian pick
        if self.clock() - kept.built_at > self.max_age:
            return "older than the maximum age"
        if changed_since(self.db, kept.agent_id, kept.clade, kept.since, kept.ids):
            return "what it was built from changed"
        return None
