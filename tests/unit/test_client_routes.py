"""The Python client against the service's routes, without a database: a method for every route of the OpenAPI
spec, the generated file current, and the client's own behaviour (typed errors, 503 retries, paging) over an
httpx transport that answers as the service does."""

from __future__ import annotations

import inspect
from typing import Any

import httpx
import pytest

from api import client_gen
from api.app import create_app
from graph.settings import Settings
from grimoire.client import ROUTES, AsyncGrimoire, Conflict, Grimoire, Invalid, NotFound, Unavailable


def test_every_route_in_the_openapi_spec_has_a_method() -> None:
    spec = create_app(Settings()).openapi()["paths"]
    served = {f"{m.upper()} {p}" for p, ops in spec.items() for m in ops}
    known = {key.replace(":path}", "}") for key in ROUTES}
    assert served - known == set(), "routes with no client method: run `grimoire client generate --write`"
    for name in ROUTES.values():
        assert inspect.isfunction(getattr(Grimoire, name)), name
        assert inspect.iscoroutinefunction(getattr(AsyncGrimoire, name)), name


def test_the_generated_methods_are_current() -> None:
    assert client_gen.TARGET.read_text() == client_gen.source(), "run `grimoire client generate --write`"


def _client(handler: Any, **kw: Any) -> Grimoire:
    return Grimoire(api_key="k", http=httpx.Client(base_url="http://grimoire", transport=httpx.MockTransport(handler)),
                    **kw)


def test_errors_are_typed_with_the_services_message() -> None:
    answers = {"/entries/x": (404, {"detail": "not found: x"}),
               "/agents/a/core/persona": (409, {"detail": "the persona block is at version 2, not 1"}),
               "/retrieve": (422, {"message": "body.k: must be at least 1", "detail": []})}

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["x-api-key"] == "k"
        status, body = answers[request.url.path]
        return httpx.Response(status, json=body)

    g = _client(handler)
    with pytest.raises(NotFound, match="not found: x"):
        g.get_entry("x")
    with pytest.raises(Conflict, match="version 2, not 1") as caught:
        g.rewrite_core_block("a", "persona", {"content": "- x", "expected_version": 1})
    assert caught.value.status == 409
    with pytest.raises(Invalid, match="must be at least 1"):
        g.retrieve_memory({"text": "q", "k": 0})


def test_503_is_retried_with_backoff_then_raised_with_retry_after() -> None:
    calls: list[int] = []

    def flaky(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) < 3:
            return httpx.Response(503, json={"status": "unavailable", "detail": "database down"},
                                  headers={"Retry-After": "0"})
        return httpx.Response(200, json={"episodes": 3})

    assert _client(flaky).memory_stats() == {"episodes": 3} and len(calls) == 3

    def down(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503, json={"detail": "database down"}, headers={"Retry-After": "0"})

    with pytest.raises(Unavailable) as caught:
        _client(down, retries=2).memory_stats()
    assert caught.value.retry_after == 0.0


def test_iterate_pages_through_a_list() -> None:
    items = [{"id": f"e{i}"} for i in range(7)]
    seen: list[tuple[int, int]] = []

    def pages(request: httpx.Request) -> httpx.Response:
        offset, limit = int(request.url.params["offset"]), int(request.url.params["limit"])
        seen.append((offset, limit))
        return httpx.Response(200, json=[dict(i) for i in items[offset:offset + limit]])

    g = _client(pages)
    ids = [e["id"] for e in g.iterate(g.list_all_audit, page_size=3)]
    assert ids == [i["id"] for i in items] and seen == [(0, 3), (3, 3), (6, 3)]
