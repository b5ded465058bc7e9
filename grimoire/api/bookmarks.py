"""`X-Grimoire-Bookmark`: read your own writes through any replica (graph/db/bookmarks.py).

A request may carry the bookmarks of its caller's earlier writes (the header, repeated or comma-separated): every
database session of the request opens with them, so a read through this replica, or on a cluster secondary, waits
until those writes are applied there. The response carries the bookmark of what the request committed (else the
ones it was given, echoed): send it with the next request, through whichever replica. A malformed value is a 400
before anything runs, and so is one Neo4j refuses to read.

The console keeps the chain per browser in its own cookie (HttpOnly, SameSite=Strict, Path=/console, beside the
session's and apart from it), read when a console request carries no header and set when a console request wrote
and succeeded; a malformed cookie is ignored, a refused one cleared. An in-process call made while serving a
request (the console's gateway, api/mcp/calls.py InProcess) without the header is part of that request's chain:
its writes are the request's. MCP clients keep theirs between tool calls (api/mcp/causal.py)."""

from __future__ import annotations

import json

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from grimoire.api.errors import PROBLEM, problem, problem_body
from grimoire.graph.db.bookmarks import HEADER, BookmarkRefused, Chain, current, parse

NAME = HEADER.lower().encode()
COOKIE = "grimoire_bookmark"
COOKIE_SEPARATOR = "|"  # a cookie's value may not hold the header's commas
CONSOLE = "/console"


def _given(scope: Scope) -> tuple[list[str], str | None]:
    """The header's values and, for a console path, the bookmark cookie's value."""
    headers = scope.get("headers") or []
    values = [v.decode("latin-1") for k, v in headers if k.lower() == NAME]
    if not str(scope.get("path", "")).startswith(CONSOLE):
        return values, None
    cookies = "; ".join(v.decode("latin-1") for k, v in headers if k.lower() == b"cookie")
    return values, cookie_parser(cookies).get(COOKIE) if cookies else None


def _from_cookie(cookie: str | None) -> tuple[str, ...]:
    try:
        return parse(cookie.split(COOKIE_SEPARATOR)) if cookie else ()
    except BookmarkRefused:  # not the service's: ignored (and replaced by the next write's)
        return ()


def _cookie(value: str, secure: bool) -> bytes:
    flags = "; Secure" if secure else ""
    return f"{COOKIE}={value}; Path={CONSOLE}; HttpOnly; SameSite=Strict{flags}".encode()


def _secure(scope: Scope) -> bool:
    forwarded = dict(scope.get("headers") or []).get(b"x-forwarded-proto") == b"https"
    return scope.get("scheme") == "https" or forwarded


async def _refuse(exc: BookmarkRefused, scope: Scope, send: Send) -> None:
    body = json.dumps(problem_body(400, str(exc), scope.get("path"))).encode()
    await send({"type": "http.response.start", "status": 400,
                "headers": [(b"content-type", PROBLEM.encode()), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class CausalChains:
    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        values, cookie = _given(scope)
        try:
            given = parse(values) if values else _from_cookie(cookie)
        except BookmarkRefused as exc:
            await _refuse(exc, scope, send)
            return
        outer = current.get()
        chain = outer if outer is not None and not values else Chain(given)
        token = current.set(chain)

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                added = self._headers(chain, cookie, scope, message["status"])
                message["headers"] = [*message.get("headers", []), *added]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            current.reset(token)

    @staticmethod
    def _headers(chain: Chain, cookie: str | None, scope: Scope, status: int) -> list[tuple[bytes, bytes]]:
        out = []
        if chain.latest and not chain.refused:
            out.append((NAME, ",".join(chain.latest).encode()))
        if not str(scope.get("path", "")).startswith(CONSOLE):
            return out
        if chain.refused and cookie:  # the database could not read the cookie's: cleared
            out.append((b"set-cookie", _cookie("", _secure(scope)) + b"; Max-Age=0"))
        elif status < 400 and chain.wrote and COOKIE_SEPARATOR.join(chain.latest) != cookie:
            out.append((b"set-cookie", _cookie(COOKIE_SEPARATOR.join(chain.latest), _secure(scope))))
        return out


def install(app: FastAPI) -> None:
    """The middleware, and Neo4j's refusal of a bookmark answered 400 (not the 422 of other Invalid input)."""

    async def _refused(request: Request, exc: Exception) -> JSONResponse:
        chain = current.get()
        if chain is not None:
            chain.refused = True
        return problem(400, str(exc), request.url.path)

    app.add_exception_handler(BookmarkRefused, _refused)
    app.add_middleware(CausalChains)
