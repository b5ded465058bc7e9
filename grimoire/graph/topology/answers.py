"""What the topology's reads answer (entities resolved, fact versions, traversals, lag, curiosity): models declared
beside the subsystem, returned by its functions and declared by its routes as their response models
(api/schemas/topology.py re-exports them). Times in epoch milliseconds, valid time in blocks."""

from __future__ import annotations

from pydantic import BaseModel

from grimoire.graph.model.enums import EntityKind, Predicate, Scope


class ResolvedEntity(BaseModel):
    id: str
    kind: EntityKind | None
    name: str | None
    symbol: str | None
    aliases: list[str] | None
    chain_id: int | None
    address: str | None
    score: float  # 2.0 for an exact match, else the full-text score scaled into (0, 1)


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
    confidence: float | None  # as asserted
    # now: confidence * exp(-(now - last_reinforced) / fact half-life), at least the floor (GRIMOIRE_FACTS)
    effective_confidence: float | None
    last_reinforced: int | None  # when last asserted again (its recorded time until then)
    reinforcements: int | None
    approximate: bool | None
    valid_from_source: str | None
    valid_from_time: int | None  # when the valid_from block happened, when the asserter said
    source_episode: str | None
    superseded_by: str | None
    closed_by: str | None
    agent_id: str | None
    scope: Scope | None
    clade: str | None
    inferred: str | None = None  # how an inferred fact was found ("co_occurrence"); null when stated
    co_occurrences: int | None = None  # a co-occurrence inference's episode pairs when it was made


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
    confidence: float | None
    effective_confidence: float | None
    last_reinforced: int | None


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


class LagSummary(BaseModel):
    """An entity's information lag over the facts about it with a known lag and an exact valid time."""

    count: int  # facts considered
    with_lag: int  # of which a lag is known and the valid time is not approximate
    mean_lag_ms: float | None
    median_lag_ms: float | None
    min_lag_ms: float | None
    max_lag_ms: float | None
    with_lag_blocks: int
    mean_lag_blocks: float | None


class FactLag(BaseModel):
    """One fact, as first recorded, and how long after it became true it was recorded."""

    fact_id: str
    predicate: Predicate | None
    name: str | None
    type: str
    subject: str
    object: str | None
    valid_from: int  # block
    recorded_at: int  # ms
    approximate: bool
    agent_id: str | None
    scope: Scope | None
    valid_time: int | None  # when the valid_from block happened (ms), null when unknown
    valid_time_source: str | None  # "asserted" (the fact's valid_from_time) or "episode" (one at that block)
    lag_ms: int | None  # recorded_at - valid_time
    seen_block: int | None  # the block of the fact's source episode
    lag_blocks: int | None  # seen_block - valid_from


class EntityLag(BaseModel):
    entity: str
    summary: LagSummary
    lag_term: float  # what the lag adds to the entity's curiosity
    facts: list[FactLag]


class Curiosity(BaseModel):
    """curiosity = modifier + lag_term: the distance modifier (the spec's, additive) plus a capped term
    growing with the event entity's information lag (graph/topology/freshness.py)."""

    distance: int | None  # hops to the nearest position, null when none is within 3
    modifier: float
    lag: LagSummary  # of the facts about the event entity valid from at most the block
    lag_term: float
    curiosity: float
    centrality: Centrality | None
