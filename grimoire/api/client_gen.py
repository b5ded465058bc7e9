"""Writes the Python client's routes.py (clients/python/grimoire/client/): one method per route, sync and async, from
the routes themselves (api/mcp/routes_index.py), bodies and answers typed with the client's models (models.py,
generated from the OpenAPI document by api/client_models.py, the same run).
`grimoire client generate --write` rewrites it; tests/unit/test_client_routes.py fails when it is stale or a
route has no method. A method is named as the route's MCP tool (retrieve_memory, list_entries, ...), else as the
route's function (qualified by its module where two share a name)."""

from __future__ import annotations

import types
from collections import Counter
from datetime import datetime
from enum import Enum
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from grimoire.api import client_models
from grimoire.api.mcp.catalog import TOOLS
from grimoire.api.mcp.routes_index import Param, RouteInfo, routes
from grimoire.client.base import CONVENIENCES, AsyncBase, SyncBase

TARGET = client_models.TARGET.with_name("routes.py")
SIMPLE = {str: "str", int: "int", float: "float", bool: "bool", datetime: "datetime", type(None): "None",
          Any: "Any", bytes: "bytes"}


class Imports:
    """The models the methods name, by the client's name for each (api/client_models.py: its component's)."""

    def __init__(self) -> None:
        self.schemas = client_models.schemas()
        self.names: set[str] = set()

    def model(self, cls: type) -> str:
        name = client_models.component(cls, self.schemas)
        self.names.add(name)
        return name


def render(t: Any, imports: Imports) -> str:
    """A type as source: models imported, enums and literals as their values' str, the rest as Any."""
    if t in SIMPLE:
        return SIMPLE[t]
    origin = get_origin(t)
    if origin is Annotated:
        return render(get_args(t)[0], imports)
    if origin in (Union, types.UnionType):
        parts = dict.fromkeys(render(a, imports) for a in get_args(t))
        return " | ".join(parts)
    if origin is Literal:
        return "str"
    if origin in (list, set, tuple, frozenset):
        args = get_args(t)
        return f"list[{render(args[0], imports) if args else 'Any'}]"
    if origin is dict:
        return "dict[str, Any]"
    if isinstance(t, type) and issubclass(t, Enum):
        return "str"
    if isinstance(t, type) and issubclass(t, BaseModel):
        return imports.model(t)
    if t is dict:
        return "dict[str, Any]"
    return "Any"


# The routes a composite MCP tool spans (edit_core_memory, give_feedback, walk_causal) or a batch tool stands for.
NAMED = {
    "POST /entries/{entry_id}/upvote": "confirm_entry", "POST /entries/{entry_id}/downvote": "contradict_entry",
    "POST /entries/{entry_id}/outcome": "entry_outcome", "PUT /agents/{agent_id}/core/{block}": "rewrite_core_block",
    "POST /agents/{agent_id}/core/{block}/append": "append_core_block",
    "POST /agents/{agent_id}/core/{block}/line": "edit_core_line", "GET /causal/{entry_id}/causes": "causes_of",
    "GET /causal/{entry_id}/consequences": "consequences_of", "POST /episodes": "record_episode",
    "POST /entries": "add_entry", "GET /events/stream": "stream_events",
    "GET /agents/{agent_id}/workspace.zip": "workspace_zip",
}


def names() -> dict[str, str]:
    """Route key -> method name."""
    tool_of = {t.route: t.name for t in TOOLS if t.route} | NAMED
    index = routes()
    counts = Counter(info.endpoint for key, info in index.items() if key not in tool_of)
    out = {}
    for key, info in index.items():
        if key in tool_of:
            out[key] = tool_of[key]
        elif counts[info.endpoint] > 1 or info.endpoint in tool_of.values():
            out[key] = f"{info.module}_{info.endpoint}"
        else:
            out[key] = info.endpoint
    assert len(set(out.values())) == len(out), Counter(out.values()).most_common(3)
    hidden = set(out.values()) & hand_written()
    assert not hidden, f"a hand-written client method would hide the generated {sorted(hidden)}: rename it"
    return out


def hand_written() -> set[str]:
    """The names the client defines by hand (its conveniences, its bases' methods): a generated method of one of
    these names would be hidden behind it, its route not callable."""
    bases = {name for cls in (SyncBase, AsyncBase) for klass in cls.__mro__ if klass is not object
             for name in vars(klass) if not name.startswith("__")}
    return set(CONVENIENCES) | bases


def _default(p: Param) -> str:
    info = p.info
    if info.is_required():
        return ""
    if info.default is PydanticUndefined or info.default_factory is not None:
        return " = None"
    value = info.default
    if isinstance(value, Enum):
        value = value.value
    return f" = {value!r}"


def _returns(info: RouteInfo, imports: Imports) -> str:
    if info.raw:
        return "bytes"
    if info.text:
        return "str"
    if info.response is None:
        return "Any"
    return render(info.response, imports)


def method(name: str, info: RouteInfo, imports: Imports, asynchronous: bool) -> str:
    args = [f"{p}: str" for p in info.path_params]
    body_arg = ""
    content_type = "None"
    if info.body_model is not None:
        model = imports.model(info.body_model)
        body_arg, body = f"body: {model} | dict[str, Any]", "body"
    elif info.raw_body is not None:
        body_arg, body = f"body: {render(info.raw_body.annotation, imports)} = None", "body"
    elif info.key == "POST /agents/import":
        body_arg, body, content_type = "body: str | bytes", "body", '"application/x-ndjson"'
    else:
        body = "None"
    if body_arg and "=" not in body_arg:
        args.append(body_arg)
    query = [f"{q.name}: {render(q.annotation, imports)}{_default(q) or ' = None'}"
             if not q.info.is_required() else f"{q.name}: {render(q.annotation, imports)}" for q in info.query]
    required_query = [q for q in query if "=" not in q]
    optional_query = [q for q in query if "=" in q]
    args += required_query
    kw = optional_query + ([body_arg] if body_arg and "=" in body_arg else [])
    signature = ", ".join(["self", *args, *(["*", *kw] if kw else [])])
    returns = _returns(info, imports)
    path = "{" + ", ".join(f"{p!r}: {p}" for p in info.path_params) + "}"
    qd = "{" + ", ".join(f"{q.wire!r}: {q.name}" for q in info.query) + "}"
    summary = (info.summary or info.endpoint).replace('"""', "'''").replace("\\", "\\\\")
    doc = f'"""{summary} ({info.key})"""'
    call = (f"self._send(Request({info.method!r}, {info.path!r}, {path}, {qd}, {body}, {returns_expr(returns)}, "
            f"{content_type}))")
    paged = "    @paged\n" if info.query_param("offset") and info.query_param("limit") else ""
    if asynchronous:
        return f"{paged}    async def {name}({signature}) -> {returns}:\n        {doc}\n        return await {call}\n"
    return f"{paged}    def {name}({signature}) -> {returns}:\n        {doc}\n        return {call}\n"


def returns_expr(returns: str) -> str:
    return "None" if returns == "Any" else returns


def source() -> str:
    imports = Imports()
    index = routes()
    named = names()
    sync = [method(named[k], index[k], imports, False) for k in sorted(index, key=lambda k: named[k])]
    asyn = [method(named[k], index[k], imports, True) for k in sorted(index, key=lambda k: named[k])]
    lines = [
        '"""One method per route of the service (sync: Routes, async: AsyncRoutes). Generated by',
        "`grimoire client generate --write` from the routes themselves: do not edit by hand.\"\"\"",
        "",
        "# ruff: noqa: E501, I001",
        "from __future__ import annotations",
        "",
        "from collections.abc import Callable",
        "from datetime import datetime",
        "from typing import Any, TypeVar",
        "",
        "from grimoire.client.base import Request",
        f"from grimoire.client.models import {', '.join(sorted(imports.names))}",
        "",
        'F = TypeVar("F", bound=Callable[..., Any])',
        "",
        "",
        "def paged(fn: F) -> F:",
        '    """A list with offset and limit: Client.iterate pages through it."""',
        '    fn.__paged__ = ("offset", "limit")  # type: ignore[attr-defined]',
        "    return fn",
        "",
        "",
        "ROUTES: dict[str, str] = {",
        *[f"    {k!r}: {named[k]!r}," for k in sorted(index)],
        "}",
        "",
        "",
        "class Routes:",
        "    _send: Callable[[Request], Any]",
        "",
        "\n".join(sync),
        "",
        "class AsyncRoutes:",
        "    _send: Callable[[Request], Any]",
        "",
        "\n".join(asyn),
    ]
    return "\n".join(lines).rstrip() + "\n"


def write() -> bool:
    """models.py, then routes.py (which names its models); True when either changed."""
    models = client_models.write()
    text = source()
    if TARGET.exists() and TARGET.read_text() == text:
        return models
    TARGET.write_text(text)
    return True
