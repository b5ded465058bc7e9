"""An agent's limits per key (issue 37, section 5): set by the admin, kept on the Agent node with the change
audited, read by the agent itself or the admin. The admission middleware (api/admission.py) reads them with the
key (the key cache): this replica applies a change at once, the others within GRIMOIRE_KEY_CACHE_SECONDS. They
are per replica: N replicas admit N times as much."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from grimoire.api.admission import KeyLimits
from grimoire.api.auth import Admin, KeyCache, Reader
from grimoire.api.deps import DbDep, get_services
from grimoire.api.routes.agents import require_self_or_admin
from grimoire.api.schemas.limits import LimitsOut
from grimoire.graph import agents
from grimoire.graph.agents import LimitsIn, UnknownAgent

router = APIRouter(tags=["agents and keys"])


def _described(request: Request, agent_id: str, stored: dict[str, Any]) -> dict[str, Any]:
    own = agents.limits_of(stored)
    settings = get_services(request).settings
    applied = KeyLimits(settings.key_concurrency, settings.key_rate_per_s, settings.key_burst).resolved(own)
    return {"agent_id": agent_id, "concurrency": own.concurrency, "rate_per_s": own.rate_per_s, "burst": own.burst,
            "effective_concurrency": applied.concurrency, "effective_rate_per_s": applied.rate_per_s,
            "effective_burst": applied.burst if applied.rate_per_s else 0}


@router.get("/agents/{agent_id}/limits", response_model=LimitsOut,
            summary="An agent's limits per key on each replica: its own and what applies (the agent or an admin)")
def get_limits(agent_id: str, request: Request, db: DbDep, who: Reader) -> dict[str, Any]:
    require_self_or_admin(who, agent_id)
    found = agents.get(db, agent_id)
    if found is None:
        raise UnknownAgent(f"no agent {agent_id!r}")
    return _described(request, agent_id, found.model_dump())


@router.put("/agents/{agent_id}/limits", response_model=LimitsOut,
            summary="Set an agent's limits per key on each replica (admin): concurrency and rate, 429 above; "
                    "a null one takes the service's setting")
def set_limits(agent_id: str, body: LimitsIn, request: Request, db: DbDep, who: Admin) -> dict[str, Any]:
    agents.set_limits(db, agent_id, body, actor=who.key_id)  # UnknownAgent: a 404
    cache: KeyCache = request.app.state.key_cache
    cache.drop_agent(agent_id)  # its keys' principals carry the limits: this replica applies them at once
    return _described(request, agent_id, {agents.LIMIT_PROPERTIES[k]: v for k, v in body.model_dump().items()})
