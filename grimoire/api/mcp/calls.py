"""A tool's call is a request to its route, with the caller's key: made in-process against the running app
(InProcess, a plain ASGI call: no socket, no second server) or, for a stdio server pointed at a running
service, over HTTP (OverHttp). Either way the request carries `X-Grimoire-Channel: mcp`, which the audit
records note (graph/audit/channel.py)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import unquote, urlencode

import anyio
import httpx
from starlette.types import ASGIApp, Message

from grimoire.api.auth import CARRIED
from grimoire.api.errors import PROBLEM, problem_body
from grimoire.client.base import RETRIED
from grimoire.client.base import Settings as RetrySettings
from grimoire.graph.agents import Principal

log = logging.getLogger(__name__)

CHANNEL_HEADER = "x-grimoire-channel"
CHANNEL = "mcp"
BOOKMARK_HEADER = "x-grimoire-bookmark"  # sent and read as the typed client does (api/bookmarks.py)


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    content_type: str
    retry_after: str | None = None
    bookmark: str | None = None  # X-Grimoire-Bookmark: what the call committed (api/bookmarks.py)

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    @property
    def message(self) -> str:
        """The route's own message for a failure: its problem details' `detail` (api/errors.py)."""
        try:
            data = self.json()
        except ValueError:
            return self.body.decode(errors="replace")[:500]
        if isinstance(data, dict):
            found = data.get("detail")
            return found if isinstance(found, str) else json.dumps(data)
        return str(data)


class RouteError(Exception):
    """A route answered 4xx or 5xx: the tool's error says the status and the route's message."""

    def __init__(self, reply: Reply):
        self.reply = reply
        hint = f" (retry after {reply.retry_after} s)" if reply.retry_after else ""
        super().__init__(f"{reply.status}: {reply.message}{hint}")


class Routes(Protocol):
    async def call(self, key: str, method: str, path: str, query: list[tuple[str, str]] | None = None,
                   body: Any = None, bookmark: str | None = None) -> Reply:
        """`path` is percent-encoded (api/mcp/tools.py fill)."""
        ...


def _headers(key: str, body: bytes | None, channel: str, bookmark: str | None) -> list[tuple[bytes, bytes]]:
    headers = [(b"host", b"grimoire.mcp"), (b"accept", b"application/json"),
               (CHANNEL_HEADER.encode(), channel.encode())]
    if bookmark:
        headers.append((BOOKMARK_HEADER.encode(), bookmark.encode()))
    if key:
        headers.append((b"authorization", b"Bearer " + key.encode()))
    if body is not None:
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    return headers


class InProcess:
    """The app's routes called as ASGI: the whole middleware stack and the route, as a socket request gets.
    The console (api/console/gateway.py) calls them this way too, as channel `console`, with no key: it carries
    its session's principal in the scope's state instead (api/auth.py CARRIED)."""

    def __init__(self, app: ASGIApp, channel: str = CHANNEL, principal: Principal | None = None):
        self.app = app
        self.channel = channel
        self.state: dict[str, Any] = {"channel": channel}
        if principal is not None:
            self.state[CARRIED] = principal

    async def call(self, key: str, method: str, path: str, query: list[tuple[str, str]] | None = None,
                   body: Any = None, bookmark: str | None = None) -> Reply:
        payload = None if body is None else json.dumps(body, separators=(",", ":")).encode()
        scope = {
            "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
            "method": method, "scheme": "http", "path": unquote(path), "raw_path": path.encode(), "root_path": "",
            "query_string": urlencode(query or []).encode(), "headers": _headers(key, payload, self.channel, bookmark),
            "client": ("127.0.0.1", 0), "server": ("grimoire.mcp", 80), "state": dict(self.state),
        }
        done = anyio.Event()
        sent_request = False
        status = 500
        content_type = ""
        retry_after: str | None = None
        committed: str | None = None
        chunks: list[bytes] = []

        async def receive() -> Message:
            nonlocal sent_request
            if not sent_request:
                sent_request = True
                return {"type": "http.request", "body": payload or b"", "more_body": False}
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            nonlocal status, content_type, retry_after, committed
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = {k.lower(): v for k, v in message.get("headers", [])}
                content_type = headers.get(b"content-type", b"").decode()
                found = headers.get(b"retry-after")
                retry_after = found.decode() if found else None
                chained = headers.get(BOOKMARK_HEADER.encode())
                committed = chained.decode() if chained else None
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    done.set()

        try:
            await self.app(scope, receive, send)
        except Exception:  # the app answered 500 already (ServerErrorMiddleware) and re-raised: keep its answer
            log.exception("%s %s failed", method, path)
            if not chunks:
                body = json.dumps(problem_body(500, "internal error: the service failed on this request", path))
                return Reply(500, body.encode(), PROBLEM)
        finally:
            done.set()
        return Reply(status, b"".join(chunks), content_type, retry_after, committed)


class OverHttp:
    """A running service's routes over HTTP (a stdio server for a desktop client, the service elsewhere). A 429 or
    503 (nothing ran) is retried as the typed client retries it, never sooner than its Retry-After
    (grimoire/client/base.py); the last one becomes the tool's error, which says when to retry."""

    def __init__(self, base_url: str, timeout: float = 120.0, retries: int = 3):
        self.client = httpx.AsyncClient(base_url=base_url.rstrip("/"), timeout=timeout)
        self.retrying = RetrySettings(base_url, None, retries, 0.5)

    async def call(self, key: str, method: str, path: str, query: list[tuple[str, str]] | None = None,
                   body: Any = None, bookmark: str | None = None) -> Reply:
        headers = {"authorization": f"Bearer {key}", "accept": "application/json", CHANNEL_HEADER: CHANNEL,
                   **({BOOKMARK_HEADER: bookmark} if bookmark else {})}
        for attempt in range(self.retrying.retries + 1):
            r = await self.client.request(method, path, params=query or None, json=body, headers=headers)
            if r.status_code not in RETRIED or attempt == self.retrying.retries:
                break
            await anyio.sleep(self.retrying.wait(attempt, r))
        return Reply(r.status_code, r.content, r.headers.get("content-type", ""), r.headers.get("retry-after"),
                     r.headers.get(BOOKMARK_HEADER))

    async def aclose(self) -> None:
        await self.client.aclose()
