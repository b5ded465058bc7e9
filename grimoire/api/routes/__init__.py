"""The service's routes, one module per subsystem. ROUTERS is the app's list (api/app.py includes them in
this order), also read by the MCP tools (api/mcp/routes_index.py) and the client's check."""

from fastapi import APIRouter

from grimoire.api.routes import (
    agents,
    analytics,
    audit,
    bounties,
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
    limits,
    memory,
    mental_models,
    metrics,
    prometheus,
    proposals,
    retrieve,
    scheduler,
    search,
    skills,
    topology,
    workspace,
)

ROUTERS: tuple[APIRouter, ...] = (
    health.router, episodes.router, entries.router, search.router, agents.router, topology.router, causal.router,
    retrieve.router, memory.router, workspace.router, audit.router, proposals.router, analytics.router,
    mental_models.router, hooks.router, metrics.router, events.router, scheduler.router, learning.router,
    context.router, crystals.router, hormones.router, skills.router, limits.router, prometheus.router,
    bounties.router,
)
