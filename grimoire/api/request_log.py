"""One record per request (issue 40, part 3): its method, route template, status, duration and the agent it acted
for, logged as it ends (`grimoire.api.requests`, INFO as JSON lines, where it stands for uvicorn's access line;
DEBUG as text, beside uvicorn's). The route template and never the path: a path or a query may hold text. Every
record logged during the request carries its agent and route (graph/logs.py, `Request`)."""

from __future__ import annotations

import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from grimoire.api.tracing import route_of
from grimoire.graph import logs, observe

log = logging.getLogger("grimoire.api.requests")


class LogRequests:
    def __init__(self, app: ASGIApp, *, level: int = logging.INFO) -> None:
        self.app = app
        self.level = level

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        about, token = logs.requested()
        started = observe.now()
        status = 500  # unless the app answers: an error that escapes it is answered 500 by Starlette

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                about.route = route_of(scope)
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            about.route = route_of(scope)
            ms = round((observe.now() - started) * 1000, 2)
            method = scope.get("method", "")
            if log.isEnabledFor(self.level):
                log.log(self.level, "%s %s %d in %.1f ms", method, about.route, status, ms,
                        extra={"method": method, "status": status, "duration_ms": ms})
            if token is not None:
                logs.request.reset(token)
