"""What the topology routes answer (api/routes/topology.py): entities, bi-temporal facts (times in
epoch milliseconds, valid time in blocks), traversals and the curiosity modifier."""

from __future__ import annotations

from pydantic import BaseModel

from grimoire.graph.topology.answers import (
    Centrality,
    Curiosity,
    EntityBrief,
    EntityLag,
    FactAbout,
    FactLag,
    FactVersion,
    Invalidated,
    KHopEntity,
    LagSummary,
    PathFact,
    ResolvedEntity,
    TopologyPath,
)

__all__ = ["Centrality", "Curiosity", "EntityBrief", "EntityIds", "EntityLag", "FactAbout", "FactLag", "FactVersion",
           "FactsAsserted", "Invalidated", "KHopEntity", "LagSummary", "PathFact", "ResolvedEntity", "TopologyPath"]


class EntityIds(BaseModel):
    ids: list[str]


class FactsAsserted(BaseModel):
    fact_ids: list[str]
    created: list[str]
    unchanged: list[str]
    closed: int  # active facts with another object the new ones closed (none for multi-valued predicates)
    reinforced: list[str]  # facts already believed that this assertion reinforced (their decay clock restarts)
