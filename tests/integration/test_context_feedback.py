"""The Governor's feedback loops (issue 18, point 3; graph/context/feedback.py, recalibration.py, mutations.py):
Loop 1's decision records (what was referenced: cited, quoted, paraphrased) and Beta beliefs; a simulated run of
many decisions in which the playbook is always referenced before good outcomes and the insights never are —
the allocations move the right way, never by more than 0.02 per cycle, each step a revision with its event;
Loop 2 on a regime change; Loop 3's staged mutations validated by later outcomes or refuted; a compression
guideline learned from a failure."""

from __future__ import annotations

from typing import Any

import pytest

from grimoire.graph.context.config import GovernorConfig
from grimoire.graph.context.feedback import Outcome
from grimoire.graph.context.governor import Governor, Request
from grimoire.graph.model.enums import MarketRegime
from tests.conftest import Api
from tests.integration.test_context_assembly import SUPPLIED, seed

AGENT, CLADE = "assembler", "clade-ctx"
QUERY = "swap ETH for USDC on Uniswap"


def post(api: Api, path: str, body: dict[str, Any] | None = None, status: int = 200) -> Any:
    r = api.client.post(f"/agents/{AGENT}/context/{path}", headers=api.headers(AGENT, CLADE), json=body)
    assert r.status_code == status, r.text
    return r.json()


def get(api: Api, path: str, **params: Any) -> Any:
    r = api.client.get(f"/agents/{AGENT}/context/{path}", headers=api.headers(AGENT, CLADE), params=params)
    assert r.status_code == 200, r.text
    return r.json()


def lower_insight_floor(api: Api) -> None:
    r = api.client.put(f"/agents/{AGENT}/context/policy", headers=api.headers(AGENT, CLADE),
                       json={"retrieval": {"min_insight_confidence": 0.25}, "reason": "insights in"})
    assert r.status_code == 200, r.text


def test_a_decision_record_and_its_beliefs(api: Api) -> None:
    ids = seed(api)
    ws = post(api, "assemble", {"task": "swap", "regime": "bull", "query": QUERY, "supplied": SUPPLIED})
    playbook = {e["id"]: e for e in ws["categories"]["playbook"]}
    ref = playbook[ids["h1"]]["ref"]
    response = (f"Following {ref}, I split the swap. Check the Uniswap pool's depth before swapping more than "
                f"50 ETH, which I did.")
    out = post(api, "feedback", {"assembly_id": ws["assembly_id"], "response": response, "quality": 0.8,
                                 "cost": 0.002, "missing": ["the gas price"]})
    got = {(r["entry_id"], r["via"]) for r in out["referenced"]}
    assert (ids["h1"], "cited") in got and (ids["h2"], "quoted") in got
    assert out["influenced"] == ["playbook"] and out["outcome"] == "good"
    assert out["beliefs"]["playbook"] == pytest.approx(3 / 5)           # Beta(2, 2) + one good outcome
    assert set(out["beliefs"]) == set(ws["categories"])                  # every category it had in context
    decisions = get(api, "decisions")
    assert decisions[0]["id"] == out["decision_id"] and decisions[0]["missing"] == ["the gas price"]
    assert decisions[0]["injected_tokens"]["playbook"] == sum(e["tokens"] for e in playbook.values())
    bad = post(api, "feedback", {"assembly_id": ws["assembly_id"], "quality": 0.1})
    assert bad["outcome"] == "bad" and bad["influenced"] == [] and bad["beliefs"]["playbook"] == pytest.approx(0.5)
    beliefs = {(b["regime"], b["category"]): b for b in get(api, "beliefs")}
    assert beliefs[("bull", "playbook")]["alpha"] == 3 and beliefs[("bull", "playbook")]["beta"] == 3
    # audited: the record and the beliefs it moved, and rolled back like any other change
    records = api.client.get(f"/agents/{AGENT}/audit", headers=api.headers(AGENT, CLADE),
                             params={"item": out["decision_id"]}).json()
    assert records and records[0]["action"] == "context.feedback"
    post(api, "feedback", {"assembly_id": "no-such-workspace", "quality": 0.5}, status=404)
    post(api, "feedback", {"assembly_id": ws["assembly_id"], "quality": 1.5}, status=422)
    # the workspace's items as citable search results; a citation's source counts as cited
    sources = [b["source"] for b in ws["search_results"]]
    assert f"grimoire://{AGENT}/heuristic/{ids['h0']}" in sources and all(
        b["type"] == "search_result" and b["citations"] == {"enabled": True} for b in ws["search_results"])
    every = [e for es in ws["categories"].values() for e in es if e["source"] == "grimoire"]
    assert len(sources) == len(every)
    by_source = post(api, "feedback", {"assembly_id": ws["assembly_id"], "quality": 0.8,
                                       "cited": [f"grimoire://{AGENT}/heuristic/{ids['h0']}"]})
    assert (ids["h0"], "cited") in {(r["entry_id"], r["via"]) for r in by_source["referenced"]}


def test_the_outcome_verification_block_and_the_model_tier(api: Api) -> None:
    """context-governor.md S3.4: a prediction of 0.5 at confidence 0.8 against 0.2 from a 0.3 baseline is off by 0.3,
    the wrong way, and the categories the workspace injected but the response never referenced are named for more
    room; S5.3: a T0 turn (a probe, no model call) records nothing and moves no belief, a T1 one keeps its tier."""
    ids = seed(api)
    ws = post(api, "assemble", {"task": "swap", "regime": "bull", "query": QUERY, "supplied": SUPPLIED})
    out = post(api, "feedback", {"assembly_id": ws["assembly_id"], "cited": [ids["h1"]], "quality": 0.8,
                                 "model_tier": "T1", "prediction": {"value": 0.5, "baseline": 0.3,
                                                                    "confidence": 0.8}, "actual": 0.2})
    v = out["verification"]
    assert v["prediction_error"] == pytest.approx(0.3) and v["was_correct_direction"] is False
    assert v["calibration_delta"] == pytest.approx(0.3 / 0.81)
    assert [r["category"] for r in out["referenced"]] == ["playbook"]
    assert v["ignored_categories"] == sorted(set(ws["categories"]) - {"playbook"})
    assert v["recommendation"] == "Increase allocation for: " + ", ".join(v["ignored_categories"])
    assert get(api, "decisions")[0]["model_tier"] == "T1"
    close = post(api, "feedback", {"assembly_id": ws["assembly_id"], "quality": 0.8, "actual": 0.45,
                                   "prediction": {"value": 0.5, "baseline": 0.3, "confidence": 0.9}})
    assert close["verification"]["was_correct_direction"] is True
    assert close["verification"]["recommendation"] == "Current allocations adequate"
    assert post(api, "feedback", {"assembly_id": ws["assembly_id"]})["verification"] is None  # no prediction
    before = {(b["regime"], b["category"]): b["alpha"] + b["beta"] for b in get(api, "beliefs")}
    decided = len(get(api, "decisions"))
    probe = post(api, "feedback", {"assembly_id": ws["assembly_id"], "quality": 0.9, "model_tier": "T0"})
    assert probe["decision_id"] is None and probe["skipped"].startswith("T0") and probe["beliefs"] == {}
    assert len(get(api, "decisions")) == decided
    assert {(b["regime"], b["category"]): b["alpha"] + b["beta"] for b in get(api, "beliefs")} == before
    post(api, "feedback", {"assembly_id": ws["assembly_id"], "actual": 0.2}, status=422)  # half a comparison
    post(api, "feedback", {"assembly_id": ws["assembly_id"], "model_tier": "T9"}, status=422)
    huge = {"assembly_id": ws["assembly_id"], "prediction": {"value": 1e308, "baseline": 0, "confidence": 0.5},
            "actual": -1e308}
    post(api, "feedback", huge, status=422)  # refused before anything is recorded, not a 500 after


def test_a_simulated_run_moves_the_allocations_toward_what_good_decisions_used(api: Api) -> None:
    """Five cycles of eight decisions: the playbook cited before every good outcome, the insights never. Each
    cycle's Loop 2 is a revision; the playbook grows and the insights shrink, no category by more than 0.02."""
    seed(api)
    lower_insight_floor(api)
    start = get(api, "policy")["allocations"]
    allocations = [start]
    for cycle in range(5):
        for n in range(8):
            ws = post(api, "assemble", {"task": "swap", "regime": "bull", "query": QUERY, "supplied": SUPPLIED,
                                        "tick": cycle * 100 + n})
            assert ws["categories"]["insights"] and ws["categories"]["playbook"]
            cited = [e["ref"] for e in ws["categories"]["playbook"]]
            post(api, "feedback", {"assembly_id": ws["assembly_id"], "cited": cited, "quality": 0.9,
                                   "response": "Done: " + ", ".join(cited)})
        done = post(api, "recalibrate")
        assert done["records"] == 8 and done["trigger"] == "manual"
        allocations.append(get(api, "policy")["allocations"])
    for before, after in zip(allocations, allocations[1:], strict=False):
        assert after["playbook"] > before["playbook"] and after["insights"] < before["insights"]
        assert max(abs(after[c] - before[c]) for c in before) <= 0.02 + 1e-9
    assert sum(allocations[-1].values()) == pytest.approx(1.0)
    history = get(api, "policy/revisions")
    assert [h["revision"] for h in history] == [6, 5, 4, 3, 2, 1]
    assert all(h["reason"] == "loop 2 (manual): 8 decisions" for h in history[:5])
    steps = get(api, "policy/delta", **{"from": 1, "to": 6})["allocations"]
    assert 0 < steps["playbook"] <= 5 * 0.02 + 1e-9 and steps["insights"] < 0
    events = api.client.get("/events", headers=api.headers(AGENT, CLADE),
                            params={"type": ["context:policy_updated", "context:feedback_loop"]}).json()
    updated = [e["payload"] for e in events if e["type"] == "context:policy_updated"]
    assert [u["revision"] for u in updated] == [2, 3, 4, 5, 6] and all(u["trigger"] == "manual" for u in updated)
    assert all(u["delta"]["playbook"] > 0 for u in updated)
    loops = [e["payload"] for e in events if e["type"] == "context:feedback_loop"]
    assert [x["loop_id"] for x in loops].count(1) == 40                  # every decision: one Loop 1 iteration
    loop2 = [x for x in loops if x["loop_id"] == 2]
    assert len(loop2) == 5 and loop2[0]["record_count"] == 8 and loop2[0]["adjustments"]["playbook"] == 0.02
    assert post(api, "recalibrate")["revision"] is None       # nothing new to read


def test_a_regime_change_runs_loop2_and_reports_the_override(api: Api) -> None:
    seed(api)
    ws = post(api, "assemble", {"regime": "bull", "query": QUERY})
    post(api, "feedback", {"assembly_id": ws["assembly_id"], "quality": 0.9, "cited": ["h1"]})
    crisis = post(api, "assemble", {"regime": "crisis", "query": QUERY})
    assert crisis["source"] == "cold" and [x["layer"] for x in crisis["layers"]] == ["regime:crisis"]
    out = post(api, "feedback", {"assembly_id": crisis["assembly_id"], "quality": 0.7})
    assert out["loop2"]["trigger"] == "regime_change" and out["loop2"]["records"] == 2
    events = api.client.get("/events", headers=api.headers(AGENT, CLADE),
                            params={"type": ["context:regime_override", "context:policy_updated"]}).json()
    override = next(e["payload"] for e in events if e["type"] == "context:regime_override")
    assert override["previous_regime"] == "bull" and override["new_regime"] == "crisis"
    assert override["allocations_applied"] == {"mortality": 0.06, "contrarian": 0.01, "dream_hypotheses": 0.01}
    assert any(e["payload"]["trigger"] == "regime_change" for e in events if e["type"] == "context:policy_updated")


def test_a_regime_change_learns_the_regimes_policy_from_twenty_decisions(api: Api) -> None:
    """S4 learn_regime_policy at Loop 2 on a regime change: back in a regime with 20 decisions recorded, 5 or more of
    them good (quality over 0.7), the regime's override becomes the good decisions' token shares, normalised; a
    regime with fewer keeps its override."""
    seed(api)
    for n in range(20):
        ws = post(api, "assemble", {"regime": "bear", "query": f"{QUERY} {n}", "preassembled": False})
        post(api, "feedback", {"assembly_id": ws["assembly_id"], "quality": 0.9 if n % 3 == 0 else 0.4})
    bull = post(api, "assemble", {"regime": "bull", "query": QUERY})
    first = post(api, "feedback", {"assembly_id": bull["assembly_id"], "quality": 0.8})
    assert first["loop2"]["regime_policy"] is None  # one decision in bull: nothing to learn from
    bear_before = get(api, "policy")["regime_overrides"].get("bear")
    back = post(api, "assemble", {"regime": "bear", "query": QUERY})
    out = post(api, "feedback", {"assembly_id": back["assembly_id"], "quality": 0.8})
    learned = out["loop2"]["regime_policy"]
    assert learned and sum(learned.values()) == pytest.approx(1.0, abs=1e-5)
    good = [d for d in get(api, "decisions", limit=100) if d["regime"] == "bear" and d["outcome_quality"] > 0.7]
    tokens: dict[str, int] = {}
    for d in good:
        for c, t in d["injected_tokens"].items():
            tokens[c] = tokens.get(c, 0) + t
    assert learned == pytest.approx({c: t / sum(tokens.values()) for c, t in tokens.items()}, abs=1e-6)
    policy = get(api, "policy")
    assert policy["regime_overrides"]["bear"] == pytest.approx(learned) and learned != bear_before


def test_loop3_stages_mutations_that_later_outcomes_validate_or_refute(api: Api) -> None:
    seed(api)
    services = api.client.app.state.services
    config = GovernorConfig(mutation_trial_every=2, mutation_min_trials=4, mutation_max_trials=8)
    governor = Governor(services.db, services.embedder, services.retriever, config)
    request = Request(regime=MarketRegime.bear, query=QUERY)
    for _ in range(3):
        ws = governor.assemble(AGENT, CLADE, request, prefer_kept=False)
        governor.feedback(AGENT, CLADE, Outcome(ws.id, quality=0.2, missing=("no causal explanation",)), actor="t")
    staged = post(api, "mutations/stage")["staged"]
    listing = {m["id"]: m for m in get(api, "mutations")}
    assert len(staged) == 2 and {listing[m]["kind"] for m in staged} == {"boost_missing", "causal_over_playbook"}
    assert all(listing[m]["status"] == "staged" and listing[m]["confidence"] == pytest.approx(0.2) for m in staged)
    assert post(api, "mutations/stage")["staged"] == []        # one of each kind per regime at a time

    # the first staged mutation is tried on every other cold assembly; its trials do better than the baseline
    first = min(staged, key=lambda m: listing[m]["created_at"])
    trial = next(ws for ws in (governor.assemble(AGENT, CLADE, request, prefer_kept=False) for _ in range(2))
                 if ws.mutation_id == first)
    for _ in range(2):   # one workspace is one trial, however many decisions are recorded on it
        governor.feedback(AGENT, CLADE, Outcome(trial.id, quality=0.9), actor="t")
    assert {m["id"]: m for m in get(api, "mutations")}[first]["trials"] == 1
    verdict = None
    for _ in range(20):
        ws = governor.assemble(AGENT, CLADE, request, prefer_kept=False)
        trial = ws.mutation_id == first
        out = governor.feedback(AGENT, CLADE, Outcome(ws.id, quality=0.9 if trial else 0.3), actor="t")
        if out.mutation and out.mutation.verdict:
            verdict = out.mutation
            break
    assert verdict is not None and verdict.verdict == "validated" and verdict.revision is not None
    after = {m["id"]: m for m in get(api, "mutations")}
    assert after[first]["status"] == "validated" and after[first]["promoted_to"] == verdict.revision
    revision = get(api, "policy/revisions")[0]
    assert revision["revision"] == verdict.revision and revision["reason"].startswith("loop 3: mutation")

    # the other one now gets the trials; they do worse than the baseline: refuted
    other = next(m for m in staged if m != first)
    for _ in range(40):
        ws = governor.assemble(AGENT, CLADE, request, prefer_kept=False)
        out = governor.feedback(AGENT, CLADE, Outcome(ws.id, quality=0.1 if ws.mutation_id == other else 0.6),
                                actor="t")
        if out.mutation and out.mutation.verdict:
            assert out.mutation.verdict == "refuted"
            break
    assert {m["id"]: m for m in get(api, "mutations")}[other]["status"] == "refuted"


def test_a_failure_after_compression_teaches_a_guideline(api: Api) -> None:
    seed(api)
    ws = post(api, "assemble", {"task": "swap", "regime": "crisis", "query": QUERY, "budget": 900})
    assert any(e["disclosure"] == "summary" for e in ws["categories"]["episodes"])
    out = post(api, "feedback", {"assembly_id": ws["assembly_id"], "quality": 0.1,
                                 "missing": ["what happened on the previous swaps"]})
    assert out["guideline"]["category"] == "episodes" and out["guideline"]["task_type"] == "swap"
    policy = get(api, "policy")
    assert policy["guidelines"][0]["text"].startswith("For swap decisions in a crisis market, keep episodes whole")
    again = post(api, "assemble", {"task": "swap", "regime": "crisis", "query": QUERY, "budget": 900})
    assert again["source"] == "cold" and again["guidelines"] == [policy["guidelines"][0]["text"]]
    reason = next(r for r in again["reasons"] if r["category"] == "episodes")["reason"]
    assert "kept whole by a compression guideline" in reason
    other = post(api, "assemble", {"task": "swap", "regime": "bull", "query": QUERY, "budget": 900})
    assert other["guidelines"] == []
