"""README.md says what the code does: its configuration and route tables are what the code generates,
every route and variable it names exists, and the figures and versions it quotes are the real ones."""

from __future__ import annotations

import json
import re
from importlib import metadata
from importlib.resources import files
from pathlib import Path

import pytest
from fastapi import FastAPI
from pydantic import Field

from grimoire.api import readme
from grimoire.api.app import create_app
from grimoire.api.cli import main
from grimoire.graph.settings import PROJECT_ROOT, Settings

TEXT = readme.README.read_text()
FLAT = " ".join(TEXT.split())  # prose with its line breaks undone
METHODS = "GET|POST|PUT|PATCH|DELETE"
# `GET /entries/{id}` or `GET /entities/resolve?q=` in inline code.
NAMED_ROUTE = re.compile(rf"`({METHODS}) (/[^`?\s]*)(?:\?[^`]*)?`")
PARAM = re.compile(r"\{[^}]+\}")
CURL = re.compile(r"curl\b(?P<args>[^\n]*?)(?:-X (?P<method>[A-Z]+) )?[\"']?localhost:8000(?P<path>/[^\s\"'?]*)")
QUANTIZATION_ROW = "| `GRIMOIRE_VECTOR_QUANTIZATION` | `false` |"


@pytest.fixture(scope="module")
def app() -> FastAPI:
    return create_app(Settings())


def _template(path: str) -> str:
    return PARAM.sub("{}", path)


def app_routes(app: FastAPI) -> set[tuple[str, str]]:
    """(method, path template) of every route: the OpenAPI schema's and the docs pages outside it."""
    routes = {(method.upper(), _template(path)) for path, ops in app.openapi()["paths"].items() for method in ops}
    for route in app.routes:
        path, methods = getattr(route, "path", None), getattr(route, "methods", None)
        if path and methods:
            routes |= {(method, _template(path)) for method in methods}
    return routes


def named_routes(text: str) -> set[tuple[str, str]]:
    return {(method, _template(path)) for method, path in NAMED_ROUTE.findall(text)}


def test_configuration_table_is_generated_from_the_settings_model() -> None:
    assert readme.section(TEXT, readme.CONFIG_TABLE) == readme.config_table(), (
        "README.md's configuration table differs from graph/settings.py: run `grimoire config table --write`")


def test_the_table_has_a_row_per_setting_with_its_real_default() -> None:
    table = readme.config_table()
    rows = table.splitlines()[2:]
    assert len(rows) == len(Settings.model_fields)
    assert QUANTIZATION_ROW in rows[[f.alias for f in Settings.model_fields.values()].index(
        "GRIMOIRE_VECTOR_QUANTIZATION")]
    assert "| `NEO4J_URI` | unset |" in table
    assert "| `GRIMOIRE_NEO4J_HOME` | `.neo4j/home` |" in table
    assert "| `GRIMOIRE_MAX_BODY_BYTES` | `33554432` |" in table
    assert "| `GRIMOIRE_ADMISSION` | `AdmissionConfig` (`graph/knowledge/admission.py`) |" in table
    for field in Settings.model_fields.values():
        assert field.description and " ".join(field.description.split()) in table


def test_a_drifted_table_is_caught() -> None:
    """The issue's case: the README said quantization defaults to true."""
    drifted = TEXT.replace(QUANTIZATION_ROW, "| `GRIMOIRE_VECTOR_QUANTIZATION` | `true` |")
    assert drifted != TEXT
    assert readme.section(drifted, readme.CONFIG_TABLE) != readme.config_table()


def test_a_new_setting_is_picked_up_and_must_have_a_description() -> None:
    class More(Settings):
        new_knob: int = Field(default=3, alias="GRIMOIRE_NEW_KNOB", description="A knob | with a pipe.")

    class Undescribed(Settings):
        bare: int = Field(default=1, alias="GRIMOIRE_BARE")

    assert readme.config_table(More).endswith("\n| `GRIMOIRE_NEW_KNOB` | `3` | A knob \\| with a pipe. |")
    with pytest.raises(ValueError, match="Settings.bare has no description"):
        readme.config_table(Undescribed)


def test_the_cli_prints_and_rewrites_the_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "table"]) == 0
    assert capsys.readouterr().out == readme.config_table() + "\n"
    copy = tmp_path / "README.md"
    copy.write_text(TEXT.replace(QUANTIZATION_ROW, "| `GRIMOIRE_VECTOR_QUANTIZATION` | `true` |")
                    .replace("| `POST /retrieve` |", "| `POST /recall` |"))
    assert main(["config", "table", "--write", "--readme", str(copy)]) == 0
    assert main(["routes", "table", "--write", "--readme", str(copy)]) == 0
    assert copy.read_text() == TEXT
    assert main(["config", "table", "--write", "--readme", str(copy)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith("config-table already up to date")
    copy.write_text("# no tables here\n")
    assert main(["routes", "table", "--write", "--readme", str(copy)]) == 1
    assert "no generated section 'route-table'" in capsys.readouterr().err


def test_route_table_is_generated_from_the_app(app: FastAPI) -> None:
    assert readme.section(TEXT, readme.ROUTE_TABLE) == readme.route_table(app.openapi()), (
        "README.md's route table differs from the app's routes: run `grimoire routes table --write`")


def test_every_route_the_readme_names_exists(app: FastAPI) -> None:
    named = named_routes(TEXT)
    assert len(named) >= len(app.openapi()["paths"])  # the route table names each one
    assert {("GET", "/docs"), ("GET", "/redoc"), ("POST", "/entries/{}/outcome")} <= named
    assert named - app_routes(app) == set()


def test_the_route_check_catches_a_route_that_does_not_exist(app: FastAPI) -> None:
    named = named_routes("`POST /entries/{id}/promote` and `GET /entries/batch` and `POST /retrieve`")
    assert named - app_routes(app) == {("POST", "/entries/{}/promote"), ("GET", "/entries/batch")}


def test_every_curl_example_calls_a_route(app: FastAPI) -> None:
    patterns = [(method, re.compile("^" + re.escape(path).replace(r"\{\}", "[^/]+") + "$"))
                for method, path in app_routes(app)]
    calls = [(m["method"] or ("POST" if " -d " in m["args"] else "GET"), m["path"]) for m in CURL.finditer(TEXT)]
    assert len(calls) >= 10
    for method, path in calls:
        assert any(method == m and pattern.match(path) for m, pattern in patterns), (method, path)


def test_every_variable_the_readme_names_is_read_and_every_one_read_is_named() -> None:
    named = set(re.findall(r"\b(?:GRIMOIRE|NEO4J)_[A-Z0-9_]+\b", TEXT))
    settings = {field.alias for field in Settings.model_fields.values()}
    code = {path: path.read_text() for folder in ("grimoire",)
            for path in (PROJECT_ROOT / folder).rglob("*.py")}
    read = {name for text in code.values()
            for name in re.findall(r"environ(?:\.get\(|\[)\s*['\"]((?:GRIMOIRE|NEO4J)_[A-Z0-9_]+)", text)}
    assert settings <= named
    assert named - settings - read == set()
    assert read - named == set()


def test_the_locomo_figures_are_the_benchmarks_results() -> None:
    results = json.loads((PROJECT_ROOT / "bench" / "results" / "locomo.json").read_text())
    row = next(line for line in TEXT.splitlines() if line.startswith("| `locomo` |"))
    for label, key in (("vector", "vector"), ("BM25", "bm25"), ("RRF", "vector+bm25 (RRF)"),
                       ("full pipeline", "full pipeline")):
        assert f"{label} {results['results'][key]['recall@10']:.3f}" in row
    assert f"+{results['full_minus_fusion_recall@10_points']} points" in row
    assert f"{results['conversations']} conversations of `{results['data']}`" in row
    assert f"{results['results']['full pipeline']['questions']} questions" in row
    held = results["leave_one_out"]["held_out"]["recall@10"]
    assert f"held-out recall@10 {held['mean']:.3f} ± {held['spread']:.3f}" in row


def test_the_docs_assets_versions_and_licenses_are_recorded() -> None:
    version, meta = metadata.version("fastapi-offline"), metadata.metadata("fastapi-offline")
    assert f"package, version {version} ({meta['License']})" in FLAT
    static = files("fastapi_offline") / "static"
    swagger = re.search(r'PACKAGE_VERSION:"([\d.]+)"', (static / "swagger-ui-bundle.js").read_text())
    redoc = re.search(r'ReDoc Version: ","([\d.]+)"', (static / "redoc.standalone.js").read_text())
    assert swagger and redoc
    assert f"bundles Swagger UI {swagger[1]} (Apache-2.0) and ReDoc {redoc[1]} (MIT)" in FLAT


def test_ci_lints_then_tests_as_the_readme_says() -> None:
    assert "CI (`.ci/run`) runs `make lint`, then `make test`" in FLAT
    commands = [line for line in (PROJECT_ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("make ")]
    assert commands == ["make lint", "make test"]
