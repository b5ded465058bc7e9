"""The GDS algorithms Grimoire runs, each through the graphdatascience client on a projection of
the orientation it needs, returning one row per node (by GDS node id) with its result."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, Required, TypedDict

from graphdatascience import GraphDataScience
from neo4j.exceptions import ClientError
from pydantic import Field

from grimoire.graph.analytics.projections import COST, Orientation
from grimoire.graph.errors import Invalid, NotFound
from grimoire.graph.model.common import StrictModel, Unit


class Algorithm(StrEnum):
    pagerank = "pagerank"              # systemic importance: what much depends on, directly or not
    betweenness = "betweenness"        # brokers: what many dependency paths run through
    louvain = "louvain"                # communities (modularity)
    leiden = "leiden"                  # communities (Louvain's, refined); repeatable for a seed
    wcc = "wcc"                        # weakly connected components
    node_similarity = "node_similarity"  # Jaccard over neighbourhoods
    shortest_path = "shortest_path"    # weighted (Dijkstra) dependency path, cost 1 / confidence
    fastrp = "fastrp"                  # node embeddings


class AlgorithmParams(StrictModel):
    """Every algorithm's knobs; each reads only its own."""

    weighted: bool = Field(default=False, description="use relationship weights (confidence / CAUSES weight)")
    damping_factor: Annotated[float, Field(ge=0, lt=1)] = 0.85
    max_iterations: Annotated[int, Field(ge=1, le=1_000)] = 20
    tolerance: Annotated[float, Field(gt=0, le=1)] = 1e-7
    max_levels: Annotated[int, Field(ge=1, le=100)] = 10
    gamma: Annotated[float, Field(gt=0, le=100)] = 1.0
    top_k: Annotated[int, Field(ge=1, le=100)] = 10
    similarity_cutoff: Unit = 0.1
    embedding_dimension: Annotated[int, Field(ge=4, le=512)] = 64
    random_seed: Annotated[int, Field(ge=0, le=2**31 - 1)] = 42
    source: Annotated[str, Field(max_length=260)] | None = Field(default=None, description="shortest_path: from")
    target: Annotated[str, Field(max_length=260)] | None = Field(default=None, description="shortest_path: to")


class NodeResult(TypedDict, total=False):
    """What an algorithm gave one node, by its GDS id (mapped to Grimoire's id afterwards: graph/analytics/runs.py)."""

    node_id: Required[int]
    score: float
    community: int
    component: int
    embedding: list[float]
    similar_node_ids: list[int]
    similarities: list[float]
    step: int


Run = Callable[[GraphDataScience, Any, "AlgorithmParams", str | None, dict[str, int]], list[NodeResult]]


@dataclass(frozen=True)
class Spec:
    orientation: Orientation
    result: str      # the column each node row carries: score, community, component, embedding, ...
    run: Run
    used: tuple[str, ...]  # the parameters it reads (recorded with the run)


def _weight(p: AlgorithmParams, weight: str | None) -> str | None:
    return weight if p.weighted else None


def _scores(df: Any) -> list[NodeResult]:
    return [{"node_id": int(n), "score": float(s)} for n, s in zip(df["nodeId"], df["score"], strict=True)]


def _pagerank(
    gds: GraphDataScience, g: Any, p: AlgorithmParams, weight: str | None, _: dict[str, int]
) -> list[NodeResult]:
    return _scores(gds.page_rank.stream(g, damping_factor=p.damping_factor, max_iterations=p.max_iterations,
                                        tolerance=p.tolerance, relationship_weight_property=_weight(p, weight)))


def _betweenness(
    gds: GraphDataScience, g: Any, p: AlgorithmParams, weight: str | None, _: dict[str, int]
) -> list[NodeResult]:
    return _scores(gds.betweenness.stream(g, relationship_weight_property=COST if p.weighted else None))


def _communities(df: Any) -> list[NodeResult]:
    return [{"node_id": int(n), "community": int(c)} for n, c in zip(df["nodeId"], df["communityId"], strict=True)]


def _louvain(
    gds: GraphDataScience, g: Any, p: AlgorithmParams, weight: str | None, _: dict[str, int]
) -> list[NodeResult]:
    return _communities(gds.louvain.stream(g, max_levels=p.max_levels, max_iterations=p.max_iterations,
                                           tolerance=1e-4, relationship_weight_property=_weight(p, weight)))


def _leiden(
    gds: GraphDataScience, g: Any, p: AlgorithmParams, weight: str | None, _: dict[str, int]
) -> list[NodeResult]:
    # One thread: in parallel the seed does not make the result repeatable (the same input gave 38 to 41
    # communities), and the projections are small.
    return _communities(gds.leiden.stream(g, max_levels=p.max_levels, gamma=p.gamma, random_seed=p.random_seed,
                                          relationship_weight_property=_weight(p, weight), concurrency=1))


def _wcc(
    gds: GraphDataScience, g: Any, p: AlgorithmParams, weight: str | None, _: dict[str, int]
) -> list[NodeResult]:
    df = gds.wcc.stream(g)
    return [{"node_id": int(n), "component": int(c)} for n, c in zip(df["nodeId"], df["componentId"], strict=True)]


def _node_similarity(
    gds: GraphDataScience, g: Any, p: AlgorithmParams, weight: str | None, _: dict[str, int]
) -> list[NodeResult]:
    df = gds.node_similarity.stream(g, top_k=p.top_k, similarity_cutoff=p.similarity_cutoff,
                                    relationship_weight_property=_weight(p, weight))
    by_node: dict[int, list[tuple[float, int]]] = {}
    for a, b, s in zip(df["node1"], df["node2"], df["similarity"], strict=True):
        by_node.setdefault(int(a), []).append((float(s), int(b)))
    out: list[NodeResult] = []
    for n, pairs in by_node.items():
        pairs.sort(key=lambda x: (-x[0], x[1]))
        out.append({"node_id": n, "score": pairs[0][0], "similar_node_ids": [b for _, b in pairs],
                    "similarities": [s for s, _ in pairs]})
    return out


def _fastrp(
    gds: GraphDataScience, g: Any, p: AlgorithmParams, weight: str | None, _: dict[str, int]
) -> list[NodeResult]:
    df = gds.fast_rp.stream(g, embedding_dimension=p.embedding_dimension, random_seed=p.random_seed,
                            relationship_weight_property=_weight(p, weight))
    return [{"node_id": int(n), "embedding": [float(x) for x in e]}
            for n, e in zip(df["nodeId"], df["embedding"], strict=True)]


def _shortest_path(gds: GraphDataScience, g: Any, p: AlgorithmParams, weight: str | None,
                   internal: dict[str, int]) -> list[NodeResult]:
    if not p.source or not p.target:
        raise Invalid("shortest_path needs source and target entity ids")
    missing = [x for x in (p.source, p.target) if x not in internal]
    if missing:
        raise NotFound(f"unknown ids: {missing}")
    try:
        df = gds.shortest_path.dijkstra.stream(g, source_node=internal[p.source], target_nodes=internal[p.target],
                                               relationship_weight_property=COST)
    except ClientError as exc:  # an end that exists but has no link in this projection: no path, not a 500
        if "do not exist in the in-memory graph" not in (exc.message or ""):
            raise
        raise NotFound(f"no path from {p.source!r} to {p.target!r}: an end has no link in this graph") from None
    if df.empty:
        return []
    row = df.iloc[0]
    return [{"node_id": int(n), "score": float(c), "step": i}
            for i, (n, c) in enumerate(zip(row["nodeIds"], row["costs"], strict=True))]


SPECS: dict[Algorithm, Spec] = {
    Algorithm.pagerank: Spec(Orientation.natural, "score", _pagerank,
                             ("weighted", "damping_factor", "max_iterations", "tolerance")),
    Algorithm.betweenness: Spec(Orientation.natural, "score", _betweenness, ("weighted",)),
    Algorithm.louvain: Spec(Orientation.undirected, "community", _louvain,
                            ("weighted", "max_levels", "max_iterations")),
    Algorithm.leiden: Spec(Orientation.undirected, "community", _leiden, ("weighted", "max_levels", "gamma",
                                                                          "random_seed")),
    Algorithm.wcc: Spec(Orientation.undirected, "component", _wcc, ()),
    Algorithm.node_similarity: Spec(Orientation.undirected, "score", _node_similarity,
                                    ("weighted", "top_k", "similarity_cutoff")),
    Algorithm.shortest_path: Spec(Orientation.natural, "score", _shortest_path, ("source", "target")),
    Algorithm.fastrp: Spec(Orientation.undirected, "embedding", _fastrp,
                           ("weighted", "embedding_dimension", "random_seed")),
}
