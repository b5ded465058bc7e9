"""World facts age: confidence decays from the last reinforcement at read time, re-asserting reinforces;
the information lag of facts (recorded time minus valid time) per fact and per entity, and the lag term
it adds to curiosity."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from grimoire.api.app import create_app
from grimoire.graph.audit import parse_revert
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.topology import facts
from grimoire.graph.topology.facts import Owner
from grimoire.graph.topology.freshness import FactConfig, lag_term
from grimoire.graph.topology.model import FactIn
from grimoire.graph.visibility import Visibility
from tests.conftest import ADMIN_KEY, Api, Neo4jUnderTest

DAY, MINUTE = 86_400_000, 60_000
R, O1, O2, POOL, POS = "reserve:fd usdc", "oracle:fd feed", "oracle:fd other", "pool:fd pool", "addresscluster:fd pos"
OWNER, CLADE = "fd-1", "clade-f"


@pytest.fixture
def world(api: Api) -> dict[str, str]:
    h = api.headers(OWNER, CLADE)
    ents = [{"kind": "Reserve", "name": "FD USDC"}, {"kind": "Oracle", "name": "FD feed"},
            {"kind": "Oracle", "name": "FD other"}, {"kind": "Pool", "name": "FD pool"},
            {"kind": "AddressCluster", "name": "FD pos"}]
    r = api.client.post("/entities", headers=api.admin, json={"entities": ents})  # the admin's: public
    assert r.status_code == 201 and r.json()["ids"] == [R, O1, O2, POOL, POS], r.text
    return h


def _assert(db: Database, recorded_at: int, **fact: Any) -> facts.AssertResult:
    return facts.assert_facts(db, [FactIn(**fact)], owner=Owner(OWNER, CLADE), actor="test", recorded_at=[recorded_at],
                              visibility=Visibility.of(OWNER, CLADE))


def _version(api: Api, h: dict[str, str], fact_id: str) -> dict[str, Any]:
    r = api.client.get(f"/facts/{fact_id}", headers=h)
    assert r.status_code == 200, r.text
    return r.json()[-1]


def _now(db: Database) -> int:
    return int(db.run("testing/now")[0]["now"])


def test_confidence_decays_unless_reinforced(api: Api, db: Database, world: dict[str, str]) -> None:
    h, now = world, _now(db)
    month_ago = now - 30 * DAY
    assert _assert(db, month_ago, id="f-dep", subject=R, predicate="OracleDependency", object=O1, valid_from=100,
                   confidence=0.8).created == ["f-dep"]
    v = _version(api, h, "f-dep")
    assert (v["confidence"], v["last_reinforced"], v["reinforcements"]) == (0.8, month_ago, None)
    assert v["effective_confidence"] == pytest.approx(0.8 * math.exp(-1), rel=1e-3)  # 30 days: the default
    about = api.client.get(f"/entities/{quote(R)}/facts", headers=h).json()
    assert about[0]["effective_confidence"] == pytest.approx(v["effective_confidence"], rel=1e-3)
    # Re-asserting it reinforces it: its clock restarts, nothing new is created, the audit record can undo it.
    body = {"facts": [{"id": "f-dep", "subject": R, "predicate": "OracleDependency", "object": O1, "valid_from": 100,
                       "confidence": 0.8}]}
    r = api.client.post("/facts", headers=h, json=body).json()
    assert (r["created"], r["unchanged"], r["reinforced"], r["closed"]) == ([], ["f-dep"], ["f-dep"], 0)
    v = _version(api, h, "f-dep")
    assert v["last_reinforced"] >= now and v["reinforcements"] == 1 and v["recorded_at"] == month_ago
    assert v["effective_confidence"] == pytest.approx(0.8, rel=1e-3) and v["confidence"] == 0.8
    records = [x for x in db.run("testing/audit_records") if x.get("action") == "fact.assert"]
    ops = parse_revert(records[-1]["revert"])
    assert [(o.op, o.before) for o in ops] == [("set_relationship_properties",
                                                {"last_reinforced": None, "reinforcements": None})]
    # Again at once: not new evidence (within the reinforcement gap).
    assert api.client.post("/facts", headers=h, json=body).json()["reinforced"] == []
    # The same statement under another id reinforces the fact believed (and creates nothing).
    later = now + 2 * 60 * MINUTE
    same = _assert(db, later, id="f-dep-again", subject=R, predicate="OracleDependency", object=O1, valid_from=150)
    assert same.created == [] and same.reinforced == ["f-dep"]
    assert _version(api, h, "f-dep")["last_reinforced"] == later
    # A path shows each hop's confidence now.
    _assert(db, month_ago, id="f-back", subject=POOL, predicate="CollateralBacking", object=R, valid_from=50)
    path = api.client.get("/topology/path", headers=h, params={"from": POOL, "to": O1, "block": 200}).json()
    assert [f["fact_id"] for f in path["facts"]] == ["f-back", "f-dep"]
    assert path["facts"][0]["effective_confidence"] == pytest.approx(math.exp(-1), rel=1e-3)


def test_only_what_the_writer_sees_is_reinforced(api: Api, db: Database, world: dict[str, str]) -> None:
    month_ago = _now(db) - 30 * DAY
    _assert(db, month_ago, id="f-private", subject=POS, predicate="HasPosition", object=POOL, valid_from=10)
    other = api.headers("fd-2", "clade-other")
    r = api.client.post("/facts", headers=other, json={"facts": [
        {"id": "f-theirs", "subject": POS, "predicate": "HasPosition", "object": POOL, "valid_from": 10}]})
    assert r.status_code == 201 and r.json()["reinforced"] == []
    assert _version(api, world, "f-private")["last_reinforced"] == month_ago


def test_the_half_life_is_a_setting(db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder, api: Api,
                                    world: dict[str, str]) -> None:
    month_ago = _now(db) - 30 * DAY
    _assert(db, month_ago, id="f-slow", subject=R, predicate="OracleDependency", object=O2, valid_from=10)
    settings = neo4j_server.settings(admin_key=ADMIN_KEY, facts=FactConfig(half_life_days=60, floor=0.5))
    with TestClient(create_app(settings, db=db, embedder=embedder)) as c:
        v = c.get("/facts/f-slow", headers=world).json()[-1]
        assert v["effective_confidence"] == pytest.approx(math.exp(-0.5), rel=1e-3)
    settings = neo4j_server.settings(admin_key=ADMIN_KEY, facts=FactConfig(half_life_days=1, floor=0.2))
    with TestClient(create_app(settings, db=db, embedder=embedder)) as c:
        assert c.get("/facts/f-slow", headers=world).json()[-1]["effective_confidence"] == 0.2


def _ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)


def test_information_lag_per_fact_per_entity_and_in_curiosity(api: Api, db: Database, world: dict[str, str]) -> None:
    h = world
    t0 = datetime(2025, 1, 1, tzinfo=UTC)
    # The agent saw block 200 happen (an episode at that block), and saw the change at block 203.
    eps = [{"id": "lag-at-200", "type": "observation", "text": "block 200 produced", "block": 200,
            "valid_from": t0.isoformat()},
           {"id": "lag-seen", "type": "observation", "text": "oracle switch noticed", "block": 203,
            "valid_from": t0.isoformat()}]
    assert api.client.post("/episodes/batch", headers=h, json={"episodes": eps}).status_code == 201
    # Valid time from the asserter (10 min lag), from the episode at the block (30 min, 3 blocks), an
    # approximate one (left out of the summary), and one whose valid time nobody knows.
    _assert(db, _ms(t0) + 10 * MINUTE, id="lag-given", subject=R, predicate="Custom", name="LTV", value=0.7,
            valid_from=100, valid_from_time=t0)
    _assert(db, _ms(t0) + 30 * MINUTE, id="lag-episode", subject=R, predicate="OracleDependency", object=O1,
            valid_from=200, source_episode="lag-seen")
    _assert(db, _ms(t0) + 600 * MINUTE, id="lag-approx", subject=R, predicate="Custom", name="LT", value=0.8,
            valid_from=50, valid_from_time=t0, approximate=True)
    _assert(db, _ms(t0), id="lag-unknown", subject=POOL, predicate="CollateralBacking", object=R, valid_from=60)
    r = api.client.get(f"/entities/{quote(R)}/lag", headers=h)
    assert r.status_code == 200, r.text
    lag = r.json()
    by_id = {f["fact_id"]: f for f in lag["facts"]}
    assert (by_id["lag-given"]["lag_ms"], by_id["lag-given"]["valid_time_source"]) == (10 * MINUTE, "asserted")
    assert (by_id["lag-episode"]["lag_ms"], by_id["lag-episode"]["valid_time_source"]) == (30 * MINUTE, "episode")
    assert (by_id["lag-episode"]["seen_block"], by_id["lag-episode"]["lag_blocks"]) == (203, 3)
    assert by_id["lag-approx"]["approximate"] is True and by_id["lag-unknown"]["lag_ms"] is None
    s = lag["summary"]
    assert (s["count"], s["with_lag"], s["mean_lag_ms"], s["max_lag_ms"]) == (4, 2, 20 * MINUTE, 30 * MINUTE)
    assert (s["with_lag_blocks"], s["mean_lag_blocks"]) == (1, 3)
    assert lag["lag_term"] == pytest.approx(lag_term(20 * MINUTE, FactConfig()))
    assert lag["lag_term"] == pytest.approx(0.5 * (1 - math.exp(-20 / 15)))
    # Filters: by valid block, and the facts another agent recorded (none).
    assert {f["fact_id"] for f in api.client.get(f"/entities/{quote(R)}/lag", headers=h,
                                                 params={"since_block": 150}).json()["facts"]} == {"lag-episode"}
    assert api.client.get(f"/entities/{quote(R)}/lag", headers=h, params={"agent_id": "x"}).json()["facts"] == []

    # Curiosity: the distance modifier plus the lag term, additive.
    _assert(db, _ms(t0), id="lag-pos", subject=POS, predicate="HasPosition", object=POOL, valid_from=10)

    def curiosity(event: str, block: int = 300) -> dict[str, Any]:
        r = api.client.post("/topology/curiosity", headers=h, json={"event_entity": event, "positions": [POS],
                                                                     "block": block})
        assert r.status_code == 200, r.text
        return r.json()

    c = curiosity(R)  # two hops: pos -> pool -> reserve
    assert (c["distance"], c["modifier"]) == (2, 0.5)
    assert c["lag_term"] == pytest.approx(lag["lag_term"]) and c["curiosity"] == pytest.approx(0.5 + c["lag_term"])
    assert c["lag"]["mean_lag_ms"] == 20 * MINUTE
    early = curiosity(R, block=150)  # only what was valid by then: the 10-minute lag
    assert early["lag"]["mean_lag_ms"] == 10 * MINUTE and early["curiosity"] == pytest.approx(
        early["modifier"] + lag_term(10 * MINUTE, FactConfig()))
    far = curiosity(O2)  # nothing known about it: no lag term
    assert (far["modifier"], far["lag_term"], far["curiosity"]) == (0.0, 0.0, 0.0)

    # Another agent sees none of these private facts (or the private episode that timed one).
    other = api.headers("fd-3", "clade-z")
    theirs = api.client.get(f"/entities/{quote(R)}/lag", headers=other).json()
    assert theirs["facts"] == [] and theirs["lag_term"] == 0.0
    assert api.client.get(f"/entities/{quote('reserve:nope')}/lag", headers=h).status_code == 404
