"""The FastAPI application: start-up (model, connection, schema check) and routes."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from grimoire.api import bookmarks, console, docs, errors, prom
from grimoire.api.admission import AdmissionControl
from grimoire.api.auth import KeyCache
from grimoire.api.channels import Channels
from grimoire.api.foreground import CountRequests
from grimoire.api.limits import BodySizeLimit
from grimoire.api.mcp import server as mcp_server
from grimoire.api.mcp.catalog import Profile
from grimoire.api.request_ids import RequestIds
from grimoire.api.request_log import LogRequests
from grimoire.api.routes import ROUTERS
from grimoire.api.tracing import TraceRequests
from grimoire.graph import logs, tracing
from grimoire.graph.audit import alerts
from grimoire.graph.db.connection import Database, wait_for_database
from grimoire.graph.embeddings import Embedder, get_embedder
from grimoire.graph.foreground import favour_requests
from grimoire.graph.knowledge.mental_models import ensure as seed_mental_models
from grimoire.graph.schema import apply_schema
from grimoire.graph.services import Services, connect
from grimoire.graph.settings import Settings, get_settings

log = logging.getLogger(__name__)

SCHEDULER_STOP_SECONDS = 30.0


def create_app(settings: Settings | None = None, *, db: Database | None = None,
               embedder: Embedder | None = None) -> FastAPI:
    settings = settings or get_settings()
    logs.configure(settings.log_level, settings.log_format)
    tracing.configure(settings.tracing_enabled)  # off unless asked for (OTEL_* variables): then free

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        emb = embedder or get_embedder(settings.embedding_model, settings.embedding_batch_size,
                                       settings.embedding_options())
        database = db or connect(settings)
        try:
            wait_for_database(database, settings.startup_wait_seconds)
            # Refuses to start (SchemaMismatch) when the model's dimension differs from the index's.
            apply_schema(database, emb.dimension, emb.model_name, settings.vector_quantization)
            if settings.seed_mental_models:  # the 13 core mental models, when any is missing (one lookup)
                seed_mental_models(database, emb)
            mismatched = alerts.verify(database)  # 12.5: critical items changed outside the service since
            if mismatched:
                log.warning("%d critical items do not match their checksums: alerts raised", len(mismatched))
        except Exception:
            if db is None:
                database.close()
            raise
        database.slow_ms = settings.slow_query_ms
        log.info("serving on Neo4j at %s (database %s), model %s (%d dimensions)", database.target.uri,
                 database.name, emb.model_name, emb.dimension)
        services = app.state.services = Services.build(settings, database, emb)
        favour_requests(settings.learning.switch_interval_ms)
        app.state.key_cache = KeyCache(settings.key_cache_seconds)
        app.state.prometheus = prom.registry(database)  # GET /metrics/prometheus and the separate port (api/prom.py)
        metrics_port = prom.Port(settings, app.state.prometheus)
        if settings.scheduler_enabled:  # the periodic jobs, on a thread of this process (graph/scheduler.py)
            services.scheduler.start()
        elif settings.episode_enrichment == "lazy":
            log.warning("GRIMOIRE_SCHEDULER is off and episode enrichment is lazy: episodes ingested here stay "
                        "pending until a replica with a scheduler, or POST /episodes/enrichment, runs the job "
                        "(GRIMOIRE_EPISODE_ENRICHMENT=sync enriches them in the ingest)")
        try:
            if settings.mcp_enabled:  # /mcp and /mcp/full: their session managers live as long as the app
                async with mcp_server.serving(app, Profile(settings.mcp_profile)):
                    yield
            else:
                yield
        finally:
            metrics_port.close()
            services.scheduler.stop(SCHEDULER_STOP_SECONDS)  # the running job finishes before the driver closes
            services.curator.close()
            if db is None:
                database.close()

    app = docs.offline_app(  # /docs and /redoc with their assets served here, not from a CDN
        title="Grimoire",
        version="0.1.0",
        summary="A Neo4j-native memory and knowledge service for autonomous agents.",
        lifespan=lifespan,
        # A JSON body without a Content-Type is read as JSON: keys travel in headers, never in cookies, so a
        # cross-site form cannot use this to act for anyone.
        strict_content_type=False,
    )
    errors.install(app)
    for router in ROUTERS:
        app.include_router(router)
    mcp_server.mount(app)  # /mcp, /mcp/full (api/mcp/)
    console.mount(app, settings)  # /console: the pages a person reads and acts in (api/console/)
    app.add_middleware(AdmissionControl, settings=settings)  # a bounded, fair share of this replica, or 503/429
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(Channels)  # rest or mcp: each audit record notes it (graph/audit/channel.py)
    app.add_middleware(CountRequests)  # background work (the Curator) waits for the requests it counts
    bookmarks.install(app)  # X-Grimoire-Bookmark: a read through any replica sees the caller's writes
    app.add_middleware(prom.PrometheusMetrics)  # every request counted and timed, refusals too (api/prom.py)
    # its line once the request ends, under the request's span (its trace id in it)
    app.add_middleware(LogRequests, level=logging.INFO if settings.log_format == "json" else logging.DEBUG)
    if tracing.enabled():
        app.add_middleware(TraceRequests)  # the request's span, the root of its trace (api/tracing.py)
    app.add_middleware(RequestIds)  # outermost: the id is set before anything else logs
    return app
