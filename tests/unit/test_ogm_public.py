"""neomodel is used through its public API only (issue 38 §3): no module reads or sets one of its private
attributes (`db._active_transaction` was how raw statements once joined its transaction)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NEOMODEL_NAMES = {"neo", "neomodel_db"}  # what the project imports neomodel's `db` as


def _private_uses(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    names = set(NEOMODEL_NAMES)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "neomodel":
            names |= {a.asname or a.name for a in node.names if a.name == "db"}
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            if isinstance(node.value, ast.Name) and node.value.id in names or node.attr == "_active_transaction":
                found.append(f"{where}:{node.lineno} .{node.attr}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "setattr"):
            args = node.args
            if (len(args) >= 2 and isinstance(args[0], ast.Name) and args[0].id in names
                    and isinstance(args[1], ast.Constant) and str(args[1].value).startswith("_")):
                found.append(f"{where}:{node.lineno} {node.func.id} {args[1].value}")
    return found


def test_no_module_touches_neomodels_private_attributes() -> None:
    found = [use for folder in ("grimoire", "clients/python/grimoire")
             for p in sorted((ROOT / folder).rglob("*.py")) for use in _private_uses(p)]
    assert found == []


def test_the_check_sees_a_private_use(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("from neomodel import db as neo\n\ndef f(tx):\n    neo._active_transaction = tx\n"
                     "    getattr(neo, '_database_name', None)\n")
    assert len(_private_uses(probe)) == 2
