"""The hybrid pipeline's last stages inside a live POST /retrieve: the bloodstain boost, MMR
diversity (against the same retrieval with diversity off) and contrarian injection
(anti-rumination), each checked against values computed here from the spec's rules."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from grimoire.api.app import create_app
from grimoire.graph.retrieval.config import RetrievalConfig
from tests.conftest import ADMIN_KEY

# The spec's rerank (Hybrid Retrieval Pipeline): the weighted sum of the five factors, times 1.2
# for bloodstain entries; MMR with lambda 0.7 on the top 10, near-duplicates (cosine 0.95) cut.
RERANK = {"rrf": 0.30, "effective_confidence": 0.25, "quality": 0.20, "recency": 0.15, "regime_match": 0.10}
LAMBDA, DUPLICATE = 0.7, 0.95


@pytest.fixture
def live(api, neo4j_server, embedder):
    """Another app over the same database (agents and keys included) with some retrieval
    constants changed, as GRIMOIRE_RETRIEVAL would change them."""

    @contextmanager
    def make(**config: Any) -> Iterator[TestClient]:
        settings = neo4j_server.settings(admin_key=ADMIN_KEY, retrieval=RetrievalConfig(**config))
        with TestClient(create_app(settings, db=api.db, embedder=embedder)) as c:
            yield c

    return make


def _base(factors: dict[str, float]) -> float:
    return sum(RERANK[name] * factors[name] for name in RERANK)


def _cos(a: Sequence[float], b: Sequence[float]) -> float:
    va, vb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(va @ vb / (np.linalg.norm(va) * np.linalg.norm(vb)))


def _retrieve(client: TestClient, headers: dict[str, str], **body: Any) -> dict[str, Any]:
    r = client.post("/retrieve", headers=headers, json=body)
    assert r.status_code == 200, r.text
    return r.json()


# ---------------------------------------------------------------- bloodstain boost

LESSON = "Never post stETH as collateral when the Curve pool holds less than 40% ETH"


def _twins(api) -> None:
    """The same lesson from two golems: one died producing it (a bloodstain), one did not. Each is
    private to its own clade, so the Admission Gate judges each alone; both at confidence 0.6."""
    for agent, clade, bloodstain in (("golem-dead", "clade-d", True), ("golem-alive", "clade-e", False)):
        r = api.client.post("/entries", headers=api.headers(agent, clade), json={
            "id": f"lesson-{agent.removeprefix('golem-')}", "category": "Warning", "content": LESSON,
            "provenance": "DeathReflection", "is_bloodstain": bloodstain, "confidence": 0.6})
        assert r.status_code == 201 and r.json()["outcome"] == "admitted", r.text


@pytest.mark.parametrize("boost", [None, 1.5])
def test_bloodstain_entry_ranks_above_its_twin_by_the_configured_factor(api, live, boost: float | None) -> None:
    _twins(api)
    factor = 1.2 if boost is None else boost  # the spec's 1.2 by default
    config: dict[str, Any] = {"mmr_top": 1} if boost is None else {"mmr_top": 1, "bloodstain_boost": boost}
    with live(**config) as client:  # mmr_top 1: diversity off, so the identical twins both stay
        body = _retrieve(client, api.admin, text="stETH collateral and the Curve pool balance", k=5,
                         no_budget=True, explain=True, filters={"kinds": ["entries"]})
    got = {x["id"]: x for x in body["results"]}
    assert [x["id"] for x in body["results"]] == ["lesson-dead", "lesson-alive"]
    dead, alive = got["lesson-dead"], got["lesson-alive"]
    assert dead["explain"]["bloodstain_boost"] is True and alive["explain"]["bloodstain_boost"] is False
    # The twins differ in nothing the rerank weighs but the fused rank their tie got (1/61 or 1/62).
    for name in ("effective_confidence", "quality", "recency", "regime_match"):
        assert dead["explain"]["factors"][name] == pytest.approx(alive["explain"]["factors"][name], abs=1e-4), name
    assert dead["explain"]["factors"]["rrf"] == pytest.approx(alive["explain"]["factors"]["rrf"], rel=0.02)
    assert dead["score"] == pytest.approx(factor * _base(dead["explain"]["factors"]), rel=1e-9)
    assert alive["score"] == pytest.approx(_base(alive["explain"]["factors"]), rel=1e-9)
    assert dead["score"] / alive["score"] == pytest.approx(factor, rel=0.01)


def test_the_bloodstain_survives_diversity_and_its_twin_is_cut(api) -> None:
    """With the defaults (MMR on), the twins are near-duplicates: the boosted one is kept."""
    _twins(api)
    body = _retrieve(api.client, api.admin, text="stETH collateral and the Curve pool balance", k=5,
                     no_budget=True, explain=True, filters={"kinds": ["entries"]})
    assert [x["id"] for x in body["results"]] == ["lesson-dead"]
    assert [(c["id"], c["explain"]["cut"]) for c in body["cut"]] == [
        ("lesson-alive", "diversity: a near-duplicate of lesson-dead")]


# ---------------------------------------------------------------- MMR

MMR_TEXTS = {
    "rate": "Aave WETH borrow rate spiked to 9 percent as utilisation passed 92 percent",
    "rate-copy": "Aave WETH borrow rate spiked to 9 percent as utilisation passed 92 percent!",
    "rate-again": "The WETH borrow rate on Aave jumped to 9% once utilisation went above 92%",
    "liquidations": "Liquidations on Aave cascaded after the ETH price fell 12 percent in an hour",
    "gas": "Gas on Ethereum mainnet stayed under 10 gwei all weekend",
}
MMR_QUERY = "Aave WETH borrow rate and liquidations"


def _mmr(scores: dict[str, float], vectors: dict[str, Sequence[float]],
         top: int = 10) -> tuple[list[tuple[str, float]], dict[str, str]]:
    """Maximal marginal relevance as the spec states it, over the `top` best by score: each pick
    maximises lambda * relevance - (1 - lambda) * the highest cosine to what was picked, relevance read
    min-max within those `top` (RetrievalConfig.mmr_relevance, since issue 22); one
    within cosine 0.95 of a pick is a near-duplicate and is cut. Returns the picks with their
    MMR values, and each cut item with the pick it duplicates."""
    ranked = sorted(scores, key=lambda i: (-scores[i], i))
    head, tail = ranked[:top], ranked[top:]
    lo, hi = min(scores[i] for i in head), scores[head[0]]
    rel = {i: (scores[i] - lo) / (hi - lo) if hi > lo else 1.0 for i in head}
    picked: list[tuple[str, float]] = []
    cut: dict[str, str] = {}
    left = list(head)
    while left:
        def value(i: str) -> float:
            return LAMBDA * rel[i] - (1 - LAMBDA) * max((_cos(vectors[i], vectors[j]) for j, _ in picked),
                                                                  default=0.0)

        i = max(left, key=lambda j: (value(j), -head.index(j)))
        left.remove(i)
        similar = max(picked, key=lambda p: _cos(vectors[i], vectors[p[0]]), default=None)
        if similar is not None and _cos(vectors[i], vectors[similar[0]]) >= DUPLICATE:
            cut[i] = similar[0]
            continue
        picked.append((i, value(i)))
    return picked + [(i, float("nan")) for i in tail], cut


def test_mmr_cuts_near_duplicates_and_lifts_a_diverse_item_over_a_paraphrase(api, live, embedder) -> None:
    h = api.headers("golem-m", "clade-m")
    episodes = [{"id": i, "type": "observation", "text": t} for i, t in MMR_TEXTS.items()]
    assert api.client.post("/episodes/batch", headers=h, json={"episodes": episodes}).status_code == 201
    vectors = dict(zip(MMR_TEXTS, embedder.embed(list(MMR_TEXTS.values())), strict=True))
    sim = lambda a, b: _cos(vectors[a], vectors[b])  # noqa: E731
    # The data: "rate-copy" is a near-duplicate of "rate"; "rate-again" a paraphrase, close but
    # under the cut; "liquidations" on the same query, far from both.
    assert sim("rate", "rate-copy") >= DUPLICATE > sim("rate", "rate-again") > 0.8
    assert sim("rate", "liquidations") < 0.6
    query = {"text": MMR_QUERY, "k": 10, "no_budget": True, "explain": True}

    with live(mmr_top=1) as client:  # diversity off: the order of the rerank scores
        off = _retrieve(client, h, **query)
    on = _retrieve(api.client, h, **query)  # the defaults: MMR on the top 10
    scores = {x["id"]: x["score"] for x in on["results"] + on["cut"]}
    assert set(scores) == set(MMR_TEXTS) and on["cut"] and all(x["explain"]["mmr"] is None for x in off["results"])
    by_score = sorted(scores, key=lambda i: (-scores[i], i))
    assert [x["id"] for x in off["results"]] == by_score
    # Without diversity the rate items fill the top of the list; the liquidation item comes after them.
    assert by_score.index("liquidations") > max(by_score.index("rate"), by_score.index("rate-again"))

    picked, duplicates = _mmr(scores, vectors)
    assert [x["id"] for x in on["results"]] == [i for i, _ in picked]
    for x, (i, value) in zip(on["results"], picked, strict=True):
        assert x["explain"]["mmr"] == pytest.approx(value, abs=1e-6), i
    # One of the two copies is cut, as a near-duplicate of the other (the better scored one is kept).
    kept_copy, cut_copy = sorted(["rate", "rate-copy"], key=lambda i: (-scores[i], i))
    assert duplicates == {cut_copy: kept_copy}
    assert [(c["id"], c["explain"]["cut"]) for c in on["cut"]] == [
        (cut_copy, f"diversity: a near-duplicate of {kept_copy}")]
    # The diverse liquidation item now comes second, ahead of the paraphrase it trailed by score.
    order = [x["id"] for x in on["results"]]
    assert order[:2] == [kept_copy, "liquidations"] and order.index("rate-again") > 1


# ---------------------------------------------------------------- contrarian injection

ANXIOUS, NEUTRAL, CONFIDENT = [-0.6, 0.5, -0.2], [0.0, 0.5, 0.0], [0.7, 0.3, 0.5]
FEELINGS: dict[str, tuple[str, float | None]] = {
    # id: (content, PAD pleasure at encoding; None: no emotional tag). Four of each valence: two
    # remain to be injected whichever two the retrieval itself returns.
    "fear-1": ("The stETH depeg on Curve wiped out our leveraged stETH position overnight", -0.8),
    "fear-2": ("Curve pool imbalance made every stETH exit painfully expensive", -0.6),
    "calm-1": ("The stETH peg on Curve recovered and holding through the dip was profitable", 0.7),
    "calm-2": ("Patience paid: a calm exit from Curve LP earned the full trading fees", 0.5),
    "fear-3": ("Our Aave health factor fell to 1.02 and we nearly lost the vault", -0.7),
    "fear-4": ("A governance delay left our funds stuck for a week", -0.5),
    "calm-3": ("Gas was cheap all weekend, a good time to rebalance the vault", 0.6),
    "calm-4": ("The new lending market launched smoothly and our deposits earned well", 0.4),
    "plain": ("Curve stETH pool depth is about 400 million dollars", None),
}
CONTRARIAN_QUERY = "stETH depeg on Curve"


def test_contrarian_entries_are_injected_every_nth_retrieval_for_a_decision(api, live, embedder) -> None:
    h = api.headers("golem-c", "clade-c")
    for entry_id, (content, pleasure) in FEELINGS.items():
        body: dict[str, Any] = {"id": entry_id, "category": "Insight", "content": content}
        if pleasure is not None:
            body["emotional_tag"] = {"pleasure": pleasure, "arousal": 0.5, "dominance": 0.0}
        r = api.client.post("/entries", headers=h, json=body)
        assert r.status_code == 201 and r.json()["outcome"] in ("admitted", "admitted_low"), r.text
    query = embedder.embed_one(CONTRARIAN_QUERY)
    cosine = {i: _cos(v, query) for i, v in zip(FEELINGS, embedder.embed([c for c, _ in FEELINGS.values()]),
                                                 strict=True)}

    def expected(mood: list[float], chosen: list[str]) -> list[str]:
        """The two entries of the opposite valence, not already returned, most similar to the query."""
        opposite = [i for i, (_, p) in FEELINGS.items() if p is not None and p * mood[0] < 0 and i not in chosen]
        return sorted(opposite, key=lambda i: -cosine[i])[:2]

    with live(contrarian_every=3) as client:  # every 3rd retrieval for a decision instead of every 100th
        def ask(mood: list[float] | None, for_decision: bool = True) -> list[dict[str, Any]]:
            return _retrieve(client, h, text=CONTRARIAN_QUERY, k=2, no_budget=True, explain=True,
                             for_decision=for_decision, **({"mood": mood} if mood else {}))["results"]

        def plain(results: list[dict[str, Any]]) -> None:
            assert len(results) == 2 and not any(x.get("contrarian") for x in results), results

        plain(ask(ANXIOUS))                      # 1st retrieval for a decision
        plain(ask(ANXIOUS, for_decision=False))  # not for a decision: not counted
        plain(ask(None))                         # no mood: nothing to be contrary to, not counted
        plain(ask(ANXIOUS))                      # 2nd
        third = ask(ANXIOUS)                     # 3rd: two calm entries join the two results
        chosen = [x["id"] for x in third[:2]]
        assert not any(x.get("contrarian") for x in third[:2])
        assert [x["id"] for x in third[2:]] == expected(ANXIOUS, chosen) and len(third) == 4
        assert not set(chosen) & {x["id"] for x in third[2:]}  # nothing twice
        for rank, x in enumerate(third[2:], start=3):
            assert x["contrarian"] is True and x["rank"] == rank and FEELINGS[x["id"]][1] > 0  # type: ignore[operator]
            assert x["score"] == pytest.approx(cosine[x["id"]], abs=1e-5)  # its similarity to the query
        plain(ask(NEUTRAL))                      # 4th: a neutral mood has no opposite
        plain(ask(CONFIDENT))                    # 5th
        sixth = ask(CONFIDENT)                   # 6th: overconfident, so warnings and losses come back
        assert [x["id"] for x in sixth[2:]] == expected(CONFIDENT, [x["id"] for x in sixth[:2]])
        assert len(sixth) == 4 and all(x["contrarian"] and FEELINGS[x["id"]][1] < 0  # type: ignore[operator]
                                       for x in sixth[2:])
        plain(ask(CONFIDENT))                    # 7th
    # Another agent's entries are not its to be shown, contrarian or not.
    other = api.headers("golem-x", "clade-x")
    with live(contrarian_every=1) as client:
        got = _retrieve(client, other, text=CONTRARIAN_QUERY, k=2, no_budget=True, for_decision=True, mood=ANXIOUS)
    assert got["results"] == []
