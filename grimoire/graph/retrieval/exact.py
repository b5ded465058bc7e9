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

A caller's members change only when something is written, so the matrices one members list is scored from (its items'
vectors stacked, each short turn's context and norm) are kept too, keyed by the list itself and the context settings:
a ranking whose members and counter are those of one before scores one matrix-vector product instead of gathering
thousands of held items again. A block is kept only when it was built whole at the members' counter (every item
found, every read at that counter); it follows its items' rules: dropped when the counter moves, when its oldest item
is `max_age` old, and least recently used first past `held` rows in all. Its matrix is also what the items it was built
from point into (`share`), so a vector is in memory once in the usual case; the turns before, and a members list
stacked again under other filters, are copies. Memory: at most `held` items and `held` block rows, ~2 KiB each with
their keys; about `held` vectors in all while callers keep to their filters, never more than twice that.

The score is vector_context.cypher's: the cosine with the query, and for a short turn that follows another, the
cosine with its vector plus `weight` times the turn before's, cos(q, a + w b) = (q.a + w q.b) / |a + w b|."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

import numpy as np

from grimoire.graph.db.connection import Database

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
    read_at: float = field(default_factory=time.monotonic)  # when it was read from the graph: its age


@dataclass(frozen=True)
class Block:
    """One members list ready to score: its ranked items' ids and unit vectors (`own`), and for each short turn with
    a turn before (`with_before`, indices into `ids`) that turn's vector (`before`, a row each) and |a + w b|."""

    ids: list[str]
    own: np.ndarray
    with_before: np.ndarray
    before: np.ndarray
    norm: np.ndarray
    weight: float
    tie: np.ndarray  # each item's place in id order: ties go by id, as the Cypher's ORDER BY score DESC, id
    vectors: dict[str, np.ndarray]  # the ranked items' vectors by id, for the stages after (read only)
    read_at: float  # when its oldest item was read from the graph

    @property
    def rows(self) -> int:
        return len(self.ids) + len(self.with_before)

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Each item's score: cos(q, a) alone, or cos(q, a + w b) for a short turn after another."""
        out: np.ndarray = self.own @ query
        if self.with_before.size:
            at = self.with_before
            out[at] = (out[at] + self.weight * (self.before @ query)) / self.norm
        return out

    def top(self, query: np.ndarray, top: int) -> list[Scored]:
        score = self.scores(query)
        order = np.lexsort((self.tie, -score))[:top]
        return [Scored(id=self.ids[i], score=float(score[i])) for i in order]


def block(ids: list[str], own: np.ndarray, before: dict[int, np.ndarray], weight: float,
          vectors: dict[str, np.ndarray], read_at: float) -> Block:
    """The block for ranked items `ids` (rows of `own`), `before` giving the turn before's vector by row."""
    at = np.fromiter(sorted(before), dtype=np.int64, count=len(before))
    rows = np.stack([before[i] for i in at]) if len(at) else np.zeros((0, own.shape[1]), dtype=own.dtype)
    ab = np.einsum("ij,ij->i", own[at], rows)
    norm = np.sqrt(np.maximum(1.0 + weight * weight + 2.0 * weight * ab, 1e-12))
    tie = np.empty(len(ids), dtype=np.int64)
    tie[np.argsort(np.array(ids))] = np.arange(len(ids))
    for array in (own, at, rows, norm, tie):  # shared by concurrent rankings and viewed by held items: never written
        array.setflags(write=False)
    return Block(ids, own, at, rows, norm, weight, tie, vectors, read_at)


Signature = tuple[tuple[Key, ...], int, float]  # a members list, short_chars and weight


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
        self._items: OrderedDict[Key, Item] = OrderedDict()
        self._blocks: OrderedDict[Signature, Block] = OrderedDict()
        self._block_rows = 0
        self._lock = threading.Lock()
        self._swept = time.monotonic()
        self.fetched = 0  # items read from the graph (for tests and benchmarks)
        self.dropped = 0  # times everything held was dropped because the counter moved
        self.reused = 0  # rankings scored from a kept block

    def __len__(self) -> int:
        return len(self._items)

    def kept_blocks(self) -> int:
        return len(self._blocks)

    def check(self, epoch: int) -> None:
        """The graph's counter as a ranking read it: a move forward drops everything held. (A ranking that read an
        older counter than another already did holds nothing of its own: `get` and `put` ask for the same counter.)"""
        with self._lock:
            if self.epoch is None or epoch > self.epoch:
                if self.epoch is not None:
                    self.dropped += 1
                self._items.clear()
                self._drop_blocks()
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
                if hit is None or now - hit.read_at > self.max_age:
                    missing.append(key)
                    continue
                self._items.move_to_end(key)
                found[key] = hit
        return found, missing

    def share(self, epoch: int, used: Sequence[tuple[Key, Item]], own: np.ndarray) -> None:
        """Held items' vectors replaced by the rows of a kept block's matrix (`own`, row i being used[i]'s): one copy of
        each vector in memory, not one in the items and another in the block. Only the very items the block was built
        from, under the counter it was built at: an item read again since (a counter move between) keeps its own."""
        with self._lock:
            if self.epoch != epoch:
                return
            for i, (key, item) in enumerate(used):
                if self._items.get(key) is item:
                    self._items[key] = Item(own[i], item.chars, item.prev, item.read_at)

    def block(self, signature: Signature, epoch: int) -> Block | None:
        """The block kept for these members under `epoch`, unless its oldest item is past `max_age`."""
        now = time.monotonic()
        with self._lock:
            self._sweep(now)  # rankings served from blocks alone still age out what others left
            if epoch != self.epoch or (found := self._blocks.get(signature)) is None:
                return None
            if now - found.read_at > self.max_age:
                self._block_rows -= self._blocks.pop(signature).rows
                return None
            self._blocks.move_to_end(signature)
            self.reused += 1
            return found

    def keep(self, signature: Signature, epoch: int, found: Block) -> bool:
        """A block built from items read under `epoch`: kept (True) only if the counter has not moved since."""
        with self._lock:
            if self.epoch != epoch or found.rows > self.held:
                return False
            if (old := self._blocks.pop(signature, None)) is not None:
                self._block_rows -= old.rows
            self._blocks[signature] = found
            self._block_rows += found.rows
            while self._block_rows > self.held:
                self._block_rows -= self._blocks.popitem(last=False)[1].rows
            return True

    def put(self, epoch: int, items: dict[Key, Item]) -> None:
        """Items read under `epoch`: kept only if the counter has not moved since."""
        with self._lock:
            if self.epoch != epoch:
                return
            for key, item in items.items():
                self._items[key] = item
                self._items.move_to_end(key)
            while len(self._items) > self.held:
                self._items.popitem(last=False)

    def _sweep(self, now: float) -> None:
        """Items past `max_age` go, looked for once a minute (under the lock): an erased item's vector leaves this
        replica within `max_age` and a minute even if nothing asks for it again."""
        if now - self._swept < 60.0:
            return
        self._swept = now
        for key in [k for k, item in self._items.items() if now - item.read_at > self.max_age]:
            del self._items[key]
        for signature in [s for s, b in self._blocks.items() if now - b.read_at > self.max_age]:
            self._block_rows -= self._blocks.pop(signature).rows

    def _drop_blocks(self) -> None:
        self._blocks.clear()
        self._block_rows = 0

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._drop_blocks()
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
    return members_of(db.rows("retrieval/exact_members", **{k: params[k] for k in MEMBER_PARAMS}))


def members_of(found: Sequence[dict[str, Any]]) -> Members:
    """The members of exact_members.cypher's row (or members_fulltext.cypher's: the same ids, at and epoch)."""
    if not found:  # nothing visible: the planner may answer no row at all rather than one of empty lists
        return Members(keys=[], epoch=-1)
    row = found[0]
    return Members(keys=list(dict.fromkeys(zip(row["ids"], row["at"], strict=True))), epoch=row["epoch"])


def items(db: Database, held: HeldVectors, keys: Sequence[Key], epoch: int) -> tuple[dict[Key, Item], bool]:
    """What the replica holds of `keys`, the rest read in one round trip (and held, when that read saw the same
    counter as the members: on a cluster the two reads may reach members at different points); and whether the
    answer is settled: every key found, every read at the members' counter (else a block of it is not kept)."""
    found, missing = held.get(keys, epoch)
    if not missing:
        return found, True
    wanted = {key[0]: key for key in missing}
    read: dict[Key, Item] = {}
    counters = set()
    for r in db.rows("retrieval/exact_vectors", ids=list(wanted)):
        key = (r["id"], r["recorded_at"])
        counters.add(r["epoch"])
        if wanted.get(r["id"]) == key:  # written again since the members were read: not this key's item
            prev = (r["prev_id"], r["prev_at"]) if r["prev_id"] is not None else None
            read[key] = Item(unit(r["embedding"]), r["chars"], prev)
    held.fetched += len(read)
    same = counters <= {epoch}
    if same:
        held.put(epoch, read)
    found.update(read)
    return found, same and len(read) == len(wanted)


def rank(db: Database, held: HeldVectors, embedding: Sequence[float], params: dict[str, Any], top: int, *,
         short_chars: int = -1, weight: float = 0.0,
         found: Members | None = None) -> tuple[list[Scored], dict[str, np.ndarray]]:
    """The `top` visible items best first (rows of id and score, as the backends give them), and the vectors of
    every item ranked, by id (the stages after need some: MMR, the decision factors). `short_chars` < 0: no
    short-turn context. `found`: the members, when the caller read them already (`members` with these params,
    in this request: graph/retrieval/context.py reads them while the query is embedded)."""
    if found is None:
        found = members(db, params)
    if not found.keys:
        return [], {}
    held.check(found.epoch)
    context = short_chars if weight and short_chars >= 0 else -1
    weight = weight if context >= 0 else 0.0
    signature: Signature = (tuple(found.keys), context, weight)
    ready = held.block(signature, found.epoch)
    if ready is None:
        built = _build(db, held, found, context, weight)
        if built is None:
            return [], {}
        ready, used, settled = built
        if settled and held.keep(signature, found.epoch, ready):
            held.share(found.epoch, used, ready.own)
    query = unit(embedding)
    if query.size != ready.own.shape[1]:
        return [], {}
    return ready.top(query, top), ready.vectors


def _build(db: Database, held: HeldVectors, found: Members, short_chars: int,
           weight: float) -> tuple[Block, list[tuple[Key, Item]], bool] | None:
    """The block of `found`'s items from what the replica holds and what it reads, the items its rows came from, and
    whether it may be kept (`items`: settled)."""
    by_key, settled = items(db, held, found.keys, found.epoch)
    ranked = [k for k in found.keys if k in by_key and by_key[k].vector.size]
    if not ranked:
        return None
    before_of: dict[Key, Key] = {}
    if short_chars >= 0:
        for k in ranked:
            item = by_key[k]
            if item.prev is not None and item.chars is not None and item.chars <= short_chars:
                before_of[k] = item.prev
        missing = [p for p in dict.fromkeys(before_of.values()) if p not in by_key]
        if missing:  # a turn before the caller does not see, or one filtered out: read for its vector alone
            more, also = items(db, held, missing, found.epoch)
            by_key.update(more)
            settled = settled and also
    own = np.stack([by_key[k].vector for k in ranked])
    own.setflags(write=False)  # before any view of it is taken: the views (vectors, held items) are read only too
    dim = own.shape[1]
    before = {i: by_key[p].vector for i, k in enumerate(ranked)
              if (p := before_of.get(k)) is not None and p in by_key and by_key[p].vector.size == dim}
    read_at = min(by_key[k].read_at for k in {*ranked, *(p for p in before_of.values() if p in by_key)})
    made = block([k[0] for k in ranked], own, before, weight,
                 {k[0]: own[i] for i, k in enumerate(ranked)}, read_at)
    return made, [(k, by_key[k]) for k in ranked], settled
