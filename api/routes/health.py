from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from api.deps import DbDep, EmbedderDep
from api.errors import unavailable
from graph.db.connection import UNAVAILABLE_ERRORS, DatabaseUnavailable
from graph.health import server_info

router = APIRouter(tags=["health"])


class Neo4jInfo(BaseModel):
    version: str | None
    edition: str | None
    uri: str
    database: str


class IndexInfo(BaseModel):
    name: str
    type: str
    state: str
    population_percent: float


class EmbeddingInfo(BaseModel):
    model: str
    dimension: int


class Health(BaseModel):
    status: str
    neo4j: Neo4jInfo
    gds_version: str | None
    apoc_version: str | None
    indexes: list[IndexInfo]
    embedding: EmbeddingInfo


class Unavailable(BaseModel):
    status: str
    detail: str


@router.get(
    "/health",
    response_model=Health,
    responses={503: {"model": Unavailable, "description": "Neo4j is unreachable"}},
    summary="Versions of Neo4j, GDS and APOC, index states and the embedding model",
)
def health(db: DbDep, embedder: EmbedderDep) -> Health | JSONResponse:
    try:
        info = server_info(db)
    except (DatabaseUnavailable, *UNAVAILABLE_ERRORS) as exc:
        return unavailable(f"Neo4j at {db.target.uri} is unreachable: {exc}")
    return Health(
        status="ok",
        embedding=EmbeddingInfo(model=embedder.model_name, dimension=embedder.dimension),
        **info,
    )
