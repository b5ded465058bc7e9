"""The 13 core mental models: seeded at start-up (and by `grimoire schema`) once, audited, public,
structural, and retrieved by any agent with no filter to let them in."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from grimoire.api.app import create_app
from grimoire.api.cli import cmd_schema
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.knowledge import mental_models
from tests.conftest import ADMIN_KEY, Api, Neo4jUnderTest

DAY = 86_400_000


def _app(neo4j_server: Neo4jUnderTest, db: Database, embedder: Embedder) -> TestClient:
    return TestClient(create_app(neo4j_server.settings(admin_key=ADMIN_KEY, seed_mental_models=True), db=db,
                                 embedder=embedder))


@pytest.fixture
def seeded(db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder) -> Iterator[Api]:
    with _app(neo4j_server, db, embedder) as c:
        yield Api(c, db)


def _seeds(db: Database) -> int:
    return db.run("testing/audit_actions")[0]["actions"].count("mental_models.seed")


def _delete(db: Database, entry_id: str) -> None:
    db.run("testing/delete_entry", id=entry_id)


def test_seeded_once_at_start_up_and_served(seeded: Api, db: Database, embedder: Embedder,
                                            neo4j_server: Neo4jUnderTest) -> None:
    r = seeded.client.get("/mental-models", headers=seeded.headers("mm-1", "clade-m"))
    assert r.status_code == 200, r.text
    models = r.json()
    assert [m["name"] for m in models] == [m.name for m in mental_models.MODELS]
    assert models[0]["id"] == "mental-model:first-principles" and models[11]["application"] == (
        "Optimal position sizing given edge and odds")
    for m in models:
        assert m["stored"] and (m["agent_id"], m["scope"], m["category"], m["status"], m["decay_class"]) == (
            "grimoire", "public", "Insight", "active", "structural")
        assert m["tags"] == ["mental-model"] and m["confidence"] == m["effective_confidence"] == 0.9
    assert _seeds(db) == 1
    # Every later start, and every ensure, finds them all: nothing written, nothing audited.
    assert mental_models.ensure(db, embedder).created == []
    with _app(neo4j_server, db, embedder) as again:
        assert again.get("/mental-models", headers={"X-API-Key": ADMIN_KEY}).status_code == 200
    assert _seeds(db) == 1
    # They never decay: years from now, the same confidence.
    later = db.run("entries/effective_confidence", ids=list(mental_models.IDS), now=10**13, floor=0.05)
    assert {r["effective_confidence"] for r in later} == {0.9}


def test_a_missing_model_is_seeded_again_alone(seeded: Api, db: Database, embedder: Embedder,
                                               neo4j_server: Neo4jUnderTest) -> None:
    _delete(db, "mental-model:inversion")
    listed = {m["id"]: m["stored"] for m in seeded.client.get("/mental-models", headers=seeded.admin).json()}
    assert listed["mental-model:inversion"] is False and sum(listed.values()) == 12  # still listed: always available
    result = mental_models.ensure(db, embedder)
    assert result.created == ["mental-model:inversion"] and len(result.existing) == 12 and result.audit_id
    assert _seeds(db) == 2
    # `grimoire schema` seeds too.
    _delete(db, "mental-model:compounding")
    assert cmd_schema(argparse.Namespace(action="apply"), neo4j_server.settings(seed_mental_models=True)) == 0
    assert mental_models.missing(db) == []


def test_every_agent_retrieves_them_by_default(seeded: Api) -> None:
    for agent, clade in [("mm-a", "clade-a"), ("mm-b", "clade-b")]:
        h = seeded.headers(agent, clade)
        r = seeded.client.post("/retrieve", headers=h, json={
            "text": "how large a position given my edge and the odds", "k": 3, "no_budget": True})
        assert r.status_code == 200, r.text
        assert "mental-model:kelly-criterion" in [x["id"] for x in r.json()["results"]], r.json()
        got = seeded.client.get("/entries/mental-model:inversion", headers=h)
        assert got.status_code == 200 and got.json()["mental_model"] is True
        # and in the workspace the agent is given for a decision: the fixed block, first, not again as insights
        ws = seeded.client.post(f"/agents/{agent}/context/assemble", headers=h, json={
            "query": "how large a position given my edge and the odds", "preassembled": False})
        assert ws.status_code == 200, ws.text
        insights = [e["id"] for e in ws.json()["categories"].get("insights", [])]
        assert not set(insights) & set(mental_models.IDS), insights
        assert ws.json()["mental_models"]["ids"] == list(mental_models.IDS)
        assert ws.json()["text"].startswith("<mental_models>") and 'name="Kelly Criterion"' in ws.json()["text"]
    # A valid-time filter far in the past keeps them: a reasoning frame is valid at any time.
    h = seeded.headers("mm-a", "clade-a")
    r = seeded.client.post("/retrieve", headers=h, json={
        "text": "pre-mortem before entering a position", "k": 3, "no_budget": True,
        "filters": {"valid_at": DAY, "kinds": ["entries"], "categories": ["Insight"]}})
    assert "mental-model:inversion" in [x["id"] for x in r.json()["results"]], r.json()


def test_always_in_an_assembled_workspace(seeded: Api, db: Database, neo4j_server: Neo4jUnderTest,
                                          embedder: Embedder) -> None:
    """grimoire.md: "These 13 models are always loaded in the golem's context" — with no query, with a query far
    from all of them, and with a small budget (their names on one line); off only when the setting says so."""
    h = seeded.headers("mm-c", "clade-c")
    for body in ({}, {"query": "the colour of the sky at noon"}, {"task": "swap", "phase": "stable"}):
        ws = seeded.client.post("/agents/mm-c/context/assemble", headers=h, json={**body, "preassembled": False})
        assert ws.status_code == 200, ws.text
        block = ws.json()["mental_models"]
        assert block["form"] == "full" and block["ids"] == list(mental_models.IDS) and block["tokens"] > 0
        text = ws.json()["text"]
        assert text.startswith("<mental_models>") and text.count("<model ") == 13
        assert ws.json()["total_tokens"] <= ws.json()["budget"] == 8000
    small = seeded.client.post("/agents/mm-c/context/assemble", headers=h,
                               json={"budget": 1000, "preassembled": False}).json()
    assert small["mental_models"]["form"] == "names" and small["text"].startswith("<mental_models>First Principles;")
    assert small["total_tokens"] <= 1000
    tiny = seeded.client.post("/agents/mm-c/context/assemble", headers=h,
                              json={"budget": 200, "preassembled": False}).json()
    assert tiny["mental_models"]["form"] == "omitted" and "mental_models" not in tiny["text"]
    settings = neo4j_server.settings(admin_key=ADMIN_KEY)
    settings.context.mental_models_in_context = False
    with TestClient(create_app(settings, db=db, embedder=embedder)) as c:
        off = c.post("/agents/mm-c/context/assemble", headers=Api(c, db).headers("mm-c", "clade-c"),
                     json={"preassembled": False}).json()
    assert off["mental_models"]["form"] == "omitted" and "<mental_models>" not in off["text"]


def test_off_when_the_setting_says_so(db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder) -> None:
    app = create_app(neo4j_server.settings(admin_key=ADMIN_KEY, seed_mental_models=False), db=db, embedder=embedder)
    with TestClient(app) as c:
        listed = c.get("/mental-models", headers={"X-API-Key": ADMIN_KEY}).json()
    assert len(listed) == 13 and not any(m["stored"] for m in listed)
    assert mental_models.missing(db) == list(mental_models.IDS)
