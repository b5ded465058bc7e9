"""The MCP tools declare typed results (issue 38 §5): every tool's output schema is its route's response model (or a
page of its items, a text, a record), so an agent's MCP client sees the same fields the REST answer has. Now that
every JSON route declares its model (tests/unit/test_typed_edges.py), no tool's result is a bare object."""

from __future__ import annotations

from typing import Any

import pytest

from grimoire.api.mcp.tools import built

TOOLS = built()


def _deref(schema: dict[str, Any] | None, defs: dict[str, Any]) -> dict[str, Any]:
    while schema and "$ref" in schema:
        schema = defs.get(schema["$ref"].rsplit("/", 1)[-1])
    return schema or {}


def says_its_fields(schema: dict[str, Any] | None, defs: dict[str, Any]) -> bool:
    """An object schema naming its properties (or a union of such), not a bare `object`."""
    s = _deref(schema, defs)
    if "anyOf" in s or "oneOf" in s:
        return all(says_its_fields(x, defs) or x.get("type") == "null" for x in s.get("anyOf", s.get("oneOf", [])))
    return bool(s.get("properties"))


def test_there_are_tools() -> None:
    assert len(TOOLS) >= 100


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_every_tools_result_names_its_fields(name: str) -> None:
    schema = TOOLS[name].output_schema
    assert schema is not None, f"{name} declares no output schema"
    defs = schema.get("$defs", {})
    assert says_its_fields(schema, defs), f"{name}'s result is a bare object"
    props = schema["properties"]
    for key in ("result", "items"):  # the SDK's wrapper of a non-object result; a page's items
        inner = _deref(props.get(key), defs)
        if inner.get("type") == "array":
            inner = _deref(inner.get("items"), defs)
        if key in props and inner.get("type") not in ("string", "integer", "number", "boolean"):
            assert says_its_fields(inner, defs), f"{name}'s {key} is a bare object"


def test_a_bare_object_is_seen() -> None:
    assert not says_its_fields({"type": "object", "additionalProperties": True}, {})
    assert says_its_fields({"$ref": "#/$defs/A"}, {"A": {"type": "object", "properties": {"id": {}}}})
