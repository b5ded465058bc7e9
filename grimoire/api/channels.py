"""The channel a request came by, for its audit records. The service's own in-process calls (api/mcp/calls.py
InProcess: the MCP tools, and the console through api/console/gateway.py) name theirs in the ASGI scope, which
no client can set. `X-Grimoire-Channel: mcp` comes from the stdio MCP server calling a running service over
HTTP (OverHttp), `cli` from the command line's commands (api/cli_remote.py), so that header is honoured for those
two only (never `console`, which only the service names); anything else is REST. The key still says who
acted; the channel only says how."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from grimoire.graph.audit.channel import Channel, current

HEADER = b"x-grimoire-channel"
IN_PROCESS = {Channel.mcp.value: Channel.mcp, Channel.console.value: Channel.console}
OVER_HTTP = {Channel.mcp.value.encode(): Channel.mcp, Channel.cli.value.encode(): Channel.cli}


def channel_of(scope: Scope) -> Channel:
    named = (scope.get("state") or {}).get("channel")
    if isinstance(named, str) and named in IN_PROCESS:
        return IN_PROCESS[named]
    given = dict(scope.get("headers") or []).get(HEADER, b"")
    return OVER_HTTP.get(given, Channel.rest)


class Channels:
    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token = current.set(channel_of(scope))
        try:
            await self.app(scope, receive, send)
        finally:
            current.reset(token)
