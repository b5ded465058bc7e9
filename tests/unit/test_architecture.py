"""ARCHITECTURE.md is true: every package, module, cypher folder, route and test file its table
names exists, and the dependency rules it states hold in the imports of graph/."""

from __future__ import annotations

import ast
import graphlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "grimoire"  # the server's packages (graph, api, loaders) live under the grimoire namespace
DOC = ROOT / "ARCHITECTURE.md"
CODE = ("graph", "api", "loaders")  # the document names their paths relative to SRC

# The layers of graph/, bottom up: a module may import its own layer and those below.
FOUNDATION = {"ids", "logs", "errors", "visibility", "model", "embeddings", "embeddings_onnx", "embedding_batcher",
              "replica", "observe", "meters", "tracing"}
INFRASTRUCTURE = {"db"}
RECORDS = {"audit"}
COMPOSITION = {"settings", "services", "scheduler", "background"}
# Subsystems that must not import one another in this direction (importer -> imported).
FORBIDDEN = {
    ("knowledge", "retrieval"),  # retrieval reads knowledge, never the reverse
    ("knowledge", "analytics"),
    ("topology", "analytics"),   # analyses read the world graph; the world graph knows nothing of them
    ("topology", "retrieval"),
    ("topology", "knowledge"),
    ("knowledge", "learning"),   # the learning loop sits on knowledge: it admits, votes and edits through it
    ("retrieval", "learning"),
    ("events", "learning"),      # the loop writes events; events know nothing of who writes them
}


def _top(module: str) -> str | None:
    """grimoire.graph.knowledge.entries -> knowledge; other packages -> None."""
    parts = _local(module).split(".")
    return parts[1] if parts[0] == "graph" and len(parts) > 1 else None


def _local(module: str) -> str:
    """A module's name within the namespace: grimoire.graph.x -> graph.x (the client, grimoire.client, stays)."""
    head, _, rest = module.partition(".")
    return rest if head == "grimoire" and rest.split(".")[0] in CODE else module


def _imports() -> list[tuple[str, str, str]]:
    """(importing file, importer's top package, imported top package) for every graph import in graph/."""
    out = []
    for path in sorted((SRC / "graph").rglob("*.py")):
        rel = path.relative_to(SRC)
        importer = rel.parts[1].removesuffix(".py")
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            if isinstance(node, ast.ImportFrom) and node.module in ("grimoire", "grimoire.graph"):
                names = [f"{node.module}.{a.name}" for a in node.names]
            for name in names:
                top = _top(name)
                if top and top != importer:
                    out.append((str(rel), importer, top))
                if _local(name).split(".")[0] == "api":
                    out.append((str(rel), importer, "api"))
    return out


IMPORTS = _imports()


def test_the_imports_are_seen() -> None:
    assert ("graph/services.py", "services", "settings") in IMPORTS
    assert any(imp == "knowledge" and top == "audit" for _, imp, top in IMPORTS)


def test_the_lower_layers_import_no_subsystem() -> None:
    allowed = {**{m: FOUNDATION for m in FOUNDATION}, "db": FOUNDATION | INFRASTRUCTURE,
               "audit": FOUNDATION | INFRASTRUCTURE | RECORDS}
    bad = [(f, top) for f, imp, top in IMPORTS if imp in allowed and top not in allowed[imp]]
    assert not bad, f"db/, model/, audit/ and the foundation import only below themselves: {bad}"


def test_only_the_composition_root_reads_settings() -> None:
    bad = [(f, top) for f, imp, top in IMPORTS if top in COMPOSITION and imp not in COMPOSITION]
    bad += [(f, top) for f, imp, top in IMPORTS if top == "services" and imp != "services"]
    assert not bad, f"subsystems take their configuration as arguments: {bad}"


def _clock_readers() -> list[str]:
    """Files of graph/ and api/ that read the high-resolution clock themselves."""
    return sorted(str(p.relative_to(SRC)) for folder in ("graph", "api") for p in (SRC / folder).rglob("*.py")
                  if "perf_counter" in p.read_text())


def test_work_is_timed_one_way() -> None:
    """Stages, statements and jobs are timed through graph/observe.py (a span or a stopwatch), so that an observer
    (tracing, metrics) sees them all: no module times work with a clock of its own."""
    assert _clock_readers() == ["graph/observe.py"]


def test_nothing_in_graph_imports_the_api() -> None:
    assert not [f for f, _, top in IMPORTS if top == "api"]


@pytest.mark.parametrize(("importer", "imported"), sorted(FORBIDDEN))
def test_subsystems_depend_one_way(importer: str, imported: str) -> None:
    bad = [f for f, imp, top in IMPORTS if imp == importer and top == imported]
    assert not bad, f"{importer} must not import {imported}: {bad}"


def package_cycle(imports: list[tuple[str, str, str]]) -> list[str]:
    """A cycle among graph/'s top packages (each file's imports, at any depth: knowledge -> crystals ->
    retrieval -> knowledge is one though no two of them import each other), as its packages; [] when none."""
    graph: dict[str, set[str]] = {}
    for _, importer, imported in imports:
        if imported != "api":
            graph.setdefault(importer, set()).add(imported)
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        return list(exc.args[1])
    return []


def test_no_cycle_among_the_packages() -> None:
    assert package_cycle(IMPORTS) == []


def test_the_cycle_check_sees_a_cycle_of_three() -> None:
    three = [("a.py", "knowledge", "crystals"), ("b.py", "crystals", "retrieval"), ("c.py", "retrieval", "knowledge"),
             ("d.py", "retrieval", "db")]
    cycle = package_cycle(three)
    assert set(cycle) == {"knowledge", "crystals", "retrieval"} and cycle[0] == cycle[-1]
    assert package_cycle(three[:2] + three[3:]) == []


def _public_retrieval() -> set[str]:
    """The names graph/retrieval/__init__.py lists in __all__: retrieval's public face."""
    tree = ast.parse((SRC / "graph/retrieval/__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


def private_retrieval_imports(sources: dict[str, str], public: set[str]) -> list[str]:
    """Imports of retrieval's private modules (anything of graph/retrieval/ but the package's public names) in the
    given files (path -> source), as "path: what"."""
    bad = []
    for path, text in sources.items():
        for node in ast.walk(ast.parse(text, path)):
            if isinstance(node, ast.Import):
                bad += [f"{path}: {_local(a.name)}" for a in node.names
                        if _local(a.name).startswith("graph.retrieval.")]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                module = _local(node.module)
                if module.startswith("graph.retrieval."):
                    bad.append(f"{path}: {module}")
                elif module == "graph.retrieval":
                    bad += [f"{path}: graph.retrieval.{a.name}" for a in node.names if a.name not in public]
    return bad


def _outside_retrieval() -> dict[str, str]:
    files = [p for d in ("grimoire", "clients/python/grimoire") for p in sorted((ROOT / d).rglob("*.py"))]
    return {str(p.relative_to(ROOT)): p.read_text() for p in files
            if (SRC / "graph/retrieval") not in p.parents}


def test_retrieval_is_used_through_its_public_face_only() -> None:
    public = _public_retrieval()
    assert {"Retriever", "RetrievalRequest", "RetrievalResult", "Similar", "LexicalHit"} <= public
    assert not private_retrieval_imports(_outside_retrieval(), public)


def test_the_retrieval_rule_sees_a_private_import() -> None:
    public = {"Retriever"}
    sources = {"a.py": "from grimoire.graph.retrieval.backends import vector_measured\n",
               "b.py": "from grimoire.graph.retrieval import rerank, Retriever\n",
               "c.py": "import grimoire.graph.retrieval.context\n",
               "d.py": "from grimoire.graph.retrieval import Retriever\nimport grimoire.graph.retrieval\n"}
    assert private_retrieval_imports(sources, public) == [
        "a.py: graph.retrieval.backends", "b.py: graph.retrieval.rerank", "c.py: graph.retrieval.context"]


def test_the_package_drawing_is_the_codes() -> None:
    from tests import package_drawing as drawn

    assert drawn.block(DOC.read_text()) == drawn.drawing(IMPORTS), "run `python -m tests.package_drawing --write`"


def test_the_drawing_leaves_out_arrows_a_longer_path_implies() -> None:
    from tests import package_drawing as drawn

    three = [("a.py", "memory", "knowledge"), ("b.py", "knowledge", "db"), ("c.py", "memory", "db"),
             ("d.py", "memory", "api")]
    assert drawn.reduced(drawn.edges(three)) == [("knowledge", "db"), ("memory", "knowledge")]
    assert "memory --> db" not in drawn.drawing(three) and "memory --> knowledge" in drawn.drawing(three)


def _named_paths() -> list[str]:
    return sorted(set(re.findall(r"`((?:graph|cypher|api|tests|bench|loaders)/[\w/.*-]*)`", DOC.read_text())))


def test_the_document_names_what_exists() -> None:
    named = _named_paths()
    assert len(named) >= 30, named
    where = {p: SRC if p.split("/")[0] in CODE else ROOT for p in named}
    missing = [p for p in named if not (list(where[p].glob(p)) if "*" in p else (where[p] / p).exists())]
    assert not missing, f"ARCHITECTURE.md names paths that do not exist: {missing}"


def test_every_package_and_cypher_folder_is_in_the_document() -> None:
    named = set(_named_paths())
    packages = {f"graph/{p.name}/" for p in (SRC / "graph").iterdir() if (p / "__init__.py").exists()}
    folders = {f"cypher/{p.name}/" for p in (ROOT / "cypher").iterdir() if p.is_dir()}
    assert not (packages | folders) - named, sorted((packages | folders) - named)
