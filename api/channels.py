"""The channel a request came by, for its audit records: `X-Grimoire-Channel: mcp` on the requests the MCP
tools make (api/mcp/calls.py), `console` on the console's (api/console/gateway.py),
REST otherwise. The key still says who acted; the channel only says how."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from graph.audit.channel import Channel, current

HEADER = b"x-grimoire-channel"
# Only the service's own callers name a channel; a client sending another value is REST like any other.
SET_BY_HEADER = {Channel.mcp.value: Channel.mcp, Channel.console.value: Channel.console}


class Channels:
    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(HEADER, b"").decode(errors="replace")
        token = current.set(SET_BY_HEADER.get(given, Channel.rest))
        try:
            await self.app(scope, receive, send)
        finally:
            current.reset(token)
