"""The learned rerank of the head (graph/retrieval/learned_rerank.py, issue 41): the head's order from the model's and
the pipeline's ranks, the rest left in place, each reranked candidate traced; and the model itself, loaded from its
package with the network refused, computing the features it was trained on."""

from __future__ import annotations

import socket
from typing import Any

import numpy as np
import pytest

from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.retrieval.config import LearnedRerankConfig, RetrievalConfig
from grimoire.graph.retrieval.learned_rerank import head_order, reorder


def _found(n: int) -> list[Candidate]:
    return [Candidate(id=f"c{i}", kind="episode", text=f"text {i}") for i in range(n)]


def test_the_model_alone_orders_the_head_by_its_scores_ties_by_the_pipeline() -> None:
    assert head_order([0.1, 0.9, 0.5, 0.9], 1.0) == [1, 3, 2, 0]


def test_no_weight_on_the_model_keeps_the_pipeline_order() -> None:
    assert head_order([0.1, 0.9, 0.5, 0.7], 0.0) == [0, 1, 2, 3]


def test_half_weight_averages_the_two_ranks() -> None:
    # The model's ranks c3 0, c2 1, c1 2, c0 3, averaged with the pipeline's 0..3: all 1.5, the pipeline's order.
    assert head_order([0.1, 0.2, 0.3, 0.4], 0.5) == [0, 1, 2, 3]
    # (pipeline, model) ranks: c0 (0, 1) 0.5, c1 (1, 2) 1.5, c4 (4, 0) 2.0, c2 (2, 3) 2.5, c3 (3, 4) 3.5.
    assert head_order([0.8, 0.7, 0.6, 0.5, 0.9], 0.5) == [0, 1, 4, 2, 3]


def test_reorder_moves_the_head_only_and_traces_what_moved() -> None:
    found = _found(6)
    out = reorder(found, [0.2, 0.3, 0.9], 1.0)
    assert [c.id for c in out] == ["c2", "c1", "c0", "c3", "c4", "c5"]
    assert out[0].trace["learned_rerank"] == {"score": 0.9, "rank": 1, "before": 3}
    assert out[2].trace["learned_rerank"] == {"score": 0.2, "rank": 3, "before": 1}
    assert all("learned_rerank" not in c.trace for c in out[3:])


def test_the_stage_is_off_by_default_and_bounded() -> None:
    cfg = RetrievalConfig()
    assert cfg.learned_rerank.enabled is False
    assert cfg.learned_rerank.head == 20 and cfg.learned_rerank.model_weight == 1.0
    with pytest.raises(ValueError):
        LearnedRerankConfig(head=1)
    with pytest.raises(ValueError):
        LearnedRerankConfig(model_weight=1.5)
    on = RetrievalConfig.model_validate({"learned_rerank": {"enabled": True, "head": 30}})
    assert on.learned_rerank.enabled and on.learned_rerank.head == 30


def test_the_model_loads_from_its_package_and_scores_with_the_network_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("nanoranker")

    def refused(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the reranker reached for the network")

    monkeypatch.setattr(socket.socket, "connect", refused)
    monkeypatch.setattr(socket, "create_connection", refused)
    from grimoire.graph.retrieval.learned_rerank import NanoRanker

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
    from grimoire.graph.retrieval.learned_rerank import NanoRanker

    texts = ["Caroline:   went to the LGBTQ support group!", "ÉTÉ à Paris", "a"]
    model = NanoRanker(cache_texts=0)
    ours = model.encode(texts)
    for text, row in zip(texts, ours, strict=True):
        assert np.allclose(row[512:], nanoranker.textual_embed(text), atol=1e-6)
        assert np.allclose(row[:512], nanoranker.semantic_embed(text), atol=1e-6)
    query, docs = "who went to the support group?", texts[:2]
    theirs = dict(nanoranker.rank(query, docs, normalize_scores=False))
    assert model.score(query, docs) == pytest.approx([theirs[d] for d in docs], abs=1e-5)
