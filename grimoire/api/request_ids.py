"""A request id for every request: the client's `X-Request-ID` when it is a plain token, else a new
one; set for the request's logs (graph/logs.py) and returned in the response's `X-Request-ID`, beside
`X-Grimoire-Replica`: which of the service's processes answered."""

from __future__ import annotations

import re
import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from grimoire.graph.logs import request_id
from grimoire.graph.replica import replica_id

HEADER = b"x-request-id"
REPLICA = b"x-grimoire-replica"  # which replica answered (graph/replica.py)
_PLAIN = re.compile(rb"^[A-Za-z0-9._\-]{1,64}$")


class RequestIds:
    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(HEADER, b"")
        rid = given.decode() if _PLAIN.match(given) else uuid.uuid4().hex
        token = request_id.set(rid)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (HEADER, rid.encode()),
                                      (REPLICA, replica_id().encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            request_id.reset(token)
