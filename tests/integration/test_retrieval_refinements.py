"""Issue 15's retrieval refinements against the real database: the knowledge weighting hierarchy and
the Zeigarnik boost in every mode's final score, the term-overlap rerank with document frequencies
from what the caller can see, the decision id and the Generative Agents weights learned from
feedback on it (Hedge, audited), and RAPTOR levels in every backend."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from grimoire.graph.audit import DeleteNodes, NodeLabel, SetProperties, parse_revert
from grimoire.graph.retrieval import hedge
from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.retrieval.pipeline import RetrievalRequest, build
from grimoire.graph.visibility import Visibility

SCORING = ["vector", "bm25", "fusion", "four_factor", "generative_agents"]
TEXT = "Chainlink oracle lag on the ETH feed delayed the Aave liquidation"


def _post_episodes(api, h, episodes: list[dict[str, Any]]) -> None:
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": episodes})
    assert r.status_code == 201, r.text


def _retrieve(api, h, **body: Any) -> dict[str, Any]:
    r = api.client.post("/retrieve", headers=h, json={"no_budget": True, "explain": True, **body})
    assert r.status_code == 200, r.text
    return r.json()


def _blended(ex: dict[str, Any]) -> float:
    """The mode's score after the term-overlap rerank (on by default in four_factor and generative_agents)."""
    return ex["mode_score"] if ex["term_overlap"] is None else 0.7 * ex["mode_score"] + 0.3 * ex["term_overlap"]


def test_own_knowledge_outranks_the_clade_s_which_outranks_the_lethe_s_in_every_mode(api) -> None:
    me, sibling, stranger = (api.headers("kw-me", "clade-kw"), api.headers("kw-sib", "clade-kw"),
                             api.headers("kw-far", "clade-far"))
    # The same text three times (the same similarity, the same BM25 score, the same gain): only who
    # owns it differs. Ties would go by id, and the ids are in the opposite order of the hierarchy.
    _post_episodes(api, me, [{"id": "kw-own", "type": "observation", "text": TEXT, "gain": 10.0}])
    _post_episodes(api, sibling, [{"id": "kw-clade", "type": "observation", "text": TEXT, "gain": 10.0,
                                   "scope": "shared"}])
    _post_episodes(api, stranger, [{"id": "kw-lethe", "type": "observation", "text": TEXT, "gain": 10.0,
                                    "scope": "public"},
                                   {"id": "kw-hidden", "type": "observation", "text": TEXT, "gain": 10.0}])
    expected = {"kw-own": ("own", 1.0), "kw-clade": ("clade", 0.8), "kw-lethe": ("lethe", 0.5)}
    for mode in [*SCORING, "replay"]:
        body = _retrieve(api, me, mode=mode, **({} if mode == "replay" else {"text": "Chainlink oracle lag"}),
                         filters={"kinds": ["episodes"]})
        got = body["results"]
        assert [x["id"] for x in got] == ["kw-own", "kw-clade", "kw-lethe"], mode
        for x in got:
            ex = x["explain"]
            assert (ex["source"], ex["source_weight"]) == expected[x["id"]], (mode, x["id"])
            assert x["score"] == pytest.approx(_blended(ex) * ex["source_weight"], rel=1e-9), (mode, x["id"])
            assert ex["zeigarnik"] == 1.0
            assert (ex["term_overlap"] is not None) == (mode in ("four_factor", "generative_agents")), mode
        if mode in ("vector", "bm25", "replay"):  # the same score before weighting: the weights alone order them
            assert len({round(x["explain"]["mode_score"], 9) for x in got}) == 1, mode
    # Hybrid: the three are near-duplicates, MMR keeps one: the caller's own, though the clade's copy
    # comes first by id.
    body = _retrieve(api, me, text="Chainlink oracle lag", filters={"kinds": ["episodes"]})
    assert [x["id"] for x in body["results"]] == ["kw-own"]
    cut = {c["id"]: c["explain"] for c in body["cut"]}
    assert set(cut) == {"kw-clade", "kw-lethe"} and all(c["cut"].startswith("diversity") for c in cut.values())
    assert (cut["kw-clade"]["source_weight"], cut["kw-lethe"]["source_weight"]) == (0.8, 0.5)
    # The admin key has no perspective: nothing is weighted by source.
    admin = _retrieve(api, api.admin, mode="vector", text="Chainlink oracle lag", filters={"kinds": ["episodes"]})
    assert {x["id"] for x in admin["results"]} == {"kw-own", "kw-clade", "kw-lethe", "kw-hidden"}
    assert all(x["score"] == x["explain"]["mode_score"] and x["explain"]["source"] is None for x in admin["results"])


def test_interrupted_episodes_are_retrieved_more_readily(api, db) -> None:
    h = api.headers("zg-1", "clade-zg")
    # Identical but for `interrupted`; the completed one would win a tie by id.
    _post_episodes(api, h, [
        {"id": "zg-a-done", "type": "action", "text": "Rebalanced the ETH/USDC position", "gain": 5.0},
        {"id": "zg-b-cut", "type": "action", "text": "Rebalanced the ETH/USDC position", "gain": 5.0,
         "interrupted": True},
    ])
    for mode in [*SCORING, "replay"]:
        body = _retrieve(api, h, mode=mode, **({} if mode == "replay" else {"text": "rebalanced ETH/USDC"}))
        got = {x["id"]: x for x in body["results"]}
        assert [x["id"] for x in body["results"]][:2] == ["zg-b-cut", "zg-a-done"], mode
        cut, done = got["zg-b-cut"], got["zg-a-done"]
        assert (cut["explain"]["zeigarnik"], done["explain"]["zeigarnik"]) == (1.2, 1.0), mode
        assert cut["score"] == pytest.approx(1.2 * _blended(cut["explain"]), rel=1e-9), mode
        assert done["score"] == pytest.approx(_blended(done["explain"]), rel=1e-9), mode
    # A retriever configured without the boost ranks them by id again.
    flat = build(db, _embedder(api), RetrievalConfig(zeigarnik_boost=1.0))
    res = flat.retrieve(RetrievalRequest(text="rebalanced ETH/USDC", mode="vector", no_budget=True,
                                         filters={"kinds": ["episodes"]}),
                        Visibility("zg-1", "clade-zg"), "zg-1")
    assert [x.id for x in res.results] == ["zg-a-done", "zg-b-cut"]


def _embedder(api) -> Any:
    return api.client.app.state.services.embedder


def test_the_term_overlap_rerank_counts_what_the_caller_can_see(api, db) -> None:
    me, other = api.headers("to-1", "clade-to"), api.headers("to-2", "clade-other")
    _post_episodes(api, me, [
        {"id": "to-a", "type": "observation", "text": "Chainlink oracle lag hit Aave"},
        {"id": "to-b", "type": "observation", "text": "Oracle update on Compound went through"},
        {"id": "to-c", "type": "observation", "text": "Gas fees fell on Sunday"},
    ])
    # Another agent's private notes on Chainlink: invisible to to-1, so they do not count toward the IDF
    # (counted, chainlink would be in 6 of 8 documents and weigh almost nothing).
    _post_episodes(api, other, [{"id": f"to-x{i}", "type": "observation", "text": f"Chainlink node {i} rotated"}
                                for i in range(5)])
    retriever = build(db, _embedder(api), RetrievalConfig(term_overlap={"modes": ["hybrid", "four_factor",
                                                                                  "generative_agents"]}))
    view = Visibility("to-1", "clade-to")
    # Visible: 3 episodes; chainlink in 1, oracle in 2 (the full-text index stems "oracle").
    idf = {"chainlink": math.log(4 / 2) / math.log(4), "oracle": math.log(4 / 3) / math.log(4)}
    overlap = {"to-a": (idf["chainlink"] + idf["oracle"]) / 2, "to-b": idf["oracle"] / 2, "to-c": 0.0}
    for mode in ("hybrid", "four_factor", "generative_agents"):
        res = retriever.retrieve(RetrievalRequest(text="chainlink oracle", mode=mode, no_budget=True, explain=True,
                                                  filters={"kinds": ["episodes"]}), view, "to-1")
        assert {x.id for x in res.results} == set(overlap), mode
        for x in res.results:
            ex = x.explain
            assert ex is not None and ex.term_overlap == pytest.approx(overlap[x.id]), (mode, x.id)
            assert ex.mode_score is not None and x.score is not None
            assert x.score == pytest.approx(0.7 * ex.mode_score + 0.3 * overlap[x.id]), (mode, x.id)
        assert "final" in (res.timings_ms or {})
    # A mode not configured for it keeps its own score.
    res = retriever.retrieve(RetrievalRequest(text="chainlink oracle", mode="vector", no_budget=True, explain=True),
                             view, "to-1")
    assert all(x.explain and x.explain.term_overlap is None for x in res.results)
    # As served (the default configuration): in four_factor and generative_agents, not in hybrid.
    h = api.headers("to-1", "clade-to")
    for mode, blended in (("generative_agents", True), ("four_factor", True), ("hybrid", False)):
        got = {x["id"]: x["explain"] for x in _retrieve(api, h, text="chainlink oracle", mode=mode,
                                                           filters={"kinds": ["episodes"]})["results"]}
        assert set(got) == set(overlap), mode
        assert all((ex["term_overlap"] == pytest.approx(overlap[i])) if blended else ex["term_overlap"] is None
                   for i, ex in got.items()), mode


def _records(db, action: str) -> list[dict[str, Any]]:
    return [r for r in db.run("testing/audit_records") if r["action"] == action]


def _access(db, decision_id: str) -> dict[str, Any]:
    found = [r["record"] for r in db.run("testing/access_records") if r["record"]["id"] == decision_id]
    assert len(found) == 1
    return found[0]


def _hedge(w: dict[str, float], factors: dict[str, list[float]], reward: float) -> dict[str, float]:
    """Hedge by hand: loss = mean |clamp(value) - reward|, w exp(-0.5 loss), normalised (no weight
    near the 0.05 floor here)."""
    loss = {f: sum(abs(min(1.0, max(0.0, v)) - reward) for v in vals) / len(vals) for f, vals in factors.items()}
    raw = {f: w[f] * math.exp(-0.5 * loss[f]) for f in w}
    return {f: v / sum(raw.values()) for f, v in raw.items()}


def test_decision_ids_and_the_generative_agents_weights_learned_by_hedge(api, db, embedder) -> None:
    h, other = api.headers("hd-1", "clade-hd"), api.headers("hd-2", "clade-hd")
    _post_episodes(api, h, [
        {"id": "hd-a", "type": "observation", "text": "Gas spiked during the NFT mint", "importance": "critical"},
        {"id": "hd-b", "type": "observation", "text": "Gas fell below 5 gwei at night"},
        {"id": "hd-c", "type": "action", "text": "Swapped ETH for USDC when gas was cheap", "importance": "notable"},
    ])
    defaults = {"recency": 0.3, "importance": 0.3, "relevance": 0.4}
    assert api.client.get("/retrieve/weights", headers=h).json() == {**defaults, "agent_id": "hd-1", "updates": 0,
                                                                     "updated_at": None}
    # Without for_decision there is no decision id.
    assert "decision_id" not in _retrieve(api, h, text="when is gas cheap", mode="generative_agents")
    body = _retrieve(api, h, text="when is gas cheap", mode="generative_agents", k=2, for_decision=True)
    decision = body["decision_id"]
    record = _access(db, decision)
    assert record["action"] == "retrieval.for_decision" and record["agent_id"] == "hd-1"
    assert record["ids"] == [x["id"] for x in body["results"]] and record["mode"] == "generative_agents"
    # The factors the decision saw, stored in the order of the ids, are those the explanation shows.
    factors = {f: record[f"ga_{f}"] for f in hedge.FACTORS}
    for i, x in enumerate(body["results"]):
        assert x["explain"]["weights"] == defaults
        assert {f: factors[f][i] for f in hedge.FACTORS} == pytest.approx(x["explain"]["factors"])
    # Feedback: useful. One Hedge step from the stored factors, audited (the weights node is new: its
    # revert deletes it).
    r = api.client.post("/retrieve/feedback", headers=h, json={"decision_id": decision, "useful": True})
    assert r.status_code == 200, r.text
    out = r.json()
    learned = _hedge(defaults, factors, 1.0)
    assert out["applied"] and out["agent_id"] == "hd-1" and out["items"] == 2 and out["updates"] == 1
    assert out["weights_before"] == defaults and out["weights_after"] == pytest.approx(learned)
    assert sum(out["weights_after"].values()) == pytest.approx(1.0)
    first = _records(db, "retrieval.weights.feedback")
    assert len(first) == 1 and first[0]["id"] == out["audit_id"] and first[0]["agent_id"] == "hd-1"
    assert set(first[0]["target_ids"]) == {"retrieval-weights:hd-1", decision}
    assert parse_revert(first[0]["revert"]) == [DeleteNodes(label=NodeLabel.RetrievalWeights,
                                                            ids=["retrieval-weights:hd-1"])]
    stored = api.client.get("/retrieve/weights", headers=h).json()
    assert stored["updates"] == 1 and {f: stored[f] for f in hedge.FACTORS} == pytest.approx(learned)
    # Once per decision: a second feedback on it changes nothing.
    again = api.client.post("/retrieve/feedback", headers=h, json={"decision_id": decision, "outcome": "negative"})
    assert again.status_code == 200 and not again.json()["applied"] and "already" in again.json()["reason"]
    assert len(_records(db, "retrieval.weights.feedback")) == 1
    # The next generative_agents retrieval scores with the learned weights.
    body = _retrieve(api, h, text="when is gas cheap", mode="generative_agents", for_decision=True)
    for x in body["results"]:
        f, w = x["explain"]["factors"], x["explain"]["weights"]
        assert w == pytest.approx(learned)
        assert x["explain"]["mode_score"] == pytest.approx(sum(w[k] * f[k] for k in hedge.FACTORS))
    # A decision of another mode: the pipeline computes the factors itself. Not useful (a negative
    # outcome): the step goes the other way, and its revert restores the weights before it.
    hybrid = _retrieve(api, h, text="gas spiked", for_decision=True)
    record = _access(db, hybrid["decision_id"])
    assert record["mode"] == "hybrid" and len(record["ga_relevance"]) == len(hybrid["results"]) > 0
    query = np.asarray(embedder.embed_one("gas spiked"))
    top = np.asarray(embedder.embed_one(hybrid["results"][0]["text"]))
    assert record["ga_relevance"][0] == pytest.approx(float(query @ top / np.linalg.norm(query) / np.linalg.norm(top)),
                                                      abs=1e-5)
    r = api.client.post("/retrieve/feedback", headers=h, json={"decision_id": hybrid["decision_id"],
                                                               "outcome": "negative"})
    then = _hedge(learned, {f: record[f"ga_{f}"] for f in hedge.FACTORS}, 0.0)
    assert r.json()["applied"] and r.json()["weights_after"] == pytest.approx(then)
    second = _records(db, "retrieval.weights.feedback")[-1]
    [op] = parse_revert(second["revert"])
    assert isinstance(op, SetProperties) and op.label == NodeLabel.RetrievalWeights
    assert {f: op.before[f] for f in hedge.FACTORS} == pytest.approx(learned) and op.before["updates"] == 1
    # Neutral outcomes teach nothing; someone else's decision, or none, is not found; one of the two.
    neutral = _retrieve(api, h, text="gas", for_decision=True)["decision_id"]
    r = api.client.post("/retrieve/feedback", headers=h, json={"decision_id": neutral, "outcome": "neutral"})
    assert r.status_code == 200 and not r.json()["applied"]
    assert api.client.post("/retrieve/feedback", headers=other,
                           json={"decision_id": neutral, "useful": True}).status_code == 404
    assert api.client.post("/retrieve/feedback", headers=h,
                           json={"decision_id": "no-such", "useful": True}).status_code == 404
    assert api.client.post("/retrieve/feedback", headers=h,
                           json={"decision_id": neutral, "useful": True, "outcome": "positive"}).status_code == 422
    # A retrieval for a decision that finds nothing still has a decision id (and nothing to learn from).
    empty = _retrieve(api, other, text="gas", for_decision=True, filters={"kinds": ["episodes"]})
    assert empty["results"] == [] and empty["decision_id"]
    r = api.client.post("/retrieve/feedback", headers=other, json={"decision_id": empty["decision_id"],
                                                                   "useful": True})
    assert not r.json()["applied"] and "nothing" in r.json()["reason"]


def test_raptor_levels_are_retrievable_per_level_in_every_backend(api, db) -> None:
    h = api.headers("rp-1", "clade-rp")
    _post_episodes(api, h, [
        {"id": "rp-ep", "type": "observation", "text": "Aave liquidation right after a Chainlink oracle update",
         "gain": -20.0},
    ])
    entries = {"rp-summary": "Aave liquidations tend to follow Chainlink oracle update patterns",
               "rp-leaf": "Avoid Aave borrowing right after a Chainlink oracle update"}
    for i, content in entries.items():
        r = api.client.post("/entries", headers=h, json={"id": i, "category": "Warning", "content": content,
                                                         "parent_episode_ids": ["rp-ep"]})
        assert r.status_code == 201 and r.json()["entry_id"] == i, r.text
    db.run("testing/set_entry_props", id="rp-summary", props={"level": 1})  # as the Curator's compression writes it
    # The agent's own items (the core mental models are level-0 entries every agent sees, too).
    query: dict[str, Any] = {"text": "Aave liquidation Chainlink oracle update"}
    mine = {"agent_id": "rp-1"}
    for mode in ["hybrid", *SCORING]:
        every = _retrieve(api, h, mode=mode, filters=mine, **query)
        assert {x["id"] for x in every["results"]} == {"rp-ep", "rp-summary", "rp-leaf"}, mode
        assert {x["id"]: x["level"] for x in every["results"]} == {"rp-ep": 0, "rp-summary": 1, "rp-leaf": 0}
        summary = _retrieve(api, h, mode=mode, filters={"levels": [1]}, **query)
        assert [x["id"] for x in summary["results"]] == ["rp-summary"], mode
        leaves = _retrieve(api, h, mode=mode, filters={**mine, "levels": [0]}, **query)
        assert {x["id"] for x in leaves["results"]} == {"rp-ep", "rp-leaf"}, mode
    # The graph backend brings the entries derived from a hit episode: at level 0 only, the summary
    # is not among them.
    leaves = _retrieve(api, h, filters={**mine, "levels": [0], "kinds": ["entries"]},
                       text="Aave liquidation right after")
    assert [x["id"] for x in leaves["results"]] == ["rp-leaf"]
    # Replay holds episodes only: the leaves.
    assert [x["id"] for x in _retrieve(api, h, mode="replay", filters={"levels": [0]})["results"]] == ["rp-ep"]
    assert _retrieve(api, h, mode="replay", filters={"levels": [1]})["results"] == []
    assert api.client.post("/retrieve", headers=h, json={**query, "filters": {"levels": [7]}}).status_code == 422


def test_replay_puts_the_least_consolidated_first(api, db) -> None:
    """Spaced repetition (knowledge-crystals.md line 62, lastRippleCount): replay returns what was never replayed
    (no ripple count) first, then fewer ripples at the last replay before more; the Mattar-Daw score orders those
    alike, and the limit applies after. The ids run against that order, and the three share their score."""
    h = api.headers("rr-1", "clade-rr")
    _post_episodes(api, h, [{"id": i, "type": "observation", "text": f"Replay candidate {i}", "gain": gain}
                            for i, gain in (("rr-a", 10.0), ("rr-b", 10.0), ("rr-c", 10.0), ("rr-d", 4.0))])
    _post_episodes(api, api.headers("rr-2", "clade-zz"), [{"id": "rr-other", "type": "observation",
                                                           "text": "Not the caller's to see", "gain": 10.0}])
    db.run("testing/set_crystal_props", rows=[{"id": "rr-a", "props": {"last_ripple_count": 5}},
                                              {"id": "rr-b", "props": {"last_ripple_count": 1}}])
    got = _retrieve(api, h, mode="replay", k=10)["results"]
    assert [x["id"] for x in got] == ["rr-c", "rr-d", "rr-b", "rr-a"]
    assert got[0]["score"] == got[2]["score"] == got[3]["score"] == 1.0 and got[1]["score"] == pytest.approx(0.4)
    assert [x["id"] for x in _retrieve(api, h, mode="replay", k=2)["results"]] == ["rr-c", "rr-d"]


def test_a_replay_is_a_dream_and_the_next_replay_turns_to_what_was_not_replayed(api, db) -> None:
    """knowledge-crystals.md lines 57-62: a replay (mode replay, a dream cycle's) counts a dream on each episode it
    returned, sets its last dreamed and samples its ripple count (written by the reads' flush); the next replay puts
    the episodes never replayed first, so successive replays go round the store (spaced repetition)."""
    from grimoire.graph.model.crystal.ripples import ripple_count

    h = api.headers("rd-1", "clade-rd")
    _post_episodes(api, h, [{"id": i, "type": "observation", "text": f"Dream candidate {i}", "gain": 10.0}
                            for i in ("rd-a", "rd-b")])
    # A clade mate's shared episode is replayed and counted like the caller's own (else it would lead every replay).
    _post_episodes(api, api.headers("rd-2", "clade-rd"), [{"id": "rd-c", "type": "observation", "scope": "shared",
                                                          "text": "Dream candidate rd-c", "gain": 10.0}])
    scheduler = api.client.app.state.services.scheduler
    seen = []
    for _ in range(3):
        got = _retrieve(api, h, mode="replay", k=1)["results"]
        seen.append(got[0]["id"])
        assert scheduler.trigger("access.reads") and "access.reads" in scheduler.run_due()
        assert scheduler.job("access.reads").last_error is None
    assert sorted(seen) == ["rd-a", "rd-b", "rd-c"], seen  # each replayed once before any twice
    for eid in seen:
        crystal = api.client.get(f"/crystals/{eid}", headers=api.admin).json()
        assert crystal["dream_count"] == 1 and crystal["last_dreamed_at"] is not None
        assert crystal["last_ripple_count"] == ripple_count(eid, 1)
    # All replayed once: the fewest ripples at the last replay come first.
    fewest = min(seen, key=lambda e: (ripple_count(e, 1), seen.index(e)))
    again = _retrieve(api, h, mode="replay", k=3)["results"]
    assert again[0]["id"] == fewest or ripple_count(again[0]["id"], 1) == ripple_count(fewest, 1)
    assert [ripple_count(x["id"], 1) for x in again] == sorted(ripple_count(x["id"], 1) for x in again)
    # The agent's last replay is a second dream of each; the admin's look after it is none.
    assert len(_retrieve(api, api.admin, mode="replay", k=3)["results"]) == 3
    assert scheduler.trigger("access.reads") and "access.reads" in scheduler.run_due()
    assert {e: api.client.get(f"/crystals/{e}", headers=api.admin).json()["dream_count"] for e in seen} == \
        dict.fromkeys(seen, 2)
