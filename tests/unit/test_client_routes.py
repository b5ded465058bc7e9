"""The Python client against the service's routes, without a database: a method for every route of the OpenAPI
spec, the generated file current, and the client's own behaviour (typed errors, 503 retries, paging) over an
httpx transport that answers as the service does."""

from __future__ import annotations

import contextlib
import inspect
import subprocess
import sys
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from grimoire.api import client_gen, client_models
from grimoire.api.app import create_app
from grimoire.api.mcp.routes_index import routes
from grimoire.client import ROUTES, AsyncGrimoire, Conflict, Grimoire, Invalid, NotFound, Unavailable
from grimoire.client.base import fill_path
from grimoire.graph.settings import Settings

COUNTS = {"episodes": 3, "entries": 0, "entries_by_category": {}, "entries_by_status": {}}  # GET /stats

def test_every_route_in_the_openapi_spec_has_a_method() -> None:
    spec = create_app(Settings()).openapi()["paths"]
    served = {f"{m.upper()} {p}" for p, ops in spec.items() for m in ops}
    known = {key.replace(":path}", "}") for key in ROUTES}
    assert served - known == set(), "routes with no client method: run `grimoire client generate --write`"
    for name in ROUTES.values():
        assert inspect.isfunction(getattr(Grimoire, name)), name
        assert inspect.iscoroutinefunction(getattr(AsyncGrimoire, name)), name


def _dummy(p: inspect.Parameter) -> Any:
    """A value for a required parameter: the client sends it as it is (the service would validate it)."""
    return {} if p.name == "body" else "x-1"


def test_every_operation_is_callable_through_the_client() -> None:
    # Each route's generated method is the one Grimoire and AsyncGrimoire answer to (no hand-written method of the
    # same name hides it, as `recall(text, k)` once hid GET /agents/{agent_id}/recall), and calling it sends that
    # route's method to that route's path.
    from grimoire.client.routes import AsyncRoutes, Routes

    spec = create_app(Settings()).openapi()["paths"]
    operations = {f"{m.upper()} {p}" for p, ops in spec.items() for m in ops}
    shadowed = [n for n in ROUTES.values()
                if getattr(Grimoire, n) is not vars(Routes)[n] or getattr(AsyncGrimoire, n) is not vars(AsyncRoutes)[n]]
    assert not shadowed, f"hand-written methods hide generated ones: {shadowed}"
    assert client_gen.hand_written() & set(ROUTES.values()) == set()
    sent: list[tuple[str, str]] = []

    def record(request: httpx.Request) -> httpx.Response:
        sent.append((request.method, request.url.path))
        return httpx.Response(204)

    g = _client(record)
    called: set[str] = set()
    for route, name in ROUTES.items():
        method, template = route.split(" ", 1)
        fn = getattr(g, name)
        required = {p.name: _dummy(p) for p in inspect.signature(fn).parameters.values()
                    if p.default is inspect.Parameter.empty and p.kind is not inspect.Parameter.VAR_KEYWORD}
        with contextlib.suppress(Exception):  # an empty answer need not validate: the request is what is checked
            fn(**required)
        assert sent and sent[-1] == (method, fill_path(template, {k: v for k, v in required.items() if k != "body"})), \
            (route, name, sent[-1:])
        called.add(route.replace(":path}", "}"))
    assert called == operations


def test_the_generator_refuses_a_name_a_hand_written_method_takes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_gen, "CONVENIENCES", (*client_gen.CONVENIENCES, "recall"))
    with pytest.raises(AssertionError, match="recall"):
        client_gen.names()


def test_the_generated_methods_are_current() -> None:
    assert client_gen.TARGET.read_text() == client_gen.source(), "run `grimoire client generate --write`"


def test_the_generated_models_are_the_documents() -> None:
    # The client's models are generated from the OpenAPI document, itself built from the server's models: a field
    # added, renamed or retyped on the server leaves this file stale until regenerated.
    assert client_models.TARGET.read_text() == client_models.source(), "run `grimoire client generate --write`"


def _wire(cls: type[BaseModel]) -> set[str]:
    """The names a model's fields take on the wire (excluded fields never travel)."""
    return {f.serialization_alias or f.alias or name for name, f in cls.model_fields.items() if not f.exclude}


def test_the_client_answers_in_its_own_models_that_mirror_the_servers() -> None:
    # Every model a method names is a generated one, with the server model's fields under the same names.
    from grimoire.client import models
    from grimoire.client.routes import Routes

    imports = client_gen.Imports()
    for info in routes().values():
        for cls in (info.body_model, info.response):
            if isinstance(cls, type) and issubclass(cls, BaseModel):
                mine = getattr(models, imports.model(cls))
                assert _wire(mine) == _wire(cls), cls
    assert "RetrievalResult" in Routes.retrieve_memory.__annotations__["return"]
    assert client_models.short("grimoire__graph__memory__approval__Decision") == "ApprovalDecision"


def test_the_client_imports_nothing_of_the_server() -> None:
    # The client is its own distribution (clients/python) on httpx and pydantic: importing it loads no server module.
    code = ("import sys, grimoire.client, grimoire.client.models, grimoire.client.routes; "
            "print(sorted({'.'.join(m.split('.')[:2]) for m in sys.modules} & {'grimoire.api', 'grimoire.graph', "
            "'grimoire.loaders', 'fastapi', 'neo4j', 'torch'}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def _client(handler: Any, **kw: Any) -> Grimoire:
    return Grimoire(api_key="k", http=httpx.Client(base_url="http://grimoire", transport=httpx.MockTransport(handler)),
                    **kw)


def _problem(status: int, detail: str, **more: Any) -> dict[str, Any]:
    """An error body as the service writes it (api/errors.py): RFC 9457 problem details."""
    return {"type": "about:blank", "title": "t", "status": status, "detail": detail, "instance": "/x",
            "request_id": "r-1", **more}


def test_errors_are_typed_with_the_services_message() -> None:
    field = {"loc": ["body", "k"], "msg": "must be at least 1", "type": "greater_than_equal"}
    answers = {"/entries/x": (404, _problem(404, "not found: x")),
               "/agents/a/core/persona": (409, _problem(409, "the persona block is at version 2, not 1")),
               "/retrieve": (422, _problem(422, "body.k: must be at least 1", errors=[field]))}

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["x-api-key"] == "k"
        status, body = answers[request.url.path]
        return httpx.Response(status, json=body, headers={"content-type": "application/problem+json"})

    g = _client(handler)
    with pytest.raises(NotFound, match="not found: x"):
        g.get_entry("x")
    with pytest.raises(Conflict, match="version 2, not 1") as caught:
        g.rewrite_core_block("a", "persona", {"content": "- x", "expected_version": 1})
    assert caught.value.status == 409
    with pytest.raises(Invalid, match="must be at least 1") as invalid:
        g.retrieve_memory({"text": "q", "k": 0})
    assert invalid.value.errors == [field] and invalid.value.request_id == "r-1"
    assert str(invalid.value) == "422: body.k: must be at least 1"


def test_503_is_retried_with_backoff_then_raised_with_retry_after() -> None:
    calls: list[int] = []

    def flaky(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) < 3:
            return httpx.Response(503, json=_problem(503, "database down"),
                                  headers={"Retry-After": "0"})
        return httpx.Response(200, json=COUNTS)

    assert _client(flaky).memory_stats().episodes == 3 and len(calls) == 3

    def down(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503, json=_problem(503, "database down"), headers={"Retry-After": "0"})

    with pytest.raises(Unavailable) as caught:
        _client(down, retries=2).memory_stats()
    assert caught.value.retry_after == 0.0


def test_429_is_retried_like_503_and_never_sooner_than_retry_after() -> None:
    from grimoire.client import TooManyRequests
    from grimoire.client.base import Settings as ClientSettings

    calls: list[int] = []

    def limited(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) < 2:
            return httpx.Response(429, json=_problem(429, "rate limit spent"), headers={"Retry-After": "0"})
        return httpx.Response(200, json=COUNTS)

    assert _client(limited).memory_stats().episodes == 3 and len(calls) == 2

    def always(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, json=_problem(429, "rate limit spent"), headers={"Retry-After": "0"})

    with pytest.raises(TooManyRequests) as caught:
        _client(always, retries=1).memory_stats()
    assert caught.value.status == 429 and caught.value.retry_after == 0.0
    settings = ClientSettings("http://grimoire", "k", 3, 0.5)
    asked = httpx.Response(429, headers={"Retry-After": "2"})
    assert all(2.0 <= settings.wait(0, asked) <= 2.5 for _ in range(50))


def _record(i: int) -> dict[str, object]:
    """An audit record as GET /audit answers it (graph/audit/trail.py TrailRecord): the client validates it."""
    return {"id": f"e{i}", "at": i, "actor": "k", "agent_id": None, "action": "episode.ingest", "verb": "APPEND",
            "tag": "manual", "trigger": None, "approval": "auto", "target_ids": [], "summary": "", "critical": False,
            "before_versions": None, "after_versions": None, "reverted_by": None, "channel": "rest", "line": ""}


def test_iterate_pages_through_a_list() -> None:
    items = [_record(i) for i in range(7)]
    seen: list[tuple[int, int]] = []

    def pages(request: httpx.Request) -> httpx.Response:
        offset, limit = int(request.url.params["offset"]), int(request.url.params["limit"])
        seen.append((offset, limit))
        return httpx.Response(200, json=[dict(i) for i in items[offset:offset + limit]])

    g = _client(pages)
    ids = [e.id for e in g.iterate(g.list_all_audit, page_size=3)]
    assert ids == [i["id"] for i in items] and seen == [(0, 3), (3, 3), (6, 3)]


def test_every_component_has_a_plain_name() -> None:
    """Two server models of one name get module-path component names (FastAPI's rule), and a client class is then
    renamed whenever an unrelated model of that name comes or goes: every model the document holds has a name of
    its own, so the clients' names are stable."""
    assert [k for k in client_models.schemas() if "__" in k] == []
