"""Multi-hop lists without a database (issue 41; graph/retrieval/second_hop.py, graph/retrieval/decompose.py): the
Rocchio vector, the fused rows, the question's split, and the options off by default, adding nothing when off."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from bench.locomo_multihop import category_gains, kept
from grimoire.graph.retrieval import backends, decompose, second_hop
from grimoire.graph.retrieval.config import RetrievalConfig

Q = [1.0, 0.0, 0.0]
A = [0.0, 2.0, 0.0]  # not unit: counted at unit length
B = [0.0, 0.0, 1.0]


def test_rocchio_moves_the_query_toward_the_mean_of_its_hits() -> None:
    moved = second_hop.rocchio(Q, [A, B], beta=1.0)
    # unit(q) + 1 x mean(unit(a), unit(b)) = (1, 0.5, 0.5), at unit length
    assert moved == pytest.approx(np.array([1.0, 0.5, 0.5]) / np.sqrt(1.5), abs=1e-6)
    assert float(np.linalg.norm(moved)) == pytest.approx(1.0, abs=1e-6)
    # closer to each hit than the query was, and the query still weighs most
    assert float(moved @ np.array([0.0, 1.0, 0.0])) > 0.0 and moved[0] > moved[1]


def test_rocchio_without_hits_or_weight_is_the_query() -> None:
    assert second_hop.rocchio([3.0, 0.0, 4.0], [], beta=1.0) == pytest.approx([0.6, 0.0, 0.8])
    assert second_hop.rocchio(Q, [A], beta=0.0) == pytest.approx(Q)


def test_one_query_toward_the_mean_or_one_per_hit() -> None:
    (mean,) = second_hop.queries(Q, [A, B], 0.75, each=False)
    each = second_hop.queries(Q, [A, B], 0.75, each=True)
    assert len(each) == 2
    assert each[0] == pytest.approx(np.array([1.0, 0.75, 0.0]) / 1.25)
    assert each[1] == pytest.approx(np.array([1.0, 0.0, 0.75]) / 1.25)
    assert mean[1] == pytest.approx(mean[2])
    assert second_hop.queries(Q, [], 0.75, each=True) == []


def test_several_rankings_are_fused_one_is_kept_as_it_is() -> None:
    one = [{"id": "x", "score": 0.9}, {"id": "y", "score": 0.8}]
    assert second_hop.fused_rows([one], 60, 1) == [{"id": "x", "score": 0.9}]
    other = [{"id": "y", "score": 0.7, "item": {"id": "y"}}, {"id": "z", "score": 0.6}]
    fused = second_hop.fused_rows([one, other], 60, 10)
    assert [r["id"] for r in fused] == ["y", "x", "z"]  # y in both lists
    assert fused[0]["score"] == pytest.approx(1 / 62 + 1 / 61, abs=1e-6)
    assert second_hop.fused_rows([], 60, 10) == []


NAMES = ["Caroline", "Melanie", "Tim", "John"]


@pytest.mark.parametrize(("question", "parts"), [
    ("What subject have Caroline and Melanie both painted?",
     ["What subject have Caroline painted?", "What subject have Melanie painted?"]),
    ("What types of pottery have Melanie and her kids made?",
     ["What types of pottery have Melanie made?", "What types of pottery have her kids made?"]),
    ("Who is Tim and John's favorite basketball player?",
     ["Who is Tim's favorite basketball player?", "Who is John's favorite basketball player?"]),
    ("Did Caroline, Melanie or Tim go camping?",
     ["Did Caroline go camping?", "Did Melanie go camping?", "Did Tim go camping?"]),
    ("Which schools did John play in and how many years was he with his team?",
     ["Which schools did John play in", "how many years was he with his team?"]),
])
def test_a_question_is_split_at_its_clauses_and_the_things_it_coordinates(question: str, parts: list[str]) -> None:
    assert decompose.parts(question, NAMES, 4) == parts


@pytest.mark.parametrize("question", [
    "What activities does Melanie partake in?",                                   # one part
    "Would Melanie rather go to a national park or a theme park?",               # no name among the conjuncts
    "What organization might John want to work with and why?",                   # "why" has nothing to search
    "What has Melanie made and painted?",                                        # verbs, not things named
])
def test_a_question_with_one_part_is_not_split(question: str) -> None:
    assert decompose.parts(question, NAMES, 4) == []


def test_at_most_the_configured_parts() -> None:
    assert len(decompose.parts("Did Caroline, Melanie, Tim or John go?", NAMES, 2)) == 2


def test_the_names_are_those_the_text_holds_as_whole_words_as_the_graph_backend_finds_them() -> None:
    """The decomposition's names come from the graph backend's whole-word check (backends.naming, which
    `named_in` keeps the ids of), with its possessives option."""
    rows = [{"id": "e1", "name": "Caroline", "symbol": None, "aliases": ["Caro"]},
            {"id": "e2", "name": "Mel", "symbol": None, "aliases": None},
            {"id": "e3", "name": "John Smith", "symbol": "JS", "aliases": None}]
    text = "Did Caroline and Melanie meet JS?"
    assert backends.naming(rows, text) == [("e1", ["Caroline"]), ("e3", ["JS"])]
    assert backends.named_in(rows, text) == ["e1", "e3"] and backends.named_in(rows, text, limit=1) == ["e1"]
    assert backends.naming(rows, "Caroline's and Mel's kids", possessives=True) == [("e1", ["Caroline"]),
                                                                                     ("e2", ["Mel"])]


def test_the_second_hop_through_the_index_is_ranked_by_the_rule_the_query_is(monkeypatch) -> None:
    """`ranked_by` hands the vector backend the caller's exact rule (Context.exact_rule, as modes/recipe.py does),
    not the bare `exact_below`: a caller the rule ranks exactly is ranked so by both."""
    from concurrent.futures import Future

    from grimoire.graph.retrieval.reach import Reach, exact_rule

    cfg = RetrievalConfig()
    reach: Future[Reach] = Future()
    reach.set_result(Reach(visible=5_000, total=1_000_000, capped=False))
    asked: list[tuple[object, ...]] = []
    monkeypatch.setattr(backends, "vector", lambda *args: asked.append(args) or [])
    rule = exact_rule(cfg, backends.MAX_CANDIDATES)
    ctx = SimpleNamespace(config=cfg, db=None, params={}, reach=lambda: reach, ranks_exactly=lambda _: False,
                          exact_rule=lambda: rule)
    assert second_hop.ranked_by(ctx, [1.0, 0.0], 5) == []  # type: ignore[arg-type]
    assert asked[0][6] == rule and rule.limit(reach.result()) > cfg.exact_below  # the rule, and it differs here


def test_off_by_default_and_nothing_added_when_off() -> None:
    m = RetrievalConfig().multihop
    assert (m.second_hop, m.decompose) == (False, False)
    assert (m.hop_from, m.hop_beta, m.hop_each, m.hop_weight, m.decompose_weight) == (3, 0.75, False, 0.5, 0.5)
    ctx = SimpleNamespace(config=RetrievalConfig(), db=None, req=SimpleNamespace(text="Did Caroline and Melanie go?"))
    assert second_hop.second_hop(ctx, ["a", "b"]) == {}  # type: ignore[arg-type]
    assert decompose.decomposed(ctx) == {}  # type: ignore[arg-type]
    weights = {**second_hop.weights(ctx), **decompose.weights(ctx)}  # type: ignore[arg-type]
    assert weights == {second_hop.SECOND_HOP: 0.5, decompose.DECOMPOSED: 0.5}


def _scores(mh: float, od: float | None) -> dict[str, object]:
    by = {"multi-hop": mh, **({"open-domain": od} if od is not None else {})}
    return {"recall@10_by_category": by}


def test_the_benchmark_reports_each_weak_categorys_gain_per_conversation() -> None:
    variants = {"shipped": {"per_conversation": {"c1": _scores(0.4, 0.5), "c2": _scores(0.3, None)}},
                "x": {"per_conversation": {"c1": _scores(0.5, 0.4), "c2": _scores(0.4, None)}}}
    gains = category_gains(variants)["x"]
    assert gains["multi-hop"]["gains"] == [0.1, 0.1] and gains["multi-hop"]["gain_spread"] == 0.0
    assert gains["open-domain"]["gains"] == [-0.1]  # c2 asks none
    assert kept({"kept": True}, gains)
    assert not kept({"kept": False}, gains)
    assert not kept({"kept": True}, {"multi-hop": {"gain_mean": -0.01}})
