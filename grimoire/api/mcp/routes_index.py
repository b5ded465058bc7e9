"""What each route takes and returns, read from the FastAPI routes themselves: a tool's parameters are its
route's path and query parameters and its body's fields, so the two cannot drift apart."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any, get_args, get_origin

from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from grimoire.api.routes import ROUTERS

_PATH_PARAM = re.compile(r"{(\w+)(?::\w+)?}")


@dataclass(frozen=True)
class Param:
    name: str          # the tool's parameter name (a Python identifier)
    wire: str          # its name on the wire (a query alias like `from`, a body field's alias)
    annotation: Any
    info: FieldInfo    # default, description, constraints


@dataclass(frozen=True)
class RouteInfo:
    method: str
    path: str
    summary: str
    path_params: tuple[str, ...]
    query: tuple[Param, ...]
    body: tuple[Param, ...] = ()
    body_model: type[BaseModel] | None = None  # flattened into `body`; None: the body is one parameter
    raw_body: Param | None = None               # a body that is not a model (a list, a dict)
    response: Any = None                        # the response model; None: an untyped JSON value
    text: bool = False                          # the route answers text (markdown, a log)
    list_item: Any = None                       # set when the route answers a JSON list: its item type
    raw: bool = False                           # the route answers bytes (a zip, an NDJSON dump, a stream)
    endpoint: str = ""                          # the route function's name
    module: str = ""                            # its module under api/routes/
    names: frozenset[str] = field(default_factory=frozenset)

    @property
    def key(self) -> str:
        return f"{self.method} {self.path}"

    def query_param(self, name: str) -> Param | None:
        return next((q for q in self.query if q.name == name), None)


def _param(model_field: Any) -> Param:
    info: FieldInfo = model_field.field_info
    return Param(model_field.name, model_field.alias or model_field.name, info.annotation, info)


def _query_params(dependant: Any) -> list[Any]:
    """The route's own query parameters and its dependencies' (a filter taken as a dependency)."""
    found = list(dependant.query_params)
    for sub in dependant.dependencies:
        found += [q for q in _query_params(sub) if q.name not in {f.name for f in found}]
    return found


def _info(route: APIRoute, method: str) -> RouteInfo:
    dependant = route.dependant
    body: tuple[Param, ...] = ()
    body_model: type[BaseModel] | None = None
    raw_body: Param | None = None
    if route.body_field is not None:
        annotation = route.body_field.field_info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            body_model = annotation
            body = tuple(Param(name, f.alias or name, f.annotation, f) for name, f in annotation.model_fields.items())
        else:
            raw_body = Param("body", "body", annotation, route.body_field.field_info)
    response = route.response_model
    item = None
    if get_origin(response) is list:
        item = get_args(response)[0]
    text = isinstance(route.response_class, type) and issubclass(route.response_class, PlainTextResponse)
    raw = (isinstance(route.response_class, type) and not text
           and not issubclass(route.response_class, JSONResponse))
    if response is None and not text:
        returned = getattr(route.endpoint, "__annotations__", {}).get("return")
        if get_origin(returned) is list or returned is list:
            item = Any
    query = tuple(_param(q) for q in _query_params(dependant))
    path_params = tuple(_PATH_PARAM.findall(route.path))
    names = frozenset([*path_params, *(q.name for q in query), *(b.name for b in body)])
    return RouteInfo(method, route.path, route.summary or "", path_params, query, body, body_model, raw_body,
                     None if raw else response, text, None if raw else item, raw, route.endpoint.__name__,
                     route.endpoint.__module__.rsplit(".", 1)[-1], names)


@cache
def routes() -> dict[str, RouteInfo]:
    """Every route of the service, keyed "METHOD /path"."""
    out: dict[str, RouteInfo] = {}
    for router in ROUTERS:
        for route in router.routes:
            if isinstance(route, APIRoute):
                for method in sorted(route.methods):
                    out[f"{method} {route.path}"] = _info(route, method)
    return out
