"""Every request but /health acts as a principal named by its API key.

The key goes in `X-API-Key: <key>` or `Authorization: Bearer <key>`. The environment's admin
key (GRIMOIRE_ADMIN_KEY) bootstraps the first agents. Verified keys are cached for a few
seconds; revoking through this process drops the cache entry at once.

The console's in-process calls (api/console/gateway.py) carry no key: the console keeps none. They carry the
principal its session acts as, read from the database for this console request (graph/console_sessions.py),
in the ASGI scope's state (CARRIED), which only a call made inside the process can set: no header, cookie or
query a network client sends reaches it.
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, HTTPException, Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from grimoire.api.deps import get_services
from grimoire.graph import agents, logs, observe
from grimoire.graph.agents import Principal
from grimoire.graph.model.enums import KeyScope
from grimoire.graph.services import Services
from grimoire.graph.timed import Timed

api_key_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="an agent's or the admin's API key")
bearer = HTTPBearer(auto_error=False, description="the same key as a bearer token")


class KeyCache(Timed[str, Principal | None]):
    """Raw keys' principals, each for `seconds` (settings.key_cache_seconds); a key revoked or an agent's trust
    changed through this replica drops its entries at once, through another within `seconds`."""

    def drop_agent(self, agent_id: str) -> None:
        """Every cached key of the agent (its trust level changed: the keys' principals carry it)."""
        self.drop(lambda _, principal: principal is not None and principal.agent_id == agent_id)

    def drop_key(self, key_id: str) -> None:
        self.drop(lambda _, principal: principal is not None and principal.key_id == key_id)


def resolve(services: Services, cache: KeyCache, raw: str) -> Principal | None:
    """The principal a raw key names, or None: the admin key, a cached key, or one looked up and cached.
    MCP's token verifier (api/mcp/keys.py) calls this; REST's `principal` (below) and the admission's check take the
    same steps (`looked_up`), so a key means the same everywhere."""
    with observe.span("auth", "api_key"):  # a span in a trace (graph/tracing.py): the key never goes in it
        return looked_up(services, cache, raw)


def looked_up(services: Services, cache: KeyCache, raw: str) -> Principal | None:
    """`resolve` without its span: for the admission's check ahead of the route's (api/admission.py), which caches
    what it reads; the route's `principal` is then the request's one `auth/api_key` span."""
    found, who = _known(services, cache, raw)
    return who if found else _read(services, cache, raw)


def _read(services: Services, cache: KeyCache, raw: str) -> Principal | None:
    """The key read from the database (unless another caller has just cached it), and cached: within the caller's
    span (a miss is one span, its statement a child of it)."""
    return cache.get_or_load(raw, lambda: agents.authenticate(services.db, raw), _kept)


def _kept(found: Principal | None) -> float | None:
    return None if found is not None else 0.0  # an unknown or revoked key is not held


def _known(services: Services, cache: KeyCache, raw: str) -> tuple[bool, Principal | None]:
    """The principal without a database read, if it is known: the admin's, or one the cache holds (a key in use is
    read again ahead of its expiry, off the request's path: graph/timed.py)."""
    admin_key: str | None = services.settings.admin_key
    if admin_key and hmac.compare_digest(raw.encode(), admin_key.encode()):
        return True, agents.admin_principal()
    return cache.cached(raw, lambda: agents.authenticate(services.db, raw), _kept)


def _noted(request: Request, who: Principal) -> Principal:
    """The principal, noted for the request's log records (graph/logs.py): the agent it acts for, the route."""
    about = logs.request.get()
    if about is not None:
        about.agent_id = who.agent_id or ("admin" if who.is_admin else None)
        route = getattr(request.scope.get("route"), "path", None)
        about.route = route if isinstance(route, str) else about.route
    return who


CARRIED = "grimoire.principal"
"""The key in the ASGI scope's state under which an in-process call carries its principal."""


def carried(request: Request) -> Principal | None:
    """The principal an in-process call carries in its ASGI scope (never anything a client sent)."""
    found = (request.scope.get("state") or {}).get(CARRIED)
    return found if isinstance(found, Principal) else None


async def principal(
    request: Request,
    x_api_key: Annotated[str | None, Security(api_key_header)] = None,
    authorization: Annotated[HTTPAuthorizationCredentials | None, Security(bearer)] = None,
) -> Principal:
    # On the event loop (FastAPI runs a plain `def` dependency on a worker thread, a hop there and back on every
    # request: issue 41); only a key the cache does not hold is looked up on a worker thread.
    inside = carried(request)
    if inside is not None:
        return _noted(request, inside)
    raw = x_api_key or (authorization.credentials if authorization else None)
    if not raw:
        raise HTTPException(401, "an API key is required: send it as X-API-Key or Authorization: Bearer",
                            headers={"WWW-Authenticate": "Bearer"})
    services, cache = get_services(request), request.app.state.key_cache
    with observe.span("auth", "api_key"):  # the request's one span (the admission's lookup opens none), a miss within
        known, found = _known(services, cache, raw)
        if not known:
            found = await run_in_threadpool(_read, services, cache, raw)
    if found is None:
        raise HTTPException(401, "unknown or revoked API key", headers={"WWW-Authenticate": "Bearer"})
    return _noted(request, found)


def requires(scope: KeyScope):
    async def check(who: Annotated[Principal, Depends(principal)]) -> Principal:  # on the loop: no hop
        if not who.may(scope):
            hint = (" (a propose-only key may not write to the stores; its writes become proposals for "
                    "its main agent)") if KeyScope.propose in who.scopes and scope == KeyScope.write else ""
            raise HTTPException(403, f"this key lacks the {scope.value!r} scope{hint}")
        return who

    return check


def requires_any(*scopes: KeyScope):
    """One of the scopes: a person's key edits the core memory of the agent it runs, as the agent's own key may."""
    async def check(who: Annotated[Principal, Depends(principal)]) -> Principal:
        if not any(who.may(scope) for scope in scopes):
            raise HTTPException(403, f"this key lacks the {' or '.join(repr(s.value) for s in scopes)} scope")
        return who

    return check


Reader = Annotated[Principal, Depends(requires(KeyScope.read))]
Writer = Annotated[Principal, Depends(requires(KeyScope.write))]
WriterOrPerson = Annotated[Principal, Depends(requires_any(KeyScope.write, KeyScope.person))]
Admin = Annotated[Principal, Depends(requires(KeyScope.admin))]
Proposer = Annotated[Principal, Depends(requires_any(KeyScope.propose, KeyScope.write))]
"""A sub-agent proposing to its main agent: a propose-only key (what a sub-agent is given) or one that writes."""
