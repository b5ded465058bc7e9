"""What the topology routes answer (api/routes/topology.py): entities, bi-temporal facts (times in
epoch milliseconds, valid time in blocks), traversals and the curiosity modifier."""

from __future__ import annotations

from pydantic import BaseModel

from graph.model.enums import EntityKind, Predicate, Scope


class EntityIds(BaseModel):
    ids: list[str]


class ResolvedEntity(BaseModel):
    id: str
    kind: EntityKind | None
    name: str | None
    symbol: str | None
    aliases: list[str] | None
    chain_id: int | None
    address: str | None
    score: float  # 2.0 for an exact match, else the full-text score scaled into (0, 1)


class FactsAsserted(BaseModel):
    fact_ids: list[str]
    created: list[str]
    unchanged: list[str]
    closed: int  # active facts of exclusive predicates the new ones closed


class FactVersion(BaseModel):
    """One version of a fact: every field, null when unset, so clients see one shape."""

    fact_id: str | None
    id: str | None
    version: int | None
    predicate: Predicate | None
    name: str | None  # the Custom predicate's name
    type: str | None  # the relationship type
    subject: str | None
    object: str | None  # an entity id, or null for a scalar value
    value: str | bool | int | float | None
    valid_from: int | None
    valid_to: int | None
    recorded_at: int | None
    expired_at: int | None
    confidence: float | None
    approximate: bool | None
    valid_from_source: str | None
    source_episode: str | None
    superseded_by: str | None
    closed_by: str | None
    agent_id: str | None
    scope: Scope | None
    clade: str | None


class EntityBrief(BaseModel):
    kind: EntityKind | None
    name: str | None
    symbol: str | None


class FactAbout(FactVersion):
    """A fact about an entity, with both ends described."""

    subject_entity: EntityBrief | None
    object_entity: EntityBrief | None


class Invalidated(BaseModel):
    fact_id: str
    at_block: int
    versions: list[FactVersion]


class KHopEntity(BaseModel):
    id: str
    kind: EntityKind | None
    name: str | None
    depth: int
    predicates: list[str]
    facts: list[str]
    path: list[str]


class PathFact(BaseModel):
    fact_id: str | None
    predicate: str | None
    subject: str
    object: str


class TopologyPath(BaseModel):
    depth: int
    path: list[str]
    facts: list[PathFact]


class Centrality(BaseModel):
    """The entity's PageRank in the newest written topology run at or before the block."""

    score: float
    rank: int
    run_id: str
    block: int
    percentile: float  # 1.0: the most central


class Curiosity(BaseModel):
    distance: int | None  # hops to the nearest position, null when none is within 3
    modifier: float
    centrality: Centrality | None
