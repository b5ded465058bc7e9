"""How much of the store a caller can see, and so how to search it.

An index search cannot filter by visibility inside Neo4j 5.26: it returns the nearest items of
everyone, and the filter runs after it. A caller who sees 1% of the store would need a hundred
times more candidates than the admin, and a caller who sees nothing would widen the search to
its limit and then scan. So the visible set is counted first, through the ownership and scope
indexes (cypher/retrieval/visible_count.cypher, bounded by a cap), and:
- nothing visible: nothing to search;
- a small visible set: rank it exactly (vector_exact.cypher gathers it through the same indexes);
- a large one: ask the index for enough candidates that the visible share holds `top` of them.
Either way the cost follows what the caller can see, not what everyone else stores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from grimoire.graph.db.connection import Database
from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.timed import Timed

PARAMS = ("labels", "viewer", "clade", "admin", "agent_id")
HELD = 4_096  # reaches kept at most (one per caller and filter); past that the expired go, then all
MARGIN = 1.5
CAPPED_FIRST = 5  # a caller seen to have more than the cap is asked for at most this many x factor x top first


@dataclass(frozen=True)
class Reach:
    visible: int  # items the caller may see (at least this many when `capped`)
    total: int    # items of the searched labels in the database
    capped: bool

    @property
    def share(self) -> float:
        """The visible share of the store (a lower bound when capped)."""
        return 1.0 if self.total == 0 else min(1.0, max(self.visible, 1) / self.total)

    def exact(self, below: int | ExactRule) -> bool:
        """Rank every visible item exactly rather than search an index: at most `below` of them, or as many as the
        rule allows this caller (`ExactRule`)."""
        if isinstance(below, ExactRule):
            below = below.limit(self)
        return not self.capped and self.visible <= below

    def widest(self, top: int, factor: int, limit: int) -> int:
        """Index candidates that hold about factor x top visible ones at the visible share (half as many again
        when the caller sees a part of the store: visible items are not spread evenly), at most `limit`."""
        margin = 1.0 if self.share >= 1.0 else MARGIN
        return max(top, min(limit, math.ceil(margin * factor * top / self.share)))

    def candidates(self, top: int, factor: int, limit: int) -> int:
        """The first ask: `widest`, but when the count was capped its share is only a lower bound (20,000 of a
        million episodes reads as 2% for an agent that owns them all: 1,000 candidates where 20 do), so at most
        CAPPED_FIRST x factor x top, widened by the search while the filters leave too few (up to `widest`)."""
        first = self.widest(top, factor, limit)
        return min(first, max(top, CAPPED_FIRST * factor * top)) if self.capped else first


@dataclass(frozen=True)
class ExactRule:
    """How many visible items a caller may have and still be ranked exactly. At most `below`, always; and up to
    `upto` while the index would be asked for at least 1/`ratio` as many candidates as the caller sees (`widest`):
    a caller who sees a small share of a large store makes the index walk thousands of candidates to keep `top`
    of its own (3,000 of 1,000,000 items: 10,000 asked, ~124 ms), and each costs more than an exact cosine of a
    visible item (bench/results/reach.json)."""

    below: int
    upto: int = 0
    ratio: float = 0.0
    top: int = 20
    factor: int = 1
    most: int = 10_000  # the index's largest ask (backends.MAX_CANDIDATES)

    def limit(self, reach: Reach) -> int:
        asked = reach.widest(self.top, self.factor, self.most)
        return max(self.below, min(self.upto, math.floor(self.ratio * asked)))


def exact_rule(config: RetrievalConfig, most: int = 10_000) -> ExactRule:
    """The configured rule: RetrievalConfig.exact_below, exact_fallback_below and exact_index_ratio."""
    return ExactRule(config.exact_below, config.exact_fallback_below, config.exact_index_ratio, config.per_backend,
                     config.candidates_factor, most)


def measure(db: Database, params: dict[str, Any], cap: int) -> Reach:
    row = db.rows("retrieval/visible_count", cap=cap, **{k: params[k] for k in PARAMS})[0]
    if params["admin"] and params["agent_id"] is None:
        return Reach(visible=row["total"], total=row["total"], capped=False)
    return Reach(visible=row["visible"], total=row["total"], capped=row["visible"] >= cap)


@dataclass
class ReachCache:
    """Reaches of large visible sets, reused for `seconds`. Counting up to the cap walks an index
    (~15 ms at 20,000 items, as long as the searches it sizes), and the share a caller sees of a large
    store moves slowly: a reach only sizes the index search. A small set (at most `small`, the exact
    ranking's threshold) is reused for `small_seconds` only (0: counted every time): its count only chooses
    the exact ranking and sizes BM25, and the exact ranking reads the visible set as it is on every request
    (graph/retrieval/exact.py), so an item written since is ranked at once. A caller who saw nothing is
    counted every time, so that its first items are found the moment they are written."""

    small: int
    seconds: float
    small_seconds: float = 0.0
    _held: Timed[tuple[Any, ...], Reach] = field(default_factory=lambda: Timed(0.0, HELD), repr=False)

    def measure(self, db: Database, params: dict[str, Any], cap: int) -> Reach:
        """The caller's reach, held or counted now (in the pool, beside the query's embedding)."""
        key = self._key(params, cap)
        if (hit := self._held.get(key)) is not None:
            return hit
        seen = measure(db, params, cap)
        self._held.put(key, seen, self._keep(seen))  # 0: none kept (and any entry dropped)
        return seen

    def held(self, params: dict[str, Any], cap: int) -> Reach | None:
        """The caller's reach if one is held (no count, no read ahead)."""
        return self._held.get(self._key(params, cap))

    @staticmethod
    def _key(params: dict[str, Any], cap: int) -> tuple[Any, ...]:
        return tuple(tuple(v) if isinstance(v, list) else v for v in (params[k] for k in PARAMS)) + (cap,)

    def _keep(self, seen: Reach) -> float:
        return self.seconds if seen.visible > self.small else self.small_seconds if seen.visible else 0.0  # 0: none
