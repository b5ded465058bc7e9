"""What the seed says is never lost does not expire (issue 36, section 4): a consolidation pass followed by the purge,
against each category — structural entries, bloodstains and warnings never expire, playbook heuristics leave only
by the Curator's rules, a clade alert (an episode that warns) stays, while an ordinary episode and entry not read
for 40 days expire and are purged; and every read an agent makes (a search, a retrieval, a read by id — not only a
retrieval for a decision) counts as access for relevance, written in batches by the scheduler's access.reads job."""

from __future__ import annotations

from typing import Any

from grimoire.graph.crystals.consolidation import ConsolidationEngine
from grimoire.graph.crystals.store import purge
from grimoire.graph.db.connection import Database
from grimoire.graph.ids import now_ms
from tests.conftest import Api

DAY = 86_400_000
AGENT, CLADE = "keeper", "clade-keep"

ENTRIES: dict[str, dict[str, Any]] = {
    "plain-entry": {"category": "Insight", "content": "Curve tricrypto fees rose after the March rebalance"},
    "structural": {"category": "Insight", "decay_class": "structural", "governance": {"lifespan": "decay"},
                   "content": "Uniswap V3 fee tiers are fixed at 0.01, 0.05, 0.3 and 1 percent per pool"},
    "warning": {"category": "Warning", "content": "Never borrow against stETH when the Lido queue exceeds ten days"},
    "bloodstain": {"category": "Warning", "provenance": "DeathReflection", "is_bloodstain": True,
                   "content": "Leveraged GMX longs died in the August wick: close before funding flips"},
    "playbook": {"category": "Heuristic",
                 "content": "Rebalance the Aerodrome LP only when the range drifts past forty percent"},
}
EPISODES = {"plain-episode": ("observation", "Base gas was low during the Sunday night session"),
            "alert": ("clade_alert", "The Morpho vault oracle lags the Chainlink feed by two blocks")}


def _write(api: Api, h: dict[str, str]) -> None:
    for eid, body in ENTRIES.items():
        r = api.client.post("/entries", headers=h, json={"id": eid, **body})
        assert r.status_code == 201 and r.json()["outcome"] == "admitted", r.text
    for eid, (kind, text) in EPISODES.items():
        r = api.client.post("/episodes", headers=h, json={"id": eid, "type": kind, "text": text})
        assert r.status_code == 201, r.text


def _age(db: Database, ids: list[str], now: int, days: int) -> None:
    """Not read for `days`: no access since, recorded then, no emotional valence to slow the decay."""
    db.run("testing/set_crystal_props", rows=[
        {"id": i, "props": {"access_count": 0, "last_accessed_at": now - days * DAY, "recorded_at": now - days * DAY,
                            "emotional_valence": 0.0}} for i in ids])


def _left(db: Database, ids: list[str]) -> dict[str, list[str]]:
    return {r["id"]: r["labels"] for r in db.rows("testing/nodes_by_id", ids=ids)}


def test_the_purge_keeps_what_the_seed_never_loses(api: Api, db: Database) -> None:
    h = api.headers(AGENT, CLADE)
    _write(api, h)
    now = now_ms()
    db.run("testing/set_entry_props", id="playbook", props={"in_playbook": True, "status": "active"})
    every = [*ENTRIES, *EPISODES]
    _age(db, every, now, 40)
    report = ConsolidationEngine(db).run(now)
    expired = {i for i, labels in _left(db, every).items() if "Expired" in labels}
    assert expired == {"plain-entry", "plain-episode"}, report
    purged = purge(db, retention_days=30, now=now + 31 * DAY)
    assert purged.crystals == 2
    left = _left(db, every)
    assert set(left) == set(every) - {"plain-entry", "plain-episode"}
    for kept in ("structural", "warning", "bloodstain", "playbook", "alert"):
        assert "Expired" not in left[kept], kept
        crystal = api.client.get(f"/crystals/{kept}", headers=h)
        assert crystal.status_code == 200 and crystal.json()["lifecycle"] == "generated", kept
    # a year on, still there
    ConsolidationEngine(db).run(now + 365 * DAY)
    assert set(_left(db, every)) == set(every) - {"plain-entry", "plain-episode"}


def _flush(api: Api) -> None:
    scheduler = api.client.app.state.services.scheduler
    assert scheduler.trigger("access.reads")
    assert "access.reads" in scheduler.run_due()
    assert scheduler.job("access.reads").last_error is None


def test_every_read_counts_as_access(api: Api, db: Database) -> None:
    h = api.headers("reader", "clade-read")
    texts = {"searched": "Pendle PT yields compress in the last week before maturity",
             "retrieved": "Ethena sUSDe funding turns negative after a sharp ETH drawdown",
             "read-by-id": "Balancer composable pools rebalance through their rate providers",
             "unread": "Maker DSR changes follow the governance executive by two days"}
    for eid, text in texts.items():
        assert api.client.post("/episodes", headers=h, json={"id": eid, "type": "observation",
                                                             "text": text}).status_code == 201
    now = now_ms()
    _age(db, list(texts), now, 40)
    hits = api.client.post("/search", headers=h, json={"text": texts["searched"], "k": 1, "kind": "episodes"}).json()
    assert [x["id"] for x in hits] == ["searched"]
    got = api.client.post("/retrieve", headers=h, json={"text": texts["retrieved"], "k": 1, "mode": "vector",
                                                        "filters": {"kinds": ["episodes"]}}).json()["results"]
    assert [x["id"] for x in got] == ["retrieved"]
    assert api.client.get("/episodes/read-by-id", headers=h).status_code == 200
    _flush(api)
    report = ConsolidationEngine(db).run(now_ms())
    assert report.expired == 1
    left = _left(db, list(texts))
    assert "Expired" in left["unread"]
    for eid in ("searched", "retrieved", "read-by-id"):
        crystal = api.client.get(f"/crystals/{eid}", headers=h).json()
        assert crystal["read_count"] == 1 and crystal["last_read_at"] >= now, crystal
        assert crystal["access_count"] == 0   # a decision's access clock is not moved by a read
        assert "Expired" not in left[eid]


def test_an_entry_under_0_1_leaves_retrieval_at_once(api: Api, db: Database) -> None:
    """grimoire.md: entries under 0.1 effective confidence are excluded from active retrieval (the Curator archives
    them three cycles later); a structural entry, which never decays, stays."""
    h = api.headers("faint", "clade-faint")
    texts = {"ground": "GHO is minted by Aave facilitators up to a bucket capacity that governance sets",
             "faded": "Aave GHO borrow rate follows the facilitator cap on mainnet",
             "fresh": "Aave GHO borrow rate follows the governance vote on mainnet"}
    for eid, text in texts.items():
        extra = {"decay_class": "structural"} if eid == "ground" else {}
        r = api.client.post("/entries", headers=h, json={"id": eid, "category": "Insight", "content": text, **extra})
        assert r.json()["outcome"] in ("admitted", "admitted_low"), r.text
    now = now_ms()
    entry = api.client.get("/entries/faded", headers=h).json()
    # e^(-3) of 0.6 is 0.0299: under 0.1 (the decay floor, 0.05, is what it reads as); the structural one at 0.08
    db.run("testing/set_entry_props", id="faded", props={"confidence": 0.6, "strength": 1.0,
                                                         "last_accessed_at": now - 3 * int(entry["half_life_ms"])})
    db.run("testing/set_entry_props", id="ground", props={"confidence": 0.08})
    assert api.client.get("/entries/faded", headers=h).json()["effective_confidence"] < 0.1
    for mode in ("hybrid", "vector", "bm25"):
        r = api.client.post("/retrieve", headers=h, json={"text": "Aave GHO borrow rate", "k": 10, "mode": mode,
                                                          "no_budget": True, "explain": True,
                                                          "filters": {"kinds": ["entries"], "agent_id": "faint"}})
        assert r.status_code == 200, r.text
        got = {x["id"] for x in r.json()["results"]}
        assert "faded" not in got and {"fresh", "ground"} <= got, (mode, got)
        cut = {x["id"]: x["explain"]["cut"] for x in r.json()["cut"]}
        assert "below 0.1" in cut["faded"], (mode, cut)


def test_a_workspace_and_a_list_are_reads_too(api: Api, db: Database) -> None:
    """knowledge-crystals.md accessCount, "on every read an agent makes": an assembled workspace (built or served
    kept) and a list count what they return, after the access.reads flush; the decay clock does not move."""
    agent, clade = "lister", "clade-list"
    h = api.headers(agent, clade)
    texts = {"listed": "Morpho Blue markets isolate each collateral's risk in its own market",
             "assembled": "Aave v3 e-mode lifts the LTV of correlated stablecoin pairs to 97 percent"}
    r = api.client.post("/entries", headers=h, json={"id": "listed", "category": "Insight",
                                                     "content": texts["listed"]})
    assert r.status_code == 201, r.text
    r = api.client.post("/entries", headers=h, json={"id": "assembled", "category": "Warning",
                                                     "content": texts["assembled"]})
    assert r.status_code == 201, r.text
    before = {e: api.client.get(f"/crystals/{e}", headers=h).json() for e in texts}
    _flush(api)  # those reads by id written, then set aside: only what follows counts
    db.run("testing/set_crystal_props", rows=[{"id": e, "props": {"read_count": 0}} for e in texts])
    listed = api.client.get("/entries", headers=h, params={"agent_id": agent, "category": "Insight"}).json()
    assert [e["id"] for e in listed] == ["listed"]
    _flush(api)  # the list alone, before the workspace (which may give it too)
    assert api.client.get("/crystals/listed", headers=h).json()["read_count"] == 1
    ws = api.client.post(f"/agents/{agent}/context/assemble", headers=h, json={"query": texts["assembled"]})
    assert ws.status_code == 200, ws.text
    given = {e["id"] for c in ws.json()["categories"].values() for e in c}
    assert "assembled" in given, given
    _flush(api)
    assert api.client.get("/crystals/assembled", headers=h).json()["read_count"] == 1  # the workspace's read
    for eid in texts:
        crystal = api.client.get(f"/crystals/{eid}", headers=h).json()
        assert crystal["last_accessed_at"] == before[eid]["last_accessed_at"]  # not a decision's access
