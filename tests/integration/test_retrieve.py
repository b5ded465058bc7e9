"""POST /retrieve against the real database: filters on both time axes, explanation, bookkeeping,
visibility, the budget, and the other modes."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np
import pytest

DAY = 86_400_000
HOUR = 3_600_000
QUERY = "stETH depeg on Curve"
TEXTS = {
    "r-1": "Curve stETH pool depegged to 0.94 during the unlock",
    "r-2": "stETH depeg recovered to 0.99 within two days on Curve",
    "r-3": "Gas fees fell below 5 gwei over the weekend",
}
WARNING = "Avoid looping stETH on Aave when the Curve pool trades below 0.97"
VALID_FROM = {"r-1": 1_704_844_800_000, "r-2": 1_710_028_800_000, "r-3": 1_706_745_600_000}  # the dates below


def _ingest(api, h, db, extra: dict[str, dict[str, Any]] | None = None) -> None:
    eps = [
        {"id": "r-1", "type": "observation", "text": TEXTS["r-1"],
         "valid_from": "2024-01-10T00:00:00Z", "gain": -40.0, "regime": "crisis"},
        {"id": "r-2", "type": "observation", "text": TEXTS["r-2"],
         "valid_from": "2024-03-10T00:00:00Z", "follows": "r-1", "gain": 15.0, "regime": "crisis"},
        {"id": "r-3", "type": "observation", "text": TEXTS["r-3"],
         "valid_from": "2024-02-01T00:00:00Z", "regime": "low_vol"},
    ]
    eps = [{**ep, **(extra or {}).get(ep["id"], {})} for ep in eps]
    assert api.client.post("/episodes/batch", headers=h, json={"episodes": eps}).status_code == 201
    r = api.client.post("/entries", headers=h, json={
        "id": "r-warn", "category": "Warning", "parent_episode_ids": ["r-1"],
        "content": WARNING})
    assert r.status_code == 201, r.text


def _item(api, h, item_id: str) -> dict[str, Any]:
    """An episode or entry as the API shows it, its last access as a datetime."""
    kind = "entries" if item_id == "r-warn" else "episodes"
    r = api.client.get(f"/{kind}/{item_id}", headers=h)
    assert r.status_code == 200, r.text
    return {**r.json(), "last_accessed_at": datetime.fromisoformat(r.json()["last_accessed_at"])}


def _ids(r) -> list[str]:
    assert r.status_code == 200, r.text
    return [x["id"] for x in r.json()["results"]]


def test_filters_on_both_time_axes_and_kinds(api, db) -> None:
    h = api.headers("ret-1", "clade-r")
    _ingest(api, h, db)
    q = {"text": "stETH depeg on Curve", "k": 10, "no_budget": True}
    mine = {"agent_id": "ret-1"}  # not the core mental models every agent sees
    assert set(_ids(api.client.post("/retrieve", headers=h, json={**q, "filters": mine}))) == {
        "r-1", "r-2", "r-3", "r-warn"}
    feb = 1_706_745_600_000  # 2024-02-01
    valid = _ids(api.client.post("/retrieve", headers=h, json={**q, "filters": {"valid_at": feb,
                                                                               "kinds": ["episodes"]}}))
    assert valid == ["r-1", "r-3"] or set(valid) == {"r-1", "r-3"}
    known = db.run("testing/now")[0]["now"] - 10 * DAY  # before anything was recorded
    assert _ids(api.client.post("/retrieve", headers=h, json={**q, "filters": {"known_as_of": known}})) == []
    only_entries = _ids(api.client.post("/retrieve", headers=h, json={**q, "filters": {**mine,
                                                                                      "kinds": ["entries"]}}))
    assert only_entries == ["r-warn"]
    regime = _ids(api.client.post("/retrieve", headers=h, json={**q, "filters": {"regimes": ["low_vol"],
                                                                                "kinds": ["episodes"]}}))
    assert regime == ["r-3"]
    assert _ids(api.client.post("/retrieve", headers=h, json={**q, "filters": {"min_confidence": 0.99,
                                                                              "kinds": ["entries"]}})) == []


def test_explanation_budget_and_bookkeeping(api, db, embedder) -> None:
    h = api.headers("ret-2", "clade-r")
    _ingest(api, h, db)
    tokens = dict(zip(["r-1", "r-2", "r-3", "r-warn"], embedder.count_tokens([*TEXTS.values(), WARNING]),
                      strict=True))
    # The data the budget check rests on: r-warn (17 tokens) and r-3 (10) fit in 30 together; after
    # r-warn, neither r-1 (14) nor r-2 (15) does.
    assert tokens["r-warn"] + tokens["r-3"] <= 30 < tokens["r-warn"] + min(tokens["r-1"], tokens["r-2"])
    before = {i: _item(api, h, i) for i in tokens}
    r = api.client.post("/retrieve", headers=h, json={"text": QUERY, "k": 4, "explain": True, "budget": 30,
                                                       "for_decision": True, "filters": {"agent_id": "ret-2"}})
    body = r.json()
    assert r.status_code == 200 and body["budget"] == 30
    top = body["results"][0]
    # r-warn ranks first: the only item valid from now (recency 1; the episodes are from 2024) and
    # of quality 0.7 (the episodes' importance is routine, 0.25).
    assert top["id"] == "r-warn" and top["rank"] == 1
    ex = top["explain"]
    assert set(ex["backends"]) <= {"vector", "bm25", "graph"} and ex["backends"]["vector"]["rank"] >= 1
    assert set(ex["factors"]) == {"rrf", "effective_confidence", "quality", "recency", "regime_match"}
    assert ex["rrf"] > 0 and ex["factors"]["quality"] == pytest.approx(0.7)
    # 30 tokens hold r-warn and r-3; r-1 and r-2 are cut for the budget, whatever their order.
    kept = {x["id"] for x in body["results"]}
    assert kept == {"r-warn", "r-3"} and body["tokens"] == tokens["r-warn"] + tokens["r-3"]
    assert {c["id"]: c["explain"]["cut"].split(":")[0] for c in body["cut"]} == {"r-1": "budget", "r-2": "budget"}
    # for_decision marks what was returned as accessed, never strength; what the budget cut is untouched.
    after = {i: _item(api, h, i) for i in tokens}
    for i in kept:
        assert after[i]["last_accessed_at"] > before[i]["last_accessed_at"], i
    for i in ("r-1", "r-2"):
        assert after[i]["last_accessed_at"] == before[i]["last_accessed_at"], i
    assert after["r-warn"]["strength"] == before["r-warn"]["strength"] == 1.0
    assert after["r-warn"]["confidence"] == before["r-warn"]["confidence"]
    # The read is logged in the access log, not the audit trail.
    touched = [r["record"]["action"] for r in db.run("testing/access_records")]
    assert touched.count("retrieval.for_decision") == 1
    assert "retrieval.access" not in db.run("testing/audit_actions")[0]["actions"]
    # The graph backend brings the thread neighbour of a strong hit, however unlike the query it reads.
    fillers = [{"id": f"fill-{i}", "type": "observation", "text": f"Depeg watch {i}: stETH on Curve at 0.9{i}"}
               for i in range(6)]
    fillers.append({"id": "r-next", "type": "action", "text": "Then we closed every leveraged position",
                    "follows": "r-1"})
    assert api.client.post("/episodes/batch", headers=h, json={"episodes": fillers}).status_code == 201
    r = api.client.post("/retrieve", headers=h, json={"text": QUERY, "k": 20, "explain": True,
                                                       "no_budget": True, "filters": {"kinds": ["episodes"]}})
    found = {x["id"]: x["explain"]["backends"] for x in r.json()["results"]}
    assert found["r-next"]["graph"]["via"] == ["thread"]


def test_visibility_and_bad_requests(api, db) -> None:
    h = api.headers("ret-3", "clade-r")
    _ingest(api, h, db)
    stranger = api.headers("ret-4", "clade-other")
    r = api.client.post("/retrieve", headers=stranger, json={"text": "stETH depeg on Curve", "no_budget": True})
    # Only the core mental models, which every agent sees (graph/knowledge/mental_models.py).
    assert [i for i in _ids(r) if not i.startswith("mental-model:")] == []
    for bad in [{"k": 5}, {"text": "x", "vector": [0.1, 0.2]}, {"text": "x", "mode": "psychic"},
                {"text": "x", "filters": {"kinds": ["dreams"]}}, {"mode": "bm25", "vector": [0.0] * 384}]:
        assert api.client.post("/retrieve", headers=h, json=bad).status_code == 422, bad


# The scoring modes, independently of graph/retrieval: the spec's weights and constants.
IMPORTANCE = {"routine": 0.25, "notable": 0.5, "critical": 0.75, "emergency": 1.0}
EPISODE_HALF_LIFE = 48 * HOUR
AT = 1_710_115_200_000  # 2024-03-11T00:00Z: the time the score modes score at (filters.valid_at)
MOOD = [-0.6, 0.5, -0.2]  # anxious
MODE_DATA: dict[str, dict[str, Any]] = {
    "r-1": {"importance": "critical", "block": 19_000_000,
            "emotional_tag": {"primary": "fear", "pleasure": -0.8, "arousal": 0.6, "dominance": -0.3}},
    "r-2": {"importance": "routine", "block": 19_000_400,
            "emotional_tag": {"primary": "joy", "pleasure": 0.5, "arousal": 0.2, "dominance": 0.4}},
    "r-3": {"importance": "notable", "block": 19_000_100},
}
LAST_ACCESS = {"r-1": AT - 24 * HOUR, "r-2": AT - 96 * HOUR, "r-3": AT - 12 * HOUR}


def _cos(a: Sequence[float], b: Sequence[float]) -> float:
    va, vb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(va @ vb / (np.linalg.norm(va) * np.linalg.norm(vb)))


def _pad(i: str) -> list[float] | None:
    tag = MODE_DATA[i].get("emotional_tag")
    return [tag["pleasure"], tag["arousal"], tag["dominance"]] if tag else None


def _four_factor(i: str, semantic: float) -> dict[str, float]:
    """semantic 0.40, temporal 0.20 (retention on the episode half-life, strength 1), importance
    0.25, emotional congruence 0.15 ((1 + PAD cosine) / 2, 0.5 without PAD)."""
    pad = _pad(i)
    f = {"semantic": semantic, "temporal": math.exp(-(AT - LAST_ACCESS[i]) / EPISODE_HALF_LIFE),
         "importance": IMPORTANCE[MODE_DATA[i]["importance"]],
         "emotional": (1 + _cos(pad, MOOD)) / 2 if pad else 0.5}
    f["score"] = 0.40 * f["semantic"] + 0.20 * f["temporal"] + 0.25 * f["importance"] + 0.15 * f["emotional"]
    return f


def _generative_agents(i: str, relevance: float, block: int | None) -> dict[str, float]:
    """0.3 recency (0.999 per block behind, else 0.995 per hour since valid_from) + 0.3 importance
    + 0.4 relevance."""
    recency = (math.exp(-0.001 * (block - MODE_DATA[i]["block"])) if block is not None
               else math.exp(-0.005 * (AT - VALID_FROM[i]) / HOUR))
    f = {"recency": recency, "importance": IMPORTANCE[MODE_DATA[i]["importance"]], "relevance": relevance}
    f["score"] = 0.3 * f["recency"] + 0.3 * f["importance"] + 0.4 * f["relevance"]
    return f


def _ranking(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=lambda i: (-scores[i], i))


def _set_last_access(db, times: dict[str, int]) -> None:
    """Places episodes' decay clocks (last access) at given times, as time passing would."""
    with db.session() as s:
        s.run("UNWIND $rows AS row MATCH (e:Episode {id: row.id}) SET e.last_accessed_at = row.at",
              rows=[{"id": i, "at": t} for i, t in times.items()]).consume()


def test_the_other_modes(api, db, embedder) -> None:
    h = api.headers("ret-5", "clade-r")
    _ingest(api, h, db, MODE_DATA)
    ids = list(TEXTS)
    query = embedder.embed_one(QUERY)
    cosine = {i: _cos(v, query) for i, v in zip(ids, embedder.embed(list(TEXTS.values())), strict=True)}
    base = {"text": QUERY, "no_budget": True, "filters": {"kinds": ["episodes"]}, "explain": True}

    def ask(**extra: Any) -> list[dict[str, Any]]:
        r = api.client.post("/retrieve", headers=h, json={**base, **extra})
        assert r.status_code == 200, r.text
        return r.json()["results"]

    # vector: every visible episode by cosine to the query, the score the cosine itself.
    got = ask(mode="vector")
    assert [x["id"] for x in got] == _ranking(cosine) == ["r-2", "r-1", "r-3"]
    for x in got:
        assert x["score"] == pytest.approx(cosine[x["id"]], abs=1e-5), x["id"]
    # bm25: only what shares a query term (r-3 shares none); r-1 and r-2 hold "steth", "depeg" and
    # "curve" once each, and r-1 is the shorter (7 terms to 8 once stop words go): it ranks first.
    got = ask(mode="bm25")
    assert [x["id"] for x in got] == ["r-1", "r-2"] and got[0]["score"] > got[1]["score"] > 0
    # fusion: RRF (k 60) of those two lists, nothing else: r-1 and r-2 tie (1/61 + 1/62), by id.
    vector_rank = {i: n for n, i in enumerate(_ranking(cosine), start=1)}
    bm25_rank = {"r-1": 1, "r-2": 2}
    fused = {i: 1 / (60 + vector_rank[i]) + (1 / (60 + bm25_rank[i]) if i in bm25_rank else 0.0) for i in ids}
    got = ask(mode="fusion")
    assert [x["id"] for x in got] == _ranking(fused) == ["r-1", "r-2", "r-3"]
    for x in got:
        assert x["score"] == pytest.approx(fused[x["id"]], rel=1e-12), x["id"]

    # replay (Mattar-Daw): |gain| / max |gain| x need, need = 1 / hours since last replayed (at least
    # one); only episodes with a gain. Fresh, both need 1: 40/40 before 15/40.
    replay = api.client.post("/retrieve", headers=h, json={"mode": "replay", "k": 5, "no_budget": True,
                                                            "explain": True}).json()["results"]
    assert [(x["id"], x["score"]) for x in replay] == [("r-1", 1.0), ("r-2", 0.375)]
    assert [x["explain"]["factors"] for x in replay] == [{"gain": 1.0, "need": 1.0}, {"gain": 0.375, "need": 1.0}]
    # r-1 last replayed 100 hours ago: need ~1/100, so the smaller gain that is due comes first.
    _set_last_access(db, {"r-1": db.run("testing/now")[0]["now"] - 100 * HOUR})
    replay = api.client.post("/retrieve", headers=h, json={"mode": "replay", "k": 5, "no_budget": True,
                                                            "explain": True}).json()["results"]
    assert [x["id"] for x in replay] == ["r-2", "r-1"]
    assert replay[0]["score"] == 0.375 and replay[1]["score"] == pytest.approx(1 / 100, rel=1e-2)

    # The score modes at a pinned time: the episodes' decay clocks at known distances before it. Their
    # final score blends in the term overlap (0.7 x score + 0.3 x overlap): the query's terms steth,
    # depeg and curve are each in 2 of the 3 visible episodes (r-1 and r-2 hold all three; r-3 none), so
    # each weighs ln(4/3) / ln(4) and r-1 and r-2 overlap by that much.
    _set_last_access(db, LAST_ACCESS)
    pinned = {**base["filters"], "valid_at": AT}
    overlap = {"r-1": math.log(4 / 3) / math.log(4), "r-2": math.log(4 / 3) / math.log(4), "r-3": 0.0}
    four = {i: _four_factor(i, cosine[i]) for i in ids}
    final = {i: 0.7 * f["score"] + 0.3 * overlap[i] for i, f in four.items()}
    got = ask(mode="four_factor", mood=MOOD, filters=pinned)
    # r-1: critical and mood-congruent, ahead of r-2, the closest to the query.
    assert [x["id"] for x in got] == _ranking(final) == ["r-1", "r-2", "r-3"]
    for x in got:
        expected = four[x["id"]]
        assert x["explain"]["mode_score"] == pytest.approx(expected["score"], abs=1e-6), x["id"]
        assert x["explain"]["term_overlap"] == pytest.approx(overlap[x["id"]], abs=1e-9), x["id"]
        assert x["score"] == pytest.approx(final[x["id"]], abs=1e-6), x["id"]
        assert x["explain"]["factors"] == pytest.approx({k: v for k, v in expected.items() if k != "score"},
                                                        abs=1e-6), x["id"]
    # Generative Agents by blocks (at block 19,000,500), then by hours since valid_from (at AT).
    for block, order in ((19_000_500, ["r-2", "r-1", "r-3"]), (None, ["r-2", "r-1", "r-3"])):
        ga = {i: _generative_agents(i, cosine[i], block) for i in ids}
        final = {i: 0.7 * f["score"] + 0.3 * overlap[i] for i, f in ga.items()}
        got = ask(mode="generative_agents", filters=pinned, **({"block": block} if block else {}))
        assert [x["id"] for x in got] == _ranking(final) == order, block
        for x in got:
            expected = ga[x["id"]]
            assert x["explain"]["mode_score"] == pytest.approx(expected["score"], abs=1e-6), (block, x["id"])
            assert x["score"] == pytest.approx(final[x["id"]], abs=1e-6), (block, x["id"])
            assert x["explain"]["factors"] == pytest.approx({k: v for k, v in expected.items() if k != "score"},
                                                            abs=1e-6), (block, x["id"])

    none = api.client.post("/retrieve", headers=h, json={**base, "adaptive": True, "curiosity": 0.05,
                                                         "arousal": 0.1, "coverage": 10}).json()
    assert none["decision"] == "none" and none["results"] == []
    # Light: k 3 of the four visible items, where a full retrieval gives all four.
    both = {"text": QUERY, "no_budget": True, "adaptive": True, "arousal": 0.1, "coverage": 0,
            "filters": {"agent_id": "ret-5"}}
    light = api.client.post("/retrieve", headers=h, json={**both, "curiosity": 0.5}).json()
    assert light["decision"] == "light" and len(light["results"]) == 3
    full = api.client.post("/retrieve", headers=h, json={**both, "curiosity": 0.9}).json()
    assert full["decision"] == "full" and len(full["results"]) == 4


def test_filtered_vector_candidates_still_find_the_k_best_visible(api, db) -> None:
    """Another agent's many near-identical items crowd the approximate index's first answer; the
    backend asks again for more (then exactly), so the viewer still gets its own best items."""
    mine = api.headers("ret-6", "clade-r")
    crowd = api.headers("ret-7", "clade-crowd")
    others = [{"id": f"crowd-{i}", "type": "observation", "text": f"Curve stETH depeg alert number {i}"}
              for i in range(80)]
    assert api.client.post("/episodes/batch", headers=crowd, json={"episodes": others}).status_code == 201
    own = [{"id": f"own-{i}", "type": "observation", "text": t} for i, t in
           enumerate(["Lido withdrawals queue grew", "Gas was cheap on Sunday", "I rebalanced into USDC"])]
    assert api.client.post("/episodes/batch", headers=mine, json={"episodes": own}).status_code == 201
    r = api.client.post("/retrieve", headers=mine, json={"text": "Curve stETH depeg alert", "mode": "vector",
                                                         "k": 3, "no_budget": True, "filters": {"kinds": ["episodes"]}})
    assert sorted(_ids(r)) == ["own-0", "own-1", "own-2"]
