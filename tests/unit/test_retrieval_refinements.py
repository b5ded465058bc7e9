"""Issue 15's retrieval refinements on hand-made inputs whose right answer is known by hand: the
knowledge weighting hierarchy, the Zeigarnik boost, the term-overlap rerank, the final stages in
their order, Hedge on the Generative Agents weights, and RAPTOR levels in the filters."""

from __future__ import annotations

import math
from concurrent.futures import Future
from typing import Any

import pytest
from pydantic import ValidationError

from grimoire.graph.errors import Invalid
from grimoire.graph.knowledge.decay import DecayConfig
from grimoire.graph.knowledge.mental_models import SYSTEM_AGENT
from grimoire.graph.observe import Stopwatch
from grimoire.graph.retrieval import hedge, stages, term_overlap, weighting, zeigarnik
from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.retrieval.config import RetrievalConfig, SourceWeights
from grimoire.graph.retrieval.context import Context, QueryVector
from grimoire.graph.retrieval.feedback import reward_of
from grimoire.graph.retrieval.filters import RetrievalFilters
from grimoire.graph.retrieval.modes import generative_agents
from grimoire.graph.retrieval.reach import Reach
from grimoire.graph.retrieval.request import RetrievalRequest
from grimoire.graph.retrieval.weights import Weights
from grimoire.graph.visibility import Visibility

ME = weighting.Perspective("golem-1", "clade-a")


def _item(i: str, **kw: Any) -> Candidate:
    return Candidate(id=i, kind=kw.pop("kind", "episode"), **kw)


def test_the_knowledge_weighting_hierarchy() -> None:
    own = _item("a", agent_id="golem-1", clade="clade-a", scope="private")
    sibling = _item("b", agent_id="golem-2", clade="clade-a", scope="shared")
    sibling_public = _item("c", agent_id="golem-2", clade="clade-a", scope="public")
    stranger = _item("d", agent_id="golem-9", clade="clade-z", scope="public")
    core = _item("m", kind="entry", agent_id=SYSTEM_AGENT, scope="public")  # a core mental model
    tiers = [weighting.source(c, ME) for c in (own, sibling, sibling_public, stranger, core)]
    assert tiers == ["own", "clade", "clade", "lethe", "core"]
    assert [weighting.weight(t, SourceWeights()) for t in tiers] == [1.0, 0.8, 0.8, 0.5, 1.0]
    # A caller without a clade has no siblings: everything not its own is from outside.
    assert weighting.source(sibling, weighting.Perspective("golem-1")) == "lethe"
    # The weight always lowers a score and a boost always raises it, whatever its sign.
    assert weighting.scaled(0.6, 0.5) == pytest.approx(0.3)
    assert weighting.scaled(-0.2, 0.5) == pytest.approx(-0.3)
    assert weighting.scaled(-0.2, 1.2) == pytest.approx(-0.16)
    assert weighting.scaled(0.4, 1.0) == 0.4


def test_the_zeigarnik_boost() -> None:
    assert zeigarnik.boost(_item("a", interrupted=True), 1.2) == 1.2
    assert zeigarnik.boost(_item("b"), 1.2) == 1.0
    # The property absent on an old episode reads as not interrupted.
    row = {"id": "old", "kind": "episode", "item": {"text": "swap done"}}
    assert Candidate.from_row(row).interrupted is False
    assert Candidate.from_row({**row, "item": {"text": "swap cut short", "interrupted": True}}).interrupted is True


def test_terms_and_stems() -> None:
    assert term_overlap.terms("What is the stETH depeg on Curve's pools?") == ["what", "steth", "depeg", "curve",
                                                                                  "pools"]
    assert [term_overlap.stem(w) for w in ("pools", "policies", "depegged", "trading", "trade", "gas", "gases")] == [
        "pool", "policy", "depeg", "trad", "trad", "gas", "gas"]
    # Stop words and single letters are no terms; nothing is left of a query of them.
    assert term_overlap.terms("is it a ... s") == []


def test_idf_and_overlap_by_hand() -> None:
    terms = ["steth", "depeg", "curve", "gas"]
    # 9 visible documents: steth in 2, depeg in 8, curve in 0 (none holds it), gas absent from df too.
    idf = term_overlap.idf({"steth": 2, "depeg": 8}, 9, terms)
    assert idf["steth"] == pytest.approx(math.log(10 / 3) / math.log(10))
    assert idf["depeg"] == pytest.approx(math.log(10 / 9) / math.log(10))
    assert idf["curve"] == idf["gas"] == 1.0
    assert term_overlap.idf({"x": 9}, 9, ["x"]) == {"x": pytest.approx(math.log(10 / 10) / math.log(10))}
    text = "Curve stETH pool depegged to 0.94"
    # Found: steth, depeg (depegged), curve; not gas. Sum of their IDF over the 4 query terms.
    expected = (idf["steth"] + idf["depeg"] + idf["curve"]) / 4
    assert term_overlap.overlap(text, terms, idf) == pytest.approx(expected)
    assert term_overlap.overlap(None, terms, idf) == 0.0 and term_overlap.overlap(text, [], idf) == 0.0
    assert term_overlap.blend(0.5, 0.8, 0.3) == pytest.approx(0.7 * 0.5 + 0.3 * 0.8)
    # Nothing visible: every term is as rare as can be.
    assert term_overlap.idf({}, 0, ["a1"]) == {"a1": 1.0}


def _context(text: str, config: RetrievalConfig, *, agent_id: str | None, df: dict[str, int],
             visible: int, mode: str = "hybrid") -> Context:
    req = RetrievalRequest(text=text, mode=mode)
    ctx = Context(db=None, config=config, decay=DecayConfig(), req=req,  # type: ignore[arg-type]
                  visibility=Visibility("golem-1", "clade-a"), filters=req.filters, k=10, now=0,
                  embedding=QueryVector(None, None, lambda _: [], 2), clock=Stopwatch("retrieval"), agent_id=agent_id)
    done_df: Future[dict[str, int]] = Future()
    done_df.set_result(df)
    done_reach: Future[Reach] = Future()
    done_reach.set_result(Reach(visible=visible, total=visible, capped=False))
    ctx._df, ctx._reach = done_df, done_reach
    return ctx


def test_the_final_stages_in_order() -> None:
    """(0.7 x mode score + 0.3 x overlap) x source weight x Zeigarnik boost, best first."""
    cfg = RetrievalConfig(term_overlap={"modes": ["hybrid"]})
    ctx = _context("steth depeg", cfg, agent_id="golem-1", df={"steth": 1, "depeg": 3}, visible=3)
    found = [
        _item("own", agent_id="golem-1", score=0.50, text="nothing relevant here"),
        _item("sibling", agent_id="golem-2", clade="clade-a", score=0.50, text="stETH depeg again"),
        _item("lethe", agent_id="golem-9", clade="z", scope="public", score=0.90, text="steth news"),
        _item("cut-short", agent_id="golem-1", score=0.40, text="depeg trade", interrupted=True),
    ]
    idf = {"steth": math.log(4 / 2) / math.log(4), "depeg": 0.0}
    out = stages.finish(ctx, found)
    by_id = {c.id: c for c in out}
    assert by_id["sibling"].term_overlap == pytest.approx((idf["steth"] + idf["depeg"]) / 2)
    expected = {
        "own": 0.7 * 0.5,
        "sibling": (0.7 * 0.5 + 0.3 * idf["steth"] / 2) * 0.8,
        "lethe": (0.7 * 0.9 + 0.3 * idf["steth"] / 2) * 0.5,
        "cut-short": 0.7 * 0.4 * 1.2,
    }
    assert {c.id: c.score for c in out} == pytest.approx(expected)
    assert [c.id for c in out] == sorted(expected, key=lambda i: -expected[i])
    assert (by_id["lethe"].source, by_id["lethe"].source_weight, by_id["lethe"].mode_score) == ("lethe", 0.5, 0.9)
    assert by_id["cut-short"].zeigarnik == 1.2 and by_id["own"].zeigarnik == 1.0
    # In a mode not configured for it (hybrid, by default; the backend recipes): no overlap at all.
    plain = stages.finish(_context("steth depeg", RetrievalConfig(), agent_id="golem-1", df={}, visible=3),
                          [_item("x", agent_id="golem-2", clade="clade-a", score=0.5, text="steth")])
    assert plain[0].term_overlap is None and plain[0].score == pytest.approx(0.4)
    recipe = stages.finish(_context("steth depeg", cfg, agent_id="golem-1", df={}, visible=3, mode="vector"),
                           [_item("y", agent_id="golem-1", score=0.5, text="steth")])
    assert recipe[0].term_overlap is None and recipe[0].score == 0.5
    assert RetrievalConfig().term_overlap.modes == ["four_factor", "generative_agents"]
    ga = stages.finish(_context("steth depeg", RetrievalConfig(), agent_id="golem-1", df={}, visible=3,
                                mode="generative_agents"), [_item("w", agent_id="golem-1", score=0.5, text="x")])
    assert ga[0].term_overlap == 0.0 and ga[0].score == pytest.approx(0.35)
    # Without a perspective (the admin key) nothing is weighted by source; the boost still applies.
    admin = stages.finish(_context("news", RetrievalConfig(), agent_id=None, df={}, visible=3),
                          [_item("z", agent_id="golem-9", score=0.5, interrupted=True)])
    assert admin[0].source is None and admin[0].score == pytest.approx(0.6)


def test_hedge_losses_and_update() -> None:
    values = {"recency": [1.0, 1.0], "importance": [0.25, 0.75], "relevance": [0.9, 1.3]}  # 1.3 clamps to 1
    useful = hedge.losses(values, 1.0)
    assert useful == pytest.approx({"recency": 0.0, "importance": 0.5, "relevance": 0.05})
    useless = hedge.losses(values, 0.0)
    assert useless == pytest.approx({"recency": 1.0, "importance": 0.5, "relevance": 0.95})
    w0 = {"recency": 0.3, "importance": 0.3, "relevance": 0.4}
    raw = {f: w0[f] * math.exp(-0.5 * useful[f]) for f in hedge.FACTORS}
    new = hedge.update(w0, useful, 0.5, 0.05)
    assert new == pytest.approx({f: raw[f] / sum(raw.values()) for f in hedge.FACTORS})
    assert sum(new.values()) == pytest.approx(1.0) and new["importance"] < 0.3 < new["recency"]
    # Repeated failures of recency drive it down to the floor, never below; the weights still sum to 1.
    w = w0
    for _ in range(200):
        w = hedge.update(w, {"recency": 1.0, "importance": 0.0, "relevance": 0.0}, 0.5, 0.05)
    assert w["recency"] == pytest.approx(0.05) and sum(w.values()) == pytest.approx(1.0)
    assert w["importance"] / w["relevance"] == pytest.approx(0.3 / 0.4)
    assert hedge.normalise({"recency": 0.0, "importance": 0.0, "relevance": 0.0}) == pytest.approx(
        dict.fromkeys(hedge.FACTORS, 1 / 3))


def test_feedback_rewards() -> None:
    assert reward_of(True, None) == 1.0 and reward_of(False, None) == 0.0
    assert reward_of(None, "positive") == 1.0 and reward_of(None, "negative") == 0.0
    assert reward_of(None, "neutral") is None
    with pytest.raises(Invalid):
        reward_of(True, "positive")
    with pytest.raises(Invalid):
        reward_of(None, None)


def test_generative_agents_score_with_learned_weights() -> None:
    item = _item("a", kind="entry", embedding=[1.0, 0.0], quality_score=0.5, block=1_000)
    learned = Weights(recency=0.1, importance=0.2, relevance=0.7, updates=3)
    f = generative_agents.score(item, [1.0, 0.0], now=0, block=1_000, config=RetrievalConfig(), weights=learned)
    assert f["score"] == pytest.approx(0.1 * 1.0 + 0.2 * 0.5 + 0.7 * 1.0)
    default = generative_agents.score(item, [1.0, 0.0], now=0, block=1_000, config=RetrievalConfig())
    assert default["score"] == pytest.approx(0.3 * 1.0 + 0.3 * 0.5 + 0.4 * 1.0)


def test_raptor_levels_in_the_filters() -> None:
    assert RetrievalFilters().params(Visibility("a", "c"))["levels"] is None
    assert RetrievalFilters(levels=[1, 0, 1]).params(Visibility("a", "c"))["levels"] == [0, 1]
    for bad in ([], [4], [-1]):
        with pytest.raises(ValidationError):
            RetrievalFilters(levels=bad)
    # An item without a level (every episode, an ordinary entry) is level 0.
    assert Candidate.from_row({"id": "e", "kind": "entry", "item": {"content": "x"}}).level == 0
    assert Candidate.from_row({"id": "s", "kind": "entry", "item": {"content": "x", "level": 1}}).level == 1
