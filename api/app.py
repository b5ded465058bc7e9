"""The FastAPI application: start-up (model, connection, schema check) and routes."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from api import docs, errors
from api.auth import KeyCache
from api.foreground import CountRequests
from api.limits import BodySizeLimit
from api.request_ids import RequestIds
from api.routes import (
    agents,
    analytics,
    audit,
    causal,
    context,
    crystals,
    entries,
    episodes,
    events,
    health,
    hooks,
    hormones,
    learning,
    memory,
    mental_models,
    metrics,
    proposals,
    retrieve,
    scheduler,
    search,
    skills,
    topology,
    workspace,
)
from graph import logs
from graph.audit import alerts
from graph.db.connection import Database, wait_for_database
from graph.embeddings import Embedder, get_embedder
from graph.foreground import favour_requests
from graph.knowledge.mental_models import ensure as seed_mental_models
from graph.schema import apply_schema
from graph.services import Services, connect
from graph.settings import Settings, get_settings

log = logging.getLogger(__name__)

SCHEDULER_STOP_SECONDS = 30.0


def create_app(settings: Settings | None = None, *, db: Database | None = None,
               embedder: Embedder | None = None) -> FastAPI:
    settings = settings or get_settings()
    logs.configure(settings.log_level)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        emb = embedder or get_embedder(settings.embedding_model, settings.embedding_batch_size)
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
        if settings.scheduler_enabled:  # the periodic jobs, on a thread of this process (graph/scheduler.py)
            services.scheduler.start()
        try:
            yield
        finally:
            services.scheduler.stop(SCHEDULER_STOP_SECONDS)  # the running job finishes before the driver closes
            services.curator.close()
            if db is None:
                database.close()

    app = docs.offline_app(  # /docs and /redoc with their assets served here, not from a CDN
        title="Grimoire",
        version="0.1.0",
        summary="A Neo4j-native memory and knowledge service for autonomous agents.",
        lifespan=lifespan,
    )
    errors.install(app)
    app.include_router(health.router)
    app.include_router(episodes.router)
    app.include_router(entries.router)
    app.include_router(search.router)
    app.include_router(agents.router)
    app.include_router(topology.router)
    app.include_router(causal.router)
    app.include_router(retrieve.router)
    app.include_router(memory.router)
    app.include_router(workspace.router)
    app.include_router(audit.router)
    app.include_router(proposals.router)
    app.include_router(analytics.router)
    app.include_router(mental_models.router)
    app.include_router(hooks.router)
    app.include_router(metrics.router)
    app.include_router(events.router)
    app.include_router(scheduler.router)
    app.include_router(learning.router)
    app.include_router(context.router)
    app.include_router(crystals.router)
    app.include_router(hormones.router)
    app.include_router(skills.router)
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(CountRequests)  # background work (the Curator) waits for the requests it counts
    app.add_middleware(RequestIds)  # outermost: the id is set before anything else logs
    return app
