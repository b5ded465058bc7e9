"""The contract between the code and cypher/: every file that filters by viewer writes the
visibility rule in one of its canonical forms (graph/visibility.py) word for word, and every query
name the code loads exists. A new query with a hand-written variant of the rule, or a renamed file
a caller still names, fails here before it fails in production."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from grimoire.graph import visibility as v
from grimoire.graph.db import cypher

ROOT = Path(__file__).resolve().parents[2]
CYPHER = cypher.cypher_dir()
FOLDERS = {p.name for p in CYPHER.iterdir() if p.is_dir()}
SOURCES = [p for d in ("grimoire", "bench", "tests") for p in (ROOT / d).rglob("*.py")]
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


# ---------------------------------------------------------------- typed rows (issue 38 §1)

_OPEN, _CLOSE = "([{", ")]}"
_TAIL = re.compile(r"\b(ORDER\s+BY|SKIP|LIMIT)\b", re.IGNORECASE)


def _top_level(text: str) -> list[tuple[int, str]]:
    """(index, character) of each character of `text` outside brackets and quotes."""
    out, depth, quote = [], 0, ""
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"`":
            quote = ch
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif depth == 0:
            out.append((i, ch))
    return out


def return_keys(statement: str) -> list[str]:
    """The keys of a statement's last top-level RETURN: each item's alias, or the item as written."""
    outside = dict(_top_level(statement))
    flat = "".join(outside.get(i, " ") for i in range(len(statement)))
    found = list(re.finditer(r"\bRETURN\b", flat, re.IGNORECASE))
    if not found:
        return []
    start = found[-1].end()
    tail = _TAIL.search(flat, start)
    clause, flat_clause = statement[start:tail.start() if tail else None], flat[start:tail.start() if tail else None]
    clause = re.sub(r"^\s*DISTINCT\b", "", clause, flags=re.IGNORECASE)
    flat_clause = re.sub(r"^\s*DISTINCT\b", "", flat_clause, flags=re.IGNORECASE)
    cuts = [i for i, ch in enumerate(flat_clause) if ch == ","]
    keys = []
    for a, b in zip([-1, *cuts], [*cuts, len(clause)], strict=True):
        item, flat_item = clause[a + 1:b], flat_clause[a + 1:b]  # unstripped: an item opening with a bracket
        alias = list(re.finditer(r"\bAS\b", flat_item, re.IGNORECASE))  # has its alias at the same index in both
        keys.append(item[alias[-1].end():].strip().strip("`") if alias else item.strip())
    return keys


def _rows() -> list[type]:
    import importlib
    import pkgutil

    from grimoire import graph
    from grimoire.graph.model.rows import Row

    for info in pkgutil.walk_packages(graph.__path__, "grimoire.graph."):
        importlib.import_module(info.name)
    return sorted(Row.registry.values(), key=lambda r: f"{r.__module__}.{r.__qualname__}")


ROWS = _rows()


def test_return_keys_reads_aliases_maps_and_tails() -> None:
    stmt = ("MATCH (n:Entry) WITH n, {a: 1, b: [1, 2]} AS m RETURN DISTINCT n.id AS id, m {.a, b: 2} AS map, "
            "count(*) AS `n, counted`, n.text ORDER BY id LIMIT 5")
    assert return_keys(stmt) == ["id", "map", "n, counted", "n.text"]
    assert return_keys("CALL () { MATCH (x) RETURN x AS inner } RETURN 1 AS outer") == ["outer"]
    assert return_keys("MATCH (m) RETURN [(m)-->(x) | x.id] AS ids, m") == ["ids", "m"]  # an item opening with [


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.__qualname__)
def test_every_row_model_is_its_statements_return(row: type) -> None:
    keys = return_keys(cypher.query(row.query))  # type: ignore[attr-defined]
    assert sorted(keys) == sorted(row.model_fields), (  # type: ignore[attr-defined]
        f"cypher/{row.query}.cypher returns {sorted(keys)}; {row.__qualname__} declares "  # type: ignore[attr-defined]
        f"{sorted(row.model_fields)}")  # type: ignore[attr-defined]


def test_a_row_model_that_drifts_from_its_statement_is_caught() -> None:
    from grimoire.graph.model.rows import Row

    class Drifted(Row):
        query = "leases/fence"
        not_returned: int

    try:
        assert sorted(return_keys(cypher.query("leases/fence"))) != sorted(Drifted.model_fields)
    finally:
        Row.registry.pop(f"{Drifted.__module__}.{Drifted.__qualname__}", None)


# ---------------------------------------------------------------- copied blocks (issue 38 §4)

def _copied_blocks() -> list[tuple[str, str, list[str]]]:
    """(block, the text that marks a copy, the canonical forms for the variables the files use)."""
    from grimoire.graph.knowledge.decay import retention_expression
    from grimoire.graph.retrieval.candidate import CONTEXT_ITEM_PROJECTION, ITEM_PROJECTION
    from grimoire.graph.retrieval.filters import episode_filter_block, filter_block

    names = ("n", "e", "c", "m")
    return [
        ("retrieval filters", "$known_as_of IS NULL OR",
         [f(v) for v in names for f in (filter_block, episode_filter_block)]),
        ("decay", "exp(-toFloat(", [retention_expression(v) for v in names]),
        ("item projection", "ELSE 'episode' END AS kind", [CONTEXT_ITEM_PROJECTION, ITEM_PROJECTION]),
    ]


BLOCKS = _copied_blocks()
BLOCK_FILES = [(name, p) for name, mark, _ in BLOCKS for p in sorted(CYPHER.rglob("*.cypher"))
               if p.parent.name != "testing" and mark in _statement_text(p)]


def _strip_forms(text: str, forms: list[str]) -> str:
    for form in sorted(forms, key=len, reverse=True):
        text = text.replace(form, " ")
    return text


def test_each_block_has_its_copies() -> None:
    counts = {name: sum(1 for n, _ in BLOCK_FILES if n == name) for name, _, _ in BLOCKS}
    assert counts["retrieval filters"] >= 9 and counts["decay"] >= 7 and counts["item projection"] >= 9, counts


@pytest.mark.parametrize(("block", "path"), BLOCK_FILES, ids=[f"{n}@{p.relative_to(CYPHER)}" for n, p in BLOCK_FILES])
def test_every_copy_of_a_block_is_its_canonical_form(block: str, path: Path) -> None:
    _, mark, forms = next(b for b in BLOCKS if b[0] == block)
    rest = _strip_forms(_statement_text(path), forms)
    stray = [rest[max(0, m.start() - 120):m.end() + 40] for m in re.finditer(re.escape(mark), rest)]
    assert not stray, f"{path.relative_to(CYPHER)} writes the {block} block otherwise than its canonical form: {stray}"


def test_a_drifted_copy_is_caught() -> None:
    _, mark, forms = BLOCKS[1]
    drifted = "RETURN " + forms[1].replace("> 1.0", ">= 1.0")
    assert mark in _strip_forms(drifted, forms) and mark not in _strip_forms("RETURN " + forms[1], forms)
