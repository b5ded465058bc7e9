"""Each agent's hormones in the graph (knowledge-crystals.md, "Hormonal System"): levels after scripted spikes and
elapsed times against numbers worked out by hand; the events an agent's episodes show spike it; the modulations
reach consolidation and retrieval; the network cortisol override (admin) raises effective cortisol and halts
skill ingestion (skills, versions, forks) by agents below the trusted level until it ends, and nothing else."""

from __future__ import annotations

import time

import pytest
from neo4j import ManagedTransaction

from grimoire.graph.crystals import hormonal_state as hs
from grimoire.graph.db.connection import Database
from grimoire.graph.model.crystal.hormones import HormonalEvent as E
from tests.conftest import Api

MIN = 60_000
T0 = 1_800_000_000_000


def _spike(db: Database, agent: str, at: int, *events: E) -> None:
    def work(tx: ManagedTransaction) -> None:
        hs.spike_in(tx, agent, list(events), at, "test")

    db.write(work)


def test_levels_after_scripted_spikes_and_elapsed_times(db: Database) -> None:
    _spike(db, "h-1", T0, E.reward, E.error, E.error)
    at0 = hs.levels(db, "h-1", T0)
    # From homeostasis (0.15, 0.02, 0.10): reward +0.3 dopamine; two errors +0.3 cortisol each.
    assert (at0.dopamine, at0.cortisol, at0.oxytocin) == pytest.approx((0.45, 0.62, 0.10))
    # 30 min: dopamine's half-life (0.15 + 0.30·0.5); cortisol at half its 60-min half-life (0.02 + 0.6·0.5^0.5).
    at30 = hs.levels(db, "h-1", T0 + 30 * MIN)
    assert at30.dopamine == pytest.approx(0.30)
    assert at30.cortisol == pytest.approx(0.02 + 0.6 * 0.5 ** 0.5)
    # An achievement then: dopamine 0.30 + 0.4 = 0.70, oxytocin 0.10 + 0.2 = 0.30; 45 min later (oxytocin's
    # half-life, 1.5 of dopamine's, 0.75 of cortisol's).
    _spike(db, "h-1", T0 + 30 * MIN, E.achievement)
    later = hs.levels(db, "h-1", T0 + 75 * MIN)
    assert later.dopamine == pytest.approx(0.15 + 0.55 * 0.5 ** 1.5)
    assert later.oxytocin == pytest.approx(0.10 + 0.20 * 0.5)
    assert later.cortisol == pytest.approx(0.02 + 0.6 * 0.5 ** 1.25)
    # Clamped to 1: three urgencies (+0.4 each) from 0.02.
    _spike(db, "h-2", T0, E.urgency, E.urgency, E.urgency)
    assert hs.levels(db, "h-2", T0).cortisol == 1.0
    # Far later every level is back at homeostasis (the personality's resting state, not zero).
    rested = hs.levels(db, "h-1", T0 + 48 * 60 * MIN)
    assert (rested.dopamine, rested.cortisol, rested.oxytocin) == pytest.approx((0.15, 0.02, 0.10), abs=1e-6)


def test_episodes_spike_their_agent_and_the_modulations_follow(api: Api) -> None:
    h = api.headers("h-agent")
    r = api.client.post("/episodes", headers=h, json={"type": "observation",
                                                       "text": "The deployment failed with an error; urgent fix"})
    assert r.status_code == 201
    got = api.client.get("/agents/h-agent/hormones", headers=h).json()
    # "failed"/"error": error (+0.3); "urgent": urgency (+0.4): cortisol 0.02 + 0.7.
    assert got["cortisol"] == pytest.approx(0.72, abs=1e-3) and got["dopamine"] == pytest.approx(0.15, abs=1e-3)
    c = 0.72
    assert got["consolidation"]["decay_resistance"] == pytest.approx(c * 0.3 + 0.15 * 0.2 + 0.10 * 0.2, abs=1e-3)
    assert got["consolidation"]["merge_threshold"] == pytest.approx(0.92 + c * 0.03, abs=1e-4)
    assert got["retrieval"] == pytest.approx({"importance_boost": 1.03, "recency_bias": 1 + c * 0.3}, abs=1e-3)
    # An event by hand: a reward.
    ev = api.client.post("/agents/h-agent/hormones/events", headers=h, json={"event": "reward"})
    assert ev.status_code == 200 and ev.json()["dopamine"] == pytest.approx(0.45, abs=1e-3)
    assert api.client.post("/agents/h-agent/hormones/events", headers=h, json={"event": "joy"}).status_code == 422
    # Retrieval reads them: the four-factor weights are scaled (importance ×(1 + 0.2·0.45), temporal ×(1 + 0.3·c)).
    api.client.post("/episodes", headers=h, json={"type": "observation", "text": "WETH borrow rate on Aave"})
    found = api.client.post("/retrieve", headers=h, json={"text": "WETH borrow rate", "mode": "four_factor",
                                                          "explain": True}).json()["results"]
    weights = found[0]["explain"]["weights"]
    assert weights["importance"] == pytest.approx(0.25 * (1 + 0.2 * 0.45), rel=2e-3)
    assert weights["temporal"] == pytest.approx(0.20 * (1 + 0.3 * c), rel=2e-3)
    # An agent whose hormones never moved retrieves as configured.
    calm = api.headers("h-calm")
    api.client.post("/episodes", headers=calm, json={"type": "observation", "text": "WETH borrow rate on Aave"})
    found = api.client.post("/retrieve", headers=calm, json={"text": "WETH borrow rate", "mode": "four_factor",
                                                             "explain": True}).json()["results"]
    assert found[0]["explain"]["weights"]["importance"] == 0.25


def test_the_network_override_raises_cortisol_and_halts_untrusted_ingestion(api: Api) -> None:
    golem, person = api.headers("h-golem", kind="golem"), api.headers("h-main")
    episode = {"type": "observation", "text": "a plain note"}
    lessons = {"h-lesson": "Withdraw from the Morpho vault, then wait for the transaction to confirm.",
               "h-main-lesson": "Route large swaps through the Uniswap SDK and the 1inch API to split the order."}
    for h, eid in ((golem, "h-lesson"), (person, "h-main-lesson")):  # what a skill and a fork are made of
        r = api.client.post("/entries", headers=h, json={"id": eid, "category": "StrategyFragment", "scope": "public",
                                                          "content": lessons[eid]})
        assert r.json()["outcome"] == "admitted", r.text
    try:
        bad = api.client.put("/hormones/network", headers=golem, json={"level": 0.9, "duration_ms": 60_000,
                                                                        "reason": "x"})
        assert bad.status_code == 403  # the admin's
        set_ = api.client.put("/hormones/network", headers=api.admin, json={
            "level": 0.9, "duration_ms": 60_000, "reason": "suspicious skill burst from peer cluster"})
        assert set_.status_code == 200, set_.text
        assert api.client.get("/hormones/network", headers=golem).json()["active"] is True
        got = api.client.get("/agents/h-golem/hormones", headers=golem).json()
        assert got["cortisol"] == pytest.approx(0.02, abs=1e-3) and got["effective_cortisol"] == 0.9
        assert got["consolidation"]["halt_untrusted_ingestion"] is True
        assert got["consolidation"]["merge_threshold"] == pytest.approx(0.92 + 0.9 * 0.03)
        # As the seed scopes it: skill ingestion below trusted halts (a skill, a version, a fork) ...
        halted = api.client.post("/skills", headers=golem, json={"crystal_id": "h-lesson"})
        assert halted.status_code == 409 and "halted" in halted.json()["detail"], halted.text
        assert api.client.post("/crystals/h-main-lesson/fork", headers=golem, json={}).status_code == 409
        # ... and nothing else: a provisional golem's and a sub-agent's own writes go on
        assert api.client.post("/episodes", headers=golem, json=episode).status_code == 201
        assert api.client.post("/entries", headers=golem, json={"category": "Insight", "content": "x y z"}
                               ).status_code == 201
        assert api.client.post("/episodes", headers=person, json=episode).status_code == 201  # a main agent: trusted
        r = api.client.post("/agents", headers=api.admin, json={"id": "h-sub", "name": "scout", "kind": "sub",
                                                                 "parent_id": "h-main", "clade": "clade-a"})
        assert r.status_code == 201, r.text
        made = api.client.post("/agents/h-sub/keys", headers=api.admin, json={"scopes": ["read", "propose"]})
        scout = {"X-API-Key": made.json()["key"]}
        proposed = api.client.post("/agents/h-main/proposals", headers=scout,
                                   json={"content": "The user prefers morning reports", "store": "semantic"})
        assert proposed.status_code == 201, proposed.text
        assert api.client.put("/agents/h-golem/trust-level", headers=api.admin, json={"level": "trusted"}
                              ).status_code == 200
        made = api.client.post("/skills", headers=api.headers("h-golem", kind="golem"), json={"crystal_id": "h-lesson"})
        assert made.status_code == 201, made.text
    finally:
        ended = api.client.delete("/hormones/network", headers=api.admin)
    assert ended.status_code == 200 and ended.json()["ended"] is True
    other = api.headers("h-golem-2", kind="golem")
    assert api.client.post("/crystals/h-main-lesson/fork", headers=other, json={}).status_code == 201
    # An override runs out by itself.
    api.client.put("/hormones/network", headers=api.admin, json={"level": 0.5, "duration_ms": 4_000, "reason": "t"})
    try:
        assert api.client.post("/crystals/h-main-lesson/fork", headers=other, json={}).status_code == 409
        time.sleep(5.1)  # its four seconds, and the second the service keeps the override it read
        assert api.client.post("/crystals/h-main-lesson/fork", headers=other, json={}).status_code == 201
        assert api.client.get("/hormones/network", headers=other).json()["active"] is False
    finally:
        api.client.delete("/hormones/network", headers=api.admin)
    actions = [r["action"] for r in api.db.rows("testing/audit_records")]
    # set, ended, set (the last one ran out by itself: ending it again records nothing)
    assert actions.count("hormones.network_override") == 3 and "agent.trust_level" in actions


def test_hormones_are_the_agents_own(api: Api) -> None:
    mine, other = api.headers("h-own", "clade-h"), api.headers("h-mate", "clade-h")
    assert api.client.get("/agents/h-own/hormones", headers=mine).status_code == 200
    assert api.client.get("/agents/h-own/hormones", headers=other).status_code == 403
    assert api.client.post("/agents/h-own/hormones/events", headers=other, json={"event": "reward"}).status_code == 403
    assert api.client.get("/agents/nobody/hormones", headers=api.admin).status_code == 404
