"""The causal graph: links between entries, traversal both ways scored by weight x recency,
outcomes moving evidence and weight, visibility, and a successor inheriting the graph."""

from __future__ import annotations

import pytest

from grimoire.graph.knowledge.decay import DAY_MS

TEXTS = {
    "c-funding": "ETH perpetual funding turned negative at -0.03% per 8 hours on Binance",
    "c-oi": "Perpetual open interest on ETH fell 12% within 6 hours as longs unwound",
    "c-spot": "Spot ETH sell pressure rose to 40,000 ETH per hour on Coinbase and Binance",
    "c-util": "Aave WETH borrow utilisation dropped from 91% to 78% over 2 days",
    "c-basis": "The ETH quarterly futures basis compressed below 3% annualised",
}


@pytest.fixture
def graph(api):
    h = api.headers("causal-a", "clade-c")
    for id_, text in TEXTS.items():
        r = api.client.post("/entries", headers=h, json={"id": id_, "category": "Insight", "content": text})
        assert r.status_code == 201 and r.json()["entry_id"] == id_, r.text
    links = [("c-funding", "c-oi", 0.9), ("c-oi", "c-spot", 0.8), ("c-spot", "c-util", 0.5),
             ("c-funding", "c-basis", 0.4)]
    r = api.client.post("/causal/links", headers=h, json={"links": [
        {"cause": c, "effect": e, "weight": w, "lag_blocks": 300} for c, e, w in links]})
    assert r.status_code == 201 and len(r.json()["created"]) == 4, r.text
    return h


def _scores(api, h, entry: str, way: str, **params) -> dict[str, float]:
    r = api.client.get(f"/causal/{entry}/{way}", headers=h, params=params)
    assert r.status_code == 200, r.text
    return {x["id"]: round(x["score"], 3) for x in r.json()}


def test_traversal_forward_and_backward_by_weight_times_recency(api, graph, db) -> None:
    h = graph
    forward = api.client.get("/causal/c-funding/consequences", headers=h).json()
    assert [x["id"] for x in forward] == ["c-oi", "c-spot", "c-basis", "c-util"]
    assert {x["id"]: round(x["score"], 3) for x in forward} == {"c-oi": 0.9, "c-spot": 0.72, "c-basis": 0.4,
                                                               "c-util": 0.36}
    assert forward[3]["path"] == ["c-funding", "c-oi", "c-spot", "c-util"] and forward[3]["depth"] == 3
    assert _scores(api, h, "c-funding", "consequences", depth=1) == {"c-oi": 0.9, "c-basis": 0.4}
    assert _scores(api, h, "c-util", "causes") == {"c-spot": 0.5, "c-oi": 0.4, "c-funding": 0.36}
    assert _scores(api, h, "c-basis", "consequences") == {}
    # A link last confirmed one half-life (14 days for causal links) ago counts half.
    db.run("testing/age_link", id="causal-a:c-funding.causes.c-basis", age_ms=14 * DAY_MS)
    assert _scores(api, h, "c-funding", "consequences")["c-basis"] == 0.2
    assert api.client.get("/causal/c-funding/consequences", headers=h, params={"depth": 4}).status_code == 422


def test_outcomes_move_evidence_weight_and_confidence(api, graph) -> None:
    link = "causal-a:c-funding.causes.c-oi"
    up = api.client.post(f"/causal/links/{link}/outcome", headers=graph, json={"confirmed": True}).json()
    assert up["evidence"] == 2 and up["weight"] == pytest.approx(0.95) and up["confidence"] == pytest.approx(0.7)
    down = api.client.post(f"/causal/links/{link}/outcome", headers=graph, json={"confirmed": False}).json()
    assert down["evidence"] == 3 and down["weight"] == pytest.approx(0.95 * 2 / 3)
    assert down["confidence"] == pytest.approx(0.55) and down["contradicted_count"] == 1
    assert _scores(api, graph, "c-funding", "consequences", depth=1)["c-oi"] == round(0.95 * 2 / 3, 3)
    missing = api.client.post("/causal/links/nope/outcome", headers=graph, json={"confirmed": True})
    assert missing.status_code == 404


def test_bad_links_and_other_agents(api, graph) -> None:
    r = api.client.post("/causal/links", headers=graph, json={"links": [{"cause": "c-oi", "effect": "c-oi"}]})
    assert r.status_code == 422
    r = api.client.post("/causal/links", headers=graph, json={"links": [{"cause": "c-oi", "effect": "ghost"}]})
    assert r.status_code == 404
    stranger = api.headers("causal-b", "clade-other")
    # Another agent's entry and an unknown one answer the same 404: existence does not leak.
    for way in ("consequences", "causes"):
        invisible = api.client.get(f"/causal/c-funding/{way}", headers=stranger)
        unknown = api.client.get(f"/causal/ghost/{way}", headers=stranger)
        assert invisible.status_code == unknown.status_code == 404
        assert invisible.json()["detail"].replace("c-funding", "X") == unknown.json()["detail"].replace("ghost", "X")
    assert api.client.post("/causal/links/causal-a:c-funding.causes.c-oi/outcome", headers=stranger,
                           json={"confirmed": True}).status_code == 404
    assert api.client.get("/agents/causal-a/causal-graph", headers=stranger).status_code == 403


def test_a_successor_inherits_at_confidence_0_3(api, graph, db) -> None:
    exported = api.client.get("/agents/causal-a/causal-graph", headers=graph)
    assert exported.status_code == 200
    body = exported.json()
    assert len(body["entries"]) == 5 and len(body["links"]) == 4
    heir = api.headers("causal-heir", "clade-c")
    made = api.client.post("/agents/causal-heir/inherit-causal-graph", headers=heir, json=body)
    assert made.status_code == 201, made.text
    assert len(made.json()["entries"]) == 5 and len(made.json()["links"]) == 4
    again = api.client.post("/agents/causal-heir/inherit-causal-graph", headers=heir, json=body).json()
    assert again == {"entries": [], "links": []}  # idempotent
    copy = api.client.get("/entries/causal-heir:c-funding", headers=heir).json()
    assert copy["provenance"] == "Predecessor" and copy["confidence"] == pytest.approx(0.3)
    assert copy["agent_id"] == "causal-heir" and copy["inherited_from"] == "c-funding"
    inherited = api.client.get("/agents/causal-heir/causal-graph", headers=heir).json()["links"]
    assert len(inherited) == 4
    links = db.run("testing/causal_links", agent_id="causal-heir")
    assert {(r["confidence"], r["provenance"]) for r in links} == {(0.3, "Predecessor")}
    assert sorted(r["weight"] for r in links) == [0.4, 0.5, 0.8, 0.9]
    assert _scores(api, heir, "causal-heir:c-funding", "consequences") == {
        "causal-heir:c-oi": 0.9, "causal-heir:c-spot": 0.72, "causal-heir:c-basis": 0.4, "causal-heir:c-util": 0.36}
    bad = {**body, "links": [{**body["links"][0], "effect": "not-exported"}]}
    assert api.client.post("/agents/causal-heir/inherit-causal-graph", headers=heir, json=bad).status_code == 422
    short = {**body, "entries": [{**body["entries"][0], "embedding": [0.1, 0.2]}, *body["entries"][1:]]}
    assert api.client.post("/agents/causal-heir/inherit-causal-graph", headers=heir, json=short).status_code == 422
