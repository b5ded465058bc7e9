"""An MCP client reads its own writes through any replica: the bookmark a tool call's route returned
(X-Grimoire-Bookmark, api/bookmarks.py) is kept and sent with the client's next calls, so a `remember` then a
`recall` see each other also when the calls reach different replicas (a stdio server over HTTP behind a load
balancer) or a cluster's secondaries. It is kept per MCP session where the transport has one (a handshake-era
HTTP session's id) and per API key within it; a stateless exchange (protocol 2026-07-28, where each request stands
alone) has no session, so there the key's chain is the client's. A bookmark the MCP client sent on its own HTTP
request is sent too."""

from __future__ import annotations

import threading
from collections import OrderedDict
from contextvars import ContextVar
from typing import Any

from mcp.server.mcpserver import Context

from grimoire.api.mcp.calls import Reply, Routes
from grimoire.graph.db.bookmarks import current, parse

KEPT = 10_000  # chains kept at most (the least recently used dropped first: its next read waits for nothing)
_session_id: ContextVar[str | None] = ContextVar("grimoire_mcp_session", default=None)


def enter(ctx: Context) -> None:
    """At the start of a tool call (api/mcp/tools.py caller_of): the MCP session its route calls belong to."""
    try:
        session = ctx.session
    except (LookupError, ValueError, AttributeError):  # outside a request: no session to chain in
        return
    # The SDK builds a ServerSession per request over the client's connection, which has the session's id.
    _session_id.set(getattr(getattr(session, "_connection", None), "session_id", None))


def _joined(*values: str | None) -> str | None:
    return ",".join(parse(v for v in values if v)) or None


class Causal:
    """Routes (calls.py) that carry each MCP client's bookmark from one call's answer to its next call."""

    def __init__(self, routes: Routes):
        self.routes = routes
        self._kept: OrderedDict[tuple[str | None, str], str] = OrderedDict()
        self._lock = threading.Lock()

    async def call(self, key: str, method: str, path: str, query: list[tuple[str, str]] | None = None,
                   body: Any = None, bookmark: str | None = None) -> Reply:
        slot = (_session_id.get(), key)
        chain = current.get()  # the MCP client's own HTTP request, when it sent a bookmark
        given = ",".join(chain.given) if chain is not None else None
        reply = await self.routes.call(key, method, path, query, body,
                                       bookmark=_joined(bookmark, self.kept(slot), given))
        if reply.bookmark:
            with self._lock:
                self._kept[slot] = reply.bookmark
                self._kept.move_to_end(slot)
                while len(self._kept) > KEPT:
                    self._kept.popitem(last=False)
        return reply

    def kept(self, slot: tuple[str | None, str]) -> str | None:
        """The bookmark a session's (or key's) next call sends."""
        with self._lock:
            return self._kept.get(slot)
