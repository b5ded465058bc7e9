"""Typed from the Cypher row to the client (issue 38 §1), held by ratchets that only move one way:

- every JSON route declares a response model that says what it returns (not `dict[str, Any]`, not nothing); the
  routes that do not yet are listed below, and a route leaves the list when it is typed (a listed route that is
  typed already fails here, so the list only shrinks). Routes that answer something else than JSON (markdown,
  a zip, an event stream) declare their response class instead;
- functions in graph/ that return `dict[str, Any]` are at most `DICT_RETURNS_AT_MOST` (the goal: under 2 % of
  graph/'s functions, each remaining one saying why)."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

from fastapi.routing import APIRoute
from starlette.responses import JSONResponse, Response

from grimoire.api.mcp.routes_index import ROUTERS

ROOT = Path(__file__).resolve().parents[2]
DICT_RETURNS_AT_MOST = 111  # lower it as functions return models (issue 38 began at 287 of 1,597)

LOOSE_ROUTES = frozenset({
})


def loose(model: object) -> bool:
    """A response model that says nothing of its fields: none, Any, a bare dict or list, or a list of dicts."""
    if model is None or model in (dict, list, typing.Any):
        return True
    origin = typing.get_origin(model)
    return origin is dict or origin is list and any(loose(a) for a in typing.get_args(model))


def json_routes() -> dict[str, APIRoute]:
    out = {}
    for router in ROUTERS:
        for route in router.routes:
            rc = route.response_class if isinstance(route, APIRoute) else None
            if isinstance(route, APIRoute) and not (isinstance(rc, type) and issubclass(rc, Response)
                                                    and not issubclass(rc, JSONResponse)):
                out |= {f"{m} {route.path}": route for m in sorted(route.methods)}
    return out


def test_every_json_route_declares_what_it_returns() -> None:
    untyped = sorted(k for k, r in json_routes().items() if loose(r.response_model) and k not in LOOSE_ROUTES)
    assert untyped == [], "declare a response model (a pydantic model of the answer's fields)"


def test_the_list_of_untyped_routes_only_shrinks() -> None:
    routes = json_routes()
    typed_now = sorted(k for k in LOOSE_ROUTES if k in routes and not loose(routes[k].response_model))
    gone = sorted(k for k in LOOSE_ROUTES if k not in routes)
    assert typed_now == [] and gone == [], f"take these out of LOOSE_ROUTES: {typed_now + gone}"


def test_loose_sees_what_says_nothing() -> None:
    assert loose(None) and loose(dict[str, typing.Any]) and loose(list[dict[str, typing.Any]]) and loose(list)
    assert not loose(list[int]) and not loose(JSONResponse)


def dict_returns() -> tuple[int, int]:
    """(functions in graph/, those whose return annotation holds dict[str, Any])."""
    total = loose_ones = 0
    for path in (ROOT / "grimoire/graph").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                total += 1
                loose_ones += bool(node.returns) and "dict[str, Any]" in ast.unparse(node.returns)  # type: ignore[arg-type]
    return total, loose_ones


def test_fewer_functions_return_untyped_dicts() -> None:
    total, loose_ones = dict_returns()
    assert total > 1_000
    assert loose_ones <= DICT_RETURNS_AT_MOST, (f"{loose_ones} of {total} functions in graph/ return dict[str, Any]: "
                                               "return a model")
