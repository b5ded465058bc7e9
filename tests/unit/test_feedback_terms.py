"""Pseudo-relevance feedback's words (graph/retrieval/feedback_terms.py): what the first BM25 hits share beyond the
query, weighed by each hit's share of the score and by IDF, the best boosted below the query's own words."""

from __future__ import annotations

import pytest

from grimoire.graph.db.lucene import escape_lucene
from grimoire.graph.retrieval.feedback_terms import candidate_terms, expansion

HITS = ["Melanie: Running really clears my head after work",
        "Melanie: I went running by the lake, it clears my head",
        "Caroline: I painted a lake at sunrise"]


def test_the_words_the_hits_share_weigh_most_and_the_querys_own_are_left_out() -> None:
    weights = candidate_terms(HITS, [3.0, 2.0, 1.0], "What does Melanie do to destress? Run?")
    assert "melanie" not in weights and "run" not in weights and "running" not in weights  # the query's, by stem
    assert "the" not in weights and "my" not in weights  # stop words
    assert "it" not in weights and "at" not in weights   # short words
    # "clears" is in the two best hits; "painted" only in the weakest
    assert weights["clears"] > weights["painted"] > 0
    # a word's weight: its share of each hit's words times the hit's share of the scores
    first = ("really", "clears", "head", "after", "work")  # the first hit's words left: Melanie and running asked
    assert weights["work"] == pytest.approx(1 / len(first) * 3 / 6)


def test_a_hit_with_no_score_adds_nothing() -> None:
    assert candidate_terms(["Melanie: running by the lake"], [0.0], "where")["lake"] == 0.0


def test_the_expansion_keeps_the_best_words_by_weight_times_idf_with_boosts_in_proportion() -> None:
    weights = {"clears": 0.4, "head": 0.4, "melanie": 0.9, "lake": 0.1}
    idf = {"clears": 0.9, "head": 0.5, "melanie": 0.0, "lake": 0.8}  # a speaker on every turn: idf 0
    got = expansion(weights, idf, 2, 0.3)
    assert got == [("clears", 0.3), ("head", pytest.approx(0.3 * 0.2 / 0.36, abs=1e-4))]
    assert expansion(weights, {k: 0.0 for k in weights}, 5, 0.3) == []  # nothing but common words: nothing added
    assert expansion({}, {}, 5, 0.3) == []


def test_the_words_are_escaped_for_lucene() -> None:
    # what backends.bm25 appends: each word escaped, then its boost (a word cannot carry an operator in)
    assert escape_lucene("c++") == "c\\+\\+"
