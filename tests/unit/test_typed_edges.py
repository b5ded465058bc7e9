"""Typed from the Cypher row to the client (issue 38 §1), held by ratchets that only move one way:

- every JSON route declares a response model that says what it returns (not `dict[str, Any]`, not nothing); the
  routes that do not yet are listed below, and a route leaves the list when it is typed (a listed route that is
  typed already fails here, so the list only shrinks). Routes that answer something else than JSON (markdown,
  a zip, an event stream) declare their response class instead;
- functions in graph/ that return `dict[str, Any]` are at most `DICT_RETURNS_AT_MOST` (the goal: under 2 % of
  graph/'s functions), and each says why on its signature (`# open: ...`: a part of an answer whose nested maps
  keep their nulls on the wire, an item's data keyed by its kind). A map that is open by nature says why by its
  name (graph/model/rows.py): `Properties` on their way into Neo4j, a statement's `Params`, a driver `Record`
  before it is typed (a curator cycle's node, whose keys grow phase by phase), a `FreeForm` map whose keys its
  writer chose; those are counted apart (`OPEN_MAPS_AT_MOST`), and none of them is what a route answers."""

from __future__ import annotations

import ast
import re
import typing
from pathlib import Path

from fastapi.routing import APIRoute
from starlette.responses import JSONResponse, Response

from grimoire.api.mcp.routes_index import ROUTERS

ROOT = Path(__file__).resolve().parents[2]
DICT_RETURNS_AT_MOST = 9  # lower it as functions return models (issue 38 began at 287 of 1,597)
OPEN_MAPS_AT_MOST = 77  # Properties, Params, Record, FreeForm: open by nature, named for why
OPEN_MAPS = ("Properties", "Params", "Record", "FreeForm")

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
    total, loose_ones, _ = returns()
    return total, loose_ones


def returns() -> tuple[int, int, int]:
    """(functions in graph/, those returning dict[str, Any], those returning one of the named open maps)."""
    total = loose_ones = open_maps = 0
    for path in (ROOT / "grimoire/graph").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                total += 1
                said = ast.unparse(node.returns) if node.returns else ""
                loose_ones += "dict[str, Any]" in said
                open_maps += any(name in said.replace("[", " ").replace("]", " ").replace(",", " ").split()
                                 for name in OPEN_MAPS)
    return total, loose_ones, open_maps


def test_fewer_functions_return_untyped_dicts() -> None:
    total, loose_ones = dict_returns()
    assert total > 1_000
    assert loose_ones <= DICT_RETURNS_AT_MOST, (f"{loose_ones} of {total} functions in graph/ return dict[str, Any]: "
                                               "return a model")
    assert loose_ones < 0.02 * total, "the goal of issue 38: under 2 % of graph/'s functions return an untyped dict"


def untyped_without_why() -> list[str]:
    """Functions in graph/ returning `dict[str, Any]` whose signature does not say why (`# open: <a reason>`)."""
    out = []
    for path in (ROOT / "grimoire/graph").rglob("*.py"):
        lines = path.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns
                    and "dict[str, Any]" in ast.unparse(node.returns)):
                signature = "\n".join(lines[node.lineno - 1:node.body[0].lineno - 1])
                if not re.search(r"# open: \S.{15,}", signature):
                    out.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    return out


def test_each_untyped_dict_says_why() -> None:
    assert untyped_without_why() == [], "return a model, or say on the signature why the map is open (# open: ...)"


def test_the_open_maps_are_few_and_say_why() -> None:
    from grimoire.graph.model import rows

    assert all(getattr(rows, name) == dict[str, typing.Any] and rows.__doc__ for name in OPEN_MAPS)
    _, _, open_maps = returns()
    assert 0 < open_maps <= OPEN_MAPS_AT_MOST, f"{open_maps} functions return an open map: return a model"


def test_no_route_answers_an_open_map() -> None:
    """An open map goes into the database, never out through a route: no route's declared return says one."""
    for path, route in json_routes().items():
        said = str(route.endpoint.__annotations__.get("return", ""))  # as written: an alias is not resolved away
        assert not any(re.search(rf"\b{name}\b", said) for name in OPEN_MAPS), path
