"""Entity visibility (issue 13, point 2): an entity's id and name are content. Entities from
loaders and the admin are public; any other entity is visible to an agent only when it created it
(POST /entities), or can see an item that mentions it (an episode) or a fact that touches it. Every
route that returns an entity or its name is checked with four callers against expected sets
written out here; the route list is kept in step with the OpenAPI spec (ROUTE_RULE).

The world (block 100 on; every read at block 150):

    owner (clade-x)  private episode  mentions P, W         private fact  P -HasPosition-> C
                     shared episode   mentions S, Q, W      private fact  C -TokenFlow-> W
                     public episode   mentions W, FEED      shared fact   Q -CollateralBacking-> W
                     POST /entities   C, Q
    admin            POST /entities   W, FEED (public)      public fact   W -OracleDependency-> FEED
    peer (clade-x), other (clade-y): nothing of their own.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest

from grimoire.graph.retrieval import backends
from grimoire.graph.schema import apply_schema
from grimoire.graph.topology import entities
from grimoire.graph.topology.model import EntityIn
from grimoire.graph.visibility import Visibility

P, S, C, Q = "project:zeta private", "project:zeta shared", "pool:zeta created", "pool:zeta clade"
W, FEED = "pool:zeta weth/usdc", "oracle:zeta eth/usd"  # public, and with a "/" in their ids
NAMES = {P: "Zeta Private", S: "Zeta Shared", C: "Zeta Created", Q: "Zeta Clade", W: "Zeta WETH/USDC",
         FEED: "Zeta ETH/USD"}
KINDS = {P: "Project", S: "Project", C: "Pool", Q: "Pool", W: "Pool", FEED: "Oracle"}
ALL = frozenset(NAMES)
CALLERS = ("owner", "peer", "other", "admin")
AGENTS = {"owner": ("vis-owner", "clade-x"), "peer": ("vis-peer", "clade-x"), "other": ("vis-other", "clade-y")}
BLOCK = 150

VISIBLE = {"owner": ALL, "peer": {S, Q, W, FEED}, "other": {W, FEED}, "admin": ALL}
EPISODES = {"ep-private": ("private", [P, W]), "ep-shared": ("shared", [S, Q, W]), "ep-public": ("public", [W, FEED])}
EPISODES_SEEN = {"owner": set(EPISODES), "peer": {"ep-shared", "ep-public"}, "other": {"ep-public"},
                 "admin": set(EPISODES)}
FACTS = {"f-wo": (W, "OracleDependency", FEED, "public"), "f-cw": (C, "TokenFlow", W, "private"),
         "f-qw": (Q, "CollateralBacking", W, "shared"), "f-pc": (P, "HasPosition", C, "private")}
FACTS_SEEN = {"owner": set(FACTS), "peer": {"f-wo", "f-qw"}, "other": {"f-wo"}, "admin": set(FACTS)}
FACTS_ON = {e: {f for f, (s, _, o, _) in FACTS.items() if e in (s, o)} for e in ALL}
MENTIONED_BY = {e: {ep for ep, (_, ms) in EPISODES.items() if e in ms} for e in ALL}
IN_TOPOLOGY = {P, C, Q, W, FEED}  # entities with facts valid at BLOCK
IN_COMENTION = {P, W, S, Q, FEED}  # entities an episode mentions with another
CURIOSITY_TO_FEED = {FEED: 1.0, W: 1.0, C: 0.5, Q: 0.5, P: 0.25, S: 0.0}  # 0, 1, 2, 2, 3 hops, none
K_HOP_FROM_W = {"owner": {FEED, C, Q, P}, "peer": {FEED, Q}, "other": {FEED}, "admin": {FEED, C, Q, P}}
CASCADE_OF_FEED = {"owner": {W, C, Q, P}, "peer": {W, Q}, "other": {W}, "admin": {W, C, Q, P}}
UNKNOWN = "project:zeta nowhere/at all"

# ROUTE_RULE: an operation of the OpenAPI spec returns (or may return) entities or their names when
# its path holds one of these words or it is tagged topology or analytics. Each such operation must
# be listed here with the test that checks it for all four callers, or why it returns none.
ROUTE_WORDS = ("entit", "topology", "facts", "analytics", "export", "retrieve")
ROUTE_TAGS = {"topology", "analytics"}
ROUTES = {
    ("GET", "/entities/resolve"): "test_resolve",
    ("GET", "/entities/{entity_id}/facts"): "test_facts_about_an_entity",
    ("GET", "/entities/{entity_id}/related"): "test_related",
    ("GET", "/entities/{entity_id}/lag"): "test_information_lag_of_an_entity",
    ("GET", "/retrieve/weights"): "the caller's own retrieval weights: no entity (test_retrieval_refinements)",
    ("POST", "/retrieve/feedback"): "a Hedge step on the caller's weights: no entity (test_retrieval_refinements)",
    ("POST", "/entities"): "test_upserts: answers only the ids the caller sent",
    ("GET", "/facts/{fact_id}"): "test_fact_versions",
    ("POST", "/facts"): "test_asserting_on_an_invisible_entity",
    ("POST", "/facts/{fact_id}/invalidate"): "test_invalidate",
    ("POST", "/topology/k-hop"): "test_k_hop",
    ("GET", "/topology/path"): "test_path",
    ("POST", "/topology/curiosity"): "test_curiosity",
    ("POST", "/analytics/cascade"): "test_cascade",
    ("POST", "/analytics/{algorithm}"): "test_analyses",
    ("GET", "/analytics/runs"): "test_written_runs",
    ("GET", "/analytics/runs/{run_id}"): "test_written_runs",
    ("GET", "/agents/{agent_id}/export"): "test_export",
    ("POST", "/retrieve"): "test_retrieval_explanations",
    ("GET", "/agents/{agent_id}/entities/{entity_id}/page"): "an agent's memory entity, its own memories only "
                                                              "(test_memory_entity_pages; READ_ROUTES)",
    ("GET", "/agents/{agent_id}/entities/{entity_id}/page.md"): "the same page as Markdown (test_memory_entity_pages)",
}


class World:
    def __init__(self, api: Any) -> None:
        self.api = api
        self.h = {who: api.headers(agent, clade) for who, (agent, clade) in AGENTS.items()} | {"admin": api.admin}

    def get(self, who: str, path: str, **params: Any) -> Any:
        return self.api.client.get(path, headers=self.h[who], params=params)

    def post(self, who: str, path: str, body: Any) -> Any:
        return self.api.client.post(path, headers=self.h[who], json=body)


def _entity(e: str) -> dict[str, str]:
    return {"kind": KINDS[e], "name": NAMES[e]}


@pytest.fixture
def world(api) -> World:
    w = World(api)
    made = w.post("admin", "/entities", {"entities": [_entity(W), _entity(FEED)]})
    assert made.status_code == 201 and made.json()["ids"] == [W, FEED], made.text
    made = w.post("owner", "/entities", {"entities": [_entity(C), _entity(Q)]})
    assert made.status_code == 201 and made.json()["ids"] == [C, Q], made.text
    texts = {"ep-private": "A private note on a lending position", "ep-shared": "A clade note on collateral",
             "ep-public": "A public note on the price feed"}
    episodes = [{"id": ep, "scope": scope, "type": "observation", "text": texts[ep],
                 "mentions": [_entity(e) for e in ms]} for ep, (scope, ms) in EPISODES.items()]
    r = w.post("owner", "/episodes/batch", {"episodes": episodes})
    assert r.status_code == 201 and sorted(r.json()["created"]) == sorted(EPISODES), r.text
    for who in ("admin", "owner"):
        facts = [{"id": f, "subject": s, "predicate": p, "object": o, "valid_from": 100, "scope": scope}
                 for f, (s, p, o, scope) in FACTS.items() if (f == "f-wo") == (who == "admin")]
        r = w.post(who, "/facts", {"facts": facts})
        assert r.status_code == 201 and sorted(r.json()["created"]) == sorted(f["id"] for f in facts), r.text
    return w


def _no_leak(who: str, response: Any) -> None:
    """Neither the id nor the name of an entity the caller may not see is anywhere in the answer."""
    text = response.text.lower()
    for e in ALL - VISIBLE[who]:
        assert NAMES[e].lower() not in text, (who, e, response.text[:500])


def _not_found(response: Any, entity_id: str) -> None:
    assert response.status_code == 404, response.text
    assert response.json()["detail"] == f"no entity {entity_id!r}"


def test_route_list_follows_the_openapi_spec(api) -> None:
    spec = api.client.app.openapi()
    relevant = {(method.upper(), path) for path, ops in spec["paths"].items() for method, op in ops.items()
                if any(word in path for word in ROUTE_WORDS) or ROUTE_TAGS & set(op.get("tags", []))}
    assert relevant - set(ROUTES) == set(), "new routes returning entities: add them to ROUTES and test them"
    assert set(ROUTES) - relevant == set(), "ROUTES lists routes the spec no longer has"


def test_resolve(world: World) -> None:
    for who in CALLERS:
        r = world.get(who, "/entities/resolve", q="zeta", limit=100)
        assert r.status_code == 200 and {e["id"] for e in r.json()} == VISIBLE[who], (who, r.text)
        _no_leak(who, r)
        for e in ALL:  # by exact id and by name
            for q in (e, NAMES[e]):
                found = {x["id"] for x in world.get(who, "/entities/resolve", q=q).json()}
                assert (e in found) == (e in VISIBLE[who]), (who, e, q)


@pytest.mark.parametrize(("route", "key"), [("facts", "fact_id"), ("related", "episode_id")])
def test_facts_and_related_items_of_an_entity(world: World, route: str, key: str) -> None:
    for who in CALLERS:
        for e in sorted(ALL):
            r = world.get(who, f"/entities/{quote(e, safe='')}/{route}")
            if e not in VISIBLE[who]:
                _not_found(r, e)
                continue
            assert r.status_code == 200, (who, e, r.text)
            expected = FACTS_ON[e] & FACTS_SEEN[who] if route == "facts" else MENTIONED_BY[e] & EPISODES_SEEN[who]
            assert {x[key] for x in r.json()} == expected, (who, e)
            _no_leak(who, r)
        _not_found(world.get(who, f"/entities/{quote(UNKNOWN, safe='')}/{route}"), UNKNOWN)


def test_every_entity_path_route_reaches_an_id_with_a_slash(world: World) -> None:
    spec = world.api.client.app.openapi()
    routes = [(path, method) for path, ops in spec["paths"].items() for method in ops
              if "{entity_id}" in path and path.startswith("/entities/")]   # the world's entities (an agent's
    # memory entities are kind--name slugs: tests/integration/test_memory_entity_pages.py)
    assert {p for p, _ in routes} == {"/entities/{entity_id}/facts", "/entities/{entity_id}/related",
                                      "/entities/{entity_id}/lag"}
    for path, method in routes:
        assert method == "get"
        for written in (W, quote(W, safe=""), quote(W)):  # raw, fully encoded, "/" left as is
            r = world.get("other", path.replace("{entity_id}", written))
            assert r.status_code == 200 and r.json(), (path, written, r.text)
        if path.endswith("/lag"):
            _not_found(world.get("other", path.replace("{entity_id}", UNKNOWN)), UNKNOWN)
            continue
        facts = world.get("other", f"/entities/{W}/facts").json()
        assert [(f["subject"], f["object"]) for f in facts] == [(W, FEED)]
        r = world.get("other", path.replace("{entity_id}", UNKNOWN))
        _not_found(r, UNKNOWN)


def test_information_lag_of_an_entity(world: World) -> None:
    for who in CALLERS:
        for e in sorted(ALL):
            r = world.get(who, f"/entities/{quote(e, safe='')}/lag")
            if e not in VISIBLE[who]:
                _not_found(r, e)
                continue
            assert r.status_code == 200, (who, e, r.text)
            assert {f["fact_id"] for f in r.json()["facts"]} == FACTS_ON[e] & FACTS_SEEN[who], (who, e)
            _no_leak(who, r)


def test_fact_versions(world: World) -> None:
    for who in CALLERS:
        for f in FACTS:
            r = world.get(who, f"/facts/{f}")
            assert (r.status_code == 200) == (f in FACTS_SEEN[who]), (who, f, r.text)
            _no_leak(who, r)
            if r.status_code != 200:
                assert r.json()["detail"] == f"no fact {f!r}"


def test_invalidate(world: World) -> None:
    for who, fact in (("other", "f-cw"), ("peer", "f-pc"), ("other", "f-qw")):
        r = world.post(who, f"/facts/{fact}/invalidate", {"at_block": 200})
        ghost = world.post(who, "/facts/f-ghost/invalidate", {"at_block": 200})
        assert r.status_code == ghost.status_code == 404
        assert r.json()["detail"] == ghost.json()["detail"].replace("f-ghost", fact)
    assert [v["version"] for v in world.get("owner", "/facts/f-cw").json()] == [1]  # untouched
    r = world.post("owner", "/facts/f-cw/invalidate", {"at_block": 200})
    assert r.status_code == 200 and [v["version"] for v in r.json()["versions"]] == [1, 2]


def test_asserting_on_an_invisible_entity(world: World) -> None:
    for who in ("peer", "other"):
        for e in sorted(ALL - VISIBLE[who]):
            fact = {"id": "f-probe", "subject": e, "predicate": "TokenFlow", "object": W, "valid_from": 1}
            r = world.post(who, "/facts", {"facts": [fact]})
            ghost = world.post(who, "/facts", {"facts": [{**fact, "subject": UNKNOWN}]})
            assert r.status_code == ghost.status_code == 422
            assert r.json()["detail"] == ghost.json()["detail"].replace(UNKNOWN, e)
    assert world.get("admin", "/facts/f-probe").status_code == 404
    # What the peer sees it may build on.
    ok = world.post("peer", "/facts", {"facts": [{"id": "f-peer", "subject": S, "predicate": "TokenFlow",
                                                  "object": W, "valid_from": 1, "scope": "shared"}]})
    assert ok.status_code == 201 and ok.json()["created"] == ["f-peer"]


def test_k_hop(world: World) -> None:
    for who in CALLERS:
        r = world.post(who, "/topology/k-hop", {"entity": W, "block": BLOCK})
        assert r.status_code == 200 and {x["id"] for x in r.json()} == K_HOP_FROM_W[who], (who, r.text)
        assert {n for x in r.json() for n in x["path"]} <= VISIBLE[who]
        _no_leak(who, r)
        for e in sorted(ALL - VISIBLE[who]) + [UNKNOWN]:
            _not_found(world.post(who, "/topology/k-hop", {"entity": e, "block": BLOCK}), e)
    owner = {x["id"]: x["path"] for x in world.post("owner", "/topology/k-hop", {"entity": P, "block": BLOCK}).json()}
    assert owner == {C: [P, C], W: [P, C, W], FEED: [P, C, W, FEED], Q: [P, C, W, Q]}


def test_path(world: World) -> None:
    expected = {(P, FEED): [P, C, W, FEED], (Q, FEED): [Q, W, FEED], (S, FEED): None}
    for who in CALLERS:
        for (a, b), path in expected.items():
            r = world.get(who, "/topology/path", **{"from": a, "to": b, "block": BLOCK})
            if path is not None and set(path) <= VISIBLE[who]:
                assert r.status_code == 200 and r.json()["path"] == path, (who, a, r.text)
                _no_leak(who, r)
            else:  # the same answer as for ids that do not exist (it names only what was asked)
                assert r.status_code == 404 and r.json()["detail"] == \
                    f"no path from {a!r} to {b!r} at block {BLOCK}", (who, a, r.text)


def test_curiosity(world: World) -> None:
    for who in CALLERS:
        for e in sorted(ALL):
            r = world.post(who, "/topology/curiosity", {"event_entity": e, "positions": [FEED], "block": BLOCK})
            if e not in VISIBLE[who]:
                _not_found(r, e)
                continue
            assert r.status_code == 200 and r.json()["modifier"] == CURIOSITY_TO_FEED[e], (who, e, r.text)
        _not_found(world.post(who, "/topology/curiosity", {"event_entity": UNKNOWN, "positions": [FEED],
                                                            "block": BLOCK}), UNKNOWN)
        # A position the caller cannot see is as far as one that does not exist.
        r = world.post(who, "/topology/curiosity", {"event_entity": W, "positions": [C], "block": BLOCK})
        assert r.json()["modifier"] == (1.0 if C in VISIBLE[who] else 0.0), who


def test_cascade(world: World) -> None:
    for who in CALLERS:
        r = world.post(who, "/analytics/cascade", {"entity": FEED, "block": BLOCK})
        assert r.status_code == 200 and {a["id"] for a in r.json()["affected"]} == CASCADE_OF_FEED[who], (who, r.text)
        _no_leak(who, r)
        for e in sorted(ALL - VISIBLE[who]) + [UNKNOWN]:
            _not_found(world.post(who, "/analytics/cascade", {"entity": e, "block": BLOCK}), e)


def test_analyses(world: World) -> None:
    for who in CALLERS:
        topology = world.post(who, "/analytics/pagerank", {"block": BLOCK, "limit": 100})
        assert topology.status_code == 200, topology.text
        assert {x["id"] for x in topology.json()["results"]} == IN_TOPOLOGY & VISIBLE[who], who
        comention = world.post(who, "/analytics/wcc", {"graph": "comention", "limit": 100})
        assert comention.status_code == 200, comention.text
        assert {x["id"] for x in comention.json()["results"]} == IN_COMENTION & VISIBLE[who], who
        groups = {m for g in comention.json()["groups"] for m in g["members"]}
        assert groups == IN_COMENTION & VISIBLE[who]
        for r in (topology, comention):
            _no_leak(who, r)
        path = world.post(who, "/analytics/shortest_path", {"block": BLOCK, "params": {"source": P, "target": FEED}})
        ghost = world.post(who, "/analytics/shortest_path", {"block": BLOCK, "params": {"source": UNKNOWN,
                                                                                        "target": FEED}})
        if P in VISIBLE[who]:
            assert path.status_code == 200 and path.json()["path"] == [P, C, W, FEED], path.text
        else:
            assert path.status_code == ghost.status_code == 404
            assert path.json()["detail"] == ghost.json()["detail"].replace(UNKNOWN, P)


def test_written_runs(world: World) -> None:
    made = {}
    for name, body in {"pagerank": {"block": BLOCK}, "node_similarity": {"graph": "comention"},
                       "shortest_path": {"block": BLOCK, "params": {"source": P, "target": FEED}}}.items():
        r = world.post("admin", f"/analytics/{name}", {**body, "write": True})
        assert r.status_code == 200, r.text
        made[name] = r.json()["run"]["id"]
    for who in CALLERS:
        listed = world.get(who, "/analytics/runs")
        assert listed.status_code == 200
        _no_leak(who, listed)
        # A path run from an entity the caller cannot see is about that entity: it is not shown.
        assert {r["id"] for r in listed.json()} == (set(made.values()) if P in VISIBLE[who]
                                                   else {made["pagerank"], made["node_similarity"]}), who
        pagerank = world.get(who, f"/analytics/runs/{made['pagerank']}", limit=1000)
        assert {x["id"] for x in pagerank.json()["results"]} == IN_TOPOLOGY & VISIBLE[who], who
        similar = world.get(who, f"/analytics/runs/{made['node_similarity']}", limit=1000)
        rows = similar.json()["results"]
        assert {x["id"] for x in rows} <= VISIBLE[who] and rows, who
        for x in rows:
            assert set(x["result"]["similar_to"]) <= VISIBLE[who]
            assert len(x["result"]["similar_to"]) == len(x["result"]["similarities"])
        path = world.get(who, f"/analytics/runs/{made['shortest_path']}", limit=1000)
        if P in VISIBLE[who]:
            assert [x["id"] for x in path.json()["results"]] == [P, C, W, FEED]
        else:
            assert path.status_code == 404 and path.json()["detail"] == f"no analysis run {made['shortest_path']!r}"
        for r in (pagerank, similar, path):
            _no_leak(who, r)


def test_export(world: World) -> None:
    for who in CALLERS:
        r = world.get(who, "/agents/vis-owner/export")
        if who not in ("owner", "admin"):
            assert r.status_code == 403
            continue
        assert r.status_code == 200
        nodes = [json.loads(line) for line in r.text.splitlines()[1:]]
        ents = {n["id"]: n["properties"] for n in nodes if n.get("record") == "node" and "Entity" in n["labels"]}
        # What the owner's episodes mention, and what it created itself.
        assert set(ents) == ALL
        assert {e for e, props in ents.items() if props.get("public")} == {W, FEED}
        assert {e for e, props in ents.items() if props.get("creators")} == {C, Q}


def test_retrieval_explanations(world: World) -> None:
    graph_seen = {"owner": set(EPISODES), "admin": set(EPISODES), "peer": set(), "other": set()}
    for who in CALLERS:
        # P given as a seed, and named in the text: what is around it only for who may see it.
        for body in ({"text": "a note", "entities": [P]}, {"text": "what about zeta private"}):
            r = world.post(who, "/retrieve", {**body, "block": BLOCK, "explain": True, "no_budget": True, "k": 20})
            assert r.status_code == 200, r.text
            graph = {x["id"]: x["explain"]["backends"]["graph"] for x in r.json()["results"]
                     if "graph" in x["explain"]["backends"]}
            assert set(graph) == graph_seen[who], (who, body, graph)
            assert {g["entity"] for g in graph.values()} <= VISIBLE[who]
            _no_leak(who, r)
        visibility = Visibility(AGENTS.get(who, ("", ""))[0], AGENTS.get(who, ("", ""))[1], who == "admin")
        named = backends.named_entities(world.api.db, "zeta private and zeta clade and zeta weth/usdc", visibility)
        assert set(named) == {P, Q, W} & VISIBLE[who], who


def test_upserts(world: World) -> None:
    # Another agent sending the same entity becomes one of its creators; the peer still does not see it.
    r = world.post("other", "/entities", {"entities": [_entity(C)]})
    assert r.status_code == 201 and r.json() == {"ids": [C]}
    assert [x["id"] for x in world.get("other", "/entities/resolve", q=C).json()] == [C]
    assert world.get("peer", "/entities/resolve", q=C).json() == []
    # The admin sending it makes it public, for good.
    assert world.post("admin", "/entities", {"entities": [_entity(C)]}).status_code == 201
    assert world.post("owner", "/entities", {"entities": [_entity(C)]}).status_code == 201
    assert [x["id"] for x in world.get("peer", "/entities/resolve", q=C).json()] == [C]
    # A mention never makes an entity public.
    r = world.post("other", "/episodes", {"id": "ep-other", "type": "observation", "text": "t",
                                          "mentions": [_entity(FEED), {"kind": "Concept", "name": "Zeta Secret"}]})
    assert r.status_code == 201
    assert world.get("owner", "/entities/resolve", q="concept:zeta secret").json() == []
    assert [x["id"] for x in world.get("other", "/entities/resolve", q="concept:zeta secret").json()] == [
        "concept:zeta secret"]


def test_backfill_of_entities_stored_before_visibility(api, db, embedder) -> None:
    w = World(api)
    entities.upsert(db, [EntityIn(kind="Token", name="Zeta Loaded")], actor="loader-aave", public=True)
    assert w.post("admin", "/entities", {"entities": [{"kind": "Token", "name": "Zeta Admin"}]}).status_code == 201
    assert w.post("owner", "/entities", {"entities": [{"kind": "Token", "name": "Zeta Own"}]}).status_code == 201
    r = w.post("owner", "/episodes", {"id": "ep-old", "type": "observation", "text": "t",
                                      "mentions": [{"kind": "Token", "name": "Zeta Mentioned"}]})
    assert r.status_code == 201
    db.run("testing/strip_entity_visibility")
    assert all("public" not in n["props"] for n in db.run("testing/dump")[0]["nodes"] if "Entity" in n["labels"])
    for _ in range(2):  # idempotent
        apply_schema(db, embedder.dimension, embedder.model_name)
        props = {n["props"]["id"]: n["props"] for n in db.run("testing/dump")[0]["nodes"] if "Entity" in n["labels"]}
        assert {i: (p["public"], p["creators"]) for i, p in props.items()} == {
            "token:zeta loaded": (True, []), "token:zeta admin": (True, []),
            "token:zeta own": (False, ["vis-owner"]), "token:zeta mentioned": (False, [])}
    assert db.run("testing/audit_actions")[0]["actions"].count("entity.backfill_visibility") == 1
    for who, seen in {"owner": {"loaded", "admin", "own", "mentioned"}, "peer": {"loaded", "admin"}}.items():
        found = {x["id"].removeprefix("token:zeta ") for x in w.get(who, "/entities/resolve", q="zeta").json()}
        assert found == seen, who


# Cypher files that read entities in a viewer's name without the predicate, and why each needs none.
SEEN_THROUGH = {
    "analytics/latest_score": "scores of ids the caller has already found visible (curiosity's event, retrieval's)",
    "analytics/project_comention": "entities a visible episode mentions",
    "analytics/project_topology": "the ends of visible facts",
    "episodes/get": "the mentions of a visible episode",
    "episodes/list": "the mentions of visible episodes",
    "retrieval/entity_mentions": "the visible items mentioning entities the query named, resolved visible first",
    "retrieval/expansion": "returns no entity: visible items sharing a mention with a visible hit (a visible item's "
                           "mentions are shown with it)",
    "retrieval/graph_neighbours": "returns no entity: given ids only narrow a thread",
    "retrieval/items_neighbours": "returns no entity: graph_neighbours' text (given ids only narrow a thread) beside "
                                  "items'",
    "topology/invalidate_fact": "the subject of a visible fact",
    "topology/assert_facts": "the writer's own subject and object; $viewer narrows which facts it may close",
    "topology/inferred_known": "returns no entity: which inferred fact ids are taken or held in the partition's view",
}


def test_every_query_in_a_viewers_name_holds_the_predicate_word_for_word() -> None:
    from grimoire.graph.db.cypher import cypher_dir

    root = cypher_dir()
    texts = {str(p.relative_to(root).with_suffix("")): p.read_text() for p in root.rglob("*.cypher")}
    reading = {name: text for name, text in texts.items()  # entities by label or through their name index
               if (":Entity" in text or "'entity_names'" in text) and "$viewer" in text}
    holding = {name for name, text in reading.items() if entities.ENTITY_VISIBLE in text}
    assert set(reading) - holding == set(SEEN_THROUGH)
    assert holding >= {"topology/resolve_entity", "topology/existing_entities", "topology/k_hop",
                       "topology/shortest_path", "topology/distance_to_positions", "topology/facts_about",
                       "entities/related", "analytics/cascade", "analytics/internal_ids", "analytics/run_scores",
                       "retrieval/entity_candidates", "retrieval/graph_entities"}
