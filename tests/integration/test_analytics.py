"""GDS analytics on the loaded Aave graph against networkx on the same projected graph (networkx
only here), the failure cascade of a real oracle, runs written and compared, the causal and
co-mention graphs, REST and CLI, and no projection left behind, including after a failure."""

from __future__ import annotations

import json
from collections.abc import Iterator

import networkx as nx
import numpy as np
import pytest
from fastapi.testclient import TestClient

from grimoire.api.cli import main as cli
from grimoire.graph.analytics import runs
from grimoire.graph.analytics.algorithms import Algorithm, AlgorithmParams
from grimoire.graph.analytics.cascade import cascade
from grimoire.graph.analytics.client import gds_for
from grimoire.graph.analytics.projections import EmptyProjection, GraphKind, Orientation, ProjectionSpec, leftover
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.model.enums import REL_TYPES
from grimoire.graph.visibility import Visibility
from tests.conftest import ADMIN_KEY, Neo4jUnderTest, served

EVERYONE = Visibility.everything()
BLOCK = 21_000_000  # late 2024: most markets listed, some oracles already replaced
EVERYTHING = 10**9


@pytest.fixture(autouse=True)
def nothing_left_behind(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    if "aave" in request.fixturenames or "db" in request.fixturenames:
        db = request.getfixturevalue("session_db")
        assert leftover(gds_for(db)) == [], "a projection was left in the GDS catalogue"


def _analyse(db: Database, algorithm: Algorithm, block: int = BLOCK, orientation: Orientation | None = None,
             **params: object) -> dict:
    return runs.run(db, runs.Analysis(algorithm, ProjectionSpec(GraphKind.topology, block=block),
                                      AlgorithmParams(**params), orientation, limit=10**9),
                    actor="test").model_dump(exclude_unset=True)


def _topology(db: Database, block: int = BLOCK) -> nx.DiGraph:
    """The same graph the projection holds, built by networkx from the facts valid at the block."""
    g = nx.DiGraph()
    for f in db.rows("topology/facts_at_block", block=block, types=sorted(REL_TYPES.values())):
        if f["subject"] != f["object"]:
            g.add_edge(f["subject"], f["object"])
    return g


def _pagerank(g: nx.DiGraph, damping: float = 0.85, iterations: int = 200) -> dict[str, float]:
    """PageRank as GDS defines it on a directed graph (dangling nodes' rank is not spread):
    x = (1 - d) + d * sum over in-links u of x(u) / outdeg(u), iterated from 1 - d."""
    nodes = sorted(g)
    at = {n: i for i, n in enumerate(nodes)}
    src = np.array([at[u] for u, _ in g.edges()], dtype=int)
    dst = np.array([at[v] for _, v in g.edges()], dtype=int)
    out = np.bincount(src, minlength=len(nodes)).astype(float)
    x = np.full(len(nodes), 1 - damping)
    for _ in range(iterations):
        x = (1 - damping) + damping * np.bincount(dst, weights=x[src] / out[src], minlength=len(nodes))
    return {n: float(x[at[n]]) for n in nodes}


def _top(scores: dict[str, float], n: int) -> list[str]:
    return sorted(scores, key=lambda i: (-scores[i], i))[:n]


def _cos(a: list[float], b: list[float]) -> float:
    va, vb = np.asarray(a), np.asarray(b)
    return float(va @ vb / (np.linalg.norm(va) * np.linalg.norm(vb)))


def test_pagerank_equals_networkx(aave: Database) -> None:
    g = _topology(aave)
    # Undirected, where both define PageRank the same way: GDS's scores sum to n, networkx's to 1.
    got = {r["id"]: r["score"] for r in _analyse(aave, Algorithm.pagerank, orientation=Orientation.undirected,
                                                 max_iterations=200, tolerance=1e-12)["results"]}
    expected = nx.pagerank(g.to_undirected(), alpha=0.85, tol=1e-12, max_iter=1_000)
    assert set(got) == set(expected) and len(got) > 1_500
    total = sum(got.values())
    for node, score in expected.items():
        assert got[node] / total == pytest.approx(score, rel=1e-3, abs=1e-7), node
    # Directed (systemic importance): GDS leaves dangling nodes' rank unspread, so its scores solve
    # x = (1 - d) + d * sum(x(u) / outdeg(u)) over in-links; check that fixed point on networkx's graph.
    directed = {r["id"]: r["score"] for r in _analyse(aave, Algorithm.pagerank, max_iterations=200,
                                                      tolerance=1e-12)["results"]}
    assert set(directed) == set(g)
    for node in g:
        inflow = sum(directed[u] / g.out_degree(u) for u in g.predecessors(node))
        assert directed[node] == pytest.approx(0.15 + 0.85 * inflow, rel=1e-4), node
    top = max(directed, key=directed.get)
    assert g.in_degree(top) > 10  # what many depend on


def test_communities_and_components_equal_networkx(aave: Database) -> None:
    g = _topology(aave).to_undirected()
    wcc = _analyse(aave, Algorithm.wcc)
    ours = {}
    for r in wcc["results"]:
        ours.setdefault(r["component"], set()).add(r["id"])
    assert sorted(map(sorted, ours.values())) == sorted(map(sorted, nx.connected_components(g)))
    assert wcc["group_count"] == nx.number_connected_components(g)
    reference = nx.community.modularity(g, nx.community.louvain_communities(g, seed=42))
    for algorithm in (Algorithm.louvain, Algorithm.leiden):
        result = _analyse(aave, algorithm)
        parts: dict[int, set[str]] = {}
        for r in result["results"]:
            parts.setdefault(r["community"], set()).add(r["id"])
        assert set().union(*parts.values()) == set(g)
        modularity = nx.community.modularity(g, parts.values())
        assert modularity == pytest.approx(reference, abs=0.02), algorithm
        assert result["group_count"] == len(parts) > 10


def test_betweenness_equals_networkx(aave: Database) -> None:
    g = _topology(aave)
    got = {r["id"]: r["score"] for r in _analyse(aave, Algorithm.betweenness)["results"]}
    expected = nx.betweenness_centrality(g, normalized=False)
    for node, score in expected.items():
        assert got[node] == pytest.approx(score, abs=1e-6), node


def _oracle_with_most_reserves(db: Database, block: int) -> tuple[str, set[str]]:
    by_oracle: dict[str, set[str]] = {}
    for f in db.rows("topology/facts_at_block", block=block, types=["ORACLE_DEPENDENCY"]):
        if f["subject"].startswith("reserve:"):
            by_oracle.setdefault(f["object"], set()).add(f["subject"])
    oracle = max(by_oracle, key=lambda o: (len(by_oracle[o]), o))
    return oracle, by_oracle[oracle]


def test_cascade_of_a_real_oracle_lists_the_reserves_on_it(aave: Database, admin_client: TestClient) -> None:
    oracle, reserves = _oracle_with_most_reserves(aave, BLOCK)
    assert len(reserves) >= 2
    out = cascade(aave, oracle, BLOCK, visibility=EVERYONE, actor="test", limit=10_000).model_dump()
    first = {m["id"] for m in out["markets"] if m["hops"] == 1}
    assert first == reserves
    # The pools holding those reserves are hit next, through the reserve they back.
    pools = {m["id"] for m in out["markets"] if m["kind"] == "Pool"}
    assert pools and all(m["hops"] == 2 for m in out["markets"] if m["kind"] == "Pool")
    assert [m["rank"] for m in out["affected"]] == list(range(1, len(out["affected"]) + 1))
    hops = [a["hops"] for a in out["affected"]]
    assert hops == sorted(hops)
    # A position on one of those reserves is affected too, and so listed.
    reserve = sorted(reserves)[0]
    r = admin_client.post("/entities", json={"entities": [{"kind": "AddressCluster", "name": "test vault"}]})
    assert r.status_code == 201, r.text
    holder = r.json()["ids"][0]
    r = admin_client.post("/facts", json={"facts": [{"subject": holder, "predicate": "HasPosition", "object": reserve,
                                               "valid_from": BLOCK - 10, "scope": "public"}]})
    assert r.status_code == 201, r.text
    via_api = admin_client.post("/analytics/cascade", json={"entity": oracle, "block": BLOCK}).json()
    assert [p["id"] for p in via_api["positions"]] == [holder]
    assert via_api["positions"][0]["path"] == [oracle, reserve, holder]
    # Before the position was opened it is not at risk.
    earlier = admin_client.post("/analytics/cascade", json={"entity": oracle, "block": BLOCK - 11}).json()
    assert earlier["positions"] == []
    assert admin_client.post("/analytics/cascade", json={"entity": "1:0xnothing", "block": BLOCK}).status_code == 404


def test_runs_are_written_with_their_block_and_compared_over_time(aave: Database, admin_client: TestClient) -> None:
    made = []
    for block in (18_000_000, BLOCK):
        r = admin_client.post("/analytics/pagerank", json={"block": block, "write": True, "limit": 5,
                                                     "params": {"damping_factor": 0.8}})
        assert r.status_code == 200, r.text
        made.append(r.json()["run"])
    assert [m["block"] for m in made] == [18_000_000, BLOCK]
    listed = admin_client.get("/analytics/runs", params={"algorithm": "pagerank"}).json()
    assert [x["id"] for x in listed[:2]] == [made[1]["id"], made[0]["id"]]
    assert listed[0]["parameters"]["damping_factor"] == 0.8 and listed[0]["graph"] == "topology"
    detail = admin_client.get(f"/analytics/runs/{made[1]['id']}", params={"limit": 10_000}).json()
    assert len(detail["results"]) == made[1]["result_count"] > made[0]["result_count"]
    assert detail["results"][0]["result"]["rank"] == 1
    assert detail["results"][0]["result"]["score"] >= detail["results"][1]["result"]["score"]
    actions = aave.rows("testing/audit_actions")[0]["actions"]
    assert actions.count("analytics.run") == 2 and actions.count("analytics.scores") >= 2
    assert admin_client.get("/analytics/runs/nope").status_code == 404


def test_every_analysis_over_rest(aave: Database, admin_client: TestClient) -> None:
    g = _topology(aave)
    undirected = g.to_undirected()

    def rest(algorithm: str, limit: int = 10_000, **params: object) -> dict:
        r = admin_client.post(f"/analytics/{algorithm}", json={"block": BLOCK, "limit": limit, "params": params})
        assert r.status_code == 200, (algorithm, r.text)
        body = r.json()
        assert body["run"]["algorithm"] == algorithm and body["run"]["node_count"] == g.number_of_nodes()
        assert len(body["results"]) == min(limit, body["run"]["result_count"])
        return body

    # PageRank and betweenness: the three highest, as computed here.
    top = rest("pagerank", limit=3)["results"]
    expected = _pagerank(g)
    assert [r["id"] for r in top] == _top(expected, 3) and [r["rank"] for r in top] == [1, 2, 3]
    for r in top:
        assert r["score"] == pytest.approx(expected[r["id"]], rel=1e-4), r["id"]
    top = rest("betweenness", limit=3)["results"]
    brokers = nx.betweenness_centrality(g, normalized=False)
    assert [r["id"] for r in top] == _top(brokers, 3)
    for r in top:
        assert r["score"] == pytest.approx(brokers[r["id"]], abs=1e-6), r["id"]
    # Components are networkx's; Louvain and Leiden communities never span two of them, and split
    # the large ones (the 603 entities of Ethereum's markets are not one community).
    components = list(nx.connected_components(undirected))
    component_of = {n: i for i, c in enumerate(components) for n in c}
    wcc = rest("wcc")
    groups: dict[int, set[str]] = {}
    for r in wcc["results"]:
        groups.setdefault(r["component"], set()).add(r["id"])
    assert sorted(map(sorted, groups.values())) == sorted(map(sorted, components))
    assert wcc["group_count"] == len(components) and wcc["groups"][0]["size"] == max(map(len, components))
    for algorithm in ("louvain", "leiden"):
        body = rest(algorithm)
        parts: dict[int, set[str]] = {}
        for r in body["results"]:
            parts.setdefault(r["community"], set()).add(r["id"])
        assert set().union(*parts.values()) == set(g) and body["group_count"] == len(parts) > len(components)
        for members in parts.values():
            assert len({component_of[n] for n in members}) == 1, algorithm
        assert max(map(len, parts.values())) < max(map(len, components)), algorithm
    # Node similarity: each score is the Jaccard index of the two neighbourhoods, best first.
    similar = rest("node_similarity")["results"]
    assert similar[0]["score"] == 1.0 and len(similar) > 1_500
    for r in similar:
        mine = set(undirected[r["id"]])
        jaccard = [len(mine & set(undirected[o])) / len(mine | set(undirected[o])) for o in r["similar_to"]]
        assert r["similarities"] == pytest.approx(jaccard, abs=1e-9) and r["score"] == r["similarities"][0]
        assert r["similarities"] == sorted(r["similarities"], reverse=True) and len(r["similar_to"]) <= 10
    # FastRP: the asked dimension; the same embeddings for the same seed, other ones for another;
    # nodes with the same neighbours (the DAI reserve's aToken, debt token and price feed, all
    # leaves on it) get the same embedding, leaves of other nodes are far from theirs.
    embeddings = {r["id"]: r["embedding"] for r in rest("fastrp", embedding_dimension=16)["results"]}
    assert set(embeddings) == set(g) and {len(e) for e in embeddings.values()} == {16}
    assert {r["id"]: r["embedding"] for r in rest("fastrp", embedding_dimension=16)["results"]} == embeddings
    reseeded = {r["id"]: r["embedding"] for r in rest("fastrp", embedding_dimension=16, random_seed=7)["results"]}
    assert all(reseeded[n] != embeddings[n] for n in embeddings)
    dai = "reserve:aavev3ethereum dai"
    leaves = sorted(n for n in undirected[dai] if undirected.degree(n) == 1)
    assert leaves == ["1:0x018008bfb33d285247a21d44e50697654f754e63",   # aDAI
                      "1:0xaeb897e1dc6bbdced3b9d551c71a8cf172f27ac4",   # the DAI price feed at that block
                      "1:0xcf8d0c70c850859266f5c338b38f9d663181c314"]   # variableDebtDAI
    for leaf in leaves[1:]:
        assert _cos(embeddings[leaf], embeddings[leaves[0]]) == pytest.approx(1.0, abs=1e-9)
    others = [n for n in undirected if undirected.degree(n) == 1 and n not in leaves]
    assert max(_cos(embeddings[leaves[0]], embeddings[n]) for n in others) < 0.9
    same_neighbours: dict[frozenset[str], list[str]] = {}
    for n in undirected:
        same_neighbours.setdefault(frozenset(undirected[n]), []).append(n)
    twins = [ns for ns in same_neighbours.values() if len(ns) > 1]
    assert len(twins) > 100
    for ns in twins:
        assert all(_cos(embeddings[n], embeddings[ns[0]]) == pytest.approx(1.0, abs=1e-9) for n in ns[1:]), ns
    # A weighted dependency path from a reserve to its oracle.
    oracle, reserves = _oracle_with_most_reserves(aave, BLOCK)
    reserve = sorted(reserves)[0]
    path = admin_client.post("/analytics/shortest_path", json={"block": BLOCK, "params": {"source": reserve,
                                                                                   "target": oracle}}).json()
    assert path["path"][0] == reserve and path["path"][-1] == oracle and path["total_cost"] >= 1.0
    # Bad input: 422s, never a 500.
    assert admin_client.post("/analytics/pagerank", json={}).status_code == 422
    assert admin_client.post("/analytics/pagerank", json={"graph": "causal", "block": 1}).status_code == 422
    assert admin_client.post("/analytics/nope", json={"block": BLOCK}).status_code == 422
    assert admin_client.post("/analytics/pagerank", json={"block": BLOCK, "params": {"damping_factor": 1.5}}
                       ).status_code == 422
    assert admin_client.post("/analytics/leiden", json={"block": BLOCK, "orientation": "natural"}).status_code == 422
    assert admin_client.post("/analytics/shortest_path", json={"block": BLOCK}).status_code == 422
    nobody = {"graph": "causal", "agent_id": "nobody"}
    assert admin_client.post("/analytics/pagerank", json=nobody).status_code == 404  # nothing to project


def test_no_projection_is_left_after_a_failure(aave: Database) -> None:
    gds = gds_for(aave)
    with pytest.raises(LookupError):  # fails after projecting, before the algorithm
        runs.run(aave, runs.Analysis(Algorithm.shortest_path, ProjectionSpec(GraphKind.topology, block=BLOCK),
                                     AlgorithmParams(source="1:0xnothing", target="1:0xnone")), actor="test")
    assert leftover(gds) == []
    with pytest.raises(Exception, match="(?i)undirected"):  # GDS itself refuses: Leiden needs undirected
        runs.run(aave, runs.Analysis(Algorithm.leiden, ProjectionSpec(GraphKind.topology, block=BLOCK),
                                     orientation=Orientation.natural), actor="test")
    assert leftover(gds) == []
    with pytest.raises(EmptyProjection):
        runs.run(aave, runs.Analysis(Algorithm.pagerank, ProjectionSpec(GraphKind.causal, agent_id="nobody")),
                 actor="test")
    assert leftover(gds) == []


def test_cli_runs_an_analysis(aave: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder,
                              monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # `grimoire analytics` goes through the client to the running service (api/cli_remote.py), as the admin
    from grimoire.api.app import create_app

    app = create_app(neo4j_server.settings(admin_key=ADMIN_KEY), db=aave, embedder=embedder)
    with served(app, "cli-analytics") as url:
        monkeypatch.setenv("GRIMOIRE_URL", url)
        monkeypatch.setenv("GRIMOIRE_API_KEY", ADMIN_KEY)
        assert cli(["analytics", "pagerank", "--block", str(BLOCK), "--limit", "3"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert len(out["results"]) == 3 and out["run"]["block"] == BLOCK
        oracle, reserves = _oracle_with_most_reserves(aave, BLOCK)
        assert cli(["analytics", "cascade", "--entity", oracle, "--block", str(BLOCK), "--limit", "1000"]) == 0
        assert {m["id"] for m in json.loads(capsys.readouterr().out)["markets"] if m["hops"] == 1} == reserves
        assert cli(["analytics", "pagerank"]) == 2  # no block: the service's 422
        assert "block" in capsys.readouterr().err


EXAMPLES = ["pagerank", "betweenness", "communities", "components"]


def _browser(db: Database, name: str, **overrides: object) -> list[dict]:
    """What a person pastes into Neo4j Browser: the file's own :param lines, then its statement."""
    import re

    from grimoire.graph.db import cypher
    from grimoire.graph.db.cypher import cypher_dir

    text = (cypher_dir() / "analytics" / f"{name}.cypher").read_text()
    with db.session() as s:
        params = {key: s.run(f"RETURN {expr} AS v").single()["v"]
                  for key, expr in re.findall(r"^:param (\w+) => (.*);$", text, re.M)}
        return s.run(cypher.query(f"analytics/{name}"), {**params, **overrides}).data()


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_browser_examples_run_as_is(aave: Database, name: str) -> None:
    """Each example answers, at its own block (21,000,000, BLOCK here), what networkx computes on
    the same facts."""
    g = _topology(aave)
    undirected = name == "communities"
    projected = _browser(aave, "project_topology", undirected=["*"] if undirected else [])
    assert projected[0]["projection"]["nodeCount"] == g.number_of_nodes()
    assert projected[0]["projection"]["relationshipCount"] == g.number_of_edges() * (2 if undirected else 1)
    try:
        rows = _browser(aave, f"examples/{name}")
    finally:
        assert _browser(aave, "examples/drop")[0]["dropped"] == "grimoire-topology-example"
    assert len(rows) == 20, name
    if name in ("pagerank", "betweenness"):
        expected = _pagerank(g) if name == "pagerank" else nx.betweenness_centrality(g, normalized=False)
        assert [r["id"] for r in rows] == _top({n: s for n, s in expected.items() if s > 0}, 20)
        for r in rows:
            assert r["score"] == pytest.approx(expected[r["id"]], rel=1e-4, abs=1e-6), r["id"]
    else:  # components (largest first) and Louvain communities, each listed with a few member names
        with aave.session() as s:
            names = {r["id"]: r["name"] for r in s.run("MATCH (e:Entity) RETURN e.id AS id, e.name AS name")}
        components = sorted(nx.connected_components(g.to_undirected()), key=len, reverse=True)
        in_component: dict[str, set[int]] = {}  # a name -> the components holding an entity of that name
        for i, c in enumerate(components):
            for n in c:
                in_component.setdefault(names.get(n) or n, set()).add(i)
        sizes = [r["size"] for r in rows]
        assert sizes == sorted(sizes, reverse=True)
        if name == "components":
            assert sizes == [len(c) for c in components[:20]]
        for r in rows:
            shown = r["some_members"]
            assert 0 < len(shown) <= (5 if name == "components" else 8)
            # The members shown all belong to one component, of the listed size or (a community) larger.
            common = set.intersection(*(in_component[m] for m in shown))
            assert any(len(components[i]) == r["size"] if name == "components" else len(components[i]) >= r["size"]
                       for i in common), r
    assert aave.rows("testing/drop_gds_graphs")[0]["dropped"] == 0
