"""Retrieval's one public face (graph/retrieval/__init__.py): the caller's hormonal modulation is the retriever's
own (graph/services.py gives it), so every caller gets it, not only POST /retrieve (which applied it itself
before: a crystal pipeline, recall's hybrid fallback or any in-process caller retrieved as configured); and
`similar`, the Governor's vector search, answers typed items with their effective confidence."""

from __future__ import annotations

import pytest

from grimoire.graph.retrieval import RetrievalFilters, RetrievalRequest, Similar, build
from grimoire.graph.visibility import Visibility
from tests.conftest import Api

AGENT, CLADE = "face-h", "clade-face"
QUERY = "WETH borrow rate"


def _stressed(api: Api) -> tuple[dict[str, str], dict[str, float]]:
    """The agent's headers and its retrieval modulation after a failure episode (cortisol up)."""
    h = api.headers(AGENT, CLADE)
    for text in ("The deployment failed with an error; urgent fix", "WETH borrow rate on Aave",
                 "WETH borrow rate jumped on Compound"):
        assert api.client.post("/episodes", headers=h, json={"type": "observation", "text": text}).status_code == 201
    modulation = api.client.get(f"/agents/{AGENT}/hormones", headers=h).json()["retrieval"]
    assert modulation["recency_bias"] > 1.1
    return h, modulation


def test_every_caller_of_the_retriever_gets_the_callers_hormones(api: Api, embedder) -> None:
    h, modulation = _stressed(api)
    services = api.client.app.state.services
    view = Visibility.of(AGENT, CLADE)
    # In process, without the route: the four-factor weights are scaled by the agent's modulation (importance by
    # its importance boost, temporal by its recency bias), as POST /retrieve scales them.
    req = RetrievalRequest(text=QUERY, mode="four_factor", explain=True, no_budget=True)
    explained = services.retriever.retrieve(req, view, AGENT).results[0].explain
    assert explained is not None and explained.weights is not None
    weights = explained.weights
    assert weights["importance"] == pytest.approx(0.25 * modulation["importance_boost"], rel=2e-3)
    assert weights["temporal"] == pytest.approx(0.20 * modulation["recency_bias"], rel=2e-3)
    # A crystal pipeline (graph/crystals/pipeline.py) ranks as the route does for this agent, not as configured.
    routed = api.client.post("/retrieve", headers=h, json={"text": QUERY, "mode": "four_factor", "no_budget": True,
                                                           "explain": True}).json()["results"]
    assert routed[0]["explain"]["weights"] == pytest.approx(weights, rel=2e-3)  # the hormones decay meanwhile
    piped = services.crystals.pipeline(view, agent_id=AGENT, actor="test").retrieve(QUERY, limit=2,
                                                                                    mode="four_factor").execute()
    configured = build(api.db, embedder).retrieve(req, view, AGENT).results
    by_id = {r["id"]: r["score"] for r in routed}
    assert [c["id"] for c in piped.crystals] == [r["id"] for r in routed[:2]]
    for c in piped.crystals:
        assert c["score"] == pytest.approx(by_id[c["id"]], rel=1e-3)
    plain = {r.id: r.score for r in configured}
    assert all(abs(c["score"] - plain[c["id"]]) > 1e-3 * plain[c["id"]] for c in piped.crystals)
    # An agent whose hormones never moved retrieves as configured, whoever asks.
    assert services.retriever.configured_for("face-calm") == services.retriever.config
    assert services.retriever.configured_for(AGENT) != services.retriever.config


def test_similar_answers_typed_items_the_caller_may_see(api: Api) -> None:
    h = api.headers("face-s", CLADE)
    other = api.headers("face-other", "clade-elsewhere")
    mine = {"id": "face-1", "type": "action", "outcome": "positive", "tick": 7,
            "text": "Swapped WETH for USDC on Uniswap"}
    assert api.client.post("/episodes", headers=h, json=mine).status_code == 201
    assert api.client.post("/episodes", headers=other, json={"id": "face-2", "type": "action",
                                                              "text": "Swapped WETH for USDC on Uniswap"}
                           ).status_code == 201
    services = api.client.app.state.services
    query = services.embedder.embed_one("Swapped WETH for USDC on Uniswap")
    found = services.retriever.similar(query, 5, Visibility.of("face-s", CLADE), RetrievalFilters(kinds=["episodes"]))
    assert [s.id for s in found] == ["face-1"]  # the other clade's private episode is not the caller's to see
    s = found[0]
    assert isinstance(s, Similar) and (s.kind, s.type, s.outcome, s.tick) == ("episode", "action", "positive", 7)
    assert s.score == pytest.approx(1.0, abs=1e-3) and 0.0 < s.effective_confidence <= 1.0
