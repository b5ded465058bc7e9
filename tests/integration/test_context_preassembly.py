"""Pre-assembly (issue 18, point 4; graph/context/preassembly.py): the agent's kept workspace answers the common
case — the same situation asked again — and is never served stale: a new episode, a PAD shift over 0.1, a regime
change, a policy revision or its age make the next request build anew, and the scheduler's job rebuilds a stale
one ahead of the next request."""

from __future__ import annotations

import time
from typing import Any

from grimoire.graph.context.preassembly import MARGIN_MS
from tests.conftest import Api
from tests.integration.test_context_assembly import SUPPLIED, seed

AGENT, CLADE = "assembler", "clade-ctx"
QUERY = "swap ETH for USDC on Uniswap"


def settle() -> None:
    """Past the margin a kept workspace allows a write that committed after it was built (preassembly.py)."""
    time.sleep(MARGIN_MS / 1000 + 0.1)


def assemble(api: Api, **body: Any) -> dict[str, Any]:
    r = api.client.post(f"/agents/{AGENT}/context/assemble", headers=api.headers(AGENT, CLADE),
                        json={"task": "swap", "regime": "bull", "query": QUERY, "supplied": SUPPLIED, **body})
    assert r.status_code == 200, r.text
    return r.json()


def test_the_kept_workspace_answers_until_something_it_was_built_from_changes(api: Api) -> None:
    seed(api)
    settle()
    h = api.headers(AGENT, CLADE)
    first = assemble(api, pad={"pleasure": 0.1})
    assert first["source"] == "cold"
    again = assemble(api, pad={"pleasure": 0.15}, tick=2)           # a shift of 0.05, the same affect states
    assert again["source"] == "preassembled" and again["assembly_id"] == first["assembly_id"]
    assert again["text"] == first["text"] and again["delta"]["changed_categories"] == []
    assert again["timings_ms"]["total"] < first["timings_ms"]["total"]
    assert assemble(api, pad={"pleasure": 0.3})["source"] == "cold"  # moved by 0.2
    assert assemble(api, pad={"pleasure": 0.3}, preassembled=False)["source"] == "cold"  # asked not to
    assert assemble(api, pad={"pleasure": 0.3})["source"] == "preassembled"
    assert assemble(api, pad={"pleasure": 0.3}, regime="crisis")["source"] == "cold"
    assert assemble(api, pad={"pleasure": 0.3}, regime="crisis")["source"] == "preassembled"

    # a new episode the agent may see: never served stale, and the new workspace has it
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": [{
        "id": "fresh-swap", "type": "action", "tick": 999,
        "text": "Swap ETH for USDC on Uniswap: swapped 40 ETH just now; slippage 55 bps.",
        "valid_from": "2026-11-25T00:00:00Z"}]})
    assert r.status_code == 201, r.text
    settle()
    fresh = assemble(api, pad={"pleasure": 0.3}, regime="crisis")
    assert fresh["source"] == "cold" and "fresh-swap" in [e["id"] for e in fresh["categories"]["episodes"]]
    assert fresh["delta"]["added"]["episodes"][0]["id"] == "fresh-swap"
    # another agent's private episode changes nothing this agent sees: still served from the kept one
    o = api.headers("stranger", "clade-other")
    assert api.client.post("/episodes/batch", headers=o, json={"episodes": [{
        "type": "action", "text": "Swapped ETH for USDC on Uniswap."}]}).status_code == 201
    assert assemble(api, pad={"pleasure": 0.3}, regime="crisis")["source"] == "preassembled"
    # a policy revision: a change in the agent's audit trail
    assert api.client.put(f"/agents/{AGENT}/context/policy", headers=h, json={
        "allocations": {"contrarian": 0.05}, "reason": "more dissent"}).status_code == 200
    revised = assemble(api, pad={"pleasure": 0.3}, regime="crisis")
    assert revised["source"] == "cold" and revised["policy_revision"] == 1


def test_the_scheduler_rebuilds_a_stale_workspace_before_it_is_asked_for(api: Api) -> None:
    seed(api)
    settle()
    services = api.client.app.state.services
    first = assemble(api)
    assert services.context.refresh() == 0                          # nothing changed: nothing rebuilt
    r = api.client.post("/entries", headers=api.headers(AGENT, CLADE), json={
        "id": "fresh-heuristic", "category": "Heuristic",
        "content": "Route ETH to USDC swaps through the Uniswap v3 0.05% pool when it is deepest."})
    assert r.status_code in (200, 201), r.text
    settle()
    assert services.context.refresh() == 1                          # rebuilt ahead of the next request
    served = assemble(api)
    assert served["source"] == "preassembled" and served["assembly_id"] != first["assembly_id"]
    assert "fresh-heuristic" in [e["id"] for e in served["categories"]["playbook"]]
    assert served["delta"]["added"]["playbook"][0]["id"] == "fresh-heuristic"
    # the agent says its state changed: the workspace is built ahead and the next request finds it
    body = {"task": "swap", "regime": "bear", "query": QUERY, "supplied": SUPPLIED}
    ahead = api.client.post(f"/agents/{AGENT}/context/preassemble", headers=api.headers(AGENT, CLADE), json=body)
    assert ahead.status_code == 200, ahead.text
    then = assemble(api, regime="bear")
    assert then["source"] == "preassembled" and then["assembly_id"] == ahead.json()["assembly_id"]
    jobs = {j["name"] for j in api.client.get("/scheduler/jobs", headers=api.admin).json()["jobs"]}
    assert {"context.preassembly", "context.loops"} <= jobs


def test_a_change_by_anyone_to_an_item_it_holds_or_a_mood_crossing_zero_makes_it_stale(api: Api) -> None:
    seed(api)
    o = api.headers("stranger", "clade-other")
    r = api.client.post("/entries", headers=o, json={
        "id": "public-tip", "category": "Heuristic", "scope": "public",
        "content": "Swap ETH for USDC on Uniswap in the quiet hours, when the pool is deepest."})
    assert r.status_code in (200, 201), r.text
    settle()
    first = assemble(api)
    assert first["source"] == "cold" and "public-tip" in [e["id"] for e in first["categories"]["playbook"]]
    assert assemble(api)["source"] == "preassembled"
    # its owner, in another clade, edits it: the kept workspace holds the old text, so it is not served
    r = api.client.post("/entries/public-tip/edit", headers=o, json={
        "content": "Swap ETH for USDC on Uniswap in the quiet hours (02:00-05:00 UTC), when the pool is deepest.",
        "reason": "hours measured"})
    assert r.status_code == 200, r.text
    edited = assemble(api)
    assert edited["source"] == "cold"
    assert "02:00-05:00 UTC" in next(e["text"] for e in edited["categories"]["playbook"] if e["id"] == "public-tip")
    # the mood crosses zero by less than 0.1: which entries are contrarian changes, so it is built anew
    settle()
    assert assemble(api, pad={"pleasure": 0.05})["source"] == "cold"
    assert assemble(api, pad={"pleasure": 0.06})["source"] == "preassembled"
    assert assemble(api, pad={"pleasure": -0.03})["source"] == "cold"
