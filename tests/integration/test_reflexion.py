"""Reflexion's candidate insight (issue 15, point 1): a verified prediction that misses to the same side
three times running in one series (metric, tool, pair) proposes an Insight at confidence 0.5 through the
Admission Gate; a pattern that holds over several comparisons of one batch is proposed once, with the
newest comparison's numbers and every episode that showed it; misses to both sides propose nothing."""

from __future__ import annotations

from typing import Any

from tests.conftest import Api

AGENT, CLADE = "golem-reflexion", "clade-reflexion"


def _episode(i: int, tool: str, expected: float, actual: float) -> dict[str, Any]:
    return {"id": f"rx-{tool}-{i}", "type": "action", "tool": tool, "chain": "1", "token_pair": "WETH/USDC",
            "tick": i, "regime": "bull", "outcome": "positive", "valid_from": f"2026-11-0{i}T12:00:00Z",
            "text": f"{tool} on WETH/USDC at tick {i}: filled, predicted {expected} bps, got {actual} bps",
            "prediction": {"metric": "return_bps", "expected": expected, "actual": actual, "tolerance": 50}}


def test_a_systematic_miss_proposes_one_candidate_insight(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    # uniswap-swap: five predictions, each 80, 90, 100, 110, 120 bps under the actual value (tolerance 50):
    # from the third on, the last three misses are all to one side — a pattern at ticks 3, 4 and 5.
    biased = [_episode(i, "uniswap-swap", 10.0, 10.0 + 70 + 10 * i) for i in range(1, 6)]
    # curve-swap: misses of +80, -80, +80, -80, +80 — never three to one side.
    mixed = [_episode(i, "curve-swap", 10.0, 10.0 + (80 if i % 2 else -80)) for i in range(1, 6)]
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": biased + mixed})
    assert r.status_code == 201, r.text

    # Every comparison is recorded: the biased ones right in direction but off (miscalibrated), the mixed
    # ones off by +80 (miscalibrated) or -80 (actual -70 against +10 expected: wrong), in episode order.
    verdicts = {r["episode_id"]: r["verdict"] for r in db.fetch("testing/reflections", agent_id=AGENT)}
    assert verdicts == {**{f"rx-uniswap-swap-{i}": "miscalibrated" for i in range(1, 6)},
                        **{f"rx-curve-swap-{i}": "miscalibrated" if i % 2 else "wrong" for i in range(1, 6)}}

    r = api.client.get("/entries", headers=h, params={"category": "Insight", "agent_id": AGENT})
    assert r.status_code == 200, r.text
    insights = [e for e in r.json() if "reflexion" in e.get("tags", [])]
    # One candidate, not three: the newest comparison's (tick 5: misses of 100, 110, 120, mean 110).
    assert [e["id"] for e in insights] == ["reflexion-rx-uniswap-swap-5"]
    r = api.client.get("/entries/reflexion-rx-uniswap-swap-5", headers=h)
    assert r.status_code == 200, r.text
    insight = r.json()
    assert insight["content"] == ("Predictions of return_bps for uniswap-swap on WETH/USDC in bull regimes "
                                  "underestimate the actual value by 110 on average over the last 3 misses; "
                                  "correct for it.")
    assert insight["status"] == "candidate"
    assert insight["confidence"] == 0.5
    assert insight["market_regime"] == "bull"
    assert sorted(insight["parent_episode_ids"]) == ["rx-uniswap-swap-3", "rx-uniswap-swap-4", "rx-uniswap-swap-5"]
    decision = api.client.get(f"/admission/decisions/{insight['admission_id']}", headers=h)
    assert decision.status_code == 200, decision.text
    assert decision.json()["outcome"] == "admitted"


def test_the_verdict_is_read_by_who_may_see_the_episode(api: Api, db) -> None:
    """GET /episodes/{id}/reflection answers Reflexion's verdict, deviation and queued deltas; another agent (and
    another clade) gets a 404 for a private episode as for an unknown one, as does an episode without a verdict."""
    h = api.headers(AGENT, CLADE)
    informed = {"id": "rx-read-h", "agent_id": AGENT, "category": "Heuristic", "scope": "private",
                "content": "When swapping WETH/USDC on uniswap in a bull regime, expect about 10 bps of return."}
    r = api.client.post("/entries", headers=h, json=informed)
    assert r.status_code in (200, 201), r.text
    miss = _episode(7, "sushi-swap", 10.0, -70.0) | {"id": "rx-read"}
    miss["prediction"] = {**miss["prediction"], "informed_by": ["rx-read-h"]}
    plain = {"id": "rx-plain", "type": "observation", "text": "no prediction here"}
    shared = _episode(8, "sushi-swap", 10.0, -90.0) | {"id": "rx-shared", "scope": "shared"}
    shared["prediction"] = {**shared["prediction"], "informed_by": ["rx-read-h"]}
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": [miss, plain, shared]})
    assert r.status_code == 201, r.text
    r = api.client.get("/episodes/rx-read/reflection", headers=h)
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["episode_id"] == "rx-read" and got["verdict"] == "wrong" and got["direction_correct"] is False
    assert got["expected"] == 10.0 and got["actual"] == -70.0 and got["metric"] == "return_bps"
    assert {d["entry_id"] for d in got["deltas"]} == {"rx-read-h"}
    assert any(d["op"] == "adjust" and d["verdict"] == "wrong" for d in got["deltas"]), got["deltas"]
    assert api.client.get("/episodes/rx-plain/reflection", headers=h).status_code == 404
    for other in (api.headers("golem-other", CLADE), api.headers("golem-far", "clade-far")):
        r = api.client.get("/episodes/rx-read/reflection", headers=other)
        assert r.status_code == 404, r.text
    assert api.client.get("/episodes/rx-read/reflection", headers=api.admin).status_code == 200
    # a clade mate sees the shared episode's verdict, but not what it did to the owner's private entry
    mate = api.client.get("/episodes/rx-shared/reflection", headers=api.headers("golem-other", CLADE))
    assert mate.status_code == 200 and mate.json()["verdict"] == "wrong" and mate.json()["deltas"] == [], mate.text
    own = api.client.get("/episodes/rx-shared/reflection", headers=h).json()
    assert {d["entry_id"] for d in own["deltas"]} == {"rx-read-h"}
    db.run("testing/set_crystal_props", rows=[{"id": "rx-read", "props": {"archived_at": 1}}])  # forgotten
    assert api.client.get("/episodes/rx-read/reflection", headers=h).status_code == 404
    kept = api.client.get("/episodes/rx-read/reflection", headers=h, params={"include_archived": True})
    assert kept.status_code == 200, kept.text
