"""What lies around the candidates (graph/retrieval/neighbourhood.py; issue 41), without a database: the
hierarchical order and the options' defaults (off: neither cleared its spread on LoCoMo, bench/results/
locomo_h4.json)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Literal

from grimoire.graph.retrieval import neighbourhood
from grimoire.graph.retrieval.config import RetrievalConfig

# Two threads: a1 (the best candidate), a2 in its thread; b1, scored as a2, in another thread with b2.
FUSED = {"a1": 0.05, "a2": 0.02, "b1": 0.02, "b2": 0.03}
MATES = {"a1": {"a2"}, "a2": {"a1"}, "b1": {"b2"}, "b2": {"b1"}}


def _order(fused: dict[str, float], mates: dict[str, set[str]], how: Literal["max", "sum"], top: int) -> list[str]:
    return [i for i, _ in neighbourhood.thread_list(fused, mates, how, top)]


def test_a_turn_of_the_best_thread_rises_over_an_equally_scored_turn_elsewhere() -> None:
    assert neighbourhood.thread_scores(FUSED, MATES, "max") == {"a1": 0.05, "a2": 0.05, "b1": 0.03, "b2": 0.03}
    assert _order(FUSED, MATES, "max", 10) == ["a1", "a2", "b2", "b1"]


def test_the_order_follows_the_scores_it_is_given() -> None:
    """thread_order sorts by the scores handed to it (computed once, by the caller), not by its own: here the
    reverse of what thread_scores would say, the candidates' own fused scores breaking the tie of b."""
    given = {"a1": 0.01, "a2": 0.01, "b1": 0.09, "b2": 0.09}
    assert neighbourhood.thread_order(FUSED, given, 10) == ["b2", "b1", "a1", "a2"]
    assert neighbourhood.thread_order(FUSED, given, 1) == ["b2"]


def test_the_list_carries_each_candidates_thread_score() -> None:
    """One computation for the order and the traces: each listed candidate with the score it was ordered by."""
    assert neighbourhood.thread_list(FUSED, MATES, "max", 3) == [("a1", 0.05), ("a2", 0.05), ("b2", 0.03)]
    listed = neighbourhood.thread_list(FUSED, MATES, "sum", 10)
    assert [(i, round(score, 6)) for i, score in listed] == [("a1", 0.07), ("a2", 0.07), ("b2", 0.05), ("b1", 0.05)]


def test_sum_favours_the_thread_with_more_candidates() -> None:
    fused = {**FUSED, "b3": 0.03}  # thread b sums 0.08, thread a 0.07
    mates = {**MATES, "b1": {"b2", "b3"}, "b2": {"b1", "b3"}, "b3": {"b1", "b2"}}
    assert _order(fused, mates, "sum", 10) == ["b2", "b3", "b1", "a1", "a2"]
    assert _order(fused, mates, "max", 2) == ["a1", "a2"]


def test_a_candidate_alone_in_its_thread_keeps_its_own_score() -> None:
    assert neighbourhood.thread_scores({"x": 0.04, "y": 0.01}, {}, "max") == {"x": 0.04, "y": 0.01}


def test_off_by_default_and_no_list_when_off() -> None:
    n = RetrievalConfig().neighbourhood
    assert (n.threads, n.expand) == (False, False)
    assert (n.thread_hops, n.thread_score, n.thread_weight) == (64, "max", 1.0)
    assert (n.expand_from, n.expand_hops, n.expand_weight) == (5, 1, 0.5)
    ctx = SimpleNamespace(config=RetrievalConfig(), db=None, traces={})  # no database: nothing is asked of it
    assert neighbourhood.threads(ctx, ["a1", "b1"]) == {}  # type: ignore[arg-type]
    assert neighbourhood.expansion(ctx, ["a1", "b1"]) == {}  # type: ignore[arg-type]


def test_the_lists_are_fused_at_their_configured_weights() -> None:
    ctx = SimpleNamespace(config=RetrievalConfig.model_validate({"neighbourhood": {"thread_weight": 0.25}}))
    weights = neighbourhood.weights(ctx)  # type: ignore[arg-type]
    assert (weights[neighbourhood.EXPANSION], weights[neighbourhood.THREAD], weights["vector"]) == (0.5, 0.25, 1.0)
