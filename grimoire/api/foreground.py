"""Counts the requests the service is serving (graph/foreground.py), so background work waits for
them. Requests that are background work themselves (a cycle asked for over REST) or last as long as a
client listens (the event stream, an MCP session's stream) are not counted. An MCP tool's own request to its
route is counted like any other."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

NOT_COUNTED = {("POST", "/curator/cycles"), ("GET", "/events/stream"), ("GET", "/health")}


class CountRequests:
    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        services = getattr(scope["app"].state, "services", None) if scope["type"] == "http" else None
        path = scope.get("path") or ""
        if services is None or (scope.get("method"), path) in NOT_COUNTED or path in ("/mcp", "/mcp/full"):
            await self.app(scope, receive, send)
            return
        with services.foreground.serving():
            await self.app(scope, receive, send)
