"""The service's cycles in a child process (graph/background.py, GRIMOIRE_CURATOR_PROCESS): a cycle asked
for over REST runs in another process at the lowest CPU priority, learns what the same cycle on a thread
learns, gives way to the requests the service is serving (the counters are shared), and the child stops
with the service. A child killed mid-cycle answers 503, and the next call starts a new child, which
resumes the open cycle."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient

from grimoire.api.app import create_app
from grimoire.graph.embeddings import Embedder
from tests.conftest import ADMIN_KEY, Api, Neo4jUnderTest

AGENT, CLADE = "golem-process", "clade-process"


@contextmanager
def _service(db, neo4j_server: Neo4jUnderTest, embedder: Embedder, **learning: float) -> Iterator[Api]:
    """The API with its cycles in a child process (and these learning settings)."""
    settings = neo4j_server.settings(admin_key=ADMIN_KEY, curator_process=True, learning=learning)
    with TestClient(create_app(settings, db=db, embedder=embedder)) as c:
        yield Api(c, db)


def _cycle_beside_a_request(api: Api, h: dict[str, str], result: dict[str, Any]) -> threading.Thread:
    """POST /curator/cycles on a thread, started while the caller holds a request in flight."""
    t = threading.Thread(target=lambda: result.update(r=api.client.post("/curator/cycles", headers=h, json={})))
    t.start()
    return t


@pytest.fixture
def process_api(db, neo4j_server: Neo4jUnderTest, embedder: Embedder) -> Iterator[Api]:
    with _service(db, neo4j_server, embedder) as api:
        yield api


def _life(api: Api) -> dict[str, str]:
    """Five uniswap swaps that gained (a lesson to add) and four aave borrows that lost (a warning)."""
    h = api.headers(AGENT, CLADE)
    eps = [{"id": f"px-{tool}-{i}", "type": "action", "tool": tool, "chain": "1", "token_pair": pair, "tick": i,
            "regime": "bull", "outcome": outcome, "gain": gain,
            "text": f"{tool} on {pair} at tick {i} in a bull market: the action {verb}"}
           for tool, pair, outcome, gain, verb, n in [
               ("uniswap-swap", "WETH/USDC", "positive", 10.0, "filled with a gain", 5),
               ("aave-borrow", "WETH/DAI", "negative", -8.0, "lost money", 4)]
           for i in range(1, n + 1)]
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": eps})
    assert r.status_code == 201, r.text
    return h


def _ops(api: Api, h: dict[str, str], cycle_id: str) -> list[tuple[str, str | None, str]]:
    r = api.client.get(f"/curator/cycles/{cycle_id}/operations", headers=h)
    assert r.status_code == 200, r.text
    return sorted((op["op"], op.get("category"), op["reason"]) for op in r.json())


def test_a_cycle_over_rest_runs_in_a_nicer_child_process_and_learns_what_a_thread_learns(
        process_api: Api, api: Api) -> None:
    curator = process_api.client.app.state.services.curator
    assert curator.elsewhere is not None
    child = curator.elsewhere.pid()
    assert child != os.getpid()
    assert os.getpriority(os.PRIO_PROCESS, child) == 19  # the lowest priority: requests first

    h = _life(process_api)
    # Asked for through MCP (the header its tools send): the child's audit records note the channel.
    r = process_api.client.post("/curator/cycles", headers={**h, "X-Grimoire-Channel": "mcp"}, json={})
    assert r.status_code == 200, r.text
    in_child = r.json()
    cycle_records = [x for x in process_api.db.run("testing/audit_versions") if x["action"].startswith("curator.")]
    assert cycle_records and {x["channel"] for x in cycle_records} == {"mcp"}
    assert in_child["status"] == "complete"
    assert curator.elsewhere.pid() == child  # one child, reused
    child_ops = _ops(process_api, h, in_child["cycle"]["id"])
    assert ("ADD", "Heuristic") in {(op, cat) for op, cat, _ in child_ops}
    assert ("ADD", "Warning") in {(op, cat) for op, cat, _ in child_ops}

    # The same life on a thread of the service (the `api` fixture's app, curator_process off), from scratch.
    api.db.run("testing/delete_all")
    assert api.client.app.state.services.curator.elsewhere is None
    api._keys.clear()
    h = _life(api)
    r = api.client.post("/curator/cycles", headers=h, json={})
    assert r.status_code == 200, r.text
    assert r.json()["counts"] == in_child["counts"]
    assert _ops(api, h, r.json()["cycle"]["id"]) == child_ops


def test_the_child_waits_for_requests_in_flight_and_stops_with_the_service(
        db, neo4j_server: Neo4jUnderTest, embedder: Embedder) -> None:
    with _service(db, neo4j_server, embedder, yield_seconds=5.0, pause_ratio=0) as api:
        services = api.client.app.state.services
        child = services.curator.elsewhere.pid()
        h = _life(api)
        result: dict[str, Any] = {}
        # A request in flight, as the middleware counts it, for 1.5 s: the child's statements wait for it
        # (up to yield_seconds), so no cycle is opened meanwhile.
        with services.foreground.serving():
            t = _cycle_beside_a_request(api, h, result)
            time.sleep(1.5)
            assert db.fetch("learning/last_cycle", agent_id=AGENT) == []
        t.join(120)
        assert result["r"].status_code == 200, result["r"].text
        assert result["r"].json()["status"] == "complete"
        assert services.foreground.in_flight == 0
    # The service stopped: so did its child.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _alive(child):
        time.sleep(0.1)
    assert not _alive(child)


def test_a_child_killed_mid_cycle_answers_503_and_the_next_call_resumes_the_cycle(
        db, neo4j_server: Neo4jUnderTest, embedder: Embedder) -> None:
    # Each statement of the child waits up to 1 s for the request held in flight below: slow enough to
    # kill the child between two of them, after it opened the cycle.
    with _service(db, neo4j_server, embedder, yield_seconds=1.0, pause_ratio=0) as api:
        c = api.client
        curator = c.app.state.services.curator
        child = curator.elsewhere.pid()
        h = _life(api)
        result: dict[str, Any] = {}
        with c.app.state.services.foreground.serving():
            t = _cycle_beside_a_request(api, h, result)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not db.fetch("learning/last_cycle", agent_id=AGENT):
                time.sleep(0.05)
            [opened] = db.fetch("learning/last_cycle", agent_id=AGENT)
            assert opened["cycle"]["status"] == "running"
            os.kill(child, signal.SIGKILL)
            t.join(60)
        assert result["r"].status_code == 503, result["r"].text
        assert "resumes" in result["r"].json()["detail"]

        r = c.post("/curator/cycles", headers=h, json={})  # a new child
        assert r.status_code == 200, r.text
        assert r.json()["status"] == "complete" and r.json()["resumed"] is True
        assert r.json()["cycle"]["id"] == opened["cycle"]["id"]
        assert curator.elsewhere.pid() != child
        assert ("ADD", "Heuristic") in {(op, cat) for op, cat, _ in _ops(api, h, r.json()["cycle"]["id"])}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped) is not alive.
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"
