"""The learned rerank of the head, a benchmark experiment (bench/learned_rerank.py, issue 41): the head's order from
the model's and the pipeline's ranks, the rest left in place (pure: no model needed); and the model itself, loaded
from its package with the network refused, computing the features it was trained on (only where the `bench` extra
is installed: nanoranker is not the service's)."""

from __future__ import annotations

import socket
from typing import Any

import numpy as np
import pytest

from bench.learned_rerank import head_order, reorder


def test_the_model_alone_orders_the_head_by_its_scores_ties_by_the_pipeline() -> None:
    assert head_order([0.1, 0.9, 0.5, 0.9], 1.0) == [1, 3, 2, 0]


def test_no_weight_on_the_model_keeps_the_pipeline_order() -> None:
    assert head_order([0.1, 0.9, 0.5, 0.7], 0.0) == [0, 1, 2, 3]


def test_half_weight_averages_the_two_ranks() -> None:
    # The model's ranks c3 0, c2 1, c1 2, c0 3, averaged with the pipeline's 0..3: all 1.5, the pipeline's order.
    assert head_order([0.1, 0.2, 0.3, 0.4], 0.5) == [0, 1, 2, 3]
    # (pipeline, model) ranks: c0 (0, 1) 0.5, c1 (1, 2) 1.5, c4 (4, 0) 2.0, c2 (2, 3) 2.5, c3 (3, 4) 3.5.
    assert head_order([0.8, 0.7, 0.6, 0.5, 0.9], 0.5) == [0, 1, 4, 2, 3]


def test_reorder_moves_the_head_only() -> None:
    found = [f"c{i}" for i in range(6)]
    assert reorder(found, [0.2, 0.3, 0.9], 1.0) == ["c2", "c1", "c0", "c3", "c4", "c5"]
    assert reorder(found, [0.2, 0.3, 0.9], 0.0) == found
    assert reorder(found, [], 1.0) == found


def test_the_model_loads_from_its_package_and_scores_with_the_network_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("nanoranker")

    def refused(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the reranker reached for the network")

    monkeypatch.setattr(socket.socket, "connect", refused)
    monkeypatch.setattr(socket, "create_connection", refused)
    from bench.learned_rerank import NanoRanker

    model = NanoRanker(cache_texts=2)
    texts = ["Caroline: I signed up for a pottery class at the community studio downtown.",
             "Melanie: the football match on the radio went into extra time and ended in a draw.",
             "Caroline: my car needed new tyres so I spent the morning at the garage."]
    scores = model.score("Which pottery class did Caroline sign up for?", texts)
    assert len(scores) == 3 and all(0.0 <= s <= 1.0 for s in scores)
    assert scores[0] > max(scores[1:])
    assert model.score("Which pottery class did Caroline sign up for?", texts) == pytest.approx(scores, abs=1e-6)
    assert len(model._kept) == 2  # the cache keeps at most cache_texts texts
    assert model.score("anything", []) == []


def test_the_character_features_are_the_ones_the_model_was_trained_on() -> None:
    # nanoranker's own pure-Python features (its module opens its sessions on import: a few seconds).
    nanoranker = pytest.importorskip("nanoranker")
    from bench.learned_rerank import NanoRanker

    texts = ["Caroline:   went to the LGBTQ support group!", "ÉTÉ à Paris", "a"]
    model = NanoRanker(cache_texts=0)
    ours = model.encode(texts)
    for text, row in zip(texts, ours, strict=True):
        assert np.allclose(row[512:], nanoranker.textual_embed(text), atol=1e-6)
        assert np.allclose(row[:512], nanoranker.semantic_embed(text), atol=1e-6)
    query, docs = "who went to the support group?", texts[:2]
    theirs = dict(nanoranker.rank(query, docs, normalize_scores=False))
    assert model.score(query, docs) == pytest.approx([theirs[d] for d in docs], abs=1e-5)
