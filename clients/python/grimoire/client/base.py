"""The requests under every method: the key, the path filled in, the query and body as JSON, the answer read
into the route's own model; 429s and 503s retried with backoff (never sooner than Retry-After: nothing ran), other
failures raised as the typed errors in errors.py. A request that failed on the wire is sent again when it never
reached the service, or when running it twice changes nothing (`resend`): a replica killed mid-request costs the
caller a retry, not an error. Sync (httpx.Client) and async (httpx.AsyncClient) share all of it but the sending."""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import datetime
from enum import Enum
from functools import lru_cache
from typing import Any
from urllib.parse import quote

import httpx
from pydantic import BaseModel, TypeAdapter

from grimoire.client.errors import error_for

DEFAULT_URL = "http://127.0.0.1:8000"
# The hand-written methods of Grimoire and AsyncGrimoire (grimoire/client/__init__.py): no route's generated method
# may take one of these names, nor a name of the bases below (api/client_gen.py checks), so none is hidden.
CONVENIENCES = ("remember", "learn", "recall_text")
BOOKMARK = "X-Grimoire-Bookmark"  # read your writes through any replica (README "Read your own writes")
MAX_BOOKMARKS = 16  # as many as the service takes in one request
RETRIED = (429, 503)  # the service ran nothing: over the key's limit, at capacity, or the database unavailable
# A connection that broke after the request went out (a replica killed mid-request): the request may have run, so
# it is sent again only where running it twice changes nothing: reads, and writes keyed by the caller's ids.
# (A PUT writes a new revision each time, a DELETE answers 404 the second time: neither is sent again.)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SAFE_POSTS = frozenset({"/retrieve", "/search", "/admission/dry-run", "/analytics/cascade", "/topology/k-hop",
                        "/topology/curiosity", "/agents/{agent_id}/forget/preview",
                        "/agents/{agent_id}/context/policy/resolve"})
KEYED_POSTS = frozenset({"/episodes", "/episodes/batch"})  # stored once per id: repeatable when every item has one


def _keyed(template: str, body: Any) -> bool:
    if template not in KEYED_POSTS or not isinstance(body, dict):
        return False
    items = body.get("episodes") if template == "/episodes/batch" else [body]
    return isinstance(items, list) and bool(items) and all(isinstance(i, dict) and i.get("id") for i in items)


@lru_cache(maxsize=512)
def _adapter(kind: Any) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


def _wire(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def fill_path(template: str, values: dict[str, Any]) -> str:
    """A route's path with its parameters percent-encoded; a `{name:path}` one keeps its slashes."""
    for name, value in values.items():
        safe = "/" if f"{{{name}:path}}" in template else ""
        template = template.replace(f"{{{name}:path}}", quote(str(value), safe=safe)).replace(
            f"{{{name}}}", quote(str(value), safe=""))
    return template


def query_pairs(values: dict[str, Any]) -> list[tuple[str, str]]:
    """Query parameters as the routes parse them: None left out, a list repeated, bools, enums, times spelled."""
    return [(name, _wire(one)) for name, value in values.items() if value is not None
            for one in (value if isinstance(value, list | tuple | set) else [value])]


def _seconds(retry_after: str | None) -> float | None:
    """Retry-After in seconds (the service sends seconds; an HTTP date is read as none given)."""
    try:
        return float(retry_after) if retry_after else None
    except ValueError:
        return None


class Request:
    """One route call, as the generated methods describe it."""

    def __init__(self, method: str, template: str, path: dict[str, Any], query: dict[str, Any], body: Any,
                 returns: Any, content_type: str | None = None):
        self.method, self.url, self.returns = method, fill_path(template, path), returns
        self.params = query_pairs(query)
        self.content: bytes | None = None
        self.json: Any = None
        if isinstance(body, BaseModel):
            self.json = body.model_dump(mode="json", by_alias=True, exclude_unset=True)
        elif isinstance(body, str | bytes) and content_type:
            self.content = body.encode() if isinstance(body, str) else body
        elif body is not None:  # a dict may hold datetimes, enums or models: made JSON as pydantic would
            self.json = _adapter(Any).dump_python(body, mode="json", by_alias=True)
        self.headers = {"content-type": content_type} if content_type and self.content is not None else {}
        self.repeatable = method in SAFE_METHODS or (method == "POST" and (
            template in SAFE_POSTS or _keyed(template, self.json)))

    def read(self, response: httpx.Response) -> Any:
        if response.status_code >= 400:
            try:
                body: Any = response.json()
            except ValueError:
                body = response.text
            raise error_for(response.status_code, body, _seconds(response.headers.get("retry-after")))
        if self.returns is bytes:
            return response.content
        if self.returns is str:
            return response.text
        if self.returns is None:
            return response.json() if response.content else None
        return _adapter(self.returns).validate_python(response.json())


class Settings:
    def __init__(self, url: str | None, api_key: str | None, retries: int, backoff: float, *,
                 causal: bool = True, bookmark: str | None = None):
        self.url = (url or os.environ.get("GRIMOIRE_URL") or DEFAULT_URL).rstrip("/")
        self.api_key = api_key or os.environ.get("GRIMOIRE_API_KEY")
        self.retries, self.backoff = retries, backoff
        self.causal = causal
        self.bookmarks: tuple[str, ...] = _split(bookmark)

    def headers(self, bookmarks: tuple[str, ...] = ()) -> dict[str, str]:
        found = {"X-API-Key": self.api_key} if self.api_key else {}
        if bookmarks:
            found[BOOKMARK] = ",".join(bookmarks)
        return found

    def sending(self) -> tuple[str, ...]:
        """The bookmarks the next request carries: none when the client is not causal."""
        return self.bookmarks if self.causal else ()

    def note(self, sent: tuple[str, ...], response: httpx.Response) -> None:
        """A response's bookmarks follow the ones its request carried: they replace those, and sit beside ones
        from answers to concurrent requests (as the driver's bookmark manager keeps its own)."""
        got = _split(response.headers.get(BOOKMARK)) if self.causal else ()
        if got:
            kept = tuple(b for b in self.bookmarks if b not in sent and b not in got)
            self.bookmarks = (*kept, *got)[-MAX_BOOKMARKS:]

    def wait(self, attempt: int, response: httpx.Response) -> float:
        after = _seconds(response.headers.get("retry-after"))
        if after is not None:  # honoured: never sooner, up to a quarter later (a fleet does not retry in step)
            return min(after, 30.0) * (1 + random.random() / 4)
        return self.backoff_for(attempt)

    def backoff_for(self, attempt: int) -> float:
        return min(self.backoff * 2 ** attempt, 30.0) * (0.5 + random.random() / 2)


def resend(r: Request, exc: httpx.TransportError) -> bool:
    """Whether a request that failed on the wire goes out again: always when it never reached the service (no
    connection), else only when running it twice changes nothing (`Request.repeatable`)."""
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout):
        return True
    return r.repeatable and isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError)


def _split(value: str | None) -> tuple[str, ...]:
    return tuple(dict.fromkeys(b.strip() for b in value.split(",") if b.strip())) if value else ()


class Causal:
    """The newest bookmark this client received (a response's X-Grimoire-Bookmark), sent with each request so that
    a read through any replica sees this client's writes; `causal=False` sends none. Another client continues the
    chain when given it: `Grimoire(url_b, key, bookmark=a.bookmark)` or `b.bookmark = a.bookmark`."""

    _settings: Settings

    @property
    def bookmark(self) -> str | None:
        return ",".join(self._settings.bookmarks) or None

    @bookmark.setter
    def bookmark(self, value: str | None) -> None:
        self._settings.bookmarks = _split(value)


class SyncBase(Causal):
    """Sends a Request with httpx.Client: `http` is yours to pass (a TestClient, a proxy), else one is made.
    A 429 or 503 is retried (the service answers them when nothing ran: over the key's limit, at capacity, or the
    database unavailable)."""

    def __init__(self, url: str | None = None, api_key: str | None = None, *, http: httpx.Client | None = None,
                 timeout: float = 60.0, retries: int = 3, backoff: float = 0.5, causal: bool = True,
                 bookmark: str | None = None):
        self._settings = Settings(url, api_key, retries, backoff, causal=causal, bookmark=bookmark)
        self._owns = http is None
        self._http = http or httpx.Client(base_url=self._settings.url, timeout=timeout)

    def _send(self, r: Request) -> Any:
        for attempt in range(self._settings.retries + 1):
            sent = self._settings.sending()
            try:
                response = self._http.request(r.method, r.url, params=r.params or None, json=r.json,
                                              content=r.content, headers={**self._settings.headers(sent), **r.headers})
            except httpx.TransportError as exc:
                if not resend(r, exc) or attempt == self._settings.retries:
                    raise
                time.sleep(self._settings.backoff_for(attempt))
                continue
            self._settings.note(sent, response)
            if response.status_code not in RETRIED or attempt == self._settings.retries:
                return r.read(response)
            time.sleep(self._settings.wait(attempt, response))
        raise AssertionError("unreachable")

    def iterate(self, method: Callable[..., list[Any]], *args: Any, page_size: int = 100,
                **kwargs: Any) -> Iterator[Any]:
        """Every item of a paged list (a method taking offset and limit), page by page; others in one call."""
        if "offset" not in getattr(method, "__paged__", ()):
            yield from method(*args, **kwargs)
            return
        offset = kwargs.pop("offset", 0)
        while True:
            page = method(*args, offset=offset, limit=page_size, **kwargs)
            yield from page
            if len(page) < page_size:
                return
            offset += len(page)

    def close(self) -> None:
        if self._owns:
            self._http.close()

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()


class AsyncBase(Causal):
    """Sends a Request with httpx.AsyncClient."""

    def __init__(self, url: str | None = None, api_key: str | None = None, *,
                 http: httpx.AsyncClient | None = None, timeout: float = 60.0, retries: int = 3, backoff: float = 0.5,
                 causal: bool = True, bookmark: str | None = None):
        self._settings = Settings(url, api_key, retries, backoff, causal=causal, bookmark=bookmark)
        self._owns = http is None
        self._http = http or httpx.AsyncClient(base_url=self._settings.url, timeout=timeout)

    async def _send(self, r: Request) -> Any:
        for attempt in range(self._settings.retries + 1):
            sent = self._settings.sending()
            headers = {**self._settings.headers(sent), **r.headers}
            try:
                response = await self._http.request(r.method, r.url, params=r.params or None, json=r.json,
                                                    content=r.content, headers=headers)
            except httpx.TransportError as exc:
                if not resend(r, exc) or attempt == self._settings.retries:
                    raise
                await asyncio.sleep(self._settings.backoff_for(attempt))
                continue
            self._settings.note(sent, response)
            if response.status_code not in RETRIED or attempt == self._settings.retries:
                return r.read(response)
            await asyncio.sleep(self._settings.wait(attempt, response))
        raise AssertionError("unreachable")

    async def iterate(self, method: Callable[..., Any], *args: Any, page_size: int = 100,
                      **kwargs: Any) -> AsyncIterator[Any]:
        if "offset" not in getattr(method, "__paged__", ()):
            for item in await method(*args, **kwargs):
                yield item
            return
        offset = kwargs.pop("offset", 0)
        while True:
            page = await method(*args, offset=offset, limit=page_size, **kwargs)
            for item in page:
                yield item
            if len(page) < page_size:
                return
            offset += len(page)

    async def aclose(self) -> None:
        if self._owns:
            await self._http.aclose()

    async def __aenter__(self) -> Any:
        return self

    async def __aexit__(self, *_: Any) -> None:
        await self.aclose()
