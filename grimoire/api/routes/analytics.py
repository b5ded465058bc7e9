"""Graph analytics over REST: GDS algorithms on the topology at a block, an agent's causal graph or
the co-mention graph; runs written and compared over time; the failure cascade."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query
from pydantic import Field, model_validator

from grimoire.api.auth import Reader
from grimoire.api.deps import DbDep
from grimoire.api.schemas.analytics import Analysis, Cascade, Run, WrittenRun
from grimoire.graph.agents import Principal
from grimoire.graph.analytics import runs
from grimoire.graph.analytics.algorithms import Algorithm, AlgorithmParams
from grimoire.graph.analytics.cascade import MAX_HOPS, cascade
from grimoire.graph.analytics.projections import GraphKind, Orientation, ProjectionSpec
from grimoire.graph.errors import Invalid, NotFound
from grimoire.graph.model.common import MAX_INT, AgentId, StrictModel
from grimoire.graph.model.enums import KeyScope
from grimoire.graph.topology.model import Block, EntityId

router = APIRouter(tags=["analytics"])


class AnalysisIn(StrictModel):
    graph: GraphKind = GraphKind.topology
    block: Block | None = Field(default=None, description="topology: the block its facts are valid at")
    known_at: Annotated[int, Field(ge=0, le=MAX_INT)] | None = Field(
        default=None, description="topology: as believed then (ms)")
    agent_id: AgentId | None = Field(default=None, description="causal: whose graph; comention: whose episodes")
    max_mentions: Annotated[int, Field(ge=1, le=10**9)] = Field(
        default=10_000, description="comention: entities mentioned more often are hubs and left out")
    orientation: Orientation | None = Field(default=None, description="default: the algorithm's own")
    params: AlgorithmParams = Field(default_factory=AlgorithmParams)
    write: bool = Field(default=False, description="keep the run and its results in the graph")
    limit: Annotated[int, Field(ge=1, le=10_000)] = 100

    @model_validator(mode="after")
    def _graph(self) -> AnalysisIn:
        if self.graph == GraphKind.topology and self.block is None:
            raise ValueError("the topology is analysed as valid at a block: give block")
        if self.graph == GraphKind.causal and not self.agent_id:
            raise ValueError("a causal graph is an agent's: give agent_id")
        return self


class CascadeIn(StrictModel):
    entity: EntityId
    block: Block
    hops: Annotated[int, Field(ge=1, le=MAX_HOPS)] = 3
    limit: Annotated[int, Field(ge=1, le=10_000)] = 100


def _projection(body: AnalysisIn, who: Principal) -> ProjectionSpec:
    return ProjectionSpec(body.graph, block=body.block, known_at=body.known_at, agent_id=body.agent_id,
                          max_mentions=body.max_mentions, visibility=who.visibility())


@router.post("/analytics/cascade", response_model=Cascade,
             summary="What fails with an entity at a block: dependants ranked by "
                     "distance and systemic importance; markets and positions")
def failure_cascade(body: CascadeIn, db: DbDep, who: Reader) -> Cascade:
    # An unknown or invisible entity is EntityNotFound: the same 404 (api/errors.py).
    return cascade(db, body.entity, body.block, hops=body.hops, visibility=who.visibility(), actor=who.key_id,
                   limit=body.limit)


@router.post("/analytics/{algorithm}", response_model=Analysis, response_model_exclude_unset=True,
             summary="Run a GDS algorithm on a projection (dropped afterwards); "
                     "write=true keeps the run and its results")
def analyse(algorithm: Algorithm, body: AnalysisIn, db: DbDep, who: Reader) -> Analysis:
    if body.write and not who.may(KeyScope.write):
        raise HTTPException(403, "writing a run needs the write scope")
    if body.orientation == Orientation.natural and algorithm == Algorithm.leiden:
        raise Invalid("leiden runs on an undirected graph only")
    # Nothing to project (EmptyProjection) or unknown path ends: 404s; shortest_path without its ends: a 422.
    return runs.run(db, runs.Analysis(algorithm, _projection(body, who), body.params, body.orientation,
                                      body.write, body.limit), actor=who.key_id, owner=who.agent_id)


@router.get("/analytics/runs", response_model=list[Run], response_model_exclude_unset=True,
            summary="Written analysis runs, newest first")
def list_runs(db: DbDep, who: Reader, algorithm: Annotated[Algorithm | None, Query()] = None,
              graph: Annotated[GraphKind | None, Query()] = None,
              limit: Annotated[int, Query(ge=1, le=1_000)] = 50) -> list[Run]:
    return runs.runs(db, algorithm, graph and graph.value, limit, visibility=who.visibility())


@router.get("/analytics/runs/{run_id}", response_model=WrittenRun, response_model_exclude_unset=True,
            summary="A written run with its results")
def get_run(run_id: Annotated[str, Path(max_length=100)], db: DbDep, who: Reader,
            limit: Annotated[int, Query(ge=1, le=10_000)] = 100) -> WrittenRun:
    found = runs.get_run(db, run_id, limit, visibility=who.visibility())
    if found is None:
        raise NotFound(f"no analysis run {run_id!r}")
    return found

