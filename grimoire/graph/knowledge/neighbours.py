"""The Admission Gate's neighbours: for each candidate, the NEIGHBOURS nearest entries its owner can see
(active or candidate), with exact cosine similarity and effective confidence. Two ways to find them:

- `IndexSearch`: a vector-index query per candidate, a round trip per BATCH of them; for a few
  candidates (an agent's write), whatever the store's size;
- `Scan`: every entry the owner sees read once with its vector, compared in memory; for a batch large
  beside what its owner sees (the Curator's hundreds of lessons over ten thousand entries), where a
  query per candidate (a few milliseconds each) costs more than reading them all. Exact, where the
  index is approximate.

`find` picks one per owner: the scan when the owner sees fewer than SCAN_RATIO entries per candidate, and
always while the entry index is being rebuilt (graph/upkeep/): admission stays exact and open meanwhile."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grimoire.graph.db.connection import Database, IndexOffline
from grimoire.graph.knowledge.admission import Neighbour
from grimoire.graph.visibility import Visibility

NEIGHBOURS = 10
BATCH = 200        # candidates per index read
SCAN_RATIO = 20    # a scan reads one entry in about the time an index query takes for 20 candidates' one
MIN_SCAN = 50      # fewer candidates than this always query the index


@dataclass(frozen=True)
class Asked:
    """What every candidate of one owner is compared with."""

    view: Visibility
    now: int
    floor: float


class IndexSearch:
    name = "index"

    def __init__(self, db: Database) -> None:
        self.db = db

    def nearest(self, asked: Asked, vectors: np.ndarray) -> list[list[Neighbour]]:
        out: list[list[Neighbour]] = [[] for _ in range(len(vectors))]
        for start in range(0, len(vectors), BATCH):
            items = [{"i": i, "embedding": vectors[i].tolist()} for i in range(start, min(start + BATCH, len(vectors)))]
            for r in self.db.rows("entries/neighbours", items=items, k=NEIGHBOURS, candidates=10 * NEIGHBOURS,
                                  now=asked.now, floor=asked.floor, **asked.view.params()):
                out[r["i"]] = [Neighbour(n["id"], n["content"], float(n["similarity"]),
                                         float(n["effective_confidence"]), n.get("agent_id"), n.get("scope"))
                               for n in r["neighbours"]]
        return out


class Scan:
    name = "scan"

    def __init__(self, db: Database) -> None:
        self.db = db

    def nearest(self, asked: Asked, vectors: np.ndarray) -> list[list[Neighbour]]:
        rows = self.db.rows("entries/visible_vectors", now=asked.now, floor=asked.floor, **asked.view.params())
        if not rows:
            return [[] for _ in range(len(vectors))]
        stored = np.array([r["embedding"] for r in rows], dtype=np.float32)
        stored /= np.maximum(np.linalg.norm(stored, axis=1, keepdims=True), 1e-12)
        sims = vectors @ stored.T
        k = min(NEIGHBOURS, len(rows))
        out = []
        for row in sims:
            top = np.argpartition(-row, k - 1)[:k]
            top = top[np.lexsort((top, -row[top]))]  # by similarity, then the store's order (entry id)
            out.append([Neighbour(rows[j]["id"], rows[j]["content"], float(row[j]),
                                  float(rows[j]["effective_confidence"]), rows[j].get("agent_id"), rows[j].get("scope"))
                        for j in top.tolist()])
        return out


def find(db: Database, vectors: np.ndarray, owners: Sequence[str | None], clade: str | None, now: int,
         floor: float, skip: Sequence[bool]) -> list[list[Neighbour]]:
    """Each candidate's neighbours (none for those `skip` marks), by the owner's view in `clade`."""
    out: list[list[Neighbour]] = [[] for _ in owners]
    by_owner: dict[str | None, list[int]] = defaultdict(list)
    for i, owner in enumerate(owners):
        if not skip[i]:
            by_owner[owner].append(i)
    for owner, positions in by_owner.items():
        asked = Asked(Visibility.of(owner, clade), now, floor)
        search = _strategy(db, asked, len(positions))
        unit = vectors[positions]
        unit = unit / np.maximum(np.linalg.norm(unit, axis=1, keepdims=True), 1e-12)
        try:
            nearest = search.nearest(asked, unit)
        except IndexOffline:
            nearest = Scan(db).nearest(asked, unit)
        for i, found in zip(positions, nearest, strict=True):
            out[i] = found
    return out


def _strategy(db: Database, asked: Asked, candidates: int) -> IndexSearch | Scan:
    if candidates < MIN_SCAN:
        return IndexSearch(db)
    seen = db.rows("entries/visible_count", **asked.view.params())[0]["n"]
    return Scan(db) if seen < SCAN_RATIO * candidates else IndexSearch(db)
