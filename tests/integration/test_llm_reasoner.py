"""The service configured with a language-model Reasoner (GRIMOIRE_REASONER_URL) at a local fake chat
server: the Admission Gate's decision, returned and stored, names who judged the future utility, and
when the model answers junk, too late or not at all, that the rule-based Reasoner did and why."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from tests import fake_chat
from tests.conftest import ADMIN_KEY, Api, Neo4jUnderTest
from tests.fake_chat import FakeChat, dead_url

TIMEOUT = 0.5
HEURISTIC = {"agent_id": "golem-1", "category": "Heuristic", "market_regime": "high_vol",
             "content": "When WETH utilisation passes 90% on Aave then reduce leverage below 2x within one block"}


@pytest.fixture
def fake() -> Iterator[FakeChat]:
    with FakeChat().running() as f:
        yield f


def _client(db: Database, server: Neo4jUnderTest, embedder: Embedder, url: str):
    from fastapi.testclient import TestClient

    from grimoire.api.app import create_app

    settings = server.settings(admin_key=ADMIN_KEY, reasoner_url=url, reasoner_model="fake-model",
                               reasoner_api_key="sk-fake", reasoner_timeout_seconds=TIMEOUT)
    return TestClient(create_app(settings, db=db, embedder=embedder))


def _admit(db: Database, server: Neo4jUnderTest, embedder: Embedder, url: str, entry_id: str) -> tuple[dict, dict]:
    """POST /entries through a service using the reasoner at `url`: the decision, and as stored."""
    with _client(db, server, embedder, url) as c:
        api = Api(c, db)
        headers = api.headers("golem-1")
        r = c.post("/entries", headers=headers, json={"id": entry_id, **HEURISTIC})
        assert r.status_code == 201, r.text
        decision = r.json()
        stored = c.get(f"/admission/decisions/{decision['decision_id']}", headers=headers)
        assert stored.status_code == 200, stored.text
        return decision, stored.json()


@pytest.mark.parametrize(("behaviour", "expected"), [
    ("good", "language-model:fake-model"),
    ("junk", "rule-based (fallback: junk: not JSON: 'Sure! I think this will be quite useful in the future.')"),
    ("slow", "rule-based (fallback: timeout)"),
    ("error", "rule-based (fallback: HTTP 500)"),
    ("down", "rule-based (fallback: connection refused)"),
])
def test_the_admission_decision_records_the_reasoner_and_its_fallback(
        db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder, fake: FakeChat,
        behaviour: str, expected: str) -> None:
    fake.behaviour = behaviour
    fake.delay = TIMEOUT * 4
    url = dead_url() if behaviour == "down" else fake.url
    decision, stored = _admit(db, neo4j_server, embedder, url, f"h-{behaviour}")
    assert decision["reasoner"] == expected
    assert stored["reasoner"] == expected
    assert decision["outcome"] in ("admitted", "admitted_low")
    utility = decision["factors"]["future_utility"]
    if behaviour == "good":
        assert utility == pytest.approx(fake_chat.GOOD_UTILITY)
        body, headers = fake.requests[-1]
        assert body["model"] == "fake-model" and headers["Authorization"] == "Bearer sk-fake"
    else:
        assert utility == pytest.approx(0.9)  # the rule-based answer: 0.3 + 0.2 + 0.2 + 0.1 + 0.1
    assert stored["factor_future_utility"] == pytest.approx(utility)
