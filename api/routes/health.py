from __future__ import annotations

from fastapi import APIRouter

from api.deps import DbDep, EmbedderDep
from api.schemas import health as schemas
from api.schemas.health import EmbeddingInfo, Health
from graph.db.connection import UNAVAILABLE_ERRORS, DatabaseUnavailable
from graph.errors import Unavailable
from graph.health import server_info

router = APIRouter(tags=["health"])


@router.get(
    "/health",
    response_model=Health,
    responses={503: {"model": schemas.Unavailable, "description": "Neo4j is unreachable"}},
    summary="Versions of Neo4j, GDS and APOC, index states and the embedding model",
)
def health(db: DbDep, embedder: EmbedderDep) -> Health:
    try:
        info = server_info(db)
    except (DatabaseUnavailable, *UNAVAILABLE_ERRORS) as exc:  # a 503 (api/errors.py), saying where it looked
        raise Unavailable(f"Neo4j at {db.target.uri} is unreachable: {exc}") from exc
    return Health(
        status="ok",
        embedding=EmbeddingInfo(model=embedder.model_name, dimension=embedder.dimension),
        **info,
    )
