"""GDS projections of the knowledge graph: the DeFi topology as valid at a block, an agent's causal
graph, and the co-mention graph of entities. Each gets a unique name and is dropped when the
analysis is done, or fails."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from graphdatascience import GraphDataScience

from grimoire.graph.db import cypher
from grimoire.graph.errors import Invalid, NotFound
from grimoire.graph.model.enums import REL_TYPES
from grimoire.graph.model.rows import Params, Properties
from grimoire.graph.visibility import (
    EVERYONE,  # what an analysis sees when no key narrows it
    Visibility,
)

PREFIX = "grimoire-"


class GraphKind(StrEnum):
    topology = "topology"    # entities, DEPENDS_ON (facts valid at a block)
    causal = "causal"        # an agent's entries, CAUSES with weights
    comention = "comention"  # entities, CO_MENTIONED (episodes mentioning both)


class Orientation(StrEnum):
    natural = "natural"        # subject -> object, cause -> effect
    undirected = "undirected"  # communities, similarity, embeddings



# The relationship property an algorithm reads as a weight, and the one a path sums as a cost.
WEIGHT = {GraphKind.topology: "confidence", GraphKind.causal: "weight", GraphKind.comention: "weight"}
COST = "cost"


class EmptyProjection(NotFound):
    """Nothing to project: no facts valid at that block, no causal links, no co-mentions."""


@dataclass
class ProjectionSpec:
    kind: GraphKind
    block: int | None = None
    known_at: int | None = None
    agent_id: str | None = None
    max_mentions: int = 10_000
    visibility: Visibility = EVERYONE

    def params(self, orientation: Orientation) -> Params:  # the projection statement's Cypher parameters
        common = {"undirected": ["*"] if orientation == Orientation.undirected else [], **self.visibility.params()}
        if self.kind == GraphKind.topology:
            if self.block is None:
                raise Invalid("the topology is projected at a block: give block")
            return {**common, "block": self.block, "known_at": self.known_at, "types": sorted(REL_TYPES.values())}
        if self.kind == GraphKind.causal:
            if not self.agent_id:
                raise Invalid("a causal graph is an agent's: give agent_id")
            return {**common, "agent_id": self.agent_id}
        return {**common, "agent_id": self.agent_id, "max_mentions": self.max_mentions}

    def describe(self) -> Properties:  # the view's fields of a Run node (answers.py), SET with the rest
        return {"graph": self.kind.value, "block": self.block, "known_at": self.known_at, "agent_id": self.agent_id}


def unique_name(kind: GraphKind) -> str:
    return f"{PREFIX}{kind.value}-{uuid.uuid4().hex[:16]}"


@contextmanager
def projected(gds: GraphDataScience, spec: ProjectionSpec, orientation: Orientation) -> Iterator[Any]:
    """The projection, under a name no other analysis uses, dropped on the way out whatever happens."""
    name = unique_name(spec.kind)
    params = spec.params(orientation)
    graph = None
    try:
        try:
            result = gds.graph.project.cypher(cypher.query(f"analytics/project_{spec.kind.value}"),
                                              graph_name=name, **params)
        except ValueError as exc:  # the client's word for a projection query that matched nothing
            raise EmptyProjection(f"nothing to analyse in the {spec.kind.value} graph for {spec.describe()}") from exc
        graph = result.graph
        yield graph
    finally:
        # Also when projecting failed half-way: the name may exist even if the call raised.
        gds.graph.drop(graph if graph is not None else name, fail_if_missing=False)


def leftover(gds: GraphDataScience) -> list[str]:
    """Projections of ours still in the catalogue (there should be none between analyses)."""
    return [g.graph_name for g in gds.graph.list() if g.graph_name.startswith(PREFIX)]
