"""GDS on the knowledge graphs other than the topology: an agent's causal graph (its weights as
relationship weights) and the co-mention graph of entities, on hand-made data whose answers are
known; visibility; the topology signals curiosity reads."""

from __future__ import annotations

import pytest

from grimoire.graph.analytics.client import gds_for
from grimoire.graph.analytics.projections import leftover
from tests.integration.test_causal import TEXTS as CAUSAL_TEXTS

LINKS = [("k-funding", "k-oi", 0.9), ("k-oi", "k-spot", 0.8), ("k-spot", "k-util", 0.5),
         ("k-funding", "k-basis", 0.4), ("k-basis", "k-util", 0.2)]
# The same observations as tests/integration/test_causal.py, under ids of their own.
TEXTS = {id_.replace("c-", "k-", 1): text for id_, text in CAUSAL_TEXTS.items()}


@pytest.fixture
def causal(api):
    h = api.headers("analyst-a", "clade-x")
    for id_, text in TEXTS.items():
        r = api.client.post("/entries", headers=h, json={"id": id_, "category": "Insight", "content": text})
        assert r.status_code == 201, r.text
    r = api.client.post("/causal/links", headers=h, json={"links": [
        {"cause": c, "effect": e, "weight": w} for c, e, w in LINKS]})
    assert r.status_code == 201, r.text
    return h


def test_an_agents_causal_graph_with_its_weights(api, causal) -> None:
    body = {"graph": "causal", "agent_id": "analyst-a", "limit": 10}
    pr = api.client.post("/analytics/pagerank", headers=causal, json=body).json()
    assert pr["run"]["node_count"] == 5 and pr["run"]["relationship_count"] == 5
    # The effect everything leads to ranks first; the root cause, with nothing leading to it, last.
    assert pr["results"][0]["id"] == "k-util" and pr["results"][-1]["id"] == "k-funding"
    # Weighted, the strong chain through k-oi beats the weak one through k-basis.
    weighted = api.client.post("/analytics/pagerank", headers=causal,
                               json={**body, "params": {"weighted": True}}).json()["results"]
    score = {r["id"]: r["score"] for r in weighted}
    assert score["k-oi"] > score["k-basis"]
    # The cheapest causal path follows the confident links (cost 1 / weight).
    path = api.client.post("/analytics/shortest_path", headers=causal, json={
        **body, "params": {"source": "k-funding", "target": "k-util"}}).json()
    assert path["path"] == ["k-funding", "k-oi", "k-spot", "k-util"]
    assert path["total_cost"] == pytest.approx(1 / 0.9 + 1 / 0.8 + 1 / 0.5)
    # Another agent sees none of these private entries: nothing to analyse.
    other = api.headers("analyst-b", "clade-y")
    assert api.client.post("/analytics/pagerank", headers=other, json=body).status_code == 404
    assert leftover(gds_for(api.db)) == []


def test_co_mention_communities(api) -> None:
    h = api.headers("analyst-c", "clade-z")
    groups = {"g1": ["Alice", "Bob", "Carol"], "g2": ["Dave", "Erin", "Frank"]}
    episodes = []
    for g, people in groups.items():
        for i in range(4):
            episodes.append({"id": f"{g}-{i}", "type": "observation", "text": f"{g} meeting {i}",
                             "mentions": [{"kind": "Person", "name": p} for p in people]})
    episodes.append({"id": "bridge", "type": "observation", "text": "Carol met Dave once",
                     "mentions": [{"kind": "Person", "name": "Carol"}, {"kind": "Person", "name": "Dave"}]})
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": episodes})
    assert r.status_code in (200, 201), r.text
    body = {"graph": "comention", "agent_id": "analyst-c", "params": {"weighted": True}}
    louvain = api.client.post("/analytics/louvain", headers=h, json=body).json()
    community = {r["name"]: r["community"] for r in louvain["results"]}
    assert louvain["group_count"] == 2
    assert len({community[p] for p in groups["g1"]}) == 1 and len({community[p] for p in groups["g2"]}) == 1
    assert community["Alice"] != community["Dave"]
    wcc = api.client.post("/analytics/wcc", headers=h, json=body).json()
    assert wcc["group_count"] == 1  # the one bridging episode joins them
    between = api.client.post("/analytics/betweenness", headers=h, json={**body, "orientation": "undirected"}).json()
    assert {r["name"] for r in between["results"][:2]} == {"Carol", "Dave"}  # the bridge
    sim = api.client.post("/analytics/node_similarity", headers=h, json={**body, "params": {"top_k": 1}}).json()
    nearest = {r["name"]: r["similar_to"][0] for r in sim["results"]}
    assert nearest["Alice"] in ("person:bob", "person:carol")


def test_topology_centrality_feeds_curiosity(api, db) -> None:
    admin = api.admin
    ents = [{"kind": "Oracle", "name": "feed"}, *({"kind": "Reserve", "name": f"r{i}"} for i in range(5)),
            {"kind": "Token", "name": "leaf"}]
    assert api.client.post("/entities", headers=admin, json={"entities": ents}).status_code == 201
    facts = [{"subject": f"reserve:r{i}", "predicate": "OracleDependency", "object": "oracle:feed",
              "valid_from": 100, "scope": "public"} for i in range(5)]
    facts.append({"subject": "token:leaf", "predicate": "Custom", "name": "Pairs", "object": "reserve:r0",
                  "valid_from": 100, "scope": "public"})
    assert api.client.post("/facts", headers=admin, json={"facts": facts}).status_code == 201
    before = api.client.post("/topology/curiosity", headers=admin, json={
        "event_entity": "oracle:feed", "positions": ["reserve:r1"], "block": 200}).json()
    assert before["modifier"] == 1.0 and before["centrality"] is None  # no run written yet
    r = api.client.post("/analytics/pagerank", headers=admin, json={"block": 150, "write": True})
    assert r.status_code == 200, r.text
    after = api.client.post("/topology/curiosity", headers=admin, json={
        "event_entity": "oracle:feed", "positions": ["reserve:r1"], "block": 200}).json()
    assert after["centrality"]["rank"] == 1 and after["centrality"]["percentile"] == 1.0
    assert after["centrality"]["run_id"] == r.json()["run"]["id"]
    leaf = api.client.post("/topology/curiosity", headers=admin, json={
        "event_entity": "token:leaf", "positions": ["reserve:r1"], "block": 200}).json()
    assert leaf["centrality"]["percentile"] < after["centrality"]["percentile"]
    # A run at a later block than asked is not used: no centrality from the future.
    early = api.client.post("/topology/curiosity", headers=admin, json={
        "event_entity": "oracle:feed", "positions": ["reserve:r1"], "block": 120}).json()
    assert early["centrality"] is None


def test_topology_distance_and_centrality_in_retrieval(api, db) -> None:
    admin = api.admin
    h = api.headers("trader-t", "clade-t")
    ents = [{"kind": "Oracle", "name": "eth feed"}, {"kind": "Reserve", "name": "weth reserve"},
            {"kind": "Pool", "name": "main pool"}]
    assert api.client.post("/entities", headers=admin, json={"entities": ents}).status_code == 201
    facts = [{"subject": "reserve:weth reserve", "predicate": "OracleDependency", "object": "oracle:eth feed",
              "valid_from": 100, "scope": "public"},
             {"subject": "pool:main pool", "predicate": "CollateralBacking", "object": "reserve:weth reserve",
              "valid_from": 100, "scope": "public"}]
    assert api.client.post("/facts", headers=admin, json={"facts": facts}).status_code == 201
    episodes = [{"id": "t-feed", "type": "observation", "text": "The ETH price feed lagged for three heartbeats",
                 "mentions": [{"kind": "Oracle", "name": "eth feed"}]},
                {"id": "t-pool", "type": "observation", "text": "Withdrawals from the main pool slowed down",
                 "mentions": [{"kind": "Pool", "name": "main pool"}]}]
    assert api.client.post("/episodes/batch", headers=h, json={"episodes": episodes}).status_code in (200, 201)
    assert api.client.post("/analytics/pagerank", headers=admin, json={"block": 150, "write": True}).status_code == 200
    body = {"text": "price feed lag", "positions": ["pool:main pool"], "block": 200, "explain": True,
            "no_budget": True, "filters": {"kinds": ["episodes"]}}
    out = api.client.post("/retrieve", headers=h, json=body).json()
    graph = {r["id"]: r["explain"]["backends"]["graph"] for r in out["results"] if "graph" in r["explain"]["backends"]}
    assert graph["t-pool"]["distance"] == 0 and graph["t-pool"]["entity"] == "pool:main pool"
    assert graph["t-feed"]["distance"] == 2 and graph["t-feed"]["entity"] == "oracle:eth feed"
    # The oracle everything depends on is the most central entity in the written run.
    assert graph["t-feed"]["centrality"] == 1.0 > graph["t-pool"]["centrality"]
    # Two hops away counts half in the graph backend's order (the topology curiosity modifier):
    # its score is half its similarity, on Neo4j's (1 + cosine) / 2 scale.
    vector = {r["id"]: r["explain"]["backends"]["vector"]["score"] for r in out["results"]}
    assert graph["t-feed"]["score"] == pytest.approx(0.5 * (1 + vector["t-feed"]) / 2, abs=1e-6)
    assert graph["t-pool"]["score"] == pytest.approx((1 + vector["t-pool"]) / 2, abs=1e-6)
