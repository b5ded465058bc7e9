"""A decision's reasoning (context-governor.md "Reasoning Chain Preservation for Dream Replay";
graph/context/reasoning.py): the provider's thinking blocks normalised into a ReasoningChain, kept on the decision's
record, read back with the agent's decisions and listed for dream replay beside its outcome — the agent's own — and
redacted with every other copy of an erased text."""

from __future__ import annotations

import uuid
from typing import Any

from tests.conftest import Api

AGENT, CLADE = "reasoner", "clade-r"


def ok(r: Any) -> Any:
    assert r.status_code in (200, 201), r.text
    return r.json()


def test_a_decisions_reasoning_is_kept_for_replay_and_erased_with_its_text(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    marker = "0xfeed" + uuid.uuid4().hex
    said = ok(api.client.post(f"/agents/{AGENT}/messages", headers=h,
                              json={"text": f"Remember that my wallet is {marker}", "session_id": "s-1"}))
    base = f"/agents/{AGENT}/context"
    ws = ok(api.client.post(f"{base}/assemble", headers=h, json={"query": "what is my wallet", "preassembled": False}))
    blocks = [{"type": "thinking", "thinking": f"The wallet is {marker}. Gas is high.\n\nI will wait for gas to fall.",
               "signature": "sig-1"},
              {"type": "redacted_thinking", "data": "opaque-bytes"},
              {"type": "text", "text": "Waiting."}]
    recorded = ok(api.client.post(f"{base}/feedback", headers=h, json={
        "assembly_id": ws["assembly_id"], "quality": 0.3, "prediction": {"value": 10, "baseline": 5, "confidence": 0.9},
        "actual": 2, "reasoning": {"provider": "anthropic", "model": "claude-x", "blocks": blocks}}))
    chain = recorded["reasoning"]
    assert chain["provider"] == "anthropic" and chain["visibility"] == "summarized" and chain["model"] == "claude-x"
    assert [p["type"] for p in chain["phases"]] == ["analysis", "decision"]
    assert chain["reasoning_tokens"] > 0 and len(chain["hash"]) == 64
    assert [b["type"] for b in chain["raw_blocks"]] == ["thinking", "redacted_thinking"]
    # read back with the decision, and listed for dream replay beside its quality and prediction error
    decisions = ok(api.client.get(f"{base}/decisions", headers=h))
    assert decisions[0]["reasoning"]["hash"] == chain["hash"]
    replay = ok(api.client.get(f"{base}/reasoning", headers=h))
    assert [(r["decision_id"], r["outcome_quality"], r["prediction_error"]) for r in replay] == [
        (recorded["decision_id"], 0.3, 8.0)]
    assert marker in replay[0]["reasoning"]["content"]
    # a plain-text provider's <think> tags; a decision without reasoning is not listed
    ws2 = ok(api.client.post(f"{base}/assemble", headers=h, json={"query": "gas", "preassembled": False}))
    ok(api.client.post(f"{base}/feedback", headers=h, json={
        "assembly_id": ws2["assembly_id"], "quality": 0.9,
        "reasoning": {"provider": "text", "text": "<think>Maybe gas falls.</think>Swap now.",
                      "reasoning_tokens": 7}}))
    ws3 = ok(api.client.post(f"{base}/assemble", headers=h, json={"query": "pools", "preassembled": False}))
    ok(api.client.post(f"{base}/feedback", headers=h, json={"assembly_id": ws3["assembly_id"], "quality": 0.5}))
    replay = ok(api.client.get(f"{base}/reasoning", headers=h))
    assert len(replay) == 2 and replay[0]["reasoning"]["content"] == "Maybe gas falls."
    newest = replay[0]["reasoning"]
    assert newest["phases"][0]["type"] == "uncertainty" and newest["reasoning_tokens"] == 7
    worst = ok(api.client.get(f"{base}/reasoning", headers=h, params={"worst_first": True}))
    assert worst[0]["decision_id"] == recorded["decision_id"]
    # the agent's own; bad input is a 422
    other = api.headers("someone-else", "clade-o")
    assert api.client.get(f"{base}/reasoning", headers=other).status_code == 403
    bad = api.client.post(f"{base}/feedback", headers=h, json={
        "assembly_id": ws3["assembly_id"], "reasoning": {"provider": "text", "blocks": [{"type": "thinking"}]}})
    assert bad.status_code == 422
    # erased: the reasoning's copy of the text goes with every other
    ok(api.client.post(f"/agents/{AGENT}/forget", headers=h, json={"target": "wallet"}))
    receipt = ok(api.client.post(f"/agents/{AGENT}/forget", headers=h, json={"target": "wallet", "permanent": True}))
    assert said["memory_id"] in receipt["deleted"]
    assert any(r["label"] == "ContextDecision" and r["id"] == recorded["decision_id"] for r in receipt["redacted"])
    for path in (f"{base}/reasoning", f"{base}/decisions"):
        text = api.client.get(path, headers=h).text
        assert marker not in text and "[erased " in text, path
