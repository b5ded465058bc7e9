"""Errors: every domain error is of one of four kinds (graph/errors.py), each kind is one HTTP status
(api/errors.py), and anything else raised in a route is a 500, never a client's 4xx."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from fastapi import APIRouter
from fastapi.datastructures import DefaultPlaceholder
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

import graph
from graph.errors import Conflict, GrimoireError, Invalid, NotFound, Unavailable

KINDS: dict[type[GrimoireError], int] = {NotFound: 404, Invalid: 422, Conflict: 409, Unavailable: 503}
# The routers whose every endpoint declares what it answers (a response model, or a response class).
TYPED_ROUTERS = {"agents", "entries", "episodes", "causal", "topology", "analytics", "health"}


def domain_errors() -> list[type[GrimoireError]]:
    """Every GrimoireError subclass defined in graph/, found by importing every module of the package."""
    for module in pkgutil.walk_packages(graph.__path__, prefix="graph."):
        importlib.import_module(module.name)
    found: set[type[GrimoireError]] = set()
    todo = [GrimoireError]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return sorted((c for c in found if c.__module__.startswith("graph.") and c not in KINDS),
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


def test_each_kind_has_its_status_and_body(probe: TestClient) -> None:
    for kind, status in KINDS.items():
        r = probe.get(f"/probe/{kind.__name__}")
        assert r.status_code == status, (kind, r.text)
        if kind is Unavailable:
            assert r.json() == {"status": "unavailable", "detail": "the probe's message"}
            assert r.headers["Retry-After"] == "5"
        else:
            assert r.json() == {"detail": "the probe's message"}
            assert "Retry-After" not in r.headers


def test_every_domain_error_answers_its_kinds_status(probe: TestClient) -> None:
    for cls in ERRORS:
        r = probe.get(f"/probe/{cls.__name__}")
        assert r.status_code == KINDS[kinds_of(cls)[0]], (cls, r.text)
        assert "the probe's message" in r.json()["detail"], (cls, r.text)


def test_messages_a_class_words_itself(probe: TestClient) -> None:
    # The wording the routes added by hand before, now the exceptions' own (the bodies did not change).
    assert probe.get("/probe/BadExport").json() == {"detail": "not imported: the probe's message"}
    assert probe.get("/probe/EntryNotFound").json() == {"detail": "not found: the probe's message"}
    assert probe.get("/probe/EntityNotFound").json() == {"detail": "no entity \"the probe's message\""}


def test_a_bare_value_error_or_lookup_error_is_a_500(probe: TestClient) -> None:
    for name in ("ValueError", "LookupError"):
        r = probe.get(f"/probe/{name}")
        assert r.status_code == 500, (name, r.text)


def test_domain_errors_from_real_routes(api) -> None:
    h = api.headers("errors-1", "clade-e")
    r = api.client.get("/entries/nope", headers=h)
    assert r.status_code == 404 and r.json() == {"detail": "not found: nope"}
    r = api.client.post("/agents", headers=api.admin, json={"id": "errors-1", "name": "again", "clade": "c"})
    assert r.status_code == 409 and r.json() == {"detail": "agent 'errors-1' exists already"}
    r = api.client.post("/agents", headers=api.admin, json={"id": "s-1", "name": "s", "clade": "c", "kind": "sub"})
    assert r.status_code == 422 and r.json() == {"detail": "a sub-agent needs the parent_id of its main agent"}
    r = api.client.post("/agents", headers=api.admin,
                        json={"id": "s-1", "name": "s", "clade": "c", "kind": "sub", "parent_id": "ghost"})
    assert r.status_code == 422 and r.json() == {"detail": "no agent 'ghost' to be the parent"}
    r = api.client.post("/agents/ghost/keys", headers=api.admin, json={"scopes": ["read"]})
    assert r.status_code == 404 and r.json() == {"detail": "no agent 'ghost'"}
    r = api.client.post("/causal/links", headers=h, json={"links": [{"cause": "x", "effect": "x"}]})
    assert r.status_code == 422 and r.json() == {"detail": "an entry cannot cause itself (x)"}
    r = api.client.get("/causal/ghost/causes", headers=h)
    assert r.status_code == 404 and r.json() == {"detail": "not found: no entry 'ghost'"}
    r = api.client.post("/agents/import", headers=api.admin, content="")
    assert r.status_code == 422 and r.json() == {"detail": "not imported: empty: no header line"}


def test_every_endpoint_of_the_typed_routers_declares_what_it_answers() -> None:
    modules = [importlib.import_module(f"api.routes.{name}") for name in sorted(TYPED_ROUTERS)]
    routes = [r for m in modules for r in m.router.routes if isinstance(r, APIRoute)]
    assert len(routes) > 30
    untyped = [f"{sorted(r.methods)} {r.path}" for r in routes
               if r.response_model is None and isinstance(r.response_class, DefaultPlaceholder)]
    assert not untyped, untyped
    # And none maps exceptions to statuses by hand: api/errors.py does, once.
    for m in modules:
        source = inspect.getsource(m)
        assert "except ValueError" not in source and "except LookupError" not in source, m.__name__
