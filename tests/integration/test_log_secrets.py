"""Structured logs (issue 40, part 3): with GRIMOIRE_LOG_FORMAT=json every line is one JSON object (level, logger,
message, request id, trace and span ids, agent, route; a request's own line its method, status and duration), and
no line carries a key or an item's text: the test sends a key and a marker through every route (the audit walk's
cases for those that change something or take a body, every GET with the marker in its path and query) at the
DEBUG level and reads everything logged."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from grimoire.api.app import create_app
from grimoire.graph import logs
from tests.conftest import ADMIN_KEY, Api
from tests.integration import test_audit_routes as walk

MARKER = "wombatmarker"
FIELDS = {"time", "level", "logger", "message", "request_id", "trace_id", "span_id", "agent_id", "route"}


@pytest.fixture
def json_logged(db: Any, neo4j_server: Any, embedder: Any) -> Iterator[tuple[Api, io.StringIO]]:
    settings = neo4j_server.settings(admin_key=ADMIN_KEY, log_format="json", log_level="DEBUG")
    written = io.StringIO()
    try:
        with TestClient(create_app(settings, db=db, embedder=embedder)) as c:
            ours = logs.handler()
            assert ours is not None and isinstance(ours.formatter, logs.JsonLines)
            ours.setStream(written)  # type: ignore[attr-defined]
            yield Api(c, db), written
    finally:
        logs.configure("INFO")


def _marked(w: walk.World) -> None:
    """The marker in items' text, in queries and in a key no one has."""
    w.ok(w.post("/entries", json={"id": "walk-marker", "category": "Insight",
                                  "content": f"{MARKER} lending rates rose after the unlock"}))
    w.ok(w.post("/episodes", json={"type": "observation", "text": f"{MARKER} gas fell to 3 gwei"}))
    w.ok(w.post("/retrieve", json={"text": f"{MARKER} lending", "k": 3, "explain": True}))
    w.ok(w.post("/search", json={"text": f"{MARKER} gas", "k": 3}))
    w.ok(w.post("/search", json={"text": f"{MARKER} gas", "k": 3, "mode": "fulltext"}))
    w.ok(w.post(f"/agents/{walk.AGENT}/messages", json={"text": f"Remember that {MARKER} runs the desk."}))
    assert w.post("/retrieve", headers={"X-API-Key": f"{MARKER}-not-a-key"}, json={"text": "x"}).status_code == 401
    bearer = {"Authorization": f"Bearer {w.h['X-API-Key']}"}
    assert w.api.client.get("/episodes", headers=bearer).status_code == 200


def _gets(w: walk.World) -> list[str]:
    """Every GET route, its path parameters filled in (the agent's id, else the marker's entry) and the marker in
    its query; the routes called."""
    paths = w.api.client.get("/openapi.json").json()["paths"]
    called = []
    for path, ops in paths.items():
        if "get" not in ops or "text/event-stream" in ops["get"].get("responses", {}).get("200", {}).get("content", {}):
            continue  # a stream lasts as long as its client: test_events.py reads them
        filled = re.sub(r"\{agent_id\}", walk.AGENT, path)
        filled = re.sub(r"\{[^}]+\}", "walk-marker", filled)
        w.api.client.get(filled, headers=w.h, params={"text": MARKER, "q": MARKER, "query": MARKER})
        called.append(path)
    return called


def test_json_lines_carry_no_key_and_no_item_text(json_logged: tuple[Api, io.StringIO]) -> None:
    api, written = json_logged
    w = walk.World(api, api.headers(walk.AGENT, walk.CLADE),
                   api.headers(walk.AGENT, walk.CLADE, scopes=("read", "person")))
    _marked(w)
    for case in [*walk.MUTATING.values(), *walk.ACCESS.values(), *(c for _, c in walk.READS.values())]:
        case(w)()
    assert len(_gets(w)) > 50
    logging.getLogger("grimoire.api.requests").info("the walk is done")  # the handler is still ours

    lines = written.getvalue().splitlines()
    records = [json.loads(line) for line in lines]  # each line one JSON object
    assert records and all(set(r) >= FIELDS for r in records)
    keys = {ADMIN_KEY, *api._keys.values()}
    leaks = [r for line, r in zip(lines, records, strict=True)
             if any(s in line for s in (MARKER, walk.GAS, walk.FUNDING, *keys))]
    assert not leaks, ({r["logger"] for r in leaks}, [r["message"][:300] for r in leaks[:10]])

    requests = [r for r in records if r["logger"] == "grimoire.api.requests" and "status" in r]
    assert len(requests) > 100
    retrieve = [r for r in requests if r["route"] == "/retrieve" and r["status"] == 200]
    assert retrieve and all(r["agent_id"] == walk.AGENT and r["duration_ms"] >= 0 and r["method"] == "POST"
                            and len(r["request_id"]) == 32 for r in retrieve)
    assert any(r["status"] == 401 and r["route"] == "/retrieve" for r in requests)
    assert {r["level"] for r in records} >= {"INFO", "DEBUG"}
