"""The MCP server: GrimoireMCP (the SDK's MCPServer with the catalog's tools, the resources and the prompts),
served over streamable HTTP inside the service — /mcp with the configured profile (the default one unless set),
/mcp/full with every tool — and over stdio by `grimoire mcp` (stdio.py).

The HTTP endpoints are built when the app starts (its lifespan runs their session managers) and authenticate
with the SDK's bearer middleware and KeyVerifier; `X-API-Key` is taken as the bearer too, as REST takes it."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import anyio
from fastapi import FastAPI
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from neo4j.exceptions import DatabaseUnavailable as Neo4jDatabaseUnavailable
from neo4j.exceptions import ServiceUnavailable, SessionExpired
from starlette.types import ASGIApp, Receive, Scope, Send

from grimoire.api import errors
from grimoire.api.mcp import prompts, resources
from grimoire.api.mcp.calls import InProcess, Routes
from grimoire.api.mcp.catalog import Profile, tools
from grimoire.api.mcp.causal import Causal
from grimoire.api.mcp.keys import Caller, KeyVerifier, bearer_caller
from grimoire.api.mcp.tools import built
from grimoire.graph.db.connection import Database
from grimoire.graph.errors import Unavailable

log = logging.getLogger(__name__)

PATHS = {"/mcp": None, "/mcp/full": Profile.full}  # None: the configured profile (GRIMOIRE_MCP_PROFILE)
INSTRUCTIONS = (
    "Grimoire is this agent's long-term memory and knowledge graph. Start with `whoami` and the resource "
    "grimoire://memory; call `assemble_context` or `retrieve_memory` before decisions; record what happens with "
    "`record_episodes` and what you learn with `add_entries`; feed outcomes back with `give_feedback`. Every tool "
    "acts as this connection's API key and sees only what that key may see.")


class GrimoireMCP(MCPServer[Any]):
    """MCPServer with the route caller (`routes`) and, for stdio, the one key it serves (`fixed`)."""

    def __init__(self, profile: Profile, routes: Routes, *, fixed: Caller | None = None, db: Database | None = None,
                 **kwargs: Any):
        super().__init__(name="grimoire", title="Grimoire", version="0.1.0", instructions=INSTRUCTIONS,
                         tools=[built()[spec.name] for spec in tools(profile)], **kwargs)
        self.profile = profile
        self.routes = Causal(routes)  # each MCP session's bookmark carried between its calls (causal.py)
        self.fixed = fixed
        self.db = db
        resources.register(self)
        prompts.register(self)

    async def caller(self) -> Caller:
        found = bearer_caller() or self.fixed
        if found is None:
            raise ToolError("no API key: send it as Authorization: Bearer (HTTP) or set GRIMOIRE_API_KEY (stdio)")
        return found

    async def gds_progress(self) -> list[tuple[str, float]]:
        """The running GDS tasks and how far along each is (gds.listProgress); none without a database."""
        if self.db is None:
            return []
        db = self.db
        rows = await anyio.to_thread.run_sync(lambda: db.rows("analytics/progress"))
        out = []
        for row in rows:
            text = str(row.get("progress") or "").rstrip("%")
            try:
                out.append((str(row["task"]), float(text) / 100))
            except ValueError:
                continue
        return out


class _Gate:
    """Before the SDK's bearer middleware: `X-API-Key: k` read as `Authorization: Bearer k` (REST takes either),
    and the key looked up here first, so the database being down is a 503 with Retry-After, as on REST, rather
    than an error inside the SDK's middleware (its 500). The verifier then finds the key in the cache."""

    def __init__(self, app: ASGIApp, verifier: KeyVerifier):
        self.app, self.verifier = app, verifier

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = list(scope.get("headers") or [])
            names = {k.lower() for k, _ in headers}
            key = next((v for k, v in headers if k.lower() == b"x-api-key"), None)
            if key and b"authorization" not in names:
                scope = {**scope, "headers": [*headers, (b"authorization", b"Bearer " + key)]}
            bearer = next((v for k, v in scope["headers"] if k.lower() == b"authorization"), b"")
            if bearer.lower().startswith(b"bearer "):
                try:
                    await self.verifier.verify_token(bearer[7:].decode(errors="replace"))
                except (ServiceUnavailable, SessionExpired, Neo4jDatabaseUnavailable, Unavailable) as exc:
                    log.warning("503 for MCP: %s", exc)
                    refusal = errors.unavailable(f"the database is unavailable: {exc}", scope.get("path"))
                    await refusal(scope, receive, send)
                    return
        await self.app(scope, receive, send)


class Endpoint:
    """The route /mcp (or /mcp/full) has in the app; the MCP app behind it exists while the app runs."""

    def __init__(self, path: str):
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        apps: dict[str, ASGIApp] | None = getattr(scope["app"].state, "mcp_apps", None)
        if not apps or self.path not in apps:
            await errors.unavailable("MCP is not serving (starting or turned off)", self.path)(scope, receive, send)
            return
        await apps[self.path](scope, receive, send)


def mount(app: FastAPI) -> None:
    for path in PATHS:
        app.add_route(path, Endpoint(path), include_in_schema=False)


@asynccontextmanager
async def serving(app: FastAPI, configured: Profile) -> AsyncIterator[None]:
    """Inside the app's lifespan: builds the MCP apps and runs their session managers until the app stops."""
    services = app.state.services
    verifier = KeyVerifier(services, app.state.key_cache)
    # The SDK's bearer check with our verifier; there is no OAuth server here (keys are issued by the admin), so
    # no metadata routes, and the issuer the settings require names nothing a client is sent to.
    auth = AuthSettings(issuer_url="http://localhost", resource_server_url=None)  # type: ignore[arg-type]
    # Every request needs an API key, so a rebinding page gets nothing without one: the Host check is off.
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    async with AsyncExitStack() as stack:
        apps: dict[str, ASGIApp] = {}
        for path, profile in PATHS.items():
            server = GrimoireMCP(profile or configured, InProcess(app), db=services.db, auth=auth,
                                 token_verifier=verifier)
            http = server.streamable_http_app(streamable_http_path=path, transport_security=security)
            await stack.enter_async_context(server.session_manager.run())
            apps[path] = _Gate(http, verifier)
        app.state.mcp_apps = apps
        try:
            yield
        finally:
            app.state.mcp_apps = {}
