"""The contract between the code and cypher/: every file that filters by viewer writes the
visibility rule in one of its canonical forms (graph/visibility.py) word for word, and every query
name the code loads exists. A new query with a hand-written variant of the rule, or a renamed file
a caller still names, fails here before it fails in production."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from graph import visibility as v
from graph.db import cypher

ROOT = Path(__file__).resolve().parents[2]
CYPHER = cypher.cypher_dir()
FOLDERS = {p.name for p in CYPHER.iterdir() if p.is_dir()}
SOURCES = [p for d in ("graph", "api", "loaders", "bench", "tests") for p in (ROOT / d).rglob("*.py")]
_VAR = re.compile(r"(\w+)\.(?:agent_id = \$viewer|clade = \$clade|owner = \$viewer)")


def _statement_text(path: Path) -> str:
    """The file's statements (no comments, no Browser :param lines), whitespace collapsed."""
    return re.sub(r"\s+", " ", " ; ".join(cypher.statements(str(path.relative_to(CYPHER).with_suffix("")))))


def _canonical_forms(text: str) -> list[str]:
    forms = [v.ENTITY_PREDICATE]
    for var in sorted(set(_VAR.findall(text)), key=len, reverse=True):
        forms += [v.item_predicate(var), v.writer_predicate(var), v.owner_predicate(var), v.run_predicate(var),
                  *v.seek_branches(var)]
    return sorted(forms, key=len, reverse=True)  # longest first: a shorter form is a prefix of a longer one


def _leftover(text: str) -> str:
    for form in _canonical_forms(text):
        text = text.replace(form, " ")
    return text


VIEWER_FILES = sorted(p for p in CYPHER.rglob("*.cypher") if "$viewer" in _statement_text(p))


def test_there_are_files_to_check() -> None:
    assert len(VIEWER_FILES) >= 30, VIEWER_FILES


@pytest.mark.parametrize("path", VIEWER_FILES, ids=lambda p: str(p.relative_to(CYPHER)))
def test_every_viewer_filter_is_a_canonical_form(path: Path) -> None:
    rest = _leftover(_statement_text(path))
    stray = [rest[max(0, m.start() - 80):m.end() + 20] for m in re.finditer(r"\$viewer|\$clade", rest)]
    assert not stray, f"{path.relative_to(CYPHER)} filters by viewer outside the canonical forms: {stray}"


def test_a_hand_written_variant_is_caught() -> None:
    """The check itself: a rule missing its public clause, or with its clauses reordered, is not canonical."""
    good = "MATCH (n:Entry) WHERE " + v.item_predicate("n") + " RETURN n"
    assert "$viewer" not in _leftover(good)
    assert "$clade" in _leftover(good.replace("n.scope = 'shared' AND n.clade", "n.scope = 'shared' OR n.clade"))
    assert "$viewer" in _leftover("MATCH (n) WHERE n.agent_id = $viewer OR $admin RETURN n")
    assert "$clade" in _leftover("MATCH (n) WHERE $admin OR n.agent_id = $viewer OR n.clade = $clade RETURN n")


def _names_in(path: Path) -> set[str]:
    """String literals that look like query names (folder/name with a known folder); the leading
    part of an f-string (f"analytics/project_{kind}") as a prefix ending in '*'."""
    tree = ast.parse(path.read_text(), str(path))
    parts = {id(c) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for c in node.values}
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            head = str(node.values[0].value)
            if re.fullmatch(r"([a-z_]+)/([a-z0-9_]+)", head) and head.split("/")[0] in FOLDERS:
                found.add(head + "*")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in parts:
            m = re.fullmatch(r"([a-z_]+)/([a-z0-9_]+)", node.value)
            if m and m.group(1) in FOLDERS:
                found.add(node.value)
    return found


LOADED = sorted({(name, str(p.relative_to(ROOT))) for p in SOURCES for name in _names_in(p)})


def test_the_code_names_queries() -> None:
    assert len({n for n, _ in LOADED}) >= 100


@pytest.mark.parametrize(("name", "where"), LOADED, ids=[f"{n}@{w}" for n, w in LOADED])
def test_every_query_name_in_the_code_exists(name: str, where: str) -> None:
    if name.endswith("*"):
        folder, prefix = name[:-1].split("/")
        assert list((CYPHER / folder).glob(f"{prefix}*.cypher")), f"{where} names cypher/{name}, which matches no file"
    else:
        assert (CYPHER / f"{name}.cypher").is_file(), f"{where} names cypher/{name}.cypher, which does not exist"


@pytest.mark.parametrize("path", sorted(p for p in CYPHER.rglob("*_all.cypher") if p.parent.name != "testing"),
                         ids=lambda p: p.stem)
def test_every_all_variant_has_its_filtered_query(path: Path) -> None:
    """Visibility.variant picks `<name>_all` for the admin: the filtered query must exist beside it."""
    assert path.with_name(path.name.replace("_all.cypher", ".cypher")).is_file()
