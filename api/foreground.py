"""Counts the requests the service is serving (graph/foreground.py), so background work waits for
them. Requests that are background work themselves (a cycle asked for over REST) or last as long as a
client listens (the event stream) are not counted."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

NOT_COUNTED = {("POST", "/curator/cycles"), ("GET", "/events/stream"), ("GET", "/health")}


class CountRequests:
    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        services = getattr(scope["app"].state, "services", None) if scope["type"] == "http" else None
        if services is None or (scope.get("method"), scope.get("path")) in NOT_COUNTED:
            await self.app(scope, receive, send)
            return
        with services.foreground.serving():
            await self.app(scope, receive, send)
