"""Every replica serves every request (issue 37, section 1): the service as separate processes on one Neo4j, each
answering with the same result; `--workers N` runs N of them behind one port; an event written through one replica
streams from another, in order, resumable with Last-Event-ID."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from grimoire.graph.db.connection import Database
from tests.conftest import ADMIN_KEY, Api, Neo4jUnderTest, clean_database
from tests.integration.test_events import Subscriber
from tests.replicas import Replica, replicas

ADMIN = {"X-API-Key": ADMIN_KEY}
HTTP = httpx.Client(timeout=120)  # generous: the replicas share two cores with Neo4j and the test


@pytest.fixture(scope="module")
def pair(neo4j_server: Neo4jUnderTest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Replica]]:
    with replicas(neo4j_server, tmp_path_factory.mktemp("replicas"), 2) as started:
        yield started


def _agent(url: str, agent: str) -> dict[str, str]:
    made = HTTP.post(f"{url}/agents", headers=ADMIN, json={"id": agent, "name": agent, "kind": "main",
                                                          "clade": "clade-r"})
    assert made.status_code in (201, 409), made.text
    key = HTTP.post(f"{url}/agents/{agent}/keys", headers=ADMIN, json={"scopes": ["read", "write"]})
    assert key.status_code == 201, key.text
    return {"X-API-Key": key.json()["key"]}


def _episodes(prefix: str, n: int) -> dict[str, Any]:
    return {"episodes": [{"id": f"{prefix}-{i}", "type": "observation",
                          "text": f"Replica test {prefix} {i}: the WETH borrow rate moved"} for i in range(n)]}


def test_an_event_written_through_one_replica_streams_from_another(pair: list[Replica], db: Database) -> None:
    a, b = pair
    h = _agent(a.url, "rep-events")
    on_a, on_b = (Api(httpx.Client(base_url=r.url, timeout=90), db) for r in pair)
    stream = Subscriber(on_b, h, want=3, max_seconds=60)
    stream.start()
    assert stream.subscribed.wait(60)
    for i in range(3):
        r = HTTP.post(f"{a.url}/episodes/batch", headers=h, json=_episodes(f"rep-ev{i}", 2))
        assert r.status_code == 201, r.text
        assert r.headers["x-grimoire-replica"] != HTTP.get(f"{b.url}/health").headers["x-grimoire-replica"]
    stream.join(60)
    assert not stream.is_alive(), stream.frames
    got = stream.events()
    listed = HTTP.get(f"{a.url}/events", headers=h).json()
    assert [e["id"] for e in got] == [e["id"] for e in listed]  # in order, each once
    # Resumed on the first replica after the first event the second one streamed: the two others, nothing else.
    resumed = Subscriber(on_a, {**h, "Last-Event-ID": stream.frames[0]["id"]}, want=2, max_seconds=60)
    resumed.start()
    resumed.join(60)
    assert [e["id"] for e in resumed.events()] == [e["id"] for e in listed[1:]]


def test_every_replica_answers_the_same(pair: list[Replica], db: Database) -> None:
    a, b = pair
    h = _agent(b.url, "rep-same")
    assert HTTP.post(f"{b.url}/episodes/batch", headers=h, json=_episodes("rep-same", 3)).status_code == 201
    for path in ("/episodes?limit=10", "/stats", "/agents/me"):
        assert HTTP.get(f"{a.url}{path}", headers=h).json() == HTTP.get(f"{b.url}{path}", headers=h).json(), path


def test_workers_are_replicas_behind_one_port(neo4j_server: Neo4jUnderTest, tmp_path: Path, db: Database) -> None:
    clean_database(db)
    with replicas(neo4j_server, tmp_path, 1, workers=2) as (service,):
        seen: set[str] = set()
        for _ in range(400):  # a new connection each time: the kernel hands each to one of the processes
            seen.add(HTTP.get(f"{service.url}/health", headers={"Connection": "close"}).headers["x-grimoire-replica"])
            if len(seen) == 2:
                break
        assert len(seen) == 2, seen
        assert len({s.split(":")[1] for s in seen}) == 2  # two processes


def test_a_key_revoked_through_one_replica_is_refused_by_every_other_within_the_key_cache(pair: list[Replica],
                                                                                          db: Database) -> None:
    """Each replica trusts a verified key for GRIMOIRE_KEY_CACHE_SECONDS (5 s) before it looks again: the stated
    staleness bound of that cache (README, Replicas and sizing). The replica that revokes drops it at once."""
    a, b = pair
    HTTP.post(f"{a.url}/agents", headers=ADMIN, json={"id": "rep-rev", "name": "rep-rev", "kind": "main",
                                                      "clade": "clade-r"})
    made = HTTP.post(f"{a.url}/agents/rep-rev/keys", headers=ADMIN, json={"scopes": ["read", "write"]}).json()
    h = {"X-API-Key": made["key"]}
    assert HTTP.get(f"{a.url}/agents/me", headers=h).status_code == 200  # cached on A
    assert HTTP.delete(f"{b.url}/keys/{made['id']}", headers=ADMIN).status_code == 200
    assert HTTP.get(f"{b.url}/agents/me", headers=h).status_code == 401  # at once where it was revoked
    time.sleep(5.5)
    assert HTTP.get(f"{a.url}/agents/me", headers=h).status_code == 401  # within the bound everywhere else
