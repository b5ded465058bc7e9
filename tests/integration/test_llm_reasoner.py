"""The service configured with a language-model Reasoner (GRIMOIRE_REASONER_URL) at a local fake chat
server: the Admission Gate's decision, returned and stored, names who judged the future utility, and
when the model answers junk, too late or not at all, that the rule-based Reasoner did and why."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from fastapi.testclient import TestClient

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


@contextmanager
def _two_tiers(db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder,
               cheap: FakeChat) -> Iterator[tuple[TestClient, FakeChat]]:
    """The API with both tiers configured: `cheap` the routine model, a second fake server the expensive one."""
    from grimoire.api.app import create_app

    with FakeChat().running() as expensive:
        settings = neo4j_server.settings(
            admin_key=ADMIN_KEY, reasoner_url=cheap.url, reasoner_model="cheap-model",
            escalated_reasoner_url=expensive.url, escalated_reasoner_model="expensive-model",
            reasoner_timeout_seconds=5.0)
        with TestClient(create_app(settings, db=db, embedder=embedder)) as c:
            yield c, expensive


def test_two_tiers_the_expensive_model_only_for_an_anomalous_outcome(
        db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder, fake: FakeChat) -> None:
    """grimoire.md's two-tier model: the cheap model interprets routine outcomes; an outcome beyond 2 sigma of its
    series' earlier deviations goes to the expensive one (GRIMOIRE_ESCALATED_REASONER_URL)."""
    with _two_tiers(db, neo4j_server, embedder, fake) as (c, expensive):
            api = Api(c, db)
            h = api.headers("golem-tiers", "clade-tiers")
            # four outcomes within a few bps of the prediction, then one 300 bps off: only the last is anomalous
            actuals = [12.0, 8.0, 11.0, 9.0, -290.0]
            for i, actual in enumerate(actuals, start=1):
                r = c.post("/episodes", headers=h, json={
                    "id": f"tier-{i}", "type": "action", "tool": "uni-swap", "token_pair": "WETH/USDC",
                    "valid_from": f"2026-11-0{i}T12:00:00Z", "text": f"swap {i}: predicted 10 bps, got {actual}",
                    "prediction": {"metric": "return_bps", "expected": 10.0, "actual": actual, "tolerance": 50}})
                assert r.status_code == 201, r.text
    by = {r["episode_id"]: r["reasoner"] for r in db.fetch("testing/reflections", agent_id="golem-tiers")}
    assert by == {**{f"tier-{i}": "language-model:cheap-model" for i in range(1, 5)},
                  "tier-5": "language-model:expensive-model"}, by
    asked = [b for b, _ in expensive.requests if '"interpretation"' in b["messages"][-1]["content"]]
    assert len(asked) == 1 and "-290" in asked[0]["messages"][-1]["content"]


def test_two_tiers_a_regime_transition_goes_to_the_expensive_model(
        db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder, fake: FakeChat) -> None:
    """grimoire.md:1382 "Opus for ... regime transitions": every outcome within a few bps of its prediction, the
    fourth observed in a bear market after three in a bull one: only that reflection is the expensive model's (its
    series' previous regime read from the stored reflections, one request each)."""
    with _two_tiers(db, neo4j_server, embedder, fake) as (c, expensive):
            api = Api(c, db)
            h = api.headers("golem-regimes", "clade-regimes")
            for i, (regime, actual) in enumerate([("bull", 12.0), ("bull", 8.0), ("bull", 11.0), ("bear", 9.0),
                                                  ("bear", 10.0)], start=1):
                r = c.post("/episodes", headers=h, json={
                    "id": f"regime-{i}", "type": "action", "tool": "uni-swap", "token_pair": "WETH/USDC",
                    "regime": regime, "valid_from": f"2026-11-0{i}T12:00:00Z",
                    "text": f"swap {i} in a {regime} market: predicted 10 bps, got {actual}",
                    "prediction": {"metric": "return_bps", "expected": 10.0, "actual": actual, "tolerance": 50}})
                assert r.status_code == 201, r.text
    by = {r["episode_id"]: r["reasoner"] for r in db.fetch("testing/reflections", agent_id="golem-regimes")}
    assert by == {**{f"regime-{i}": "language-model:cheap-model" for i in (1, 2, 3, 5)},
                  "regime-4": "language-model:expensive-model"}, by
