"""The bi-temporal topology on hand-made facts whose answers are known: superseding, invalidating,
the three temporal queries, k-hop with filters, shortest path, curiosity, visibility."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from grimoire.graph.topology.traversal import curiosity_modifier

R, O1, O2, POOL, USDC, POS = ("reserve:m usdc", "oracle:feed one", "oracle:feed two", "pool:m pool",
                              "token:usdc", "addresscluster:my position")


@pytest.fixture
def world(api):
    h = api.headers("topo-1", "clade-t")
    ents = [{"kind": "Reserve", "name": "M USDC"}, {"kind": "Oracle", "name": "feed one"},
            {"kind": "Oracle", "name": "feed two", "aliases": ["USDC/USD"]}, {"kind": "Pool", "name": "M pool"},
            {"kind": "Token", "name": "USDC", "symbol": "USDC"}, {"kind": "AddressCluster", "name": "my position"}]
    r = api.client.post("/entities", headers=h, json={"entities": ents})
    assert r.status_code == 201 and r.json()["ids"] == [R, O1, O2, POOL, USDC, POS], r.text
    facts = [
        {"id": "f-oracle-1", "subject": R, "predicate": "OracleDependency", "object": O1, "valid_from": 100},
        {"id": "f-backing", "subject": POOL, "predicate": "CollateralBacking", "object": R, "valid_from": 50},
        {"id": "f-underlying", "subject": R, "predicate": "Custom", "name": "Underlying", "object": USDC,
         "valid_from": 50, "exclusive": True},
        {"id": "f-position", "subject": POS, "predicate": "HasPosition", "object": POOL, "valid_from": 120},
        {"id": "f-ltv", "subject": R, "predicate": "Custom", "name": "LTV", "value": 0.75, "valid_from": 50},
    ]
    for f in facts:
        f["scope"] = "public"
    r = api.client.post("/facts", headers=h, json={"facts": facts})
    assert r.status_code == 201 and r.json()["created"] == [f["id"] for f in facts], r.text
    return h


def _oracles(api, h, **params) -> list[tuple[str, int, int | None]]:
    r = api.client.get(f"/entities/{quote(R)}/facts", headers=h,
                       params={"predicate": "OracleDependency", **params})
    assert r.status_code == 200, r.text
    return [(f["object"], f["valid_from"], f["valid_to"]) for f in r.json()]


def test_superseding_keeps_what_was_believed(api, world, db) -> None:
    h = world
    api.client.headers.update(h)
    known_before = db.run("testing/now")[0]["now"]
    # A replacement at block 200 closes the old oracle there (OracleDependency is exclusive).
    r = api.client.post("/facts", json={"facts": [{"id": "f-oracle-2", "subject": R, "predicate": "OracleDependency",
                                                     "object": O2, "valid_from": 200, "scope": "public"}]})
    assert r.status_code == 201 and r.json()["closed"] == 1
    assert _oracles(api, h, block=150) == [(O1, 100, 200)]
    assert _oracles(api, h, block=250) == [(O2, 200, None)]
    assert _oracles(api, h, block=99) == []
    # As known before the replacement was recorded: feed one, still open-ended, at any block after 100.
    assert _oracles(api, h, known_at=known_before) == [(O1, 100, None)]
    assert _oracles(api, h, block=250, known_at=known_before) == [(O1, 100, None)]
    # As known now, without a block: both versions believed now.
    assert _oracles(api, h) == [(O1, 100, 200), (O2, 200, None)]
    # Re-asserting changes nothing; a non-exclusive predicate holds many objects.
    again = api.client.post("/facts", json={"facts": [{"id": "f-oracle-2", "subject": R, "valid_from": 200,
                                                         "predicate": "OracleDependency", "object": O2,
                                                         "scope": "public"}]})
    assert again.json()["created"] == [] and again.json()["closed"] == 0
    versions = api.client.get("/facts/f-oracle-1").json()
    assert [(v["version"], v["valid_to"], v["expired_at"] is None) for v in versions] == [
        (1, None, False), (2, 200, True)]


def test_invalidate_at_a_block_and_a_correction_recorded_later(api, world, db) -> None:
    api.client.headers.update(world)
    before = db.run("testing/now")[0]["now"]
    r = api.client.post("/facts/f-oracle-1/invalidate", json={"at_block": 180})
    assert r.status_code == 200, r.text
    assert _oracles(api, world, block=170) == [(O1, 100, 180)]
    assert _oracles(api, world, block=190) == []
    assert _oracles(api, world, block=190, known_at=before) == [(O1, 100, None)]  # T before the correction
    assert api.client.post("/facts/f-oracle-1/invalidate", json={"at_block": 190}).status_code == 404
    assert api.client.post("/facts/nope/invalidate", json={"at_block": 1}).status_code == 404


def test_scalar_objects_and_bad_facts(api, world) -> None:
    api.client.headers.update(world)
    ltv = [f for f in api.client.get(f"/entities/{quote(R)}/facts", params={"block": 60}).json() if f["name"] == "LTV"]
    assert [(f["value"], f["object"]) for f in ltv] == [(0.75, None)]
    for bad, message in [
        ({"subject": R, "predicate": "Custom", "object": O1, "valid_from": 1}, "name"),
        ({"subject": R, "predicate": "OracleDependency", "valid_from": 1}, "object"),
        ({"subject": R, "predicate": "OracleDependency", "object": O1, "valid_from": 5, "valid_to": 5}, "valid_to"),
        ({"subject": R, "predicate": "Owns", "object": O1, "valid_from": 1}, "predicate"),
    ]:
        r = api.client.post("/facts", json={"facts": [bad]})
        assert r.status_code == 422 and message in r.text, (bad, r.text)
    infinite = ('{"facts": [{"subject": "' + R + '", "predicate": "Custom", "name": "LTV", "value": Infinity, '
                '"valid_from": 1}]}')
    r = api.client.post("/facts", content=infinite, headers={"content-type": "application/json"})
    assert r.status_code == 422 and "finite" in r.text, r.text
    r = api.client.post("/facts", json={"facts": [{"subject": "oracle:ghost", "predicate": "OracleDependency",
                                                   "object": O1, "valid_from": 1}]})
    assert r.status_code == 422 and "oracle:ghost" in r.json()["detail"]


def test_k_hop_path_and_curiosity(api, world) -> None:
    api.client.headers.update(world)

    def hop(**body):
        r = api.client.post("/topology/k-hop", json={"entity": O1, "block": 150, **body})
        assert r.status_code == 200, r.text
        return {x["id"]: (x["depth"], x["predicates"]) for x in r.json()}

    assert hop() == {R: (1, ["OracleDependency"]), POOL: (2, ["OracleDependency", "CollateralBacking"]),
                     USDC: (2, ["OracleDependency", "Underlying"]),
                     POS: (3, ["OracleDependency", "CollateralBacking", "HasPosition"])}
    assert hop(hops=1) == {R: (1, ["OracleDependency"])}
    assert hop(direction="out") == {}  # the feed depends on nothing
    assert set(hop(direction="in")) == {R, POOL, POS}
    assert set(hop(predicates=["OracleDependency", "CollateralBacking"])) == {R, POOL}
    assert hop(block=110) == {R: (1, ["OracleDependency"]), POOL: (2, ["OracleDependency", "CollateralBacking"]),
                              USDC: (2, ["OracleDependency", "Underlying"])}  # the position opens at 120
    assert api.client.post("/topology/k-hop", json={"entity": O1, "block": 150, "hops": 9}).status_code == 422

    path = api.client.get("/topology/path", params={"from": POS, "to": O1, "block": 150})
    assert path.status_code == 200 and path.json()["path"] == [POS, POOL, R, O1]
    assert api.client.get("/topology/path", params={"from": POS, "to": O1, "block": 110}).status_code == 404

    def modifier(event: str, block: int = 150) -> float:
        r = api.client.post("/topology/curiosity", json={"event_entity": event, "positions": [POS], "block": block})
        assert r.status_code == 200, r.text
        return r.json()["modifier"]

    assert [modifier(POS), modifier(POOL), modifier(R), modifier(O1), modifier(O2)] == [1.0, 1.0, 0.5, 0.25, 0.0]
    assert modifier(POOL, block=110) == 0.0
    assert [curiosity_modifier(d) for d in (0, 1, 2, 3, 4, None)] == [1.0, 1.0, 0.5, 0.25, 0.0, 0.0]


def test_resolve_by_name_symbol_alias_and_address(api, world) -> None:
    api.client.headers.update(world)
    assert api.client.get("/entities/resolve", params={"q": "USDC/USD"}).json()[0]["id"] == O2
    assert api.client.get("/entities/resolve", params={"q": "USDC"}).json()[0]["id"] == USDC
    weth = {"kind": "Token", "chain_id": 1, "address": "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2", "symbol": "WETH"}
    assert api.client.post("/entities", json={"entities": [weth]}).json()["ids"] == [
        "1:0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"]
    found = api.client.get("/entities/resolve", params={"q": "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"}).json()
    assert found[0]["symbol"] == "WETH"
    assert api.client.get("/entities/resolve", params={"q": 'feed AND "one'}).status_code == 200  # Lucene escaped


def test_private_facts_stay_private(api, world) -> None:
    other = api.headers("topo-2", "clade-other")
    secret = api.client.post("/facts", headers=world, json={"facts": [
        {"id": "f-secret", "subject": POS, "predicate": "HasPosition", "object": O2, "valid_from": 1}]})
    assert secret.status_code == 201
    for h, sees in [(world, True), (other, False)]:
        hop = api.client.post("/topology/k-hop", headers=h, json={"entity": POS, "block": 150, "hops": 1}).json()
        assert (O2 in {x["id"] for x in hop}) is sees
        assert (api.client.get("/facts/f-secret", headers=h).status_code == 200) is sees
        on_pos = api.client.get(f"/entities/{quote(POS)}/facts", headers=h).json()
        assert ("f-secret" in {f["fact_id"] for f in on_pos}) is sees


def _facts(api, h, entity: str, predicate: str) -> list[tuple[str | None, object, int, int | None]]:
    r = api.client.get(f"/entities/{quote(entity)}/facts", headers=h, params={"predicate": predicate})
    assert r.status_code == 200, r.text
    return sorted(((f["object"], f["value"], f["valid_from"], f["valid_to"]) for f in r.json()
                   if f["subject"] == entity), key=str)


def test_a_new_object_closes_the_active_fact_of_a_predicate_that_is_not_multi_valued(api, world, db) -> None:
    """grimoire.md's assert_fact: (s, p, o2) closes the active (s, p, o1) at o2's valid_from — for every
    predicate, not only the once-exclusive ones: a Custom fact with no `exclusive` closes too."""
    h = world
    r = api.client.post("/facts", headers=h, json={"facts": [
        {"id": "f-ltv-2", "subject": R, "predicate": "Custom", "name": "LTV", "value": 0.8, "valid_from": 300,
         "scope": "public"}]})
    assert r.status_code == 201 and r.json()["created"] == ["f-ltv-2"] and r.json()["closed"] == 1, r.text
    # another name (Underlying) is another statement: it stays
    assert _facts(api, h, R, "Custom") == sorted([(None, 0.75, 50, 300), (None, 0.8, 300, None),
                                                  (USDC, None, 50, None)], key=str)
    versions = api.client.get("/facts/f-ltv", headers=h).json()  # closed, never overwritten
    assert [(v["version"], v["valid_to"], v["expired_at"] is None, v["closed_by"]) for v in versions] == [
        (1, None, False, None), (2, 300, True, "f-ltv-2")]
    # The closing was audited in the assertion's own record, and undoes with it.
    record = [a for a in db.rows("testing/audit_records") if a["action"] == "fact.assert" and
              "f-ltv-2" in a["target_ids"]]
    assert len(record) == 1 and "closed 1" in record[0]["summary"], record


def test_a_multi_valued_predicate_holds_many_objects_unless_a_fact_says_exclusive(api, world) -> None:
    h = world
    r2 = "reserve:m weth"
    assert api.client.post("/entities", headers=h, json={"entities": [{"kind": "Reserve", "name": "M WETH"}]}
                           ).status_code == 201
    r = api.client.post("/facts", headers=h, json={"facts": [
        {"id": "f-backing-2", "subject": POOL, "predicate": "CollateralBacking", "object": r2, "valid_from": 60,
         "scope": "public"},
        {"id": "f-governs-1", "subject": POOL, "predicate": "GovernanceControl", "object": R, "valid_from": 60,
         "scope": "public"},
        {"id": "f-governs-2", "subject": POOL, "predicate": "GovernanceControl", "object": r2, "valid_from": 70,
         "scope": "public"}]})
    assert r.status_code == 201 and r.json()["closed"] == 0, r.text
    assert _facts(api, h, POOL, "CollateralBacking") == [(R, None, 50, None), (r2, None, 60, None)]
    assert _facts(api, h, POOL, "GovernanceControl") == [(R, None, 60, None), (r2, None, 70, None)]
    # A fact may still say it is the only one: it closes the others of its predicate.
    r = api.client.post("/facts", headers=h, json={"facts": [
        {"id": "f-backing-only", "subject": POOL, "predicate": "CollateralBacking", "object": USDC,
         "valid_from": 400, "exclusive": True, "scope": "public"}]})
    assert r.status_code == 201 and r.json()["closed"] == 2, r.text
    assert _facts(api, h, POOL, "CollateralBacking") == sorted([(R, None, 50, 400), (r2, None, 60, 400),
                                                                (USDC, None, 400, None)], key=str)


def test_the_multi_valued_predicates_are_a_setting(db) -> None:
    """GRIMOIRE_FACTS `multi_valued`: without TokenFlow in it, a second flow closes the first."""
    from grimoire.graph.model.enums import Predicate
    from grimoire.graph.topology import entities, facts
    from grimoire.graph.topology.facts import Owner
    from grimoire.graph.topology.freshness import FactConfig
    from grimoire.graph.topology.model import EntityIn, FactIn

    a, b, c, d = entities.upsert(db, [EntityIn(kind="Pool", name=n) for n in "abcd"], actor="test", public=True)
    owner = Owner("test", world=True)

    def flow(fid: str, obj: str, block: int, cfg: FactConfig) -> int:
        return facts.assert_facts(db, [FactIn(id=fid, subject=a, predicate=Predicate.TokenFlow, object=obj,
                                              valid_from=block, scope="public")],
                                  owner=owner, actor="test", freshness=cfg).closed

    assert flow("flow-1", b, 10, FactConfig()) == 0
    assert flow("flow-2", c, 20, FactConfig()) == 0  # a set by default
    assert flow("flow-3", d, 30, FactConfig(multi_valued=[])) == 2
