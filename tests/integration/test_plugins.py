"""GDS 2.13 and APOC are installed and callable on the real server."""

from __future__ import annotations

import numpy as np
from graphdatascience import GraphDataScience

from grimoire.graph.db.connection import Database
from tests.conftest import Neo4jUnderTest

# A small web: (from, to) links between pages.
LINKS = [("home", "about"), ("home", "blog"), ("about", "home"), ("blog", "home"),
         ("blog", "post1"), ("post1", "blog"), ("post2", "blog"), ("post2", "home"), ("about", "post1")]


def _power_iteration_pagerank(links: list[tuple[str, str]], damping: float = 0.85,
                              iterations: int = 100) -> dict[str, float]:
    """PageRank as GDS defines it (unnormalised, (1-d) base, dangling mass dropped)."""
    nodes = sorted({n for link in links for n in link})
    idx = {n: i for i, n in enumerate(nodes)}
    out_degree = np.zeros(len(nodes))
    for a, _ in links:
        out_degree[idx[a]] += 1
    rank = np.ones(len(nodes)) * (1 - damping)
    for _ in range(iterations):
        incoming = np.zeros(len(nodes))
        for a, b in links:
            incoming[idx[b]] += rank[idx[a]] / out_degree[idx[a]]
        rank = (1 - damping) + damping * incoming
    return dict(zip(nodes, rank.tolist(), strict=True))


def test_gds_version_is_2_13(db: Database) -> None:
    version = db.run("health/gds_version")[0]["version"]
    assert version.startswith("2.13."), version


def test_apoc_answers(db: Database) -> None:
    version = db.run("health/apoc_version")[0]["version"]
    assert version.startswith("5.26"), version


def test_pagerank_through_the_gds_client(db: Database, neo4j_server: Neo4jUnderTest) -> None:
    db.run("testing/create_links", links=[list(link) for link in LINKS])
    gds = GraphDataScience(neo4j_server.uri, auth=(neo4j_server.user, neo4j_server.password),
                           database=neo4j_server.database)
    try:
        projected = gds.graph.project.native("test_pages", "Page", "LINKS")
        graph = projected.graph
        try:
            scores = gds.page_rank.stream(graph, max_iterations=100, tolerance=1e-9)
            names = db.run("testing/node_names", ids=scores["nodeId"].tolist())
        finally:
            gds.graph.drop(graph)
        by_id = {row["nodeId"]: row["name"] for row in names}
        got = {by_id[n]: s for n, s in zip(scores["nodeId"], scores["score"], strict=True)}
    finally:
        gds.close()
    expected = _power_iteration_pagerank(LINKS)
    assert sorted(got, key=got.get, reverse=True) == sorted(expected, key=expected.get, reverse=True)
    for name, score in expected.items():
        assert abs(got[name] - score) < 1e-3, (name, got[name], score)
    assert db.run("testing/drop_gds_graphs")[0]["dropped"] == 0  # nothing left behind
