"""The generated parts of README.md: the configuration table, made from the Settings model's fields
(name, default, description); the route table, made from the app's OpenAPI schema; and the documents' constants
beside the code's with the list of where the project differs (graph/spec_values.py).

`grimoire config table --write`, `grimoire routes table --write` and `grimoire spec table --write` rewrite them in
place between their markers; tests/unit/test_readme.py fails when README.md differs from what they generate.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from grimoire.graph.settings import PROJECT_ROOT, Settings

README = PROJECT_ROOT / "README.md"
CONFIG_TABLE = "config-table"
ROUTE_TABLE = "route-table"
SPEC_TABLE = "spec-table"
COMMANDS = {CONFIG_TABLE: "grimoire config table --write", ROUTE_TABLE: "grimoire routes table --write",
            SPEC_TABLE: "grimoire spec table --write"}


class MissingSection(LookupError):
    """README.md lacks the markers of a generated section."""


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def default_text(value: Any) -> str:
    """A field's default as the table shows it: as it would be written in the environment."""
    if value is None:
        return "unset"
    if isinstance(value, BaseModel):
        cls = type(value)
        return f"`{cls.__name__}` (`{cls.__module__.removeprefix('grimoire.').replace('.', '/')}.py`)"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, Path) and value.is_relative_to(PROJECT_ROOT):
        return f"`{value.relative_to(PROJECT_ROOT)}`"
    return f"`{value}`"


def _setting_row(name: str, field: FieldInfo) -> str:
    if not field.description:
        raise ValueError(f"Settings.{name} has no description: give it Field(description=...)")
    variable = field.alias or name.upper()
    default = default_text(field.get_default(call_default_factory=True))
    return f"| `{variable}` | {default} | {_cell(field.description)} |"


def config_table(model: type[BaseModel] = Settings) -> str:
    """One row per field of the settings model, in declaration order."""
    rows = [_setting_row(name, field) for name, field in model.model_fields.items()]
    return "\n".join(["| variable | default | meaning |", "|---|---|---|", *rows])


def route_table(openapi: dict[str, Any]) -> str:
    """One row per operation of the OpenAPI schema, in the app's order: `METHOD /path` and its summary."""
    rows = [f"| `{method.upper()} {path}` | {_cell(op.get('summary', ''))} |"
            for path, ops in openapi["paths"].items() for method, op in ops.items()]
    return "\n".join(["| route | what |", "|---|---|", *rows])


def _number(value: Any) -> str:
    return f"`{value:g}`" if isinstance(value, float) else f"`{value}`"


def spec_table() -> str:
    """The documents' constants beside the code's (a row each, the note saying why where they differ), then every
    place the project differs from the documents: the constants that differ and the behaviours."""
    from grimoire.graph import spec_values as sv

    rows = [f"| `{c.code}` | {_number(c.value())} | {_cell(c.doc_text)} | {c.document}:{c.line} | "
            f"{'differs' if c.differs else 'same'}{': ' + _cell(c.why) if c.why else ''} |" for c in sv.CONSTANTS]
    table = ["| constant (where the code holds it) | code | document | where | |", "|---|---|---|---|---|", *rows]
    differ = [f"- **`{c.code}`** ({c.document}:{c.line}, {_cell(c.doc_text)}; the code: {_number(c.value())}): "
              f"{_cell(c.why or '')}" for c in sv.CONSTANTS if c.differs]
    behave = [f"- **{_cell(d.topic)}** ({d.document}:{d.line}). The document: {_cell(d.document_says)}. The code: "
              f"{_cell(d.code_does)}. Why: {_cell(d.why)}" for d in sv.DIFFERENCES]
    return "\n".join([*table, "", "Where the project still differs from the documents, and why:", "", *differ,
                      *behave])


def app_route_table() -> str:
    from grimoire.api.app import create_app

    return route_table(create_app(Settings()).openapi())


def _markers(name: str) -> tuple[str, str]:
    return (f"<!-- generated: {name}, by `{COMMANDS[name]}`; do not edit by hand -->",
            f"<!-- end of generated: {name} -->")


def _pattern(name: str) -> re.Pattern[str]:
    begin, end = _markers(name)
    return re.compile(rf"(?P<begin>{re.escape(begin)}\n)(?P<body>.*?)\n?(?P<end>{re.escape(end)})", re.DOTALL)


def section(text: str, name: str) -> str:
    """The body of the generated section `name` in a README text."""
    found = _pattern(name).search(text)
    if found is None:
        raise MissingSection(f"README.md has no generated section {name!r} (markers {_markers(name)})")
    return found["body"]


def with_section(text: str, name: str, body: str) -> str:
    """The README text with the generated section `name` replaced by body."""
    section(text, name)
    return _pattern(name).sub(lambda m: f"{m['begin']}{body}\n{m['end']}", text, count=1)


def generated(name: str) -> str:
    return {CONFIG_TABLE: config_table, ROUTE_TABLE: app_route_table, SPEC_TABLE: spec_table}[name]()


def write(name: str, path: Path = README) -> bool:
    """Rewrites the section in the README file; True when it changed."""
    text = path.read_text()
    updated = with_section(text, name, generated(name))
    if updated != text:
        path.write_text(updated)
    return updated != text
