"""Schemathesis generates requests from the OpenAPI spec, valid and not, for every operation:
none may get a 5xx, and every 4xx answers the one error shape (RFC 9457 problem details, api/errors.py).
Bounded by examples per operation and a time budget for the whole run."""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Iterator

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error

from grimoire.api.app import create_app
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from tests.conftest import ADMIN_KEY, Neo4jUnderTest, clean_database

EXAMPLES_PER_OPERATION = 20
BUDGET_SECONDS = 480.0  # the whole run (about 70 operations)
# An open-ended stream: a generated request without max_seconds would never end. Its bad input is
# the listing's (same filters), fuzzed on GET /events; test_events drives the stream itself.
STREAMS = {("GET", "/events/stream")}
ADMIN_ONLY = {("POST", "/agents"), ("POST", "/agents/import"), ("POST", "/agents/{agent_id}/keys"),
              ("GET", "/agents/{agent_id}/keys")}


@schemathesis.serializer("application/x-ndjson")
def _ndjson(_ctx, value) -> bytes:
    # The import body is a string of JSON lines; generated strings go in as they are.
    return value.encode() if isinstance(value, str) else json.dumps(value).encode()


class Fuzz:
    def __init__(self, app, agent_key: str):
        self.app = app
        self.agent = {"X-API-Key": agent_key}
        self.started = time.monotonic()
        self.calls = 0
        self.operations = 0
        self.statuses: dict[int, int] = {}
        self.problems = 0  # 4xx answers checked for the problem details' shape


@pytest.fixture(scope="module")
def fuzz(neo4j_server: Neo4jUnderTest, session_db: Database, embedder: Embedder) -> Iterator[Fuzz]:
    clean_database(session_db)
    app = create_app(neo4j_server.settings(admin_key=ADMIN_KEY), db=session_db, embedder=embedder)
    with TestClient(app) as c:
        admin = {"X-API-Key": ADMIN_KEY}
        assert c.post("/agents", headers=admin, json={"id": "fuzzer", "name": "fuzzer", "kind": "main",
                                                     "clade": "clade-z"}).status_code == 201
        key = c.post("/agents/fuzzer/keys", headers=admin, json={"scopes": ["read", "write"]}).json()["key"]
        # Something to find, so reads and traversals have rows to work on.
        c.post("/episodes", headers={"X-API-Key": key}, json={
            "id": "seed-1", "type": "observation", "text": "USDC depegged to 0.97 on Curve",
            "mentions": [{"kind": "Token", "name": "USDC"}]})
        c.post("/entries", headers={"X-API-Key": key}, json={
            "id": "seed-entry", "category": "Warning", "content": "Depegs below 0.98 widen Curve spreads"})
        yield Fuzz(app, key)


DIMENSION = 384
# Vectors Neo4j refuses (zero norm, float32 overflow, norm underflow, wrong dimension) beside a
# valid one; schemathesis alone draws small lists that a dimension check stops before these rules.
DEGENERATE_VECTORS = [[0.0] * DIMENSION, [1e308] * DIMENSION, [-1e39] + [0.1] * (DIMENSION - 1),
                      [1e-30] * DIMENSION, [0.1] * (DIMENSION - 1), [0.05] * DIMENSION]


def vector_paths(schema: dict, node: dict, path: tuple = ()) -> list[tuple]:
    """Where the request body carries a vector (the x-vector mark of graph/model/vectors.py); "*" for
    every item of a list."""
    if "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    if node.get("x-vector"):
        return [path]
    found = [p for alt in node.get("anyOf", []) + node.get("allOf", []) for p in vector_paths(schema, alt, path)]
    for name, prop in node.get("properties", {}).items():
        found += vector_paths(schema, prop, (*path, name))
    if node.get("type") == "array" and isinstance(node.get("items"), dict):
        found += vector_paths(schema, node["items"], (*path, "*"))
    return found


def body_vector_paths(schema: dict, method: str, path: str) -> list[tuple]:
    content = schema["paths"][path][method].get("requestBody", {}).get("content", {})
    body = content.get("application/json", {}).get("schema")
    return sorted(set(vector_paths(schema, body))) if body else []


def _put(body, path: tuple, value) -> None:
    """Set every place `path` names in a generated body (where the body has that shape)."""
    if not path:
        return
    head, rest = path[0], path[1:]
    targets = (range(len(body)) if head == "*" and isinstance(body, list)
               else [head] if isinstance(body, dict) and head in body else [])
    for t in targets:
        if rest:
            _put(body[t], rest, value)
        else:
            body[t] = list(value)


def _examples(operation, key: dict[str, str], fuzz: Fuzz, vectors: list[tuple]):
    cases = operation.as_strategy()
    if vectors:
        cases = st.tuples(cases, st.sampled_from(DEGENERATE_VECTORS)).map(lambda cv: _with_vector(*cv, vectors))

    @given(case=cases)
    @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, derandomize=True, database=None,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    def run(case) -> None:
        response = case.call(headers={**(case.headers or {}), **key})
        fuzz.calls += 1
        fuzz.statuses[response.status_code] = fuzz.statuses.get(response.status_code, 0) + 1
        case.validate_response(response, checks=[not_a_server_error])
        if 400 <= response.status_code < 500:
            assert_problem(response.status_code, response.headers, response.json(), operation.path)
            fuzz.problems += 1

    return run


PROBLEM_MEMBERS = {"type", "title", "status", "detail", "instance", "request_id", "errors"}


def assert_problem(status: int, headers: dict[str, list[str]], body: object, template: str) -> None:
    """An error answer in the one shape: application/problem+json with RFC 9457's members, the status its own,
    a message a person reads in `detail`, the path asked in `instance` (the template's fixed part leads it: a
    generated id may hold characters the HTTP client drops), and a schema's field errors (location, message,
    type) in `errors`."""
    assert headers.get("content-type") == ["application/problem+json"], (status, headers)
    assert isinstance(body, dict) and set(body) <= PROBLEM_MEMBERS, body
    assert body["type"] == "about:blank" and body["status"] == status and body["title"], body
    assert isinstance(body["detail"], str) and body["detail"].strip(), body
    fixed = template.split("{", 1)[0]
    assert isinstance(body["instance"], str) and body["instance"].startswith(fixed), (template, body)
    assert isinstance(body["request_id"], str) and body["request_id"], body
    errors = body.get("errors", [])
    assert isinstance(errors, list) and all(set(e) == {"loc", "msg", "type"} for e in errors), body


def _with_vector(case, vector: list[float], paths: list[tuple]):
    case.body = copy.deepcopy(case.body)
    for path in paths:
        _put(case.body, path, vector)
    return case


def test_no_operation_answers_5xx(fuzz: Fuzz) -> None:
    # Driven through Hypothesis directly: schemathesis's pytest plugin does not load under pytest 9.
    schema = schemathesis.openapi.from_asgi("/openapi.json", fuzz.app)
    operations = [op for op in (result.ok() for result in schema.get_all_operations())
                  if (op.method.upper(), op.path) not in STREAMS]
    assert len(operations) >= 20
    failures: list[str] = []
    for operation in operations:
        if time.monotonic() - fuzz.started > BUDGET_SECONDS:
            break  # the time bound; the operations left are reported below
        admin_only = (operation.method.upper(), operation.path) in ADMIN_ONLY
        key = {"X-API-Key": ADMIN_KEY} if admin_only else fuzz.agent

        run = _examples(operation, key, fuzz, body_vector_paths(fuzz.app.openapi(), operation.method, operation.path))
        try:
            run()
        except Exception as exc:  # keep going: one report for every operation that failed
            inner = exc.exceptions[0] if isinstance(exc, BaseExceptionGroup) and exc.exceptions else None
            failures.append(f"{operation.label}: {str(exc)[:800]}" + (f" <- {inner!r}"[:800] if inner else ""))
        fuzz.operations += 1
    assert not failures, "\n\n".join(failures)
    assert fuzz.operations == len(operations), f"only {fuzz.operations} of {len(operations)} within the budget"
    assert fuzz.calls >= 10 * len(operations) and 200 in fuzz.statuses, fuzz.statuses
    assert any(400 <= s < 500 for s in fuzz.statuses), fuzz.statuses
    assert fuzz.problems == sum(n for s, n in fuzz.statuses.items() if 400 <= s < 500) > 0, fuzz.statuses
    assert fuzz.statuses.get(422, 0) > 0, fuzz.statuses  # the schema's refusals, with their field errors
