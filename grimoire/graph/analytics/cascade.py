"""Cascade: an entity fails at a block; what fails with it. Everything that depends on it through
facts valid then (followed backwards: a reserve on its oracle, a market's pool on its reserves, a
holder on its position), ranked by distance and then by systemic importance (PageRank on the
topology valid at that block, through GDS): markets (pools and reserves) and positions apart."""

from __future__ import annotations

from grimoire.graph.analytics.algorithms import Algorithm, AlgorithmParams
from grimoire.graph.analytics.answers import Affected, Cascade
from grimoire.graph.analytics.projections import EmptyProjection, GraphKind, ProjectionSpec
from grimoire.graph.analytics.runs import Analysis, run
from grimoire.graph.db.connection import Database
from grimoire.graph.model.enums import REL_TYPES, EntityKind, Predicate
from grimoire.graph.topology.entities import require_visible
from grimoire.graph.visibility import Visibility

MAX_HOPS = 4
# What a failure travels along, backwards: the dependant is the subject of these facts.
DEPENDENCIES = (Predicate.OracleDependency, Predicate.CollateralBacking, Predicate.HasPosition, Predicate.Custom,
                Predicate.TokenFlow, Predicate.IsRouterFor)
MARKETS = {EntityKind.Pool.value, EntityKind.Reserve.value}


def cascade(db: Database, entity_id: str, block: int, *, hops: int = 3, visibility: Visibility,
            actor: str, limit: int = 100) -> Cascade:
    require_visible(db, entity_id, visibility)  # EntityNotFound, also for one the caller may not see
    affected = db.rows("analytics/cascade", id=entity_id, block=block, hops=min(hops, MAX_HOPS),
                       types=[REL_TYPES[p] for p in DEPENDENCIES], **visibility.params())
    importance: dict[str, float] = {}
    if affected:
        try:
            pr = run(db, Analysis(Algorithm.pagerank, ProjectionSpec(GraphKind.topology, block=block,
                                                                     visibility=visibility),
                                  AlgorithmParams(), limit=10**9), actor=actor)
            importance = {r.id: r.score or 0.0 for r in pr.results}
        except EmptyProjection:
            pass
    for a in affected:
        a["pagerank"] = importance.get(a["id"], 0.0)
        # Nearer first; among the equally near, the more systemically important first.
        a["impact"] = a["pagerank"] / (2 ** (a["hops"] - 1))
    affected.sort(key=lambda a: (a["hops"], -a["pagerank"], a["id"]))
    ranked = [Affected.model_validate({**a, "rank": i}) for i, a in enumerate(affected, start=1)]
    markets = [a for a in ranked if a.kind in MARKETS]
    positions = [a for a in ranked if a.holds_position]
    return Cascade(entity=entity_id, block=block, hops=hops, affected_count=len(ranked), markets=markets[:limit],
                   positions=positions[:limit], affected=ranked[:limit])
