"""Errors: every domain error is of one of four kinds (graph/errors.py), each kind is one HTTP status
(api/errors.py), and anything else raised in a route is a 500, never a client's 4xx."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import re
import time
from datetime import datetime

import pytest
from fastapi import APIRouter
from fastapi.datastructures import DefaultPlaceholder
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from grimoire import graph
from grimoire.graph.errors import Conflict, GrimoireError, Invalid, NotFound, Unavailable

KINDS: dict[type[GrimoireError], int] = {NotFound: 404, Invalid: 422, Conflict: 409, Unavailable: 503}
# The routers whose every endpoint declares what it answers (a response model, or a response class).
TYPED_ROUTERS = {"agents", "entries", "episodes", "causal", "topology", "analytics", "health"}


def domain_errors() -> list[type[GrimoireError]]:
    """Every GrimoireError subclass defined in graph/, found by importing every module of the package."""
    for module in pkgutil.walk_packages(graph.__path__, prefix="grimoire.graph."):
        importlib.import_module(module.name)
    found: set[type[GrimoireError]] = set()
    todo = [GrimoireError]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return sorted((c for c in found if c.__module__.startswith("grimoire.graph.") and c not in KINDS),
                  key=lambda c: f"{c.__module__}.{c.__qualname__}")


ERRORS = domain_errors()


def kinds_of(cls: type[GrimoireError]) -> list[type[GrimoireError]]:
    return [kind for kind in KINDS if issubclass(cls, kind)]


def test_the_domain_errors_are_found() -> None:
    names = {c.__name__ for c in ERRORS}
    assert {"EntryNotFound", "EntityNotFound", "FactNotFound", "LinkNotFound", "UnknownAgent", "EmptyProjection",
            "InvalidVector", "InvalidReference", "DuplicateIds", "BadExport", "AgentExists",
            "DatabaseUnavailable", "IndexOffline", "SchemaMismatch"} <= names, names


@pytest.mark.parametrize("cls", ERRORS, ids=lambda c: c.__name__)
def test_every_domain_error_is_of_exactly_one_kind(cls: type[GrimoireError]) -> None:
    assert len(kinds_of(cls)) == 1, f"{cls.__module__}.{cls.__name__} is of kinds {kinds_of(cls)}"


def _raising(exc: BaseException):
    def endpoint() -> None:
        raise exc

    return endpoint


@pytest.fixture
def probe(api) -> TestClient:
    """The API with routes that raise what they are asked to; server errors answer 500 instead of
    being raised into the test."""
    router = APIRouter()
    for cls in [*KINDS, *ERRORS]:
        router.add_api_route(f"/probe/{cls.__name__}", _raising(cls("the probe's message")))
    router.add_api_route("/probe/ValueError", _raising(ValueError("a bug, not the client's mistake")))
    router.add_api_route("/probe/LookupError", _raising(LookupError("a bug too")))
    app = api.client.app
    app.include_router(router)
    return TestClient(app, raise_server_exceptions=False)


PROBLEM = "application/problem+json"
TITLES = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
          409: "Conflict", 413: "Content Too Large", 422: "Unprocessable Content", 500: "Internal Server Error",
          503: "Service Unavailable"}


def problem(r, status: int, detail: str | None = None) -> dict:
    """The response is RFC 9457 problem details with this status (and detail): the one error shape."""
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == PROBLEM, r.headers
    body = r.json()
    assert body["type"] == "about:blank" and body["status"] == status, body
    assert body["title"] in (TITLES[status], "Payload Too Large", "Request Entity Too Large",
                             "Unprocessable Entity"), body
    assert isinstance(body["detail"], str) and body["detail"], body
    assert body["instance"] == r.request.url.path, body
    if detail is not None:
        assert body["detail"] == detail, body
    assert set(body) <= {"type", "title", "status", "detail", "instance", "request_id", "errors"}, body
    return body


def test_each_kind_has_its_status_and_body(probe: TestClient) -> None:
    for kind, status in KINDS.items():
        r = probe.get(f"/probe/{kind.__name__}", headers={"X-Request-ID": f"probe-{status}"})
        body = problem(r, status, "the probe's message")
        assert body["request_id"] == f"probe-{status}" == r.headers["X-Request-ID"]
        assert "errors" not in body
        if kind is Unavailable:
            assert r.headers["Retry-After"] == "5"
        else:
            assert "Retry-After" not in r.headers


# Errors answered with a status of their own rather than their kind's: a bookmark Neo4j cannot read is a bad
# request header (400), not an unprocessable body (api/bookmarks.py).
OWN_STATUS = {"BookmarkRefused": 400}


def test_every_domain_error_answers_its_kinds_status(probe: TestClient) -> None:
    for cls in ERRORS:
        r = probe.get(f"/probe/{cls.__name__}")
        body = problem(r, OWN_STATUS.get(cls.__name__, KINDS[kinds_of(cls)[0]]))
        assert "the probe's message" in body["detail"], (cls, r.text)


def test_messages_a_class_words_itself(probe: TestClient) -> None:
    # The wording the routes added by hand before, now the exceptions' own.
    problem(probe.get("/probe/BadExport"), 422, "not imported: the probe's message")
    problem(probe.get("/probe/EntryNotFound"), 404, "not found: the probe's message")
    problem(probe.get("/probe/EntityNotFound"), 404, "no entity \"the probe's message\"")


def test_a_bare_value_error_or_lookup_error_is_a_500(probe: TestClient) -> None:
    for name in ("ValueError", "LookupError"):
        body = problem(probe.get(f"/probe/{name}"), 500)
        assert "a bug" not in body["detail"], body  # the exception's text stays in the log


def test_every_refusal_has_the_one_shape(api) -> None:
    # Before: {"detail": ...} for most, {"message", "detail": [...]} for a schema's 422, Starlette's own for the
    # rest. Now problem details, whoever refuses: auth, the schema, a domain rule, routing, the body limit.
    h = api.headers("errors-2", "clade-e")
    problem(api.client.get("/entries"), 401)
    problem(api.client.get("/entries", headers={"X-API-Key": "gk_nope_nope"}), 401)
    problem(api.client.get("/agents/someone-else/core", headers=h), 403)
    problem(api.client.get("/no/such/route", headers=h), 404, "no route /no/such/route")
    problem(api.client.delete("/health", headers=h), 405, "/health does not take DELETE")
    problem(api.client.post("/agents", headers=api.admin, json={"id": "errors-2", "name": "x", "clade": "c"}), 409)
    bad = problem(api.client.post("/retrieve", headers=h, json={"text": "q", "k": 0, "mode": "nope"}), 422)
    assert bad["detail"].startswith("body.") and "(and 1 more)" in bad["detail"], bad
    assert {tuple(e["loc"]) for e in bad["errors"]} == {("body", "k"), ("body", "mode")}, bad
    assert all(set(e) == {"loc", "msg", "type"} for e in bad["errors"]), bad
    big = api.client.post("/episodes", headers={**h, "content-type": "application/json"},
                          content=b" " * (32 * 1024 * 1024 + 1))
    problem(big, 413)


def test_a_json_body_without_a_content_type_is_read_as_json(api) -> None:
    # Before: 422 "Input should be a valid dictionary" (the body was taken as bytes).
    h = api.headers("errors-3", "clade-e")
    body = json.dumps({"episodes": [{"id": "ct-1", "type": "observation", "text": "sent without a content type"}]})
    r = api.client.post("/episodes/batch", headers=h, content=body.encode())
    assert r.status_code == 201, r.text
    assert r.json()["created"] == ["ct-1"]
    assert api.client.get("/episodes/ct-1", headers=h).json()["text"] == "sent without a content type"
    # A body that is not JSON still gets the schema's 422, in the one shape.
    problem(api.client.post("/episodes/batch", headers=h, content=b"not json"), 422)


def test_domain_errors_from_real_routes(api) -> None:
    h = api.headers("errors-1", "clade-e")
    problem(api.client.get("/entries/nope", headers=h), 404, "not found: nope")
    r = api.client.post("/agents", headers=api.admin, json={"id": "errors-1", "name": "again", "clade": "c"})
    problem(r, 409, "agent 'errors-1' exists already")
    r = api.client.post("/agents", headers=api.admin, json={"id": "s-1", "name": "s", "clade": "c", "kind": "sub"})
    problem(r, 422, "a sub-agent needs the parent_id of its main agent")
    r = api.client.post("/agents", headers=api.admin,
                        json={"id": "s-1", "name": "s", "clade": "c", "kind": "sub", "parent_id": "ghost"})
    problem(r, 422, "no agent 'ghost' to be the parent")
    problem(api.client.post("/agents/ghost/keys", headers=api.admin, json={"scopes": ["read"]}), 404,
            "no agent 'ghost'")
    r = api.client.post("/causal/links", headers=h, json={"links": [{"cause": "x", "effect": "x"}]})
    problem(r, 422, "an entry cannot cause itself (x)")
    problem(api.client.get("/causal/ghost/causes", headers=h), 404, "not found: no entry 'ghost'")
    problem(api.client.post("/agents/import", headers=api.admin, content=""), 422,
            "not imported: empty: no header line")


def test_every_endpoint_of_the_typed_routers_declares_what_it_answers() -> None:
    modules = [importlib.import_module(f"grimoire.api.routes.{name}") for name in sorted(TYPED_ROUTERS)]
    routes = [r for m in modules for r in m.router.routes if isinstance(r, APIRoute)]
    assert len(routes) > 30
    untyped = [f"{sorted(r.methods)} {r.path}" for r in routes
               if r.response_model is None and isinstance(r.response_class, DefaultPlaceholder)]
    assert not untyped, untyped
    # And none maps exceptions to statuses by hand: api/errors.py does, once.
    for m in modules:
        source = inspect.getsource(m)
        assert "except ValueError" not in source and "except LookupError" not in source, m.__name__


def test_times_in_messages_are_iso_8601(api) -> None:
    # Before: "halted by the network cortisol override until 1795792301000 (...)", epoch milliseconds.
    golem = api.headers("errors-golem", kind="golem")
    made = api.client.post("/entries", headers=golem, json={
        "id": "errors-lesson", "category": "StrategyFragment", "scope": "public",
        "content": "Withdraw from the Morpho vault, then wait for the transaction to confirm."})
    assert made.json()["outcome"] == "admitted", made.text
    set_ = api.client.put("/hormones/network", headers=api.admin,
                          json={"level": 0.9, "duration_ms": 60_000, "reason": "a burst"})
    assert set_.status_code == 200, set_.text
    try:  # the override halts skill ingestion below trusted (a golem is provisional)
        halted = api.client.post("/skills", headers=golem, json={"crystal_id": "errors-lesson"})
    finally:
        api.client.delete("/hormones/network", headers=api.admin)
    detail = problem(halted, 409)["detail"]
    until = re.search(r"until (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) ", detail)
    assert until, detail
    assert not re.search(r"\d{10,}", detail), detail
    assert abs(datetime.fromisoformat(until.group(1)).timestamp() - time.time() - 60) < 30, detail
