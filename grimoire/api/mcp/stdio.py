"""`grimoire mcp`: the MCP server over stdio, for desktop agent clients that start it themselves.

The key comes from GRIMOIRE_API_KEY and is checked once at start (GET /agents/me). With GRIMOIRE_URL (or --url)
the tools call that running service over HTTP; without, this process runs the service in-process on the
configured Neo4j (NEO4J_URI, or the project's local server), with its scheduler off: the service proper runs
the periodic work. Anything the start-up prints goes to stderr: stdout is the protocol's."""

from __future__ import annotations

import os
import sys
from contextlib import AsyncExitStack, redirect_stdout

from grimoire.api.mcp.calls import InProcess, OverHttp, Reply, Routes
from grimoire.api.mcp.catalog import Profile
from grimoire.api.mcp.keys import KEY_ENV, Caller
from grimoire.api.mcp.server import GrimoireMCP
from grimoire.graph.db.connection import Database
from grimoire.graph.settings import Settings


class KeyRefused(SystemExit):
    pass


async def serve(settings: Settings, profile: Profile, key: str | None = None, url: str | None = None) -> None:
    key = key or os.environ.get("GRIMOIRE_API_KEY")
    if not key:
        raise KeyRefused(f"grimoire mcp: set {KEY_ENV} to the agent's API key")
    url = url or os.environ.get("GRIMOIRE_URL")
    async with AsyncExitStack() as stack:
        routes: Routes
        db: Database | None = None
        if url:
            remote = OverHttp(url)
            stack.push_async_callback(remote.aclose)
            routes = remote
        else:
            from grimoire.api.app import create_app
            from grimoire.graph.services import local_server

            with redirect_stdout(sys.stderr):
                if settings.uses_local_server:
                    local_server(settings).start()
                app = create_app(settings.model_copy(update={"scheduler_enabled": False, "mcp_enabled": False}))
                await stack.enter_async_context(app.router.lifespan_context(app))
            routes = InProcess(app)
            db = app.state.services.db
        me: Reply = await routes.call(key, "GET", "/agents/me")
        if me.status != 200:
            raise KeyRefused(f"grimoire mcp: the key is refused ({me.status}: {me.message})")
        server = GrimoireMCP(profile, routes, fixed=Caller.from_me(key, me.json()), db=db)
        print(f"grimoire mcp: serving {profile.value} tools over stdio as key {me.json()['key_id']}", file=sys.stderr)
        await server.run_stdio_async()
