"""Assembly (issue 18, point 2; graph/context/governor.py): a workspace from the Grimoire's categories and the
caller's, within its budget as the model's tokenizer counts the rendered text, with reasons per category, the
spec's tagged blocks, observation masking, compaction under pressure, the delta from the agent's previous
workspace, and only what the agent may see."""

from __future__ import annotations

from typing import Any

from tests.conftest import Api

AGENT, CLADE = "assembler", "clade-ctx"
OTHER = "stranger"

HEURISTICS = ["When ETH gas spikes above 80 gwei, delay swaps on Uniswap until it falls back.",
              "Split large ETH swaps into tranches to keep slippage under 30 bps.",
              "Check the Uniswap pool's depth before swapping more than 50 ETH."]
INSIGHTS = ["ETH swap slippage on Uniswap grows sharply when pool liquidity thins during volatile hours.",
            "Uniswap ETH/USDC fees rise with volatility and pay liquidity providers more in those hours."]
WARNINGS = ["Never swap ETH on a pool whose oracle price deviates more than 2% from the market."]


def seed(api: Api) -> dict[str, str]:
    h = api.headers(AGENT, CLADE)
    ids = {}
    for i, text in enumerate(HEURISTICS):
        ids[f"h{i}"] = f"{AGENT}-heuristic-{i}"
        r = api.client.post("/entries", headers=h, json={"id": ids[f"h{i}"], "category": "Heuristic", "content": text})
        assert r.status_code in (200, 201), r.text
    for i, text in enumerate(INSIGHTS):
        ids[f"i{i}"] = f"{AGENT}-insight-{i}"
        r = api.client.post("/entries", headers=h, json={"id": ids[f"i{i}"], "category": "Insight", "content": text,
                                                         "confidence": 0.8})
        assert r.status_code in (200, 201), r.text
    for i, text in enumerate(WARNINGS):
        r = api.client.post("/entries", headers=h, json={"id": f"{AGENT}-warning-{i}", "category": "Warning",
                                                         "content": text})
        assert r.status_code in (200, 201), r.text
    episodes = [{"id": f"{AGENT}-ep-{i}", "type": "action", "tick": 100 + i, "outcome": "positive" if i % 2 else
                 "negative", "text": f"Swapped {i + 1} ETH for USDC on Uniswap at tick {100 + i}; slippage "
                 f"{10 + i} bps.", "valid_from": f"2026-11-{10 + i:02d}T00:00:00Z"} for i in range(12)]
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": episodes})
    assert r.status_code == 201, r.text
    # another agent's private entry, very similar to the query: never in this agent's workspace
    o = api.headers(OTHER, "clade-other")
    assert api.client.post("/entries", headers=o, json={"id": "stranger-secret", "category": "Heuristic",
                                                        "content": "Swap ETH on Uniswap only before 9am."}
                           ).status_code in (200, 201)
    return ids


def assemble(api: Api, **body: Any) -> dict[str, Any]:
    r = api.client.post(f"/agents/{AGENT}/context/assemble", headers=api.headers(AGENT, CLADE), json=body)
    assert r.status_code == 200, r.text
    return r.json()


SUPPLIED = {"invariants": [{"text": "Max 3 open positions; max drawdown 500 bps.", "id": "cage"}],
            "defi_snapshot": [{"text": "ETH 3,120 USDC; Uniswap ETH/USDC depth 41M; gas 22 gwei."}],
            "mortality": [{"text": "Vitality 0.64; runway 41 days."}]}


def test_a_workspace_from_the_grimoire_and_the_caller(api: Api) -> None:
    ids = seed(api)
    out = assemble(api, task="swap", phase="stable", regime="bull", query="swap ETH for USDC on Uniswap",
                   supplied=SUPPLIED, tick=4200, preassembled=False)
    cats = out["categories"]
    assert out["source"] == "cold" and out["total_tokens"] <= out["budget"] == 8000
    assert {e["id"] for e in cats["playbook"]} == {ids["h0"], ids["h1"], ids["h2"]}
    assert "insights" not in cats   # admitted at low confidence (0.3): under the policy's minimum, 0.4
    assert [e["id"] for e in cats["invariants"]][0] == "cage"                       # the caller's first
    assert any(e["id"] == f"{AGENT}-warning-0" for e in cats["invariants"])         # an active warning
    assert "stranger-secret" not in str(out)
    # observation masking: the 3 newest episodes in full, the next 7 as one line (10 retrieved at most)
    episodes = cats["episodes"]
    assert [e["disclosure"] for e in episodes] == ["full"] * 3 + ["summary"] * 7
    assert [e["id"] for e in episodes[:3]] == [f"{AGENT}-ep-{i}" for i in (11, 10, 9)]
    text = out["text"]
    assert text.startswith("<mental_models>") and "<recent_episodes>" in text
    assert text.split("</mental_models>\n", 1)[1].startswith('<invariants phase="stable">')
    assert "<older_episodes>" in text and '<heuristic ref="h' in text
    assert text.index("<invariants") < text.index("<playbook>") < text.index("<mortality>")
    # the reasons: every category, with what it was given, used, included and excluded
    reasons = {r["category"]: r for r in out["reasons"]}
    assert len(reasons) == 13 and reasons["dream_hypotheses"]["items_included"] == 0
    assert "nothing relevant found" in reasons["dream_hypotheses"]["reason"]
    assert reasons["strategy"]["reason"].endswith("nothing supplied")
    assert all(r["tokens_used"] <= r["tokens_allocated"] for r in reasons.values())
    assert sum(r["tokens_used"] for r in reasons.values()) + out["mental_models"]["tokens"] == out["total_tokens"]
    assert out["delta"]["changed_categories"]
    assert out["delta"]["token_delta"] == out["total_tokens"] - out["mental_models"]["tokens"]   # a fixed block

    # the same situation again, built anew: nothing changed, so the delta is empty
    again = assemble(api, task="swap", phase="stable", regime="bull", query="swap ETH for USDC on Uniswap",
                     supplied=SUPPLIED, tick=4201, preassembled=False)
    assert again["delta"] == {"changed_categories": [], "added": {}, "removed": {}, "token_delta": 0}
    # the policy's minimum insight confidence lowered: a new revision, and the insights come in
    r = api.client.put(f"/agents/{AGENT}/context/policy", headers=api.headers(AGENT, CLADE),
                       json={"retrieval": {"min_insight_confidence": 0.25}, "reason": "test"})
    assert r.status_code == 200, r.text
    out = assemble(api, task="swap", phase="stable", regime="bull", query="swap ETH for USDC on Uniswap",
                   supplied=SUPPLIED, tick=4202)
    assert out["policy_revision"] == 1 and out["source"] == "cold"
    assert {e["id"] for e in out["categories"]["insights"]} == {ids["i0"], ids["i1"]}
    assert out["delta"]["changed_categories"] == ["insights"] and out["delta"]["token_delta"] > 0
    # a smaller budget: a tight workspace whose text still fits, and a delta that says what left
    small = assemble(api, task="swap", query="swap ETH for USDC on Uniswap", supplied=SUPPLIED, budget=400,
                     preassembled=False)
    assert small["total_tokens"] <= 400 and small["delta"]["token_delta"] < 0 and small["delta"]["removed"]
    counted = api.client.app.state.services.embedder.count_tokens([small["text"]])[0]
    assert counted == small["total_tokens"] <= 400


HARD = ("invariants", "defi_snapshot", "mortality", "owner_control")
OWNER = {"owner_control": [{"text": "Owner: no new position above 5 ETH until the audit is in.", "id": "owner"}]}


def test_compaction_under_pressure_keeps_hard_context_whole(api: Api) -> None:
    seed(api)
    supplied = {**SUPPLIED, **OWNER}
    # pressure 0.85: soft categories keep three quarters of their budget, room for the compact masking's slots
    calm = assemble(api, query="swap ETH for USDC on Uniswap", supplied=supplied, budget=8000,
                    context_tokens=10_000, max_context_tokens=100_000, preassembled=False)
    tight = assemble(api, query="swap ETH for USDC on Uniswap", supplied=supplied, budget=8000,
                     context_tokens=85_000, max_context_tokens=100_000, preassembled=False)
    assert calm["route"] == "hybrid" and calm["compaction"] is None   # the task's complexity not given: not low
    assert tight["route"] == "rag" and tight["compaction"]["compacted_tokens"] < tight["compaction"][
        "original_tokens"]
    assert "episodes" in tight["compaction"]["categories_compressed"]
    # masking with the compact slots: the 2 newest in full, the next 5 as one line (calm: 3 and 7)
    episodes, before = tight["categories"]["episodes"], calm["categories"]["episodes"]
    assert [e["disclosure"] for e in episodes] == ["full"] * 2 + ["summary"] * 5, episodes
    assert [e["disclosure"] for e in before] == ["full"] * 3 + ["summary"] * 7
    assert [e["id"] for e in episodes] == [e["id"] for e in before][:7]      # the same retrieved, newest first
    numbers = [int(e["id"].rsplit("-", 1)[1]) for e in episodes]
    assert numbers == sorted(numbers, reverse=True)
    # every hard category: there, and exactly as without pressure (same items, same text, same disclosure)
    for hard in HARD:
        assert tight["categories"][hard], hard
        assert tight["categories"][hard] == calm["categories"][hard], hard
        assert hard not in tight["compaction"]["categories_compressed"], hard
    events = api.client.get("/events", headers=api.headers(AGENT, CLADE),
                            params={"type": ["context:compacted", "context:assembled"]}).json()
    kinds = [e["type"] for e in events]
    assert kinds.count("context:compacted") == 1 and kinds.count("context:assembled") == 2


def test_the_turn_phase_and_the_tasks_complexity_route_and_shape_the_workspace(api: Api) -> None:
    """context-governor.md route_context_injection and S5.2: full injection only for a task of low complexity at
    low pressure; the pipeline step's multipliers last, so Execute gives the contrarian and affect categories
    nothing, and the record keeps the turn phase."""
    seed(api)
    body = {"query": "swap ETH for USDC on Uniswap", "supplied": SUPPLIED, "context_tokens": 10_000,
            "max_context_tokens": 100_000, "preassembled": False, "pad": {"pleasure": -0.5}}
    low = assemble(api, task_complexity="low", **body)
    high = assemble(api, task_complexity="high", **body)
    assert low["route"] == "full" and high["route"] == "hybrid"
    assert low["situation"]["complexity"] == "low"
    plain = assemble(api, **body)
    execute = assemble(api, turn_phase="execute", **body)
    decide = assemble(api, turn_phase="decide", **body)
    assert execute["layers"][-1]["layer"] == "turn:execute" and execute["situation"]["turn_phase"] == "execute"
    assert execute["allocations"]["contrarian"] == execute["allocations"]["affect"] == 0.0
    assert plain["allocations"]["contrarian"] > 0 and "contrarian" not in execute["categories"]
    assert execute["allocations"]["tool_state"] > plain["allocations"]["tool_state"]
    assert decide["allocations"]["episodes"] > plain["allocations"]["episodes"]
    assert api.db.rows("testing/context_assembly", id=execute["assembly_id"]) == [
        {"turn_phase": "execute", "route": "hybrid"}]
    bad = api.client.post(f"/agents/{AGENT}/context/assemble", headers=api.headers(AGENT, CLADE),
                          json={"turn_phase": "dance", "task_complexity": "extreme"})
    assert bad.status_code == 422 and "turn_phase" in bad.text and "task_complexity" in bad.text


def test_a_tight_budget_gives_what_is_left_to_what_was_cut_before_dropping_it(api: Api) -> None:
    # Before: at 300 tokens, 111 were used and the episodes, mortality and the owner's controls were dropped ("its
    # summary would exceed the category's budget") with 189 unused. Now what the categories leave unused goes to
    # those the budget cut, by priority (hard context first), before anything is dropped.
    seed(api)
    out = assemble(api, task="swap", query="swap ETH for USDC on Uniswap", supplied={**SUPPLIED, **OWNER},
                   budget=300, preassembled=False)
    cats, reasons = out["categories"], {r["category"]: r for r in out["reasons"]}
    assert out["total_tokens"] <= 300
    for name in (*HARD, "playbook", "episodes"):   # every category with candidates has something in
        assert cats.get(name), (name, reasons[name]["reason"])
    for name in ("defi_snapshot", "mortality", "owner_control"):  # the hard categories cut before: whole now
        assert reasons[name]["items_excluded"] == 0, reasons[name]
    given = [name for name, r in reasons.items() if "the other categories left unused" in r["reason"]]
    assert {"mortality", "owner_control", "episodes"} <= set(given), given
    assert all(r["tokens_used"] <= r["tokens_allocated"] for r in reasons.values())
    assert sum(r["tokens_used"] for r in reasons.values()) + out["mental_models"]["tokens"] == out["total_tokens"]
    # and little is left over (before: 189 of the 300)
    left = 300 - out["total_tokens"]
    assert left < 0.25 * 300, (left, {n: r["reason"] for n, r in reasons.items() if r["items_excluded"]})


def test_the_workspace_and_the_loops_are_the_agents_own(api: Api) -> None:
    """Isolation and bad input: another agent reads and writes none of this agent's workspaces, decisions,
    beliefs or mutations; bad requests are 422, an unknown agent 404."""
    seed(api)
    h, other = api.headers(AGENT, CLADE), api.headers(OTHER, "clade-other")
    base = f"/agents/{AGENT}/context"
    ws = assemble(api, query="swap ETH for USDC on Uniswap", regime="bull")
    assert api.client.post(f"{base}/feedback", headers=h, json={"assembly_id": ws["assembly_id"],
                                                                "quality": 0.8}).status_code == 200
    for path in ("assemble", "preassemble"):
        assert api.client.post(f"{base}/{path}", headers=other, json={"query": "swap"}).status_code == 403
    for path in ("decisions", "beliefs", "mutations"):
        assert api.client.get(f"{base}/{path}", headers=other).status_code == 403, path
        assert api.client.get(f"{base}/{path}", headers=h).status_code == 200, path
    for path, body in (("feedback", {"assembly_id": ws["assembly_id"], "quality": 0.1}), ("recalibrate", None),
                       ("mutations/stage", None)):
        assert api.client.post(f"{base}/{path}", headers=other, json=body).status_code == 403, path
    # its own feedback route does not reach this agent's workspace either
    mine = api.client.post(f"/agents/{OTHER}/context/feedback", headers=other,
                           json={"assembly_id": ws["assembly_id"], "quality": 0.1})
    assert mine.status_code == 404
    # the events are the agent's own
    seen = api.client.get("/events", headers=other, params={"type": ["context:assembled"]}).json()
    assert all(e["agent_id"] == OTHER for e in seen)
    # bad input: a clear 422, nothing written
    for bad in ({"supplied": {"playbook": [{"text": "x"}]}}, {"budget": 0}, {"pad": {"pleasure": 3}},
                {"context_tokens": 10}, {"task": "gossip"}, {"supplied": {"invariants": [{"text": ""}]}}):
        r = api.client.post(f"{base}/assemble", headers=h, json=bad)
        assert r.status_code == 422, (bad, r.text)
    assert "supply only" in api.client.post(f"{base}/assemble", headers=h, json={
        "supplied": {"playbook": [{"text": "x"}]}}).text
    for bad in ({"quality": 0.5}, {"assembly_id": ws["assembly_id"], "quality": -1}):
        assert api.client.post(f"{base}/feedback", headers=h, json=bad).status_code == 422
    assert api.client.post("/agents/nobody/context/assemble", headers=api.admin, json={}).status_code == 404
    # the admin assembles for the agent, with the agent's view (not the admin's): still no stranger's entry
    assert "stranger-secret" not in str(api.client.post(f"{base}/assemble", headers=api.admin, json={
        "query": "swap ETH on Uniswap", "preassembled": False}).json())


def test_the_attention_score_ranks_by_mood_and_vitality_and_says_which_part_dominated(api: Api) -> None:
    """context-governor.md's four-part score (graph/context/attention.py): each entry shows its dominant part; a
    heuristic laden with the agent's fear rises under that fear (affective bias); a dying agent's entries rank by
    mortality urgency; the record keeps the dominant part for Loop 1."""
    agent, h = "mortal", api.headers("mortal", CLADE)
    fear = {"pleasure": -0.6, "arousal": 0.7, "dominance": -0.2}
    texts = {"plain": "Check the Uniswap pool's depth before swapping more than 50 ETH for USDC.",
             "fear": "After a liquidation cascade, swap ETH for USDC in small tranches on Uniswap."}
    for key, text in texts.items():
        body: dict[str, Any] = {"id": f"mortal-{key}", "category": "Heuristic", "content": text}
        if key == "fear":
            body["emotional_tag"] = {"pleasure": -0.7, "arousal": 0.7, "dominance": -0.2}
        assert api.client.post("/entries", headers=h, json=body).status_code in (200, 201)

    def playbook(**body: Any) -> list[dict[str, Any]]:
        r = api.client.post(f"/agents/{agent}/context/assemble", headers=h, json={
            "query": "swap ETH for USDC on Uniswap", "preassembled": False, **body})
        assert r.status_code == 200, r.text
        return list(r.json()["categories"]["playbook"])

    calm = playbook()
    assert all(e["dominant"] in ("pragmatic", "epistemic") for e in calm)
    afraid = playbook(pad=fear)
    assert afraid[0]["id"] == "mortal-fear" and afraid[0]["dominant"] == "affective"
    lift = {e["id"]: e["score"] for e in afraid}["mortal-fear"] - {e["id"]: e["score"] for e in calm}["mortal-fear"]
    assert lift > 0.9                                  # |cos| of two near-parallel PAD vectors
    dying = playbook(vitality=0.02)
    assert {e["dominant"] for e in dying} == {"mortality"}
    assert all(d["score"] > c["score"] for d, c in zip(sorted(dying, key=lambda e: e["id"]),
                                                       sorted(calm, key=lambda e: e["id"]), strict=True))
    assert api.client.post(f"/agents/{agent}/context/assemble", headers=h, json={"vitality": 1.5}).status_code == 422
