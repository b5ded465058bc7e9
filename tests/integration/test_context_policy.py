"""An agent's ContextPolicy in the graph (issue 18, point 1; graph/context/policy.py): revision 0 is the spec's
defaults; each change is a new revision whose audit record names the revision before and after, the previous
revision closed, never overwritten; the delta between two revisions; the allocations a situation resolves to
over REST; a revision rolled back; the policy is the agent's own."""

from __future__ import annotations

import pytest

from grimoire.graph.context import policy as cp
from grimoire.graph.errors import Conflict
from tests.conftest import Api

AGENT, CLADE = "governed", "clade-gov"


def test_a_policy_changes_by_revisions_with_a_history_and_a_delta(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    person = api.headers(AGENT, CLADE, scopes=("read", "person"))
    base = f"/agents/{AGENT}/context/policy"
    default = api.client.get(base, headers=h).json()
    assert default["revision"] == 0 and default["allocations"]["invariants"] == 0.15
    assert default["regime_overrides"]["crisis"] == {"mortality": 0.06, "contrarian": 0.01, "dream_hypotheses": 0.01}
    assert api.client.get(f"{base}/revisions", headers=h).json() == []

    r = api.client.put(base, headers=h, json={"allocations": {"contrarian": 0.06}, "reason": "more dissent"})
    assert r.status_code == 200, r.text
    assert r.json()["revision"] == 1 and r.json()["allocations"]["contrarian"] == 0.06
    r = api.client.put(base, headers=person, json={"task_overrides": {"swap": {"tool_state": 0.08}},
                                                   "retrieval": {"full_episode_slots": 4}, "reason": "swaps"})
    assert r.status_code == 200 and r.json()["revision"] == 2
    now = api.client.get(base, headers=h).json()
    assert now["revision"] == 2 and now["allocations"]["contrarian"] == 0.06  # kept from revision 1
    assert now["task_overrides"] == {"swap": {"tool_state": 0.08}} and now["retrieval"]["full_episode_slots"] == 4

    history = api.client.get(f"{base}/revisions", headers=h).json()
    assert [x["revision"] for x in history] == [2, 1]
    assert history[1]["valid_until"] == history[0]["valid_from"] and history[0]["valid_until"] is None
    assert history[1]["reason"] == "more dissent" and history[1]["policy"]["allocations"]["contrarian"] == 0.06

    delta = api.client.get(f"{base}/delta", headers=h, params={"from": 0, "to": 1}).json()
    assert delta["allocations"] == {"contrarian": pytest.approx(0.02)} and delta["changed"] == ["allocations"]
    assert api.client.get(f"{base}/delta", headers=h, params={"from": 1}).json()["changed"] == [
        "retrieval", "task_overrides"]
    assert api.client.get(f"{base}/delta", headers=h, params={"from": 9}).status_code == 404

    # each revision is audited with the revision before and after it
    records = api.client.get(f"/agents/{AGENT}/audit", headers=h,
                             params={"item": f"{AGENT}:context-policy"}).json()
    assert [(x["before_versions"], x["after_versions"]) for x in records] == [
        ([f"{AGENT}:context-policy:r1"], [f"{AGENT}:context-policy:r2"]), ([""], [f"{AGENT}:context-policy:r1"])]

    # the swap task's override, then a crisis regime, then a stressed agent
    out = api.client.post(f"{base}/resolve", headers=h, json={
        "task": "swap", "regime": "crisis", "pad": {"pleasure": -0.5, "arousal": 0.6}}).json()
    assert [x["layer"] for x in out["layers"]] == ["task:swap", "regime:crisis"] and out["affect"] == ["stressed"]
    assert sum(out["allocations"].values()) == pytest.approx(1.0)
    assert out["allocations"]["contrarian"] > out["composed"]["contrarian"]

    # the last revision rolled back: revision 1's policy is current again; the history keeps both
    r = api.client.post(f"/agents/{AGENT}/rollback", headers=person, json={"record": records[0]["id"]})
    assert r.status_code == 200, r.text
    back = api.client.get(base, headers=h).json()
    assert back["revision"] == 1 and back["task_overrides"] == {}
    two, one = api.client.get(f"{base}/revisions", headers=h).json()
    assert (two["revision"], one["revision"]) == (2, 1)
    assert two["valid_until"] == two["valid_from"] and one["valid_until"] is None  # 2 never held; 1 holds again
    # and the next change is revision 3, made from revision 1: numbers only move on
    r = api.client.put(base, headers=h, json={"model_preference": "paranoid", "reason": "after the rollback"})
    assert r.json()["revision"] == 3 and r.json()["model_preference"] == "paranoid"
    latest = api.client.get(f"/agents/{AGENT}/audit", headers=h, params={"item": f"{AGENT}:context-policy",
                                                                         "verb": "EDIT"}).json()[0]
    assert (latest["before_versions"], latest["after_versions"]) == (
        [f"{AGENT}:context-policy:r1"], [f"{AGENT}:context-policy:r3"])
    assert [x["valid_until"] is None for x in api.client.get(f"{base}/revisions", headers=h).json()] == [
        True, False, False]
    # a change made from a revision that is no longer current is refused, not lost
    with pytest.raises(Conflict, match="at revision 3 now, not 1"):
        cp.revise(api.db, AGENT, cp.Policy(), actor="test", reason="stale", base=1)


def test_bad_changes_are_4xx_and_the_policy_is_the_agents_own(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    reader = api.headers(AGENT, CLADE, scopes=("read",))
    other = api.headers("ungoverned", "clade-x")
    base = f"/agents/{AGENT}/context/policy"
    for bad in ({"allocations": {"gossip": 0.1}, "reason": "x"}, {"allocations": {"playbook": 1.5}, "reason": "x"},
                {"allocations": {"playbook": 0.1}}, {"regime_overrides": {"volatile": {}}, "reason": "x"},
                {"reason": "x", "extra": 1}):
        assert api.client.put(base, headers=h, json=bad).status_code == 422, bad
    assert api.client.post(f"{base}/resolve", headers=h, json={"pad": {"pleasure": 2}}).status_code == 422
    assert api.client.put(base, headers=reader, json={"reason": "x"}).status_code == 403
    for path in ("", "/revisions", "/delta?from=0"):
        assert api.client.get(base + path, headers=other).status_code == 403, path
    assert api.client.post(f"{base}/resolve", headers=other, json={}).status_code == 403
    assert api.client.put(base, headers=other, json={"reason": "x"}).status_code == 403
    assert api.client.get("/agents/nobody/context/policy", headers=api.admin).status_code == 404
    assert api.client.get(f"{base}/revisions", headers=api.admin).json() == []
