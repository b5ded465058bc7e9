"""Visibility on every read path: an agent sees its own items, items shared within its clade and
public items, never another agent's private items: not by id, list, vector or full-text search,
graph traversal, counts, admission or votes."""

from __future__ import annotations

import numpy as np
import pytest

from grimoire.graph.retrieval import backends, search
from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.retrieval.filters import RetrievalFilters
from grimoire.graph.retrieval.search import Kind
from grimoire.graph.visibility import Visibility

WETH = {"kind": "Token", "name": "WETH", "chain_id": 1, "address": "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"}
WETH_ID = "1:0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"
SCOPES = ("private", "shared", "public")
TEXTS = {
    "private": "Treasury multisig rotation planned at block 777 using the hidden key ceremony",
    "shared": "Clade note: the WETH borrow cap on Aave was raised to 1.5 million",
    "public": "Public: WETH liquidity on the 0.05% pool doubled this week",
}


@pytest.fixture
def world(api):
    """B (clade-x) owns one episode and one entry of each scope; B2 is in B's clade; A is not."""
    b, b2, a = api.headers("agent-b", "clade-x"), api.headers("agent-b2", "clade-x"), api.headers("agent-a", "clade-y")
    for scope in SCOPES:
        r = api.client.post("/episodes", headers=b, json={"id": f"b-ep-{scope}", "scope": scope, "type": "observation",
                                                           "text": TEXTS[scope], "mentions": [WETH]})
        assert r.status_code == 201, r.text
        r = api.client.post("/entries", headers=b, json={
            "id": f"b-en-{scope}", "scope": scope, "category": "Warning", "parent_episode_ids": [f"b-ep-{scope}"],
            "content": f"Warning derived from: {TEXTS[scope]}"})
        assert r.json()["outcome"] == "admitted", r.text
    a_ep = api.client.post("/episodes", headers=a, json={"id": "a-ep", "type": "observation", "text": "A's own note"})
    assert a_ep.status_code == 201
    return {"A": a, "B2": b2, "B": b}


EXPECTED = {"A": {"public"}, "B2": {"shared", "public"}, "B": {"private", "shared", "public"}}


def _b_ids(ids: list[str], kind: str) -> set[str]:
    return {i.removeprefix(f"b-{kind}-") for i in ids if i.startswith(f"b-{kind}-")}


@pytest.mark.parametrize("who", ["A", "B2", "B"])
def test_by_id_and_lists(api, world, who: str) -> None:
    h, allowed = world[who], EXPECTED[who]
    for scope in SCOPES:
        assert (api.client.get(f"/episodes/b-ep-{scope}", headers=h).status_code == 200) == (scope in allowed)
        assert (api.client.get(f"/entries/b-en-{scope}", headers=h).status_code == 200) == (scope in allowed)
    episodes = [e["id"] for e in api.client.get("/episodes", headers=h).json()]
    entries = [e["id"] for e in api.client.get("/entries", headers=h).json()]
    assert _b_ids(episodes, "ep") == allowed and _b_ids(entries, "en") == allowed
    filtered = [e["id"] for e in api.client.get("/episodes", headers=h, params={"agent_id": "agent-b"}).json()]
    assert _b_ids(filtered, "ep") == allowed
    # An entry's source episodes and decisions are filtered too.
    if "public" in allowed:
        assert api.client.get("/entries/b-en-public", headers=h).json()["parent_episode_ids"] == ["b-ep-public"]


@pytest.mark.parametrize("who", ["A", "B2", "B"])
def test_vector_and_fulltext_search(api, world, embedder, who: str) -> None:
    h, allowed = world[who], EXPECTED[who]
    # Which of B's texts share a word with each text once the English analyzer has dropped stop
    # words: "WETH" is in the shared and the public one; the private one shares nothing.
    fulltext_matches = {"private": {"private"}, "shared": {"shared", "public"}, "public": {"shared", "public"}}
    for kind, prefix in (("episodes", "ep"), ("entries", "en")):
        # A's own episode ("A's own note") is A's alone; it shares "note" with the shared text.
        own = {"a-ep"} if who == "A" and kind == "episodes" else set()
        for scope in SCOPES:
            vector_hits = api.client.post("/search", headers=h, json={"text": TEXTS[scope], "kind": kind, "k": 20})
            text_hits = api.client.post("/search", headers=h, json={"text": TEXTS[scope], "kind": kind, "k": 20,
                                                                     "mode": "fulltext"})
            assert vector_hits.status_code == text_hits.status_code == 200, (vector_hits.text, text_hits.text)
            # k 20 is more than anyone sees: the vector search returns every visible item, nothing else.
            assert {x["id"] for x in vector_hits.json()} == {f"b-{prefix}-{s}" for s in allowed} | own, scope
            if scope in allowed:  # the item holding the query's own text comes first
                assert vector_hits.json()[0]["id"] == f"b-{prefix}-{scope}"
            # Full text: exactly the visible items that share a word with the query.
            expected = {f"b-{prefix}-{s}" for s in fulltext_matches[scope] & allowed}
            expected |= own if scope == "shared" else set()
            assert {x["id"] for x in text_hits.json()} == expected, (scope, text_hits.json())


@pytest.mark.parametrize("who", ["A", "B2", "B"])
def test_traversal_and_counts(api, world, who: str) -> None:
    h, allowed = world[who], EXPECTED[who]
    related = api.client.get(f"/entities/{WETH_ID}/related", headers=h).json()
    assert _b_ids([r["episode_id"] for r in related], "ep") == allowed
    assert _b_ids([e for r in related for e in r["entry_ids"]], "en") == allowed
    stats = api.client.get("/stats", headers=h).json()
    own = 1 if who == "A" else 0
    assert stats["episodes"] == len(allowed) + own and stats["entries"] == len(allowed)


def test_admission_votes_decisions_and_export_do_not_leak(api, world) -> None:
    a = world["A"]
    # A candidate identical to B's private entry is not merged into it or skipped as its duplicate.
    probe = api.client.post("/admission/dry-run", headers=a, json={
        "category": "Warning", "content": f"Warning derived from: {TEXTS['private']}"}).json()
    assert probe["outcome"] not in ("merged", "skipped")
    assert all(not n["id"].startswith("b-en-private") for n in probe["nearest"])
    assert probe["max_similarity"] < 0.9
    assert api.client.post("/entries/b-en-private/upvote", headers=a).status_code == 404
    assert api.client.post("/entries/b-en-private/outcome", headers=a,
                           json={"used_in_decision": True, "outcome": "positive"}).status_code == 404
    decision = api.client.get("/entries/b-en-private", headers=world["B"]).json()["decision_ids"][0]
    assert api.client.get(f"/admission/decisions/{decision}", headers=world["B"]).status_code == 200
    assert api.client.get(f"/admission/decisions/{decision}", headers=a).status_code == 404
    assert api.client.get("/agents/agent-b/export", headers=a).status_code == 403
    assert api.client.get("/agents/agent-b/keys", headers=a).status_code == 403
    # Clade mates may vote on shared entries (stigmergic validation); others may not.
    assert api.client.post("/entries/b-en-shared/upvote", headers=world["B2"]).status_code == 200
    assert api.client.post("/entries/b-en-shared/upvote", headers=a).status_code == 404


def test_filtered_vector_search_still_returns_the_k_best_visible(api, db, embedder, monkeypatch) -> None:
    """B's 300 private items crowd the index around the query; A still gets its own 5 best, exactly."""
    a, b = api.headers("agent-a", "clade-y"), api.headers("agent-b", "clade-x")
    query = "the oracle for the WETH market was replaced by governance"
    crowd = [{"id": f"crowd-{i}", "type": "observation", "text": f"{query} (copy {i})"} for i in range(300)]
    assert api.client.post("/episodes/batch", headers=b, json={"episodes": crowd}).status_code == 201
    own_texts = [f"A noted: oracle change number {i} on a lending market" for i in range(8)]
    own = [{"id": f"own-{i}", "type": "observation", "text": t} for i, t in enumerate(own_texts)]
    assert api.client.post("/episodes/batch", headers=a, json={"episodes": own}).status_code == 201
    q = embedder.embed_one(query)
    vectors = embedder.embed(own_texts)
    expected = [f"own-{i}" for i in np.argsort(-(vectors @ np.asarray(q)))[:5]]
    hits = api.client.post("/search", headers=a, json={"vector": q, "k": 5}).json()
    assert [h["id"] for h in hits] == expected
    # The index alone (over-fetching 100) sees only B's copies: the exact fallback answered.
    view = Visibility("agent-a", "clade-y")
    params = RetrievalFilters(kinds=["episodes"]).params(view)
    assert db.rows("retrieval/vector", embedding=q, top=5, candidates=100, **params) == []
    assert [h["id"] for h in search.vector(db, Kind.episodes, q, 5, view)] == expected
    # The same through the index first (not the exact ranking of a small visible set), its widening
    # capped at those 100 candidates: the exact fallback answers.
    monkeypatch.setattr(backends, "MAX_CANDIDATES", 100)
    index_first = RetrievalConfig(exact_below=0, exact_index_ratio=0)
    assert [h["id"] for h in search.vector(db, Kind.episodes, q, 5, view, index_first)] == expected


# Every read route, and the test that shows it returns only what the caller may see. A new read route
# fails test_every_read_route_has_an_isolation_test until it is added here with its test.
LEARNING = "test_learning_api.py::test_one_agent_never_sees_another_agents_learning"
LEAKS = "test_isolation.py::test_admission_votes_decisions_and_export_do_not_leak"
READ_ROUTES = {
    "GET /episodes": "test_isolation.py::test_by_id_and_lists",
    "GET /episodes/{episode_id}": "test_isolation.py::test_by_id_and_lists",
    "GET /episodes/{episode_id}/reflection": "test_reflexion.py::test_the_verdict_is_read_by_who_may_see_the_episode",
    "GET /entries": "test_isolation.py::test_by_id_and_lists",
    "GET /entries/{entry_id}": "test_isolation.py::test_by_id_and_lists",
    "GET /entries/{entry_id}/versions": LEARNING,
    "GET /admission/decisions/{decision_id}": LEAKS,
    "POST /admission/dry-run": LEAKS,
    "POST /search": "test_isolation.py::test_vector_and_fulltext_search",
    "POST /retrieve": "test_isolation.py::test_vector_and_fulltext_search",
    "GET /stats": "test_isolation.py::test_traversal_and_counts",
    "GET /agents": "test_isolation.py::test_the_agent_list_is_the_callers_clade",
    "GET /agents/me": "test_auth.py::test_keys_are_stored_hashed_shown_once_and_revocable",
    "GET /agents/{agent_id}/keys": LEAKS,
    "GET /agents/{agent_id}/export": "test_entity_visibility.py::test_export",
    "GET /agents/{agent_id}/causal-graph": "test_causal.py::test_a_successor_inherits_at_confidence_0_3",
    "GET /causal/{entry_id}/consequences": "test_causal.py::test_bad_links_and_other_agents",
    "GET /causal/{entry_id}/causes": "test_causal.py::test_bad_links_and_other_agents",
    "GET /entities/resolve": "test_entity_visibility.py::test_resolve",
    "GET /entities/{entity_id}/related": "test_entity_visibility.py::test_facts_and_related_items_of_an_entity",
    "GET /entities/{entity_id}/facts": "test_entity_visibility.py::test_facts_and_related_items_of_an_entity",
    "GET /entities/{entity_id}/lag": "test_fact_decay.py::test_information_lag_per_fact_per_entity_and_in_curiosity",
    "GET /facts/{fact_id}": "test_entity_visibility.py::test_fact_versions",
    "POST /topology/k-hop": "test_entity_visibility.py::test_k_hop",
    "GET /topology/path": "test_entity_visibility.py::test_path",
    "POST /topology/curiosity": "test_entity_visibility.py::test_curiosity",
    "POST /analytics/cascade": "test_entity_visibility.py::test_cascade",
    "POST /analytics/{algorithm}": "test_entity_visibility.py::test_analyses",
    "GET /analytics/runs": "test_entity_visibility.py::test_written_runs",
    "GET /analytics/runs/{run_id}": "test_entity_visibility.py::test_written_runs",
    "GET /retrieve/weights":
        "test_retrieval_refinements.py::test_decision_ids_and_the_generative_agents_weights_learned_by_hedge",
    "GET /mental-models": "test_mental_models.py::test_every_agent_retrieves_them_by_default",  # public by design
    "POST /hooks/before_compact": "test_hooks.py::test_hooks_are_isolated",
    "GET /metrics": "test_metrics.py::test_metrics_are_isolated",
    "GET /metrics/series": "test_metrics.py::test_metrics_are_isolated",
    "GET /events": "test_events.py::test_events_are_isolated",
    "GET /events/stream": "test_events.py::test_events_are_isolated",
    "GET /scheduler/jobs": "test_scheduler.py::test_the_jobs_are_the_admins",
    "GET /metrics/prometheus": "test_prometheus.py::test_the_endpoint_is_the_admins_on_the_api_port",
    "GET /curator/cycles": LEARNING,
    "GET /curator/cycles/{cycle_id}/operations": LEARNING,
    "GET /playbook": LEARNING,
    "GET /strategies": "test_learning_api.py::test_a_strategy_past_psr_0_9_is_packaged_with_its_playbook_section",
    "GET /strategies/{strategy}/package":
        "test_learning_api.py::test_a_strategy_past_psr_0_9_is_packaged_with_its_playbook_section",
}
READ_ROUTES |= {route: "test_core_memory.py::test_core_memory_is_the_agents_own" for route in (
    "GET /agents/{agent_id}/core", "GET /agents/{agent_id}/core/memory.md",
    "GET /agents/{agent_id}/core/{block}/versions")}
READ_ROUTES |= {route: "test_memory_messages.py::test_one_agents_memories_are_its_own" for route in (
    "GET /agents/{agent_id}/memories", "GET /agents/{agent_id}/memories/{memory_id}", "GET /agents/{agent_id}/recall")}
READ_ROUTES |= {route: "test_memory_entity_pages.py::test_an_entity_page_is_its_agents_own" for route in (
    "GET /agents/{agent_id}/entities/{entity_id}/page", "GET /agents/{agent_id}/entities/{entity_id}/page.md")}
READ_ROUTES |= {route: "test_memory_reflection.py::test_reflections_are_the_agents_own" for route in (
    "GET /agents/{agent_id}/reflections", "GET /agents/{agent_id}/reflections/pending.md",
    "GET /agents/{agent_id}/reflections/log.md", "GET /agents/{agent_id}/reflections/evolution.md",
    "GET /agents/{agent_id}/reflections/{reflection_id}")}
READ_ROUTES |= {route: "test_memory_workspace.py::test_workspace_is_the_agents_own" for route in (
    "GET /agents/{agent_id}/workspace", "GET /agents/{agent_id}/workspace.zip")}
READ_ROUTES |= {route: "test_audit_trail.py::test_the_trail_is_the_agents_own" for route in (
    "GET /agents/{agent_id}/audit", "GET /agents/{agent_id}/audit.log", "GET /agents/{agent_id}/audit/forgotten",
    "GET /agents/{agent_id}/audit/reflections/{reflection_id}", "GET /agents/{agent_id}/audit/critical",
    "GET /agents/{agent_id}/audit/items/{item_id}", "GET /audit")}
READ_ROUTES["GET /agents/{agent_id}/versions/{item_id}"] = "test_audit_rollback.py::test_versions_are_the_agents_own"
READ_ROUTES |= {route: "test_audit_retention.py::test_digests_are_the_agents_own" for route in (
    "GET /agents/{agent_id}/audit/digests", "GET /agents/{agent_id}/audit/archive.md", "GET /audit/digests")}
READ_ROUTES |= {route: "test_context_policy.py::test_bad_changes_are_4xx_and_the_policy_is_the_agents_own"
                for route in ("GET /agents/{agent_id}/context/policy",
                              "GET /agents/{agent_id}/context/policy/revisions",
                              "GET /agents/{agent_id}/context/policy/delta")}
READ_ROUTES |= {route: "test_context_assembly.py::test_the_workspace_and_the_loops_are_the_agents_own"
                for route in ("GET /agents/{agent_id}/context/decisions", "GET /agents/{agent_id}/context/beliefs",
                              "GET /agents/{agent_id}/context/mutations",
                              "POST /agents/{agent_id}/context/assemble",
                              "POST /agents/{agent_id}/context/preassemble")}
READ_ROUTES["GET /agents/{agent_id}/context/reasoning"] = (
    "test_context_reasoning.py::test_a_decisions_reasoning_is_kept_for_replay_and_erased_with_its_text")
READ_ROUTES["GET /agents/{agent_id}/alerts"] = "test_audit_alerts.py::test_alerts_are_the_agents_own"
READ_ROUTES |= {route: "test_memory_proposals.py::test_proposals_are_the_main_agents_own" for route in (
    "GET /agents/{agent_id}/proposals", "GET /agents/{agent_id}/proposals/pending.md")}
READ_ROUTES["GET /crystals/{crystal_id}"] = (
    "test_crystal_governance.py::test_confidential_and_private_crystals_never_leak_on_any_read_route")
READ_ROUTES |= {route: "test_crystal_provenance.py::test_lineage_is_what_the_caller_sees" for route in (
    "GET /crystals/{crystal_id}/provenance", "GET /crystals/{crystal_id}/provenance/tree",
    "GET /crystals/{crystal_id}/provenance/attribution")}
READ_ROUTES |= {route: "test_crystal_skills.py::test_skills_are_what_the_caller_sees" for route in (
    "GET /skills", "GET /skills/search", "GET /skills/{stable_id}")}
READ_ROUTES["GET /agents/{agent_id}/hormones"] = "test_crystal_hormones.py::test_hormones_are_the_agents_own"
READ_ROUTES |= {route: "test_crystal_verification.py::test_bounties_are_what_the_caller_sees" for route in (
    "GET /bounties", "GET /bounties/{bounty_id}")}
READ_ROUTES["GET /agents/{agent_id}/limits"] = "test_overload.py::test_limits_are_the_agents_own_and_the_admins_to_set"
# The network override and the management nodes' public keys are the same for every agent.
NO_AGENT_DATA = {"GET /health", "GET /hormones/network", "GET /management-nodes"}


def test_every_read_route_has_an_isolation_test(api) -> None:
    import re
    from pathlib import Path

    paths = api.client.get("/openapi.json").json()["paths"]
    reads = {f"GET {p}" for p, ops in paths.items() if "get" in ops} - NO_AGENT_DATA
    missing = sorted(reads - set(READ_ROUTES))
    assert not missing, f"read routes without an isolation test in READ_ROUTES: {missing}"
    here = Path(__file__).parent
    for route, test in READ_ROUTES.items():
        file, name = test.split("::")
        assert re.search(rf"^def {name}\(", (here / file).read_text(), re.M), f"{route}: no test {test}"
        method, path = route.split(" ", 1)
        assert method.lower() in paths.get(path, {}), f"{route} is not a route any more"


# The console's pages (api/console/, not in the OpenAPI schema) are read paths too: each has its isolation test.
CONSOLE_PAGES = {route: "test_console.py::test_the_console_is_a_partition" for route in (
    "GET /console/agents/{agent_id}", "GET /console/agents/{agent_id}/knowledge",
    "GET /console/agents/{agent_id}/items/{item_id}", "GET /console/agents/{agent_id}/memory",
    "GET /console/agents/{agent_id}/approvals", "GET /console/agents/{agent_id}/audit",
    "GET /console/agents/{agent_id}/diff", "GET /console/agents/{agent_id}/graph",
    "GET /console/agents/{agent_id}/events/stream", "GET /console/agents")}
CONSOLE_PAGES |= {route: "test_console.py::test_sign_in_keeps_the_key_on_the_server_and_sign_out_ends_it"
                  for route in ("GET /console", "GET /console/sign-in")}


def test_every_console_page_has_an_isolation_test() -> None:
    import re
    from pathlib import Path

    from fastapi.routing import APIRoute

    from grimoire.api.console.pages import ROUTERS

    pages = {f"GET {r.path}" for router in ROUTERS for r in router.routes
             if isinstance(r, APIRoute) and "GET" in r.methods}
    assert pages and not sorted(pages - set(CONSOLE_PAGES)), f"console pages without an isolation test: " \
                                                               f"{sorted(pages - set(CONSOLE_PAGES))}"
    assert not sorted(set(CONSOLE_PAGES) - pages), "listed console pages that are gone"
    here = Path(__file__).parent
    for test in set(CONSOLE_PAGES.values()):
        file, name = test.split("::")
        assert re.search(rf"^def {name}\(", (here / file).read_text(), re.M), test


def test_the_agent_list_is_the_callers_clade(api) -> None:
    a, b = api.headers("list-a", "clade-1"), api.headers("list-b", "clade-2")
    api.headers("list-a2", "clade-1")
    assert sorted(x["id"] for x in api.client.get("/agents", headers=a).json()) == ["list-a", "list-a2"]
    assert [x["id"] for x in api.client.get("/agents", headers=b).json()] == ["list-b"]
    assert {"list-a", "list-a2", "list-b"} <= {x["id"] for x in api.client.get("/agents", headers=api.admin).json()}
