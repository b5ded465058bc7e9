"""Reflexion's invariants and snapshots (issue 39; grimoire.md, "Reflexion with On-Chain Grounding", steps 1-2): an
episode carrying its state before and after the action and the invariants that must hold has its snapshots compared
and its invariants checked as it is ingested; a broken invariant records one safety_incident episode (importance
emergency, confidence 1.0) in the source's scope, linked to it and audited with the Reflection, and the verdict is
read over GET /episodes/{id}/reflection. Invariants that hold record none; bounds that cannot be checked are a 422."""

from __future__ import annotations

from typing import Any

from grimoire.graph.learning import reflexion
from tests.conftest import Api

AGENT, CLADE = "golem-invariants", "clade-invariants"
PRE = {"balance:WETH": 10.0, "balance:USDC": 5_000.0}
POST = {"balance:WETH": 8.0, "balance:USDC": 8_900.0}


def _swap(episode_id: str, invariants: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    return {"id": episode_id, "type": "action", "tool": "uniswap-swap", "token_pair": "WETH/USDC", "chain": "1",
            "regime": "bull", "outcome": "positive", "valid_from": "2026-11-03T12:00:00Z",
            "text": "swapped 2 WETH for USDC on uniswap", "pre_state": PRE, "post_state": POST,
            "invariants": invariants, **kw}


def test_a_broken_invariant_records_one_linked_safety_incident(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    # WETH may not fall below 9 and USDC may not move by more than 50 % (5,000 bps): both break (8; +78 %).
    broken = [{"key": "balance:WETH", "min": 9}, {"key": "balance:USDC", "max_change_bps": 5_000}]
    r = api.client.post("/episodes", headers=h, json=_swap("inv-broken", broken, scope="shared"))
    assert r.status_code == 201, r.text

    r = api.client.get("/episodes/inv-broken/reflection", headers=h)
    assert r.status_code == 200, r.text
    verdict = r.json()
    assert verdict["verdict"] is None and verdict["metric"] is None  # no prediction: the snapshots only
    assert verdict["state_deviations"] == [
        {"key": "balance:USDC", "pre": 5_000.0, "post": 8_900.0, "change": 3_900.0, "change_bps": 7_800.0},
        {"key": "balance:WETH", "pre": 10.0, "post": 8.0, "change": -2.0, "change_bps": -2_000.0}]
    assert verdict["invariants_checked"] == 2
    assert verdict["violations"] == [
        {"key": "balance:WETH", "category": "token_amount_bound", "bound": "min", "limit": 9.0, "actual": 8.0},
        {"key": "balance:USDC", "category": "balance_change_limit", "bound": "max_change_bps", "limit": 5_000.0,
         "actual": 7_800.0}]
    incident_id = verdict["incident_id"]
    assert incident_id == "safety-incident:inv-broken"

    r = api.client.get(f"/episodes/{incident_id}", headers=h)
    assert r.status_code == 200, r.text
    incident = r.json()
    assert incident["type"] == "safety_incident" and incident["importance"] == "emergency"
    assert incident["confidence"] == 1.0 and incident["outcome"] == "negative"
    assert (incident["agent_id"], incident["clade"], incident["scope"]) == (AGENT, CLADE, "shared")
    assert incident["source_episode_id"] == "inv-broken"
    assert incident["valid_from"] == api.client.get("/episodes/inv-broken", headers=h).json()["valid_from"]
    assert "balance:WETH is 8, below its minimum 9" in incident["text"]
    # the clade sees the shared incident as it sees its source; an agent of another clade sees neither
    mate = api.headers("golem-mate", CLADE)
    assert api.client.get(f"/episodes/{incident_id}", headers=mate).status_code == 200
    far = api.headers("golem-far", "clade-far")
    assert api.client.get(f"/episodes/{incident_id}", headers=far).status_code == 404
    assert api.client.get("/episodes/inv-broken/reflection", headers=far).status_code == 404

    # linked to its source, created under the Reflection's audit record, which names both and undoes both
    [row] = db.fetch("testing/incidents")
    assert row["sources"] == ["inv-broken"] and row["importance"] == "emergency" and row["confidence"] == 1.0
    [audit] = [a for a in db.fetch("testing/audit_records") if a["action"] == "learning.reflexion"]
    assert audit["id"] == row["audit_id"]
    assert set(audit["target_ids"]) == {"reflexion:inv-broken", incident_id}
    assert incident_id in audit["revert"] and "delete_nodes" in audit["revert"]

    # Reflexion again (the cycle's phase, and for these ids): no second Reflection, no second incident
    learning = api.client.app.state.services.curator.learning
    again = reflexion.reflect(learning, AGENT, actor="test")
    assert again.reflections == [] and again.incidents == []
    assert reflexion.reflect(learning, AGENT, actor="test", ids=["inv-broken"]).incidents == []
    r = api.client.post("/episodes", headers=h, json=_swap("inv-broken", broken, scope="shared"))  # re-sent
    assert r.status_code == 201 and r.json()["created"] == [], r.text
    assert len(db.fetch("testing/incidents")) == 1


def test_invariants_that_hold_record_no_incident(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    held = [{"key": "balance:WETH", "min": 5, "max_change": 2}, {"key": "balance:USDC", "max": 10_000}]
    r = api.client.post("/episodes", headers=h, json=_swap("inv-held", held))
    assert r.status_code == 201, r.text
    r = api.client.get("/episodes/inv-held/reflection", headers=h)
    assert r.status_code == 200, r.text
    verdict = r.json()
    assert verdict["invariants_checked"] == 2 and verdict["violations"] == [] and verdict["incident_id"] is None
    assert [d["key"] for d in verdict["state_deviations"]] == ["balance:USDC", "balance:WETH"]
    assert db.fetch("testing/incidents") == []


def test_a_confidential_episodes_incident_stays_private(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    secret = _swap("inv-secret", [{"key": "balance:WETH", "max": 7}], scope="public",
                   text="swapped 2 WETH; the api key is sk-abcdefghijklmnopqrstuv")
    r = api.client.post("/episodes", headers=h, json=secret)
    assert r.status_code == 201, r.text
    [row] = db.fetch("testing/incidents")
    assert (row["scope"], row["sensitivity"]) == ("private", "confidential")
    incident = api.client.get(f"/episodes/{row['id']}", headers=h).json()
    assert "sk-abc" not in incident["text"]  # the incident names keys and numbers, not the source's text
    assert api.client.get(f"/episodes/{row['id']}", headers=api.headers("golem-mate", CLADE)).status_code == 404


def test_a_prediction_and_snapshots_give_one_verdict(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    both = _swap("inv-both", [{"key": "balance:WETH", "min": 9}],
                 prediction={"metric": "return_bps", "expected": 10.0, "actual": 20.0, "tolerance": 50})
    r = api.client.post("/episodes", headers=h, json=both)
    assert r.status_code == 201, r.text
    verdict = api.client.get("/episodes/inv-both/reflection", headers=h).json()
    assert verdict["verdict"] == "correct" and verdict["deviation"] == 10.0
    assert [v["bound"] for v in verdict["violations"]] == ["min"] and verdict["incident_id"]
    # prediction accuracy counts verdicts only: the snapshot-only reflection of another episode does not lower it
    r = api.client.post("/episodes", headers=h, json=_swap("inv-only", [{"key": "balance:WETH", "min": 1}]))
    assert r.status_code == 201, r.text
    [row] = db.fetch("metrics/prediction_accuracy", agent_id=AGENT, now=4_102_444_800_000,
                     window_ms=4_102_444_800_000)
    assert row["value"] == 1.0 and row["detail"] == {"reflections": 1, "correct": 1}


def test_bounds_that_cannot_be_checked_are_refused(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    for body, says in [
        (_swap("inv-bad-1", [{"key": "balance:DAI", "min": 1}]), "post_state has no such value"),
        ({**_swap("inv-bad-2", [{"key": "balance:WETH", "max_change": 1}]), "pre_state": None},
         "pre_state has no such value"),
        ({**_swap("inv-bad-3", []), "post_state": {f"k{i}": 1.0 for i in range(65)}}, "at most 64"),
        # a safety incident is Reflexion's to record: none written, none pre-empted under its id
        ({**_swap("inv-bad-4", []), "type": "safety_incident"}, "recorded by Reflexion"),
        ({**_swap("safety-incident:inv-1", [])}, "recorded by Reflexion"),
    ]:
        r = api.client.post("/episodes", headers=h, json=body)
        assert r.status_code == 422, r.text
        assert r.headers["content-type"].startswith("application/problem+json") and says in r.text, r.text
    assert db.fetch("testing/count_episodes")[0]["episodes"] == 0
