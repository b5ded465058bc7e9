"""The scheduler inside the API's process: the access log's prune job deletes old AccessRecords in
batches and keeps recent ones; the jobs are listed and run over the API by the admin only."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import ManagedTransaction

from grimoire.api.app import create_app
from grimoire.graph.audit import Access
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.ids import now_ms
from grimoire.graph.scheduler import Scheduler
from tests.conftest import ADMIN_KEY, Api, Neo4jUnderTest

DAY_MS = 86_400_000
JOB = "access_log.prune"
OLD, RECENT = 2_300, 5  # three transactions of at most 1,000


@pytest.fixture
def live(db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder) -> Iterator[Api]:
    """The API with its scheduler on, as `grimoire up` runs it."""
    app = create_app(neo4j_server.settings(admin_key=ADMIN_KEY, scheduler_enabled=True), db=db, embedder=embedder)
    with TestClient(app) as c:
        yield Api(c, db)
    scheduler: Scheduler = app.state.services.scheduler
    assert not scheduler.running and scheduler._thread is None  # the lifespan stopped it


def access_log(db: Database, ats: list[int]) -> None:
    def work(tx: ManagedTransaction) -> None:
        for at in ats:
            Access("retrieval.for_decision", "golem-1", at=at).write(tx, ["ep-1"], 1)

    db.write(work)


def access_ats(db: Database) -> list[int]:
    return sorted(r["record"]["at"] for r in db.fetch("testing/access_records"))


def job(client: TestClient) -> dict[str, Any]:
    r = client.get("/scheduler/jobs", headers={"X-API-Key": ADMIN_KEY})
    assert r.status_code == 200, r.text
    return next(j for j in r.json()["jobs"] if j["name"] == JOB)


def test_the_prune_job_deletes_old_access_records_and_keeps_recent_ones(live: Api) -> None:
    now = now_ms()
    old = [now - 40 * DAY_MS - i for i in range(OLD)]
    recent = [now - DAY_MS - i for i in range(RECENT)] + [now - 29 * DAY_MS]
    access_log(live.db, old + recent)
    assert len(access_ats(live.db)) == OLD + RECENT + 1

    r = live.client.get("/scheduler/jobs", headers=live.admin)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["scheduler_running"] is True
    before = next(j for j in body["jobs"] if j["name"] == JOB)
    assert before["every_seconds"] == 86_400 and before["runs"] == 0 and before["next_run_at"]
    assert "30 days" in before["description"]

    run = live.client.post(f"/scheduler/jobs/{JOB}/run", headers=live.admin)
    assert run.status_code == 202, run.text
    assert run.json()["job"]["name"] == JOB

    deadline = time.monotonic() + 60
    while (state := job(live.client))["runs"] < 1:
        assert time.monotonic() < deadline, state
        time.sleep(0.1)
    assert state["last_error"] is None and state["failures"] == 0 and not state["running"]
    assert state["last_result"] and state["last_result"].endswith("pruned")
    assert state["last_run_at"] and state["last_duration_ms"] is not None
    assert state["next_run_at"] == before["next_run_at"]  # a run on demand leaves the daily schedule alone
    # Under the job's lease (graph/leases.py), held by this replica while it ran.
    assert body["replica"] and state["lease"] == "once" and state["last_outcome"] == "ran"
    assert state["lease_holder"] == body["replica"] and state["lease_token"] >= 1 and state["skipped"] == 0
    assert access_ats(live.db) == sorted(recent)


def test_the_jobs_are_the_admins(live: Api) -> None:
    agent = live.headers("golem-1", scopes=("read", "write"))
    assert live.client.get("/scheduler/jobs").status_code == 401
    assert live.client.get("/scheduler/jobs", headers={"X-API-Key": "nope"}).status_code == 401
    assert live.client.get("/scheduler/jobs", headers=agent).status_code == 403
    assert live.client.post(f"/scheduler/jobs/{JOB}/run", headers=agent).status_code == 403
    assert live.client.post("/scheduler/jobs/nope/run", headers=agent).status_code == 403  # no leak of names
    assert live.client.post(f"/scheduler/jobs/{JOB}/run").status_code == 401
    missing = live.client.post("/scheduler/jobs/nope/run", headers=live.admin)
    assert missing.status_code == 404 and "nope" in missing.json()["detail"]


def test_with_the_scheduler_off_jobs_are_listed_and_not_run(api: Api) -> None:
    access_log(api.db, [now_ms() - 40 * DAY_MS])
    r = api.client.get("/scheduler/jobs", headers=api.admin)
    assert r.status_code == 200, r.text
    assert r.json()["scheduler_running"] is False
    listed = next(j for j in r.json()["jobs"] if j["name"] == JOB)
    assert listed["next_run_at"] is None and listed["runs"] == 0
    refused = api.client.post(f"/scheduler/jobs/{JOB}/run", headers=api.admin)
    assert refused.status_code == 409 and "GRIMOIRE_SCHEDULER" in refused.json()["detail"]
    assert len(access_ats(api.db)) == 1
