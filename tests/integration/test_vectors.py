"""Vectors from clients: every route that takes one refuses a vector Neo4j would refuse (or that
would poison an index) with a 422 naming the rule, and writes nothing."""

from __future__ import annotations

import json

import pytest

from grimoire.graph.model.vectors import vector_problem
from tests.conftest import counts
from tests.integration.test_fuzz import body_vector_paths

DIM = 384
BAD = {
    "zeros": ("[" + ",".join(["0.0"] * DIM) + "]", "norm"),
    "huge": ("[" + ",".join(["1e308"] * DIM) + "]", "float32"),
    "nan": ("[" + ",".join(["NaN"] * DIM) + "]", "finite"),
    "infinity": ("[" + ",".join(["0.1"] * (DIM - 1) + ["Infinity"]) + "]", "finite"),
    "minus_infinity": ("[" + ",".join(["-Infinity"] * DIM) + "]", "finite"),
    "underflow": ("[" + ",".join(["1e-30"] * DIM) + "]", "norm"),
}


@pytest.mark.parametrize(("values", "rule"), [
    ([0.0] * 4, "norm"), ([1e308, 1.0], "float32"), ([float("nan"), 1.0], "finite"), ([float("inf")], "finite"),
    ([1e-30] * 4, "norm"), ([1e20] * 4, "norm"), ([0.1, 0.2], None), ([-3.0], None),
])
def test_rules(values: list[float], rule: str | None) -> None:
    problem = vector_problem(values)
    assert (problem is None) if rule is None else problem.startswith(f"{rule}:"), problem
    assert vector_problem([0.1] * 3, 4).startswith("dimension:")


def _nest(path: tuple, raw: str) -> str:
    """A JSON body holding the raw vector text at `path` ("*" is a one-item list)."""
    out = raw
    for key in reversed(path):
        out = f"[{out}]" if key == "*" else "{" + json.dumps(key) + ": " + out + "}"
    return out


def test_every_route_that_takes_a_vector_refuses_degenerate_ones(api) -> None:
    h = {**api.headers("golem-1"), "content-type": "application/json"}
    schema = api.client.app.openapi()
    routes = {(method.upper(), path): body_vector_paths(schema, method, path)
              for path, ops in schema["paths"].items() for method in ops}
    routes = {k: v for k, v in routes.items() if v}
    # Today's vector routes; a new one is found through the schema and covered the same way.
    assert {("POST", "/search"), ("POST", "/retrieve"),
            ("POST", "/agents/{agent_id}/inherit-causal-graph")} <= set(routes)
    before = counts(api.db)
    for (method, path), vector_paths in routes.items():
        url = path.replace("{agent_id}", "golem-1")
        for name, (raw, rule) in BAD.items():
            for vpath in vector_paths:
                r = api.client.request(method, url, headers=h, content=_nest(vpath, raw))
                assert r.status_code == 422, (path, name, r.status_code, r.text)
                assert f"{rule}:" in r.text, (path, name, r.text)
    assert counts(api.db) == before


@pytest.mark.parametrize("name", sorted(BAD))
def test_search_and_retrieve_answer_422_with_the_rule(client, name: str) -> None:
    raw, rule = BAD[name]
    for path in ("/search", "/retrieve"):
        r = client.post(path, headers={"content-type": "application/json"}, content='{"vector": ' + raw + "}")
        assert r.status_code == 422, (path, r.text)
        assert rule in r.json()["detail"], r.json()
    wrong = client.post("/search", json={"vector": [0.1] * 12})
    assert wrong.status_code == 422 and "dimension: the vector has 12 dimensions" in wrong.text
    ok = client.post("/search", json={"vector": [0.05] * DIM})
    assert ok.status_code == 200, ok.text
