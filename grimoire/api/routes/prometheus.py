"""The Prometheus exposition on the API's port, for the admin only (issue 40, section 2): operator data (request
rates, the scheduler's jobs and lease holders, index states), no agent's. Its meters and their names: graph/meters.py
and graph/prometheus_state.py; the separate unauthenticated port: api/prom.py. Not `/metrics`, which is an agent's
cognitive metrics (routes/metrics.py)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import PlainTextResponse
from prometheus_client.exposition import choose_encoder

from grimoire.api.auth import Admin
from grimoire.api.deps import get_services
from grimoire.graph.errors import NotFound

router = APIRouter(tags=["metrics"])


@router.get("/metrics/prometheus", response_class=PlainTextResponse,
            responses={404: {"description": "the endpoint is off (GRIMOIRE_PROMETHEUS=false)"}},
            summary="The service's Prometheus metrics: requests, admission, Neo4j's pool, the embedder, the "
                    "scheduler, vector indexes, last runs (admin; text exposition format)")
def prometheus(request: Request, who: Admin) -> Response:
    if not get_services(request).settings.prometheus_enabled:
        raise NotFound("the Prometheus endpoint is off (GRIMOIRE_PROMETHEUS=false)")
    # The scraper's Accept header picks the format (Prometheus' text format, or OpenMetrics when it asks for it).
    encode, content_type = choose_encoder(request.headers.get("accept", ""))
    return Response(encode(request.app.state.prometheus), media_type=content_type)
