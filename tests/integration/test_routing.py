"""A routing-ready connection (issue 20, point 4): the service runs on NEO4J_URI with the `neo4j://` scheme — the
routing driver a cluster or Aura uses — against the local server, and every read route reads in read transactions
only, so a cluster may send it to a follower; what writes does so in write transactions (Neo4j refuses a write in
a read session, so a misplaced one fails here too)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Session

from grimoire.api.app import create_app
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from tests.conftest import ADMIN_KEY, Api, Neo4jUnderTest
from tests.integration.test_isolation import NO_AGENT_DATA, READ_ROUTES, WETH_ID
from tests.integration.test_isolation import world as world  # noqa: PLC0414 — the isolation test's agents and items


def test_the_service_runs_on_the_routing_scheme(db: Database, neo4j_server: Neo4jUnderTest,
                                                 embedder: Embedder) -> None:
    uri = re.sub(r"^bolt(\+s|\+ssc)?://", "neo4j://", neo4j_server.uri)
    assert uri.startswith("neo4j://")
    app = create_app(neo4j_server.settings(admin_key=ADMIN_KEY, neo4j_uri=uri), embedder=embedder)
    with TestClient(app) as client:
        api = Api(client, app.state.services.db)
        assert type(app.state.services.db.driver).__name__ == "Neo4jDriver"  # the routing driver
        h = api.headers("route-a")
        r = client.post("/episodes", headers=h, json={"id": "rt-1", "type": "observation",
                                                      "text": "Routed: the WETH borrow rate rose on Aave"})
        assert r.status_code == 201, r.text
        assert client.get("/episodes/rt-1", headers=h).json()["id"] == "rt-1"
        found = client.post("/retrieve", headers=h, json={"text": "WETH borrow rate", "k": 3}).json()["results"]
        assert found[0]["id"] == "rt-1"
        assert client.get("/health").json()["status"] == "ok"


def _fill(path: str) -> str:
    values = {"agent_id": "agent-b", "episode_id": "b-ep-public", "entry_id": "b-en-public",
              "entity_id": WETH_ID, "crystal_id": "b-en-public", "item_id": "b-en-public"}
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), "x"), path)


def test_every_read_route_opens_read_transactions_only(api: Api, world: dict[str, Any],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    writes: list[str] = []
    execute_write, run = Session.execute_write, Database.run

    def recording_write(self: Session, work: Any, *args: Any, **kwargs: Any) -> Any:
        writes.append(getattr(work, "__qualname__", repr(work)))
        return execute_write(self, work, *args, **kwargs)

    def recording_run(self: Database, query_name: str, /, **params: Any) -> Any:
        writes.append(query_name)
        return run(self, query_name, **params)

    monkeypatch.setattr(Session, "execute_write", recording_write)
    monkeypatch.setattr(Database, "run", recording_run)
    walked = []
    for route in sorted(READ_ROUTES):
        method, path = route.split(" ", 1)
        if method != "GET" or route in NO_AGENT_DATA or route == "GET /events/stream":  # the stream: test_events
            continue
        for who in (world["B"], api.admin):
            writes.clear()
            r = api.client.get(_fill(path), headers=who, params={"q": "WETH"})
            assert r.status_code < 500, (route, r.text)
            assert not writes, f"{route} opened write transactions: {writes}"
        walked.append(route)
    assert len(walked) >= 60
    # The recorder sees writes: a write route opens one.
    writes.clear()
    made = api.client.post("/episodes", headers=world["B"], json={"type": "observation", "text": "x"})
    assert made.status_code == 201
    assert writes
