"""A request's span (issue 40, part 1): the root of its trace, named for its method and route template (never its
path or query, which may hold ids or text), with the status it answered. Installed only when tracing is on
(graph/tracing.py); the authentication, the retrieval's stages, the embedder and every Cypher statement nest
under it through graph/observe.py."""

from __future__ import annotations

from opentelemetry.trace import SpanKind, Status, StatusCode
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from grimoire.graph import logs, tracing
from grimoire.graph.replica import replica_id

UNMATCHED = "unmatched"  # a path no route answers (a 404), or within a mounted app (/mcp, /console)


def route_of(scope: Scope) -> str:
    """The route template the router matched (`/agents/{agent_id}/keys`), or the mount's path, or UNMATCHED."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    if isinstance(path, str) and path:
        return path
    root = scope.get("root_path") or ""
    return f"{root}/*" if root else UNMATCHED


class TraceRequests:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not tracing.enabled():
            await self.app(scope, receive, send)
            return
        method = scope.get("method", "GET")
        status = 0
        about, token = logs.requested()  # shared with the request log within (api/request_log.py)

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        with tracing.tracer().start_as_current_span(method, kind=SpanKind.SERVER, attributes={
                "http.request.method": method, "grimoire.request_id": logs.request_id.get(),
                "grimoire.replica": replica_id()}, record_exception=False, set_status_on_exception=False) as span:
            error: BaseException | None = None
            try:
                await self.app(scope, receive, send_status)
            except BaseException as exc:
                error = exc
                raise
            finally:
                route = route_of(scope)
                span.update_name(f"{method} {route}")
                span.set_attribute("http.route", route)
                if status:
                    span.set_attribute("http.response.status_code", status)
                if about.agent_id:
                    span.set_attribute("grimoire.agent_id", about.agent_id)
                if token is not None:
                    logs.request.reset(token)
                if error is not None or status >= 500:
                    kind = type(error).__qualname__ if error is not None else str(status)
                    span.set_attribute("error.type", kind)
                    span.set_status(Status(StatusCode.ERROR, kind))
