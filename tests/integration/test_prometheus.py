"""The Prometheus endpoint (issue 40, section 2): scraped after real traffic (retrievals, an ingest, a Curator cycle,
a scheduled job, a vector index rebuild, a refused request), every family the service declares is there with values
that follow from that traffic; and the endpoint is the admin's on the API's port, open on its own port."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from grimoire.api.app import create_app
from grimoire.graph import meters
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.schema import VECTOR_INDEXES
from grimoire.graph.upkeep.rebuild import rebuild_vector_indexes
from tests.conftest import ADMIN_KEY, Api, Neo4jUnderTest, free_port

pytestmark = pytest.mark.integration

EPISODES = [{"id": f"pm-{i}", "type": "action", "tool": "uniswap-swap", "chain": "1", "token_pair": "WETH/USDC",
             "regime": "bull", "tick": i, "outcome": "positive", "gain": 5.0,
             "text": f"uniswap-swap on WETH/USDC at tick {i}: filled with a gain"} for i in range(6)]
Families = dict[str, list[Sample]]


@pytest.fixture
def served(db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder) -> Iterator[tuple[Api, int]]:
    """The API with the separate metrics port on as well; the port."""
    port = free_port()
    app = create_app(neo4j_server.settings(admin_key=ADMIN_KEY, prometheus_port=port), db=db, embedder=embedder)
    with TestClient(app) as c:
        yield Api(c, db), port


def parse(text: str) -> Families:
    return {f.name: f.samples for f in text_string_to_metric_families(text)}


def scrape(api: Api) -> Families:
    r = api.client.get("/metrics/prometheus", headers=api.admin)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    return parse(r.text)


def value(families: Families, name: str, **labels: str) -> float:
    """The sum of the samples named `name` whose labels include `labels`."""
    family = name.removesuffix("_total").removesuffix("_bucket").removesuffix("_count").removesuffix("_sum")
    return sum(s.value for s in families.get(family, []) if s.name == name
               and all(s.labels.get(k) == v for k, v in labels.items()))


def histogram_is_sound(families: Families, name: str, **labels: str) -> float:
    """A histogram's series for `labels`: its buckets never fall as `le` grows, the +Inf bucket is the count; the
    count."""
    buckets = sorted(((float(s.labels["le"]), s.value) for s in families[name] if s.name == f"{name}_bucket"
                      and all(s.labels.get(k) == v for k, v in labels.items())), key=lambda b: b[0])
    assert buckets, f"{name} {labels}: no buckets"
    counts = [c for _, c in buckets]
    assert counts == sorted(counts), f"{name} {labels}: buckets not monotone {buckets}"
    assert math.isinf(buckets[-1][0])
    count = value(families, f"{name}_count", **labels)
    assert buckets[-1][1] == count
    assert value(families, f"{name}_sum", **labels) > 0
    return count


def test_a_scrape_after_traffic_finds_every_family_with_sensible_values(served: tuple[Api, int]) -> None:
    api, port = served
    began = time.time()
    services = api.client.app.state.services  # type: ignore[attr-defined]
    h = api.headers("golem-pm", "clade-pm")
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": EPISODES})
    assert r.status_code == 201, r.text
    for text in ("swaps on WETH/USDC", "a gain at a tick", "uniswap fills"):
        r = api.client.post("/retrieve", headers=h, json={"text": text, "k": 3})
        assert r.status_code == 200, r.text
    r = api.client.post("/curator/cycles", headers=h, json={})
    assert r.status_code == 200, r.text
    # A scheduled job run (on this thread: the tests' scheduler is not started) and a vector index rebuilt.
    assert services.scheduler.trigger("crystals.consolidation")
    assert "crystals.consolidation" in services.scheduler.run_due()  # beside any lazy enrichment triggered
    rebuild_vector_indexes(api.db, services.embedder.dimension, ["skill_entity"], timeout=120.0)
    # A refused request: an agent whose key may make one request, then none for 1,000 s.
    limited = api.headers("golem-pm-limited", "clade-pm")
    r = api.client.put("/agents/golem-pm-limited/limits", headers=api.admin, json={"rate_per_s": 0.001, "burst": 1})
    assert r.status_code == 200, r.text
    assert api.client.get("/agents/me", headers=limited).status_code == 200
    refused = api.client.get("/agents/me", headers=limited)
    assert refused.status_code == 429, refused.text

    with services.scheduler.leases.hold("prometheus.test") as seen:  # a job lease held while the scrape reads
        assert seen.held
        families = scrape(api)

    missing = sorted(set(meters.families()) - set(families))
    assert not missing, f"families the endpoint does not export: {missing}"
    # Requests by route template and status, timed.
    assert value(families, "grimoire_http_requests_total", method="POST", route="/retrieve", status="200") >= 3
    assert value(families, "grimoire_http_requests_total", method="POST", route="/episodes/batch", status="201") >= 1
    assert value(families, "grimoire_http_requests_total", method="GET", route="/agents/me", status="429") >= 1
    assert not [s for s in families["grimoire_http_requests"] if "pm-" in s.labels["route"]], "a path, not a template"
    assert histogram_is_sound(families, "grimoire_http_request_duration_seconds", method="POST", route="/retrieve",
                              status="200") >= 3
    assert value(families, "grimoire_http_requests_in_flight") >= 1  # the scrape itself
    assert value(families, "grimoire_http_requests_refused_total", status="429", reason="key_rate") >= 1
    assert value(families, "grimoire_admission_capacity") >= 4
    # Neo4j's pool and sessions.
    pooled = value(families, "grimoire_neo4j_pool_connections", state="in_use") + value(
        families, "grimoire_neo4j_pool_connections", state="idle")
    assert 1 <= pooled <= value(families, "grimoire_neo4j_pool_max_connections")
    assert value(families, "grimoire_neo4j_sessions_total") > 0
    assert histogram_is_sound(families, "grimoire_neo4j_session_duration_seconds") > 0
    # The embedder: the episodes and the queries went through it.
    assert histogram_is_sound(families, "grimoire_embedder_batch_size") >= 1
    assert value(families, "grimoire_embedder_batch_size_sum") >= len(EPISODES)
    assert histogram_is_sound(families, "grimoire_embedder_batch_duration_seconds") >= 1
    # The scheduler: the job's run, its time, its success; the lease it ran under and the one held now.
    job = "crystals.consolidation"
    assert value(families, "grimoire_scheduler_job_runs_total", job=job, outcome="ran") >= 1
    assert histogram_is_sound(families, "grimoire_scheduler_job_duration_seconds", job=job) >= 1
    assert value(families, "grimoire_scheduler_job_last_success_timestamp_seconds", job=job) >= began
    assert value(families, "grimoire_lease_token", lease=job) >= 1
    assert value(families, "grimoire_lease_last_released_timestamp_seconds", lease=job) >= began - 1
    assert value(families, "grimoire_lease_held", lease="prometheus.test", holder=services.scheduler.replica) == 1
    assert not [s for s in families["grimoire_lease_held"] if s.labels["lease"] == job]  # released
    assert not [s for s in families["grimoire_lease_token"] if ":" in s.labels["lease"]]  # no agent's unit lease
    # Vector indexes: one state each, online, and the rebuild counted.
    for index in VECTOR_INDEXES:
        assert value(families, "grimoire_vector_index_state", index=index) == 1, index
        assert value(families, "grimoire_vector_index_state", index=index, state="ONLINE") == 1, index
        assert value(families, "grimoire_vector_index_population_percent", index=index) == 100
        assert value(families, "grimoire_vector_index_rebuilding", index=index) == 0
    assert value(families, "grimoire_vector_index_rebuilds_total", index="skill_entity") == 1
    assert value(families, "grimoire_vector_index_rebuilds_total", index="episode_embedding") == 0
    # The Curator's and consolidation's last runs, and the graph read.
    now = time.time()
    assert began - 1 <= value(families, "grimoire_curator_last_cycle_timestamp_seconds") <= now + 1
    assert began - 1 <= value(families, "grimoire_consolidation_last_run_timestamp_seconds") <= now + 1
    assert value(families, "grimoire_graph_state_up") == 1

    # The separate port: the same families, without a key.
    opened = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=30)
    assert opened.status_code == 200
    assert not sorted(set(meters.families()) - set(parse(opened.text)))


def test_the_endpoint_is_the_admins_on_the_api_port(api: Api, db: Database, neo4j_server: Neo4jUnderTest,
                                                     embedder: Embedder) -> None:
    agent = api.headers("golem-1")
    person = api.headers("golem-1", scopes=("read", "person"))
    for headers, status in ((agent, 403), (person, 403), ({}, 401), (api.admin, 200)):
        r = api.client.get("/metrics/prometheus", headers=headers)
        assert r.status_code == status, (headers, r.text)
    assert "grimoire_http_requests_total" not in api.client.get("/metrics/prometheus", headers=agent).text
    off = create_app(neo4j_server.settings(admin_key=ADMIN_KEY, prometheus_enabled=False), db=db, embedder=embedder)
    with TestClient(off) as c:
        r = c.get("/metrics/prometheus", headers={"X-API-Key": ADMIN_KEY})
        assert r.status_code == 404
        assert r.headers["content-type"].startswith("application/problem+json")


def _scrape_hits(db: Database) -> dict[str, int]:
    """The database's work (PROFILE db hits) for each of the statements a scrape runs (graph/prometheus_state.py)."""
    from typing import Any

    from grimoire.graph.db import cypher
    from grimoire.graph.prometheus_state import CONSOLIDATION_JOB

    statements: dict[str, dict[str, Any]] = {
        "prometheus/leases": {}, "prometheus/last_runs": {"consolidation": CONSOLIDATION_JOB},
        "prometheus/vector_builds": {}, "schema/index_progress": {"names": list(VECTOR_INDEXES)}}

    def walk(plan: Any) -> int:
        return int(plan.get("dbHits", 0)) + sum(walk(c) for c in plan.get("children", []))

    out = {}
    with db.session() as s:
        s.run("CALL db.prepareForReplanning()").consume()
        for name, params in statements.items():
            out[name] = walk(s.run("CYPHER replan=force PROFILE " + cypher.query(name), params).consume().profile)
    return out


def test_the_scrape_stays_cheap_as_the_store_grows(api: Api, db: Database) -> None:
    """The scrape is outside admission control like /health (api/admission.py OPERATOR_PATHS): that is safe only
    while it costs the same on a small store and a large one. Its statements' work does not grow with the Curator's
    cycles nor with the episodes, and it is answered the same."""
    assert scrape(api)["grimoire_graph_state_up"][0].value == 1
    small = _scrape_hits(db)
    db.run("testing/bulk_cycles", n=5_000, at=1_770_000_000_000)
    r = api.client.post("/episodes/batch", headers=api.headers("pm-big"), json={"episodes": EPISODES})
    assert r.status_code in (200, 201), r.text
    large = _scrape_hits(db)
    for name, hits in large.items():
        assert hits <= small[name] + 10, (name, small[name], hits)  # a few hits for the newest cycle, not 5,000
    families = scrape(api)
    assert families["grimoire_graph_state_up"][0].value == 1
    assert value(families, "grimoire_curator_last_cycle_timestamp_seconds") == (1_770_000_000_000 + 5_000) / 1000
