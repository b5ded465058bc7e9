"""/health reports versions while Neo4j is up, 503 while it is down, and recovers by itself."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient

from api.app import create_app
from graph.embeddings import Embedder
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
        assert names["episode_embedding"] == "ONLINE" and names["episode_text"] == "ONLINE"

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
