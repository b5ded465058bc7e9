"""Database faults lose nothing: 503 while Neo4j is down, recovery without restarting the API,
an interrupted batch ingest re-sent counts every item once, concurrent votes lose no update."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from fastapi.testclient import TestClient

from grimoire.api.app import create_app
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.knowledge.entries import Knowledge, vote
from grimoire.graph.model.enums import VoteDirection
from grimoire.graph.visibility import Visibility
from tests.conftest import ADMIN_KEY, clean_database

ADMIN = {"X-API-Key": ADMIN_KEY}


def _key(client: TestClient, agent: str, clade: str) -> dict[str, str]:
    assert client.post("/agents", headers=ADMIN, json={"id": agent, "name": agent, "kind": "main",
                                                      "clade": clade}).status_code in (201, 409)
    made = client.post(f"/agents/{agent}/keys", headers=ADMIN, json={"scopes": ["read", "write"]})
    assert made.status_code == 201, made.text
    return {"X-API-Key": made.json()["key"]}


def _wait_until_ok(client: TestClient, path: str, headers: dict[str, str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    r = client.get(path, headers=headers)
    while r.status_code != 200 and time.monotonic() < deadline:
        time.sleep(0.5)
        r = client.get(path, headers=headers)
    assert r.status_code == 200, r.text


def test_every_endpoint_answers_503_quickly_while_down_and_recovers(local_neo4j, embedder: Embedder) -> None:
    local, server = local_neo4j
    db = Database(server.target())
    clean_database(db)
    app = create_app(server.settings(admin_key=ADMIN_KEY), embedder=embedder)
    with TestClient(app) as client:
        h = _key(client, "fault-1", "clade-f")
        ep = {"id": "f-1", "type": "observation", "text": "ETH funding turned negative"}
        assert client.post("/episodes", headers=h, json=ep).status_code == 201
        calls = [
            ("GET", "/episodes", None), ("GET", "/episodes/f-1", None), ("POST", "/episodes", ep),
            ("GET", "/entries", None), ("POST", "/admission/dry-run",
                                        {"category": "Insight", "content": "Funding flips precede squeezes"}),
            ("POST", "/search", {"text": "funding", "mode": "fulltext"}), ("GET", "/stats", None),
            ("GET", "/agents/me", None), ("GET", "/agents/fault-1/export", None),
            ("POST", "/retrieve", {"text": "funding"}),
            ("POST", "/analytics/pagerank", {"graph": "comention", "agent_id": "fault-1"}),
            ("POST", "/analytics/cascade", {"entity": "token:weth", "block": 1}),
            ("GET", "/analytics/runs", None),
        ]
        never_used = _key(client, "fault-2", "clade-f")  # not in the key cache: MCP must look it up
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fault", "version": "1"}}}
        mcp_headers = {**never_used, "accept": "application/json, text/event-stream"}
        local.stop()
        try:
            r = client.post("/mcp", headers=mcp_headers, json=init)  # MCP too: a 503, not the SDK's 500
            assert r.status_code == 503 and r.headers["Retry-After"], (r.status_code, r.text)
            for method, path, body in calls:
                started = time.monotonic()
                r = client.request(method, path, headers=h, json=body)
                assert r.status_code == 503, (path, r.status_code, r.text)
                assert "unavailable" in r.json()["detail"].lower() and r.headers["Retry-After"]
                assert time.monotonic() - started < 10, path  # answers quickly, does not hang
        finally:
            local.start()
        # The same app, never restarted, serves again once the database is back.
        _wait_until_ok(client, "/episodes/f-1", h)
        assert client.post("/mcp", headers=mcp_headers, json=init).status_code == 200
        assert client.post("/episodes", headers=h, json={**ep, "id": "f-2"}).status_code == 201
        assert {e["id"] for e in client.get("/episodes", headers=h).json()} == {"f-1", "f-2"}
        # GDS through the same client, reconnected: a co-mention graph needs mentions, so 404 here.
        assert client.post("/analytics/pagerank", headers=h,
                           json={"graph": "comention", "agent_id": "fault-1"}).status_code == 404
    db.close()


def test_batch_interrupted_by_a_restart_and_resent_counts_every_item_once(local_neo4j,
                                                                          embedder: Embedder) -> None:
    local, server = local_neo4j
    db = Database(server.target())
    clean_database(db)
    app = create_app(server.settings(admin_key=ADMIN_KEY), embedder=embedder)
    batch = [{"id": f"int-{i:05d}", "type": "observation", "block": 19_000_000 + i,
              "text": f"Pool {i % 37} reserve ratio moved {i % 11} bps at block {19_000_000 + i}"}
             for i in range(4000)]
    with TestClient(app) as client:
        h = _key(client, "fault-2", "clade-f")
        first: dict[str, object] = {}

        def send() -> None:
            r = client.post("/episodes/batch", headers=h, json={"episodes": batch})
            first.update(status=r.status_code, body=r.json())

        sender = threading.Thread(target=send)
        sender.start()
        deadline = time.monotonic() + 120
        written = 0
        while written == 0 and time.monotonic() < deadline:  # stop once the first chunk has committed
            time.sleep(0.2)
            written = db.run("testing/count_episodes")[0]["episodes"]
        assert 0 < written < len(batch), written
        local.stop()
        sender.join(timeout=120)
        assert not sender.is_alive()
        assert first["status"] == 503, first  # the client is told, and knows to re-send
        local.start()
        _wait_until_ok(client, "/agents/me", h)
        again = client.post("/episodes/batch", headers=h, json={"episodes": batch})
        assert again.status_code == 201, again.text
        body = again.json()
        assert len(body["created"]) + len(body["existing"]) == len(batch)
        assert len(body["existing"]) >= written  # what had committed is recognised, not written twice
    row = db.run("testing/count_episodes")[0]
    assert row == {"episodes": len(batch), "distinct_ids": len(batch)}
    db.close()


UP, DOWN, FLOOR = 0.1, 0.15, 0.05  # the vote rules (spec, graph/knowledge/decay.py): +0.1 capped at 1, -0.15 floored


def _after_votes(confidence: float, directions: list[VoteDirection]) -> float:
    """The confidence the vote rules give after these votes, applied one at a time."""
    for d in directions:
        confidence = min(1.0, confidence + UP) if d == VoteDirection.up else max(FLOOR, confidence - DOWN)
    return confidence


def test_concurrent_votes_lose_no_update(api, db, embedder: Embedder) -> None:
    """Votes cast at once by many threads are serialised on the entry: every vote is counted and
    the confidence is what the rules give for those votes. Each round is chosen so that the result
    does not depend on the order the votes land in."""
    h = api.headers("voter", "clade-v")
    made = api.client.post("/entries", headers=h, json={
        "id": "contested", "category": "Insight", "confidence": 0.5,
        "content": "Stablecoin depegs above 2% revert within 24 hours on Curve"})
    assert made.status_code == 201 and made.json()["entry_id"] == "contested", made.text
    assert api.client.get("/entries/contested", headers=h).json()["confidence"] == 0.5
    knowledge = Knowledge(db=db, embedder=embedder)
    visibility = Visibility.everything()

    def at_once(directions: list[VoteDirection]) -> None:
        start = threading.Barrier(len(directions))

        def cast(direction: VoteDirection) -> None:
            start.wait()
            vote(knowledge, "contested", direction, actor="voter", visibility=visibility)

        with ThreadPoolExecutor(max_workers=len(directions)) as pool:
            list(pool.map(cast, directions))

    rounds = [
        # Mixed: from 0.5, no order of 4 ups and 2 downs reaches the cap (0.9 at most) or the floor
        # (0.2 at least), so any interleaving ends at 0.5 + 0.4 - 0.3.
        [VoteDirection.up, VoteDirection.down] * 2 + [VoteDirection.up] * 2,
        # 12 downs: down to the floor, whatever the order (they are all alike).
        [VoteDirection.down] * 12,
        # 9 ups from the floor: 0.95, under the cap, so each one shows in the confidence.
        [VoteDirection.up] * 9,
    ]
    confidence, ups, downs = 0.5, 0, 0
    for directions in rounds:
        at_once(directions)
        confidence = _after_votes(confidence, directions)
        ups += directions.count(VoteDirection.up)
        downs += directions.count(VoteDirection.down)
        after = api.client.get("/entries/contested", headers=h).json()
        assert after["validated_count"] == ups and after["contradicted_count"] == downs, directions
        assert after["confidence"] == pytest.approx(confidence, abs=1e-9), directions
    assert [round(c, 9) for c in (_after_votes(0.5, rounds[0]), _after_votes(0.6, rounds[1]))] == [0.6, FLOOR]
    assert confidence == pytest.approx(0.95) and (ups, downs) == (13, 14)
    actions = db.run("testing/audit_actions")[0]["actions"]
    assert actions.count("entry.upvote") == ups and actions.count("entry.downvote") == downs
