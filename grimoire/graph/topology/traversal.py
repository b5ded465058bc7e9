"""Walking the topology at a block: k-hop neighbours, shortest dependency path, and curiosity: the
modifier from the distance between an event's entity and the agent's positions, plus the lag term
from how late Grimoire learns about that entity (graph/topology/freshness.py)."""

from __future__ import annotations

from collections.abc import Sequence

from grimoire.graph.db.connection import Database
from grimoire.graph.ids import now_ms
from grimoire.graph.model.enums import Direction, Predicate
from grimoire.graph.topology import freshness, signals
from grimoire.graph.topology.answers import Curiosity, KHopEntity, PathFact, TopologyPath
from grimoire.graph.topology.facts import types_for
from grimoire.graph.topology.freshness import FactConfig
from grimoire.graph.visibility import Visibility

# Spec (Feeding the Curiosity Scorer): 0 or 1 hop 1.0, 2 hops 0.5, 3 hops 0.25, else 0.
CURIOSITY_BY_DISTANCE = {0: 1.0, 1: 1.0, 2: 0.5, 3: 0.25}


def k_hop(db: Database, entity_id: str, block: int, *, hops: int = 3, direction: Direction = Direction.both,
          predicates: Sequence[Predicate] = (), known_at: int | None = None, limit: int = 1_000,
          visibility: Visibility) -> list[KHopEntity]:
    return [KHopEntity.model_validate(r) for r in db.rows(
        "topology/k_hop", id=entity_id, block=block, hops=hops, direction=direction.value, types=types_for(predicates),
        known_at=known_at, limit=limit, **visibility.params())]


def shortest_path(db: Database, source: str, target: str, block: int, *, predicates: Sequence[Predicate] = (),
                  known_at: int | None = None, visibility: Visibility,
                  facts: FactConfig | None = None) -> TopologyPath | None:
    rows = db.fetch("topology/shortest_path", types=types_for(predicates), known_at=known_at, block=block,
                  **{"from": source, "to": target}, **visibility.params())
    if not rows:
        return None
    now, cfg = now_ms(), facts or FactConfig()
    return TopologyPath(depth=rows[0]["depth"], path=rows[0]["path"],
                        facts=[PathFact.model_validate(freshness.with_effective_confidence(f, now, cfg))
                               for f in rows[0]["facts"]])


def curiosity_modifier(distance: int | None) -> float:
    return CURIOSITY_BY_DISTANCE.get(distance, 0.0) if distance is not None else 0.0


def topology_curiosity(db: Database, event_entity: str, positions: Sequence[str], block: int, *,
                       visibility: Visibility, facts: FactConfig | None = None) -> Curiosity:
    """The composite: curiosity = modifier (distance) + lag_term (the event entity's mean information
    lag over the facts about it the viewer sees, valid from at most `block`)."""
    rows = db.fetch("topology/distance_to_positions", event=event_entity, positions=list(positions), block=block,
                  types=types_for(()), **visibility.params())
    distance = rows[0]["distance"] if rows else None
    modifier = curiosity_modifier(distance)
    lag = freshness.summary(freshness.fact_lags(db, event_entity, visibility=visibility, until_block=block))
    term = freshness.lag_term(lag.mean_lag_ms, facts or FactConfig())
    # The event entity's systemic importance, when a topology PageRank run has been written.
    return Curiosity(distance=distance, modifier=modifier, lag=lag, lag_term=term, curiosity=modifier + term,
                     centrality=signals.centrality(db, event_entity, block, visibility.viewer))
