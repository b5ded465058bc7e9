"""The console reads and acts through the service's own routes, as the signed-in key, in-process (the same
ASGI call the MCP tools make, api/mcp/calls.py InProcess): the same visibility, validation, audit record and
error message as REST, by construction. Its audit records say channel `console`. The console keeps no key: each
call carries the principal the session acts as, read from the database for this request (api/auth.py CARRIED)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar
from urllib.parse import quote

from starlette.types import ASGIApp

from grimoire.api.console.errors import Refused
from grimoire.api.mcp.calls import InProcess, Reply
from grimoire.client.base import query_pairs
from grimoire.graph.agents import Principal
from grimoire.graph.audit.channel import Channel

T = TypeVar("T")


def refused(reply: Reply) -> Refused:
    return Refused(reply.status, reply.message, retry_after=reply.retry_after)


def path(template: str, *parts: str) -> str:
    """A route's path with its parameters percent-encoded. The route sees its path decoded, as from a socket, so
    an id with a `/` would reach another route: no item, episode or agent id holds one."""
    for p in parts:
        if "/" in p or p in ("", ".", ".."):
            raise Refused(404, f"no such id: {p!r}")
    return template.format(*(quote(p, safe="") for p in parts))


Query = dict[str, Any] | None  # None values left out, lists repeated: the client's encoding (query_pairs)


class Gateway:
    def __init__(self, app: ASGIApp, principal: Principal):
        self.routes = InProcess(app, channel=Channel.console.value, principal=principal)

    async def call(self, method: str, route: str, query: Query = None, body: Any = None) -> Reply:
        return await self.routes.call("", method, route, query_pairs(query or {}), body)  # no key: the principal

    async def json(self, method: str, route: str, query: Query = None, body: Any = None) -> Any:
        reply = await self.call(method, route, query, body)
        if reply.status >= 400:
            raise refused(reply)
        return reply.json()

    async def get(self, route: str, query: Query = None) -> Any:
        return await self.json("GET", route, query)

    async def text(self, route: str, query: Query = None) -> str:
        reply = await self.call("GET", route, query)
        if reply.status >= 400:
            raise refused(reply)
        return reply.body.decode()

    async def maybe(self, route: str, query: Query = None, *, missing: Any = None) -> Any:
        """A read whose 404 is an answer (no pending reflection, an empty graph), not a failure."""
        reply = await self.call("GET", route, query)
        if reply.status == 404:
            return missing
        if reply.status >= 400:
            raise refused(reply)
        return reply.json() if "json" in reply.content_type else reply.body.decode()

    async def post(self, route: str, body: Any = None, query: Query = None) -> Any:
        return await self.json("POST", route, query, {} if body is None else body)

    async def put(self, route: str, body: Any) -> Any:
        return await self.json("PUT", route, None, body)


async def together(*reads: Awaitable[T]) -> list[T]:
    """A page's reads at once (each a route call in the thread pool), the first failure raised."""
    return list(await asyncio.gather(*reads))
