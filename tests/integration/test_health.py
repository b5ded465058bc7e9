"""/health reports versions while Neo4j is up, 503 while it is down, and recovers by itself."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient

from grimoire.api.app import create_app
from grimoire.graph.embeddings import Embedder
from grimoire.graph.scheduler import Job
from tests.conftest import Neo4jUnderTest


def test_openapi_docs(neo4j_server: Neo4jUnderTest, embedder: Embedder, db) -> None:
    with TestClient(create_app(neo4j_server.settings(), embedder=embedder)) as client:
        assert client.get("/docs").status_code == 200
        spec = client.get("/openapi.json").json()
        assert "/health" in spec["paths"]
        assert "503" in spec["paths"]["/health"]["get"]["responses"]


def test_health_down_and_back_without_restarting_the_api(local_neo4j, embedder: Embedder) -> None:
    local, server = local_neo4j
    with TestClient(create_app(server.settings(), embedder=embedder)) as client:
        up = client.get("/health")
        assert up.status_code == 200, up.text
        body = up.json()
        assert body["status"] == "ok"
        assert body["neo4j"]["version"].startswith("5.26.")
        assert body["gds_version"].startswith("2.13.")
        assert body["apoc_version"].startswith("5.26.")
        assert body["embedding"] == {"model": embedder.model_name, "dimension": 384}
        names = {ix["name"]: ix["state"] for ix in body["indexes"]}
        assert names["episode_embedding"] == "ONLINE" and names["episode_search"] == "ONLINE"

        local.stop()
        started = time.monotonic()
        down = client.get("/health")
        assert down.status_code == 503, down.text
        assert "unreachable" in down.json()["detail"]
        assert time.monotonic() - started < 10  # answers quickly, does not hang

        local.start()
        deadline = time.monotonic() + 30
        again = client.get("/health")
        while again.status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.5)
            again = client.get("/health")
        assert again.status_code == 200, again.text
        assert again.json()["gds_version"].startswith("2.13.")


def test_health_says_what_is_degraded(neo4j_server: Neo4jUnderTest, embedder: Embedder, db) -> None:
    """A failing job, a vector index being rebuilt and a scheduler that should run but does not: each named, the
    service still answering (200, `degraded`), and back to `ok` once they are over."""
    app = create_app(neo4j_server.settings(), embedder=embedder)
    with TestClient(app) as client:
        services = app.state.services
        body = client.get("/health").json()
        assert body["status"] == "ok" and body["degraded"] == [], body["degraded"]
        assert body["replica"] == client.get("/health").headers["x-grimoire-replica"]

        def broken() -> None:
            raise RuntimeError("the archive volume is full")

        services.scheduler.add(Job("test.broken", 3_600.0, broken, first_after_seconds=0.0))
        services.scheduler.trigger("test.broken")
        services.scheduler.run_due()
        services.db.rebuilding = frozenset({"entry_embedding"})
        try:
            r = client.get("/health")
            assert r.status_code == 200
            body = r.json()
            assert body["status"] == "degraded"
            assert any("test.broken" in d and "failed" in d for d in body["degraded"])
            assert not any("archive volume" in d for d in body["degraded"])  # the error is the admin's to read
            assert any("entry_embedding" in d and "exact search" in d for d in body["degraded"])
        finally:
            services.db.rebuilding = frozenset()

    expected = create_app(neo4j_server.settings(scheduler_enabled=True), embedder=embedder)
    with TestClient(expected) as client:
        expected.state.services.scheduler.stop()
        reasons = client.get("/health").json()["degraded"]
        assert any("scheduler is not running" in d for d in reasons), reasons
