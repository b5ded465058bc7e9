"""The embedder comparison (bench/embedders.py, issue 41): WordLlama loads from its package with no network and
behaves as the project's embedders do, and the per-conversation table averages conversations, not questions."""

from __future__ import annotations

import socket
from typing import Any

import numpy as np
import pytest

from bench.embedders import per_conversation
from bench.locomo_eval import Asked

pytest.importorskip("wordllama")


def test_wordllama_loads_and_embeds_with_the_network_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("WordLlama reached for the network")

    monkeypatch.setattr(socket.socket, "connect", refused)
    monkeypatch.setattr(socket, "create_connection", refused)
    from bench.embedders import WordLlamaEmbedder

    model = WordLlamaEmbedder()
    vectors = model.embed(["Caroline went to an LGBTQ support group", "Caroline attended a support group for LGBTQ "
                           "people", "the quarterly tax filing deadline", ""])
    assert vectors.shape == (4, 256) and model.dimension == 256 and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors[:3], axis=1), 1.0, atol=1e-5)
    assert not np.isnan(vectors).any() and not vectors[3].any()  # a text of no token: zeros, never NaN
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    assert model.embed_one("hello") == pytest.approx(model.embed(["hello"])[0].tolist())
    short, long = model.count_tokens(["hi", "a much longer sentence than the first one"])
    assert 0 < short < long  # counted without the inference tokenizer's padding


def test_the_table_averages_conversations_and_leaves_out_a_category_a_conversation_never_asks() -> None:
    asked = [Asked(0, "single-hop", {5: 1.0, 10: 1.0, 20: 1.0})] * 3 + [Asked(0, "multi-hop", {5: 0.0, 10: 0.0,
                                                                                               20: 0.0})] \
        + [Asked(1, "single-hop", {5: 0.5, 10: 0.5, 20: 0.5})]
    table = per_conversation(asked, ["a", "b"])
    assert table["per_conversation"]["a"]["recall@10"] == pytest.approx(0.75)
    assert table["recall@10"]["mean"] == pytest.approx((0.75 + 0.5) / 2)  # not the pooled 0.7
    assert table["pooled"]["recall@10"] == pytest.approx(3.5 / 5)
    assert table["recall@10"]["spread"] == pytest.approx(0.125)
    assert table["recall@10_by_category"]["multi-hop"] == {"mean": 0.0, "spread": 0.0}  # only conversation a asks
    assert table["recall@10_by_category"]["single-hop"]["mean"] == pytest.approx(0.75)
