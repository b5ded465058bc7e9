"""Each retrieval stage on hand-made inputs whose right answer is known by hand."""

from __future__ import annotations

import dataclasses
import math

import pytest

from grimoire.graph.knowledge.decay import DAY_MS, DecayConfig
from grimoire.graph.retrieval import budget, rerank
from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.retrieval.decision import RetrievalDecision, decide, replay_utility
from grimoire.graph.retrieval.fusion import rrf, rrf_ceiling
from grimoire.graph.retrieval.modes import four_factor, generative_agents

NOW = 1_800_000_000_000
CFG, DECAY = RetrievalConfig(), DecayConfig()


def test_rrf_arithmetic() -> None:
    fused = rrf({"vector": ["a", "b", "c"], "bm25": ["b", "d"], "graph": ["d"]}, k=60)
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["c"] == pytest.approx(1 / 63)
    assert fused["d"] == pytest.approx(1 / 62 + 1 / 61)
    assert list(fused) == ["b", "d", "a", "c"]  # ties broken by id
    weighted = rrf({"vector": ["a"], "bm25": ["b"]}, k=60, weights={"vector": 1.0, "bm25": 0.5})
    assert weighted == {"a": pytest.approx(1 / 61), "b": pytest.approx(0.5 / 61)}
    assert rrf_ceiling(["vector", "bm25", "graph"], 60) == pytest.approx(3 / 61)


def _entry(**kw) -> Candidate:
    base = {"id": "x", "kind": "entry", "confidence": 0.8, "half_life_ms": 7 * DAY_MS, "strength": 1.0,
            "last_accessed_at": NOW, "valid_from": NOW, "quality_score": 0.6, "regime": "bull",
            "is_bloodstain": False}
    return Candidate(**{**base, **kw})


def test_each_rerank_factor() -> None:
    f = rerank.factors(_entry(), 0.5, now=NOW, regime="bull", config=CFG, decay=DECAY)
    assert f == {"rrf": 0.5, "effective_confidence": pytest.approx(0.8), "quality": 0.6, "recency": 1.0,
                 "regime_match": 1.0}
    assert rerank.score(f, _entry(), CFG) == pytest.approx(0.5 * 0.30 + 0.8 * 0.25 + 0.6 * 0.20 + 0.15 + 0.10)
    # Effective confidence decays with the entry's half-life since last access: exp(-1) after one.
    old = rerank.factors(_entry(last_accessed_at=NOW - 7 * DAY_MS), 0.5, now=NOW, regime=None, config=CFG,
                         decay=DECAY)
    assert old["effective_confidence"] == pytest.approx(0.8 * math.exp(-1)) and old["regime_match"] == 0.0
    # Recency halves every 7 days of age; episodes take quality from their importance.
    aged = rerank.factors(_entry(valid_from=NOW - 14 * DAY_MS), 0, now=NOW, regime=None, config=CFG, decay=DECAY)
    assert aged["recency"] == pytest.approx(0.25)
    episode = Candidate(id="e", kind="episode", importance="critical", last_accessed_at=NOW - 2 * DAY_MS,
                        valid_from=NOW)
    ef = rerank.factors(episode, 0, now=NOW, regime=None, config=CFG, decay=DECAY)
    assert ef["quality"] == 0.75 and ef["effective_confidence"] == pytest.approx(math.exp(-1))
    # The bloodstain boost multiplies the final score by 1.2.
    assert rerank.score(f, _entry(is_bloodstain=True), CFG) == pytest.approx(1.2 * rerank.score(f, _entry(), CFG))


def test_mmr_removes_a_near_duplicate_and_reorders() -> None:
    items = [Candidate(id="a", kind="entry", score=1.0, embedding=[1.0, 0.0, 0.0]),
             Candidate(id="a-copy", kind="entry", score=0.99, embedding=[0.999, 0.04, 0.0]),
             Candidate(id="b", kind="entry", score=0.9, embedding=[0.6, 0.8, 0.0]),
             Candidate(id="c", kind="entry", score=0.85, embedding=[0.0, 0.0, 1.0])]
    kept, cut = rerank.mmr(items, lam=0.7, top=10, duplicate_threshold=0.95)
    assert [x.id for x in cut] == ["a-copy"] and cut[0].similar_to == "a"
    # After a: b scores 0.7*0.9 - 0.3*0.6 = 0.45, c scores 0.7*0.85 - 0 = 0.595, so c comes before b.
    assert [x.id for x in kept] == ["a", "c", "b"]
    assert kept[1].mmr == pytest.approx(0.595) and kept[2].mmr == pytest.approx(0.7 * 0.9 - 0.3 * 0.6)


def test_mmr_weighs_the_heads_spread_of_relevance_not_the_score_every_item_shares() -> None:
    """Scores 0.60, 0.59, 0.50 share 0.5 that flat factors gave every item: by ratio the third is 0.83 as relevant
    as the first and its dissimilarity carries it to second place; read min-max (the default since issue 22) it
    is the least relevant, and the near-but-not-duplicate second keeps its place."""
    def head() -> list[Candidate]:
        return [Candidate(id="a", kind="episode", score=0.60, embedding=[1.0, 0.0]),
                Candidate(id="b", kind="episode", score=0.59, embedding=[0.8, 0.6]),
                Candidate(id="c", kind="episode", score=0.50, embedding=[0.0, 1.0])]
    assert rerank.relevance([0.6, 0.59, 0.5], "min_max") == pytest.approx([1.0, 0.9, 0.0])
    assert rerank.relevance([0.6, 0.3], "ratio") == pytest.approx([1.0, 0.5])
    assert rerank.relevance([0.4, 0.4], "min_max") == [1.0, 1.0]
    assert [x.id for x in rerank.mmr(head(), lam=0.7, top=10, duplicate_threshold=0.95, normalise="ratio")[0]] \
        == ["a", "c", "b"]
    assert [x.id for x in rerank.mmr(head(), lam=0.7, top=10, duplicate_threshold=0.95, normalise="min_max")[0]] \
        == ["a", "b", "c"]
    assert RetrievalConfig().mmr_relevance == "min_max" and RetrievalConfig().mmr_lambda == 0.7  # the spec's


def test_mmr_keeps_an_item_whose_embedding_is_gone() -> None:
    """A crystal expired while the request ran has no embedding left to read: it is unlike every other."""
    items = [Candidate(id="a", kind="entry", score=1.0, embedding=[1.0, 0.0, 0.0]),
             Candidate(id="gone", kind="episode", score=0.9, embedding=None),
             Candidate(id="b", kind="entry", score=0.8, embedding=[0.0, 1.0, 0.0])]
    kept, cut = rerank.mmr(items, lam=0.7, top=10, duplicate_threshold=0.95)
    assert [x.id for x in kept] == ["a", "gone", "b"] and not cut


def test_the_budget_cut() -> None:
    items = [Candidate(id=i, kind="episode", text=" ".join(["w"] * n))
             for i, n in [("a", 200), ("b", 250), ("c", 100), ("d", 40)]]
    kept, cut = budget.cut(items, 500, budget.whitespace_tokens)
    assert [x.id for x in kept] == ["a", "b", "d"] and [x.id for x in cut] == ["c"]
    assert sum(x.tokens or 0 for x in kept) == 490
    kept, cut = budget.cut(items, None, budget.whitespace_tokens)
    assert len(kept) == 4 and not cut


def test_four_factor_and_generative_agents_scores() -> None:
    item = _entry(embedding=[1.0, 0.0], pad=[0.5, 0.2, 0.1], quality_score=0.4, last_accessed_at=NOW)
    f = four_factor.score(item, [1.0, 0.0], now=NOW, mood=[0.5, 0.2, 0.1], config=CFG, decay=DECAY)
    assert f["semantic"] == pytest.approx(1.0) and f["temporal"] == pytest.approx(1.0)
    assert f["emotional"] == pytest.approx(1.0) and f["score"] == pytest.approx(0.40 + 0.20 + 0.4 * 0.25 + 0.15)
    opposite = four_factor.score(item, [0.0, 1.0], now=NOW, mood=[-0.5, -0.2, -0.1], config=CFG, decay=DECAY)
    assert opposite["semantic"] == 0.0 and opposite["emotional"] == pytest.approx(0.0)
    ga = generative_agents.score(dataclasses.replace(item, block=1_000), [1.0, 0.0], now=NOW, block=2_000,
                                 config=CFG)
    assert ga["recency"] == pytest.approx(math.exp(-1.0))
    assert ga["score"] == pytest.approx(0.3 * math.exp(-1.0) + 0.3 * 0.4 + 0.4 * 1.0)


def test_adaptive_decision_and_replay_utility() -> None:
    assert decide(0.9, 0.0, 0) == RetrievalDecision.full
    assert decide(0.3, 0.9, 10) == RetrievalDecision.semantic_only
    assert decide(0.05, 0.1, 10) == RetrievalDecision.none
    assert decide(0.5, 0.8, 0) == RetrievalDecision.full
    assert decide(0.5, 0.2, 0) == RetrievalDecision.light
    assert replay_utility(-50, 100, 10) == pytest.approx(0.05)
    assert replay_utility(100, 100, 0.2) == pytest.approx(1.0)  # need is capped at one hour
