"""The exact ranking of a small reach, from vectors this replica holds (issue 41, "the exact path"; issue 37 §4).

A caller who sees at most `exact_below` items is ranked exactly rather than through an index (graph/retrieval/
reach.py). Ranking them in Cypher reads every visible item's 384 floats and computes its cosines on each request:
most of a small agent's retrieval, in the database, the one process every replica shares. Here the database only
says which items the caller may see under the filters (cypher/retrieval/exact_members.cypher: the visibility rule
stays inside the query that reads) and the replica ranks them from what it holds of each (its vector, and for an
episode its text's length and the turn it follows), reading only the items it lacks (exact_vectors.cypher).

What a held item is trusted for: it is keyed by the item's id and recorded time (an item erased and written again
under the same id is another key), and every write that changes a stored vector, a text or a turn's predecessor in
place (an entry's edit, a rollback, an erasure, an import) moves a counter in the graph in its own transaction
(graph/db/vector_epoch.py); each ranking reads the counter with the members, and a replica that sees it moved drops
everything it holds. So a ranking never uses an item older than the graph it read. A held item also leaves after
`max_age` seconds, used or not (an erased item's vector is gone from every replica's memory by then, even one that
never ranks again), and past `held` items, the least recently used first.

The score is vector_context.cypher's: the cosine with the query, and for a short turn that follows another, the
cosine with its vector plus `weight` times the turn before's, cos(q, a + w b) = (q.a + w q.b) / |a + w b|."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

import numpy as np

from graph.db.connection import Database

Key = tuple[str, int]  # an item's id and recorded time
MEMBER_PARAMS = ("labels", "viewer", "clade", "admin", "agent_id", "categories", "statuses", "regimes", "valid_at",
                 "known_as_of", "levels")
_NONE = np.zeros(0, dtype=np.float32)  # an item stored without a vector (redacted): held as known-empty


class Scored(TypedDict):
    """A ranked item, as the backends' rows give it (graph/retrieval/context.py notes them)."""

    id: str
    score: float


@dataclass(frozen=True)
class Item:
    """What the replica holds of an item: its unit vector (empty: none stored), and for an episode its text's length
    and the turn it follows (the short-turn context)."""

    vector: np.ndarray
    chars: int | None = None
    prev: Key | None = None


@dataclass(frozen=True)
class Members:
    """What exact_members.cypher returned: the visible items and the graph's counter."""

    keys: list[Key]
    epoch: int


class HeldVectors:
    """The replica's items for exact rankings, by (id, recorded time); safe from any thread."""

    def __init__(self, held: int = 50_000, max_age: float = 600.0) -> None:
        self.held = held
        self.max_age = max_age
        self.epoch: int | None = None
        self._items: OrderedDict[Key, tuple[float, Item]] = OrderedDict()
        self._lock = threading.Lock()
        self._swept = time.monotonic()
        self.fetched = 0  # items read from the graph (for tests and benchmarks)
        self.dropped = 0  # times everything held was dropped because the counter moved

    def __len__(self) -> int:
        return len(self._items)

    def check(self, epoch: int) -> None:
        """The graph's counter as a ranking read it: a move forward drops everything held. (A ranking that read an
        older counter than another already did holds nothing of its own: `get` and `put` ask for the same counter.)"""
        with self._lock:
            if self.epoch is None or epoch > self.epoch:
                if self.epoch is not None:
                    self.dropped += 1
                self._items.clear()
                self.epoch = epoch

    def get(self, keys: Sequence[Key], epoch: int) -> tuple[dict[Key, Item], list[Key]]:
        """Those held under `epoch` (refreshed as recently used), and those not: all of them when the counter has
        moved on from `epoch` since."""
        now = time.monotonic()
        found: dict[Key, Item] = {}
        missing: list[Key] = []
        with self._lock:
            if epoch != self.epoch:
                return found, list(keys)
            self._sweep(now)
            for key in keys:
                hit = self._items.get(key)
                if hit is None or now - hit[0] > self.max_age:
                    missing.append(key)
                    continue
                self._items.move_to_end(key)
                found[key] = hit[1]
        return found, missing

    def put(self, epoch: int, items: dict[Key, Item]) -> None:
        """Items read under `epoch`: kept only if the counter has not moved since."""
        now = time.monotonic()
        with self._lock:
            if self.epoch != epoch:
                return
            for key, item in items.items():
                self._items[key] = (now, item)
                self._items.move_to_end(key)
            while len(self._items) > self.held:
                self._items.popitem(last=False)

    def _sweep(self, now: float) -> None:
        """Items past `max_age` go, looked for once a minute (under the lock): an erased item's vector leaves this
        replica within `max_age` and a minute even if nothing asks for it again."""
        if now - self._swept < 60.0:
            return
        self._swept = now
        for key in [k for k, (at, _) in self._items.items() if now - at > self.max_age]:
            del self._items[key]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.epoch = None


def unit(vector: Sequence[float] | None) -> np.ndarray:
    if not vector:
        return _NONE
    v = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else v


def applies(params: dict[str, Any]) -> bool:
    """Whether the members query answers for these parameters: every caller but the admin without an agent filter,
    who sees everything (the `_all` variants rank that in Cypher)."""
    return not (params["admin"] and params["agent_id"] is None)


def members(db: Database, params: dict[str, Any]) -> Members:
    found = db.rows("retrieval/exact_members", **{k: params[k] for k in MEMBER_PARAMS})
    if not found:  # nothing visible: the planner may answer no row at all rather than one of empty lists
        return Members(keys=[], epoch=-1)
    row = found[0]
    return Members(keys=list(dict.fromkeys(zip(row["ids"], row["at"], strict=True))), epoch=row["epoch"])


def items(db: Database, held: HeldVectors, keys: Sequence[Key], epoch: int) -> dict[Key, Item]:
    """What the replica holds of `keys`, the rest read in one round trip (and held, when that read saw the same
    counter as the members: on a cluster the two reads may reach members at different points)."""
    found, missing = held.get(keys, epoch)
    if missing:
        wanted = {key[0]: key for key in missing}
        read: dict[Key, Item] = {}
        seen = epoch
        for r in db.rows("retrieval/exact_vectors", ids=list(wanted)):
            key = (r["id"], r["recorded_at"])
            seen = r["epoch"]
            if wanted.get(r["id"]) == key:  # written again since the members were read: not this key's item
                prev = (r["prev_id"], r["prev_at"]) if r["prev_id"] is not None else None
                read[key] = Item(unit(r["embedding"]), r["chars"], prev)
        held.fetched += len(read)
        if seen == epoch:
            held.put(epoch, read)
        found.update(read)
    return found


def scores(query: np.ndarray, own: np.ndarray, before: np.ndarray, has_before: np.ndarray,
           weight: float) -> np.ndarray:
    """Each item's score: cos(q, a) alone, or cos(q, a + w b) where it has a turn before (`has_before`); rows of
    `own` and `before` are unit vectors (a zero row in `before` where there is none)."""
    qa = own @ query
    qb = before @ query
    ab = np.einsum("ij,ij->i", own, before)
    norm = np.sqrt(np.maximum(1.0 + weight * weight + 2.0 * weight * ab, 1e-12))
    out: np.ndarray = np.where(has_before, (qa + weight * qb) / norm, qa)
    return out


def rank(db: Database, held: HeldVectors, embedding: Sequence[float], params: dict[str, Any], top: int, *,
         short_chars: int = -1, weight: float = 0.0) -> tuple[list[Scored], dict[str, np.ndarray]]:
    """The `top` visible items best first (rows of id and score, as the backends give them), and the vectors of
    every item ranked, by id (the stages after need some: MMR, the decision factors). `short_chars` < 0: no
    short-turn context."""
    found = members(db, params)
    if not found.keys:
        return [], {}
    held.check(found.epoch)
    by_key = items(db, held, found.keys, found.epoch)
    ranked = [k for k in found.keys if k in by_key and by_key[k].vector.size]
    if not ranked:
        return [], {}
    before_of: dict[Key, Key] = {}
    if weight and short_chars >= 0:
        for k in ranked:
            item = by_key[k]
            if item.prev is not None and item.chars is not None and item.chars <= short_chars:
                before_of[k] = item.prev
        missing = [p for p in dict.fromkeys(before_of.values()) if p not in by_key]
        if missing:  # a turn before the caller does not see, or one filtered out: read for its vector alone
            by_key.update(items(db, held, missing, found.epoch))
    own = np.stack([by_key[k].vector for k in ranked])
    dim = own.shape[1]
    query = unit(embedding)
    if query.size != dim:
        return [], {}
    before = np.zeros_like(own)
    has_before = np.zeros(len(ranked), dtype=bool)
    for i, k in enumerate(ranked):
        prev = before_of.get(k)
        if prev is not None and prev in by_key and by_key[prev].vector.size == dim:
            before[i], has_before[i] = by_key[prev].vector, True
    score = scores(query, own, before, has_before, weight)
    order = np.lexsort((np.array([k[0] for k in ranked]), -score))[:top]  # ORDER BY score DESC, id: as the Cypher
    rows = [Scored(id=ranked[i][0], score=float(score[i])) for i in order]
    return rows, {k[0]: by_key[k].vector for k in ranked}
