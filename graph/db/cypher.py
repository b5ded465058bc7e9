"""Every Cypher statement lives in cypher/ as a .cypher file; this module loads them by name.

A file may hold several statements separated by ';' and may begin with Neo4j Browser
parameter commands (':param name => value;') so it runs as is in Browser. Those commands
and '//' comment lines are dropped here; the driver passes real parameters.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from graph.settings import get_settings


class CypherNotFound(KeyError):
    pass


def cypher_dir() -> Path:
    return get_settings().cypher_dir


@lru_cache(maxsize=512)
def _statements(path: Path) -> tuple[str, ...]:
    text = path.read_text()
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("//")]
    parts = [p.strip() for p in "\n".join(lines).split(";")]
    return tuple(p for p in parts if p and not p.startswith(":"))


def statements(name: str) -> tuple[str, ...]:
    """All statements of cypher/<name>.cypher, in file order."""
    path = (cypher_dir() / f"{name}.cypher").resolve()
    if cypher_dir().resolve() not in path.parents or not path.exists():
        raise CypherNotFound(f"no Cypher file named {name!r} under {cypher_dir()}")
    return _statements(path)


def query(name: str) -> str:
    """The single statement of cypher/<name>.cypher."""
    stmts = statements(name)
    if len(stmts) != 1:
        raise ValueError(f"cypher/{name}.cypher holds {len(stmts)} statements; expected one")
    return stmts[0]
