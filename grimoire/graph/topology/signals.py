"""Topology signals from written GDS runs, read where a decision needs them: an entity's systemic
importance (PageRank percentile in the newest topology run at or before a block) for the curiosity
scorer and for retrieval's graph candidates."""

from __future__ import annotations

from collections.abc import Sequence

from grimoire.graph.db.connection import Database
from grimoire.graph.topology.answers import Centrality


def centralities(db: Database, entity_ids: Sequence[str], block: int, viewer: str = "",
                 algorithm: str = "pagerank") -> dict[str, Centrality]:
    """Per entity with a written score: score, rank, percentile (1.0 = the most central), the run
    and its block. Entities the newest run did not score, or with no run at or before the block,
    are absent: there is no centrality from the future."""
    if not entity_ids:
        return {}
    out = {}
    for r in db.rows("analytics/latest_score", ids=list(entity_ids), algorithm=algorithm, block=block,
                      viewer=viewer):
        if r["score"] is None:
            continue
        out[r["id"]] = Centrality(score=r["score"], rank=r["rank"], run_id=r["run_id"], block=r["block"],
                                  percentile=round(1.0 - (r["rank"] - 1) / max(r["out_of"], 1), 6))
    return out


def centrality(db: Database, entity_id: str, block: int, viewer: str = "") -> Centrality | None:
    return centralities(db, [entity_id], block, viewer).get(entity_id)
