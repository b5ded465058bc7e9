"""What an analysis answers (the run, its ranked results and groups, a written run, the failure cascade): models
declared beside the subsystem, returned by its functions and declared by its routes (api/schemas/analytics.py
re-exports them)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from grimoire.graph.analytics.projections import GraphKind


class Affected(BaseModel):
    """An entity that fails with the one asked about, through dependency facts valid at the block."""

    id: str
    kind: str | None
    name: str | None
    hops: int
    through: list[str]  # the predicates along the path
    path: list[str]
    holds_position: bool
    pagerank: float
    impact: float  # pagerank / 2^(hops - 1)
    rank: int


class Cascade(BaseModel):
    entity: str
    block: int
    hops: int
    affected_count: int
    markets: list[Affected]
    positions: list[Affected]
    affected: list[Affected]


class Scores(BaseModel):
    """What an algorithm gives a node; which fields depends on the algorithm: a score (pagerank,
    betweenness), a community (louvain, leiden) or component (wcc) with its size, an embedding
    (fastrp), the most similar nodes (node_similarity), a step along the path (shortest_path)."""

    score: float | None = None
    community: int | None = None
    component: int | None = None
    embedding: list[float] | None = None
    similarities: list[float] | None = None
    similar_to: list[str] | None = None
    step: int | None = None
    size: int | None = None
    rank: int | None = None


class Node(BaseModel):
    """An entity, or an entry (its category as its kind, the start of its content as its name)."""

    id: str
    kind: str | None = None
    name: str | None = None


class Ranked(Scores, Node):
    """One result of an analysis: the node, then what the algorithm gave it."""


class Group(BaseModel):
    """A community or component, largest first, with up to ten of its members."""

    community: int | None = None
    component: int | None = None
    size: int
    members: list[str]


class Run(BaseModel):
    """One analysis run: the algorithm, the parameters it used, the graph and the projection's view,
    the sizes and times. A written run has `actor` too and no null fields."""

    id: str
    algorithm: str
    graph: GraphKind | None = None
    block: int | None = None
    known_at: int | None = None
    agent_id: str | None = None
    parameters: dict[str, Any] = {}
    ran_at: int | None = None
    node_count: int | None = None
    relationship_count: int | None = None
    result_count: int | None = None
    algorithm_ms: float | None = None
    duration_ms: float | None = None
    written: bool | None = None
    owner: str | None = None
    actor: str | None = None


class Analysis(BaseModel):
    run: Run
    results: list[Ranked]
    groups: list[Group] | None = None  # community and component algorithms
    group_count: int | None = None
    path: list[str] | None = None  # shortest_path
    total_cost: float | None = None


class WrittenResult(Node):
    result: Scores


class WrittenRun(BaseModel):
    run: Run
    results: list[WrittenResult]
