"""A crystal's lifecycle in the graph (knowledge-crystals.md, "Lifecycle"): every move of the state diagram is
allowed and audited, every other refused with a 409 naming both states; an expired crystal leaves every read path,
for everyone; skills never expire; a frozen crystal is immutable and its change is a new version; time to live
runs out through the service's scheduler; the purge deletes expired and archived crystals past the retention with
their versions and nothing else."""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from grimoire.api.app import create_app
from grimoire.graph.crystals import store
from grimoire.graph.crystals.config import CrystalsConfig
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.ids import now_ms
from grimoire.graph.model.crystal.lifecycle import TRANSITIONS, Lifecycle
from tests.conftest import ADMIN_KEY, Api, Neo4jUnderTest

S = Lifecycle
# How a new crystal (generated) reaches each state, by allowed moves.
PATH = {S.generated: [], S.activated: [S.activated], S.consolidated: [S.consolidated],
        S.archived: [S.activated, S.archived], S.frozen: [S.frozen]}


def _episode(api: Api, h: dict[str, str], eid: str, text: str = "a plain observation about the market", **extra):
    r = api.client.post("/episodes", headers=h, json={"id": eid, "type": "observation", "text": text, **extra})
    assert r.status_code == 201, r.text


def _records(db: Database, *actions: str) -> list[dict[str, Any]]:
    return [r for r in db.rows("testing/audit_records") if r["action"] in actions]


def _labels(db: Database) -> Counter[str]:
    return Counter(db.rows("testing/count_nodes")[0]["labels"])


ARCHIVED_TOO = {"include_archived": True}  # an archived crystal is read by id only when asked (issue 36)


def _move(api: Api, h: dict[str, str], cid: str, to: Lifecycle):
    return api.client.post(f"/crystals/{cid}/lifecycle", headers=h, json={"to": to.value, "reason": "test"})


def test_every_transition_of_the_diagram_and_a_refusal_for_every_other(api: Api) -> None:
    h = api.headers("life-1")
    pairs = list(itertools.product(PATH, Lifecycle))
    for i, (start, target) in enumerate(pairs):
        cid = f"c-{i}"
        _episode(api, h, cid)
        for step in PATH[start]:
            assert _move(api, h, cid, step).status_code == 200
        assert api.client.get(f"/crystals/{cid}", headers=h, params=ARCHIVED_TOO).json()["lifecycle"] == start.value
        r = _move(api, h, cid, target)
        if target in TRANSITIONS[start]:
            assert r.status_code == 200, (start, target, r.text)
            assert r.json()["from"] == start.value and r.json()["to"] == target.value
            after = api.client.get(f"/crystals/{cid}", headers=h, params=ARCHIVED_TOO)
            if target is S.expired:
                assert after.status_code == 404  # out of every read path
            else:
                assert after.json()["lifecycle"] == target.value
        else:
            assert r.status_code == 409, (start, target, r.text)
            assert f"{start.value} → {target.value}" in r.json()["detail"]
            assert api.client.get(f"/crystals/{cid}", headers=h, params=ARCHIVED_TOO).json()["lifecycle"] == start.value
    # An expired crystal is not there to move: from expired, every move is a 404 (never visible again).
    _episode(api, h, "gone")
    assert _move(api, h, "gone", S.expired).status_code == 200
    for target in Lifecycle:
        assert _move(api, h, "gone", target).status_code == 404
    # Every move was audited, in the move's transaction: one record per allowed move.
    allowed = sum(len(PATH[s]) for s, _ in pairs) + sum(t in TRANSITIONS[s] for s, t in pairs) + 1
    assert len(_records(api.db, "crystal.transition", "crystal.expire")) == allowed


def test_only_the_owner_moves_a_crystal_and_an_archived_entry_leaves_retrieval(api: Api) -> None:
    owner, mate = api.headers("life-o", "clade-l"), api.headers("life-m", "clade-l")
    r = api.client.post("/entries", headers=owner, json={
        "id": "en-shared", "scope": "shared", "category": "Warning",
        "content": "Aave WETH borrow caps tighten when utilisation crosses ninety percent"})
    assert r.json()["outcome"] == "admitted", r.text
    assert api.client.get("/crystals/en-shared", headers=mate).status_code == 200  # shared: the clade sees it
    assert _move(api, mate, "en-shared", S.activated).status_code == 404     # but only the owner moves it
    assert _move(api, owner, "en-shared", S.activated).status_code == 200
    assert _move(api, owner, "en-shared", S.archived).status_code == 200
    assert api.client.get("/entries/en-shared", headers=owner).status_code == 404  # archived: out of reads by id
    assert api.client.get("/entries/en-shared", headers=owner,
                          params={"include_archived": True}).json()["status"] == "archived"


def test_expired_is_never_visible_to_anyone(api: Api) -> None:
    owner, stranger = api.headers("life-x", "clade-x"), api.headers("life-y", "clade-y")
    text = "Public note: the Curve stETH pool rebalanced overnight"
    steth = {"kind": "Token", "name": "stETH", "chain_id": 1, "address": "0xae7ab96520DE3A18E5e111B5EaAb095312D7fE84"}
    steth_id = "1:0xae7ab96520de3a18e5e111b5eaab095312d7fe84"
    _episode(api, owner, "pub-ep", text, scope="public", mentions=[steth])
    resolved = api.client.get("/entities/resolve", headers=stranger, params={"q": "stETH"}).json()
    assert [e["id"] for e in resolved] == [steth_id]  # visible through the public episode that mentions it
    r = api.client.post("/entries", headers=owner, json={"id": "pub-en", "scope": "public", "category": "Insight",
                                                          "content": "Curve stETH pool rebalances overnight"})
    assert r.json()["outcome"] == "admitted", r.text
    for cid in ("pub-ep", "pub-en"):
        assert _move(api, owner, cid, S.expired).status_code == 200
    # The entity it mentioned is no longer seen through it (a stranger saw it only through that episode).
    assert api.client.get("/entities/resolve", headers=stranger, params={"q": "stETH"}).json() == []
    related = api.client.get(f"/entities/{steth_id}/related", headers=stranger)
    assert related.status_code == 404 or related.json() == []
    for who in (owner, stranger, api.admin):
        assert api.client.get("/episodes/pub-ep", headers=who).status_code == 404
        assert api.client.get("/entries/pub-en", headers=who).status_code == 404
        assert api.client.get("/crystals/pub-ep", headers=who).status_code == 404
        for kind in ("episodes", "entries"):
            hits = api.client.post("/search", headers=who, json={"text": text, "kind": kind, "k": 20}).json()
            assert not {x["id"] for x in hits} & {"pub-ep", "pub-en"}
        found = api.client.post("/retrieve", headers=who, json={"text": text, "k": 20}).json()["results"]
        assert not {x["id"] for x in found} & {"pub-ep", "pub-en"}
        assert api.client.get("/stats", headers=who).json()["episodes"] == 0


def test_a_frozen_crystal_is_immutable_its_change_a_new_version(api: Api) -> None:
    h = api.headers("life-f")
    r = api.client.post("/entries", headers=h, json={"id": "fz", "category": "Heuristic",
                                                      "content": "Repay the flash loan in the same transaction"})
    assert r.json()["outcome"] == "admitted", r.text
    assert _move(api, h, "fz", S.frozen).status_code == 200
    edit = api.client.post("/entries/fz/edit", headers=h, json={"content": "changed in place"})
    assert edit.status_code == 409 and "frozen" in edit.json()["detail"]
    made = api.client.post("/crystals/fz/versions", headers=h, json={"text": "Repay the flash loan atomically",
                                                                      "reason": "clearer"})
    assert made.status_code == 201, made.text
    new = made.json()
    assert new["previous_version_id"] == "fz" and new["skill_version"] == 2
    old, nxt = (api.client.get(f"/crystals/{i}", headers=h).json() for i in ("fz", new["id"]))
    assert old["content"] == "Repay the flash loan in the same transaction"  # unchanged
    assert old["deprecated"] is True and old["lifecycle"] == "frozen"
    assert nxt["content"] == "Repay the flash loan atomically" and nxt["lifecycle"] == "frozen"
    assert nxt["stable_skill_id"] == old["stable_skill_id"] == "fz"
    tree = api.client.get(f"/crystals/{new['id']}/provenance/tree", headers=h).json()
    assert tree["operation"] == "mutated" and tree["parent_ids"] == ["fz"]
    # A crystal that is not frozen is changed in place (an entry's EDIT), not versioned here.
    r = api.client.post("/entries", headers=h, json={"id": "thawed", "category": "Insight",
                                                      "content": "Gas is cheapest on Sunday mornings UTC"})
    assert api.client.post("/crystals/thawed/versions", headers=h, json={"text": "x"}).status_code == 422


@pytest.fixture
def live(db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder) -> Iterator[Api]:
    """The API with its scheduler on and the TTL job every second."""
    settings = neo4j_server.settings(admin_key=ADMIN_KEY, scheduler_enabled=True,
                                     crystals=CrystalsConfig(lifespan_interval_seconds=1.0))
    app = create_app(settings, db=db, embedder=embedder)
    with TestClient(app) as c:
        yield Api(c, db)


def test_time_to_live_runs_out_through_the_scheduler(live: Api) -> None:
    h = live.headers("life-t")
    ttl = {"lifespan": "ttl", "ttl_ms": 1_500}
    _episode(live, h, "short", "a short-lived note", governance=ttl)
    _episode(live, h, "short-active", "another short-lived note", governance=ttl)
    _episode(live, h, "long", "a note that stays", governance={"lifespan": "permanent"})
    assert _move(live, h, "short-active", S.activated).status_code == 200
    crystal = live.client.get("/crystals/short", headers=h).json()
    assert crystal["lifespan"] == "ttl" and crystal["expires_at"] == crystal["recorded_at"] + 1_500
    deadline = time.monotonic() + 20
    while live.client.get("/episodes/short", headers=h).status_code == 200:
        assert time.monotonic() < deadline, "the scheduler's crystals.lifespan job never expired the crystal"
        time.sleep(0.25)
    while live.client.get("/crystals/short-active", headers=h,
                          params={"include_archived": True}).json()["lifecycle"] != "archived":
        assert time.monotonic() < deadline, "the activated crystal was never archived"  # no activated → expired
        time.sleep(0.25)
    assert live.client.get("/crystals/long", headers=h).json()["lifecycle"] == "generated"
    jobs = {j["name"]: j for j in live.client.get("/scheduler/jobs", headers=live.admin).json()["jobs"]}
    assert jobs["crystals.lifespan"]["runs"] >= 1 and jobs["crystals.lifespan"]["every_seconds"] == 1
    assert jobs["crystals.consolidation"]["every_seconds"] == 1_800  # the spec's 30 minutes


def test_the_purge_deletes_what_is_past_retention_with_its_versions_and_nothing_else(api: Api, db: Database) -> None:
    h = api.headers("life-p")
    weth = {"kind": "Token", "name": "WETH", "chain_id": 1, "address": "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"}
    for eid in ("p-exp", "p-arch", "p-keep"):
        _episode(api, h, eid, f"{eid}: WETH moved", mentions=[weth])
    r = api.client.post("/entries", headers=h, json={"id": "p-en", "category": "Insight",
                                                      "content": "WETH outflows precede rate spikes on Aave"})
    assert r.json()["outcome"] == "admitted", r.text
    assert api.client.post("/entries/p-en/edit", headers=h, json={"content": "WETH outflows precede spikes"}
                           ).status_code == 200  # a kept version hangs off it
    assert _move(api, h, "p-exp", S.expired).status_code == 200
    for cid in ("p-arch", "p-en"):
        assert _move(api, h, cid, S.activated).status_code == 200
        assert _move(api, h, cid, S.archived).status_code == 200
    fork = api.client.post("/crystals/p-arch/fork", headers=h, json={})  # derives from one that is purged
    assert fork.status_code == 201
    before = _labels(db)
    assert store.purge(db, retention_days=1.0).crystals == 0  # not past the retention yet
    gone = store.purge(db, retention_days=1.0, now=now_ms() + 2 * store.DAY_MS)
    # p-en's versions: its edit, its move to activated, its move to archived; p-arch's: its two moves.
    assert gone.crystals == 3 and gone.versions == 5
    after = _labels(db)
    assert after["Expired"] == 0 and after["EntryVersion"] == before["EntryVersion"] - 3
    assert after["Version"] == before["Version"] - 5
    assert after["Entity"] == before["Entity"] == 1  # what they mention stays
    assert api.client.get("/episodes/p-keep", headers=h).status_code == 200
    assert api.client.get(f"/crystals/{fork.json()['id']}", headers=h).status_code == 200
    assert db.rows("testing/nodes_by_id", ids=["p-exp", "p-arch", "p-en"]) == []
    records = _records(db, "crystal.purge")
    assert sorted(i for r in records for i in r["target_ids"]) == ["p-arch", "p-en", "p-exp"]


def test_ids_are_unique_per_label_and_a_move_touches_only_the_callers_crystal(api: Api) -> None:
    a, b = api.headers("life-a1", "clade-1"), api.headers("life-b1", "clade-2")
    _episode(api, a, "same-id", "A's public note on the Euler vault", scope="public")
    r = api.client.post("/entries", headers=b, json={"id": "same-id", "category": "Insight",
                                                      "content": "B's insight: Euler vault caps fill on Mondays"})
    assert r.json()["outcome"] == "admitted", r.text
    assert _move(api, b, "same-id", S.expired).status_code == 200  # B's entry
    assert api.client.get("/episodes/same-id", headers=a).status_code == 200  # A's episode is untouched
    assert api.client.get("/crystals/same-id", headers=a).json()["lifecycle"] == "generated"
    assert api.client.get("/entries/same-id", headers=b).status_code == 404


def test_new_text_is_tagged_afresh(api: Api) -> None:
    h = api.headers("life-s")
    r = api.client.post("/entries", headers=h, json={"id": "pub-tip", "scope": "public", "category": "Heuristic",
                                                      "content": "Keep the keeper bot's gas tank above 0.5 ETH"})
    assert r.json()["outcome"] == "admitted", r.text
    edit = api.client.post("/entries/pub-tip/edit", headers=h, json={
        "content": "Keep the keeper bot funded; its api key is sk-live-0123456789abcdefghij"})
    assert edit.status_code == 200, edit.text
    tip = api.client.get("/crystals/pub-tip", headers=h).json()
    assert (tip["sensitivity"], tip["scope"], tip["requested_scope"]) == ("confidential", "private", "public")
    assert api.client.get("/entries/pub-tip", headers=api.headers("life-s2", "clade-s2")).status_code == 404
    _episode(api, h, "pub-frozen", "The runbook for the keeper restart", scope="public")
    assert _move(api, h, "pub-frozen", S.frozen).status_code == 200
    made = api.client.post("/crystals/pub-frozen/versions", headers=h, json={
        "text": "The runbook: the password is hunter2-keeper, then restart"}).json()
    nxt = api.client.get(f"/crystals/{made['id']}", headers=h).json()
    assert (nxt["sensitivity"], nxt["scope"], nxt["requested_scope"]) == ("confidential", "private", "public")
    assert api.client.get(f"/crystals/{made['id']}", headers=api.headers("life-s2", "clade-s2")).status_code == 404
