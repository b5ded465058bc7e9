"""Faults under load (issue 37, section 7): two replicas behind one port (`grimoire serve --workers 2`) busy with the
mixed profile (four retrievals, then a batch of 20 episodes, per user) through the typed client as agents use it.
One replica killed with SIGKILL and brought back; Neo4j stopped for 20 s and started again. Each time the clients
see no error (their retries absorb the fault), every episode the service acknowledged is there afterwards, the
scheduler's jobs carry on (a job's lease reaches later periods), and /health said what was wrong while it was."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from grimoire.graph.db.connection import Database
from tests.conftest import ADMIN_KEY, Neo4jUnderTest, clean_database
from tests.load_clients import Load
from tests.replicas import Replica

ADMIN = {"X-API-Key": ADMIN_KEY}
HTTP = httpx.Client(timeout=120)
JOB = "crystals.lifespan"  # a job run once per period across the replicas: every 2 s here
SCHEDULED = {"GRIMOIRE_SCHEDULER": "true", "GRIMOIRE_LEASE_SECONDS": "6",
             "GRIMOIRE_CRYSTALS": '{"lifespan_interval_seconds": 2}'}


@pytest.fixture
def service(neo4j_server: Neo4jUnderTest, tmp_path: Path, db: Database) -> Iterator[Replica]:
    clean_database(db)
    replica = Replica(neo4j_server, tmp_path, "pair", dict(SCHEDULED), workers=2).start()
    try:
        yield replica
    finally:
        replica.stop()


def _keys(url: str, n: int) -> list[str]:
    keys = []
    for i in range(n):
        agent = f"load-agent-{i}"
        made = HTTP.post(f"{url}/agents", headers=ADMIN, json={"id": agent, "name": agent, "kind": "main",
                                                              "clade": "clade-load"})
        assert made.status_code in (201, 409), made.text
        key = HTTP.post(f"{url}/agents/{agent}/keys", headers=ADMIN, json={"scopes": ["read", "write"]})
        assert key.status_code == 201, key.text
        keys.append(key.json()["key"])
    return keys


def _workers(supervisor: int) -> list[int]:
    """The uvicorn supervisor's worker processes (its children that serve; not multiprocessing's tracker)."""
    found = []
    for child in Path(f"/proc/{supervisor}/task/{supervisor}/children").read_text().split():
        cmdline = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
        if b"resource_tracker" not in cmdline:
            found.append(int(child))
    return found


def _replicas_answering(url: str, tries: int = 400) -> set[str]:
    seen: set[str] = set()
    for _ in range(tries):
        seen.add(HTTP.get(f"{url}/health", headers={"Connection": "close"}).headers["x-grimoire-replica"])
        if len(seen) == 2:
            break
    return seen


def _period(db: Database) -> int:
    rows = db.rows("leases/leases", names=[JOB])
    return int(rows[0]["period"]) if rows and rows[0]["period"] is not None else -1


def _wait_period_past(db: Database, period: int, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while _period(db) <= period:
        assert time.monotonic() < deadline, f"job {JOB} did not run past period {period}"
        time.sleep(0.5)


def _all_there(db: Database, ids: set[str]) -> None:
    found = {r["id"] for r in db.rows("testing/episodes_with_ids", ids=sorted(ids))}
    assert found == ids, f"{len(ids - found)} acknowledged episodes missing: {sorted(ids - found)[:5]}"


def test_a_replica_killed_under_load_loses_nothing(service: Replica, db: Database) -> None:
    assert service.proc is not None
    load = Load(service.url, _keys(service.url, 2), users=4).start()
    try:
        load.wait_served(30)
        _wait_period_past(db, -1)  # the scheduler runs before the fault
        before = _replicas_answering(service.url)
        assert len(before) == 2, before
        victim = _workers(service.proc.pid)[0]
        os.kill(victim, signal.SIGKILL)  # no shutdown hook, its leases left to expire
        period_at_kill = _period(db)
        load.wait_served(30)  # the other replica serves meanwhile
        # uvicorn's supervisor brings a replica back in place of the killed one: two answer again, one of them new.
        deadline = time.monotonic() + 240
        while True:
            now = _replicas_answering(service.url)
            if len(now) == 2 and now != before:
                break
            assert time.monotonic() < deadline, f"no replica came back: {now}"
            time.sleep(1)
        assert not any(f":{victim}:" in r for r in now)
        _wait_period_past(db, period_at_kill)  # the jobs carry on after the kill
        load.wait_served(20)
    finally:
        load.stop()
    assert not load.errors, load.errors
    assert load.acknowledged
    _all_there(db, load.acknowledged)


def test_neo4j_stopped_under_load_loses_nothing(service: Replica, db: Database, local_neo4j) -> None:
    local, _ = local_neo4j
    # Patient enough for the outage: 20 s down, and however long the server takes to stop and start again.
    load = Load(service.url, _keys(service.url, 2), users=4, retries=40).start()
    try:
        load.wait_served(30)
        _wait_period_past(db, -1)
        local.stop()
        try:
            started = time.monotonic()
            down = HTTP.get(f"{service.url}/health")
            assert down.status_code == 503 and down.headers["Retry-After"], down.text
            assert "unreachable" in down.json()["detail"]  # /health says what is wrong while it is
            time.sleep(max(0.0, 20 - (time.monotonic() - started)))
        finally:
            local.start()
        deadline = time.monotonic() + 120
        while HTTP.get(f"{service.url}/health").status_code != 200:
            assert time.monotonic() < deadline, "the service did not recover"
            time.sleep(0.5)
        period_after = _period(db)
        load.wait_served(30)  # served again without a restart
        _wait_period_past(db, period_after)  # the jobs carry on
    finally:
        load.stop()
    assert not load.errors, load.errors
    assert load.acknowledged
    _all_there(db, load.acknowledged)
