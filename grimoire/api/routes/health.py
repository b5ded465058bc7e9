from __future__ import annotations

from fastapi import APIRouter, Request

from grimoire.api.deps import DbDep, EmbedderDep, get_services
from grimoire.api.schemas import health as schemas
from grimoire.api.schemas.health import EmbeddingInfo, Health
from grimoire.graph.db.connection import UNAVAILABLE_ERRORS, DatabaseUnavailable
from grimoire.graph.errors import Unavailable
from grimoire.graph.health import degraded, server_info
from grimoire.graph.replica import replica_id

router = APIRouter(tags=["health"])


@router.get(
    "/health",
    response_model=Health,
    responses={503: {"model": schemas.Unavailable, "description": "Neo4j is unreachable"}},
    summary="Versions of Neo4j, GDS and APOC, index states and the embedding model",
)
def health(request: Request, db: DbDep, embedder: EmbedderDep) -> Health:
    try:
        info = server_info(db)
    except (DatabaseUnavailable, *UNAVAILABLE_ERRORS) as exc:  # a 503 (api/errors.py), saying where it looked
        raise Unavailable(f"Neo4j at {db.target.uri} is unreachable: {exc}") from exc
    services = get_services(request)
    reasons = degraded(info.indexes, db.rebuilding, services.scheduler.jobs(),
                       services.settings.scheduler_enabled, services.scheduler.running)
    return Health(
        status="degraded" if reasons else "ok",
        replica=replica_id(),
        degraded=reasons,
        embedding=EmbeddingInfo(model=embedder.model_name, dimension=embedder.dimension),
        neo4j=info.neo4j, gds_version=info.gds_version, apoc_version=info.apoc_version, indexes=info.indexes,
    )
