"""A task's retrieval strategy in the agent's policy (context-governor.md S3.1 ContextStrategyMap;
graph/context/strategy.py): the swap task's map changes which collections its workspace draws and caps them; any
other task draws as before; a bad map is a 422."""

from __future__ import annotations

from typing import Any

from tests.conftest import Api

AGENT, CLADE = "strategist", "clade-s"
HEURISTICS = ["When ETH gas spikes above 80 gwei, delay swaps on Uniswap until it falls back.",
              "Split large ETH swaps into tranches to keep slippage under 30 bps.",
              "Check the Uniswap pool's depth before swapping more than 50 ETH."]
WARNINGS = ["Never swap ETH on a pool whose oracle price deviates more than 2% from the market."]


def test_a_tasks_strategy_chooses_the_collections_and_caps_them(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    for i, text in enumerate(HEURISTICS):
        assert api.client.post("/entries", headers=h, json={"id": f"s-h{i}", "category": "Heuristic",
                                                            "content": text}).status_code in (200, 201)
    for i, text in enumerate(WARNINGS):   # an active warning: among the invariants
        assert api.client.post("/entries", headers=h, json={"id": f"s-w{i}", "category": "Warning",
                                                            "content": text}).status_code in (200, 201)

    def workspace(task: str) -> dict[str, Any]:
        r = api.client.post(f"/agents/{AGENT}/context/assemble", headers=h, json={
            "task": task, "query": "swap ETH for USDC on Uniswap", "preassembled": False})
        assert r.status_code == 200, r.text
        return dict(r.json())

    before = workspace("swap")
    assert len(before["categories"]["playbook"]) == 3 and "invariants" in before["categories"]
    r = api.client.put(f"/agents/{AGENT}/context/policy", headers=h, json={
        "task_strategies": {"swap": {"collections": ["playbook", "episodes"], "max_entries": {"playbook": 1},
                                     "traverse_causal_graph": False, "ranking_weights": {"epistemic": 0}}},
        "reason": "swaps need the playbook only"})
    assert r.status_code == 200, r.text
    assert r.json()["task_strategies"]["swap"]["max_entries"] == {"playbook": 1}
    after = workspace("swap")
    cats = after["categories"]
    assert [e["id"] for e in cats["playbook"]] == [before["categories"]["playbook"][0]["id"]]   # the best one
    assert "invariants" not in cats
    reasons = {x["category"]: x["reason"] for x in after["reasons"]}
    assert "not drawn by the task's strategy" in reasons["invariants"]
    other = workspace("risk_check")        # no strategy: everything, as before
    assert len(other["categories"]["playbook"]) == 3 and "invariants" in other["categories"]
    for bad in ({"swap": {"collections": ["mortality"]}}, {"swap": {"ranking_weights": {"luck": 1}}},
                {"gossip": {}}):
        r = api.client.put(f"/agents/{AGENT}/context/policy", headers=h, json={"task_strategies": bad, "reason": "x"})
        assert r.status_code == 422, (bad, r.text)
