"""Every Cypher statement lives in cypher/ as a .cypher file; this module loads them by name.

A file may hold several statements separated by ';' and may begin with Neo4j Browser
parameter commands (':param name => value;') so it runs as is in Browser. Those commands
and '//' comment lines are dropped here; the driver passes real parameters.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path


class CypherNotFound(KeyError):
    pass


CYPHER_DIR = Path(__file__).resolve().parents[3] / "cypher"


def cypher_dir() -> Path:
    """The project's cypher/ folder, found from this file: the loader needs no settings."""
    return CYPHER_DIR


@lru_cache(maxsize=512)
def _statements(path: Path) -> tuple[str, ...]:
    text = path.read_text()
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("//")]
    parts = [p.strip() for p in "\n".join(lines).split(";")]
    return tuple(p for p in parts if p and not p.startswith(":"))


@lru_cache(maxsize=512)
def _path(root: Path, name: str) -> Path:
    path = (root / f"{name}.cypher").resolve()
    if root.resolve() not in path.parents or not path.exists():
        raise CypherNotFound(f"no Cypher file named {name!r} under {root}")
    return path


def statements(name: str) -> tuple[str, ...]:
    """All statements of cypher/<name>.cypher, in file order (resolved once per name: the hot read
    paths load their statement on every request)."""
    return _statements(_path(cypher_dir(), name))


def query(name: str) -> str:
    """The single statement of cypher/<name>.cypher."""
    stmts = statements(name)
    if len(stmts) != 1:
        raise ValueError(f"cypher/{name}.cypher holds {len(stmts)} statements; expected one")
    return stmts[0]


_VECTOR_SEARCH = re.compile(r"db\.index\.vector\.queryNodes\(\s*'(\w+)'")


@lru_cache(maxsize=512)
def vector_indexes(name: str) -> frozenset[str]:
    """The vector indexes cypher/<name>.cypher searches by name: a statement the service would send to an
    index being rebuilt is answered at once instead (graph/db/connection.py), not after Neo4j's 30 s wait."""
    return frozenset(m.group(1) for stmt in statements(name) for m in _VECTOR_SEARCH.finditer(stmt))


def literal(value: object) -> str:
    """A value as a Cypher literal, for a Browser `:param` line."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    return "'" + "".join(_escaped(c) for c in str(value)) + "'"


def _escaped(c: str) -> str:
    """One character of a Cypher string literal: quotes, backslashes and every control character escaped, so a
    value can never end its `:param` line and start a statement of its own."""
    if c in "'\\" or ord(c) < 32 or ord(c) == 127 or c in "\u2028\u2029":
        return f"\\u{ord(c):04x}"
    return c


def for_browser(name: str, params: dict[str, object]) -> str:
    """cypher/<name>.cypher as it runs in Neo4j Browser, its `:param` lines set to these values (the others
    keep the file's examples): the statement a page ran, for a person to run and change themselves."""
    out = []
    for line in _path(cypher_dir(), name).read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith(":param ") and "=>" in stripped:
            key = stripped[len(":param "):].split("=>", 1)[0].strip()
            if key in params:
                line = f":param {key} => {literal(params[key])};"
        out.append(line)
    return "\n".join(out)
