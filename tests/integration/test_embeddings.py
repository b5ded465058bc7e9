"""The packaged model loads offline and gives normalised, meaningful, batch-stable vectors."""

from __future__ import annotations

import os
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from graph.embeddings import Embedder, resolve_model_path
from graph.embeddings_onnx import OnnxEncoder, default_cache_dir


def test_model_is_offline_and_packaged(embedder: Embedder) -> None:
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert "site-packages" in resolve_model_path(embedder.model_name)
    assert embedder.dimension == 384


def test_vectors_are_normalised_and_batched_consistently(embedder: Embedder) -> None:
    texts = [f"pool {i} drained after the oracle update" for i in range(150)]  # several batches
    batch = embedder.embed(texts)
    assert batch.shape == (150, 384) and batch.dtype == np.float32
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    one = np.asarray(embedder.embed_one(texts[77]))
    assert np.allclose(one, batch[77], atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)


def test_similar_texts_are_closer_than_unrelated_ones(embedder: Embedder) -> None:
    a, b, c = embedder.embed([
        "The price oracle for WETH was replaced by a new Chainlink feed",
        "Governance swapped the ETH price feed to another Chainlink aggregator",
        "My daughter loves painting sunsets at the beach",
    ])
    assert float(a @ b) > float(a @ c) + 0.2


def test_the_onnx_path_gives_pytorchs_vectors(embedder: Embedder) -> None:
    """The served embedder runs through onnxruntime; its vectors are PyTorch's, so an index built
    by either answers the other's queries the same way."""
    assert embedder.backend == "onnx" and embedder._onnx is not None
    assert embedder._onnx.path.parent == default_cache_dir()  # the project's cache, never site-packages
    texts = ["What did Caroline research?", "WETH variable borrow APY jumped to 9% as utilisation passed 92%",
             "a much longer text " * 120]  # longer than the model's 256 tokens: truncated the same way
    torch_vectors = embedder._model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    assert np.abs(embedder.embed(texts) - torch_vectors).max() < 1e-5
    assert Embedder(embedder.model_name, backend="torch").backend == "torch"


def test_the_model_is_exported_once_through_torch_export(embedder: Embedder, tmp_path: Path) -> None:
    """An export into an empty cache: through torch.export, without the deprecated TorchScript exporter
    (which warned on every run), written once under the cache directory given, then loaded from there
    by the next encoder; the vectors of the file it wrote are PyTorch's, also for a batch of several
    lengths and a text the model truncates."""
    model, name = embedder._model, embedder.model_name
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = OnnxEncoder(model, resolve_model_path(name), name, cache_dir=tmp_path)
    deprecated = [f"{w.filename}:{w.lineno}: {w.message}" for w in caught
                  if issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning, FutureWarning))]
    assert deprecated == []
    assert [p.name for p in tmp_path.iterdir()] == [first.path.name]  # no temporary file left behind
    written = first.path.stat().st_mtime_ns
    second = OnnxEncoder(model, resolve_model_path(name), name, cache_dir=tmp_path)
    assert second.path == first.path and second.path.stat().st_mtime_ns == written
    texts = ["What did Caroline research?", "WETH borrow APY jumped", "", "a much longer text " * 120,
             "pool 7 drained after the oracle update"]
    torch_vectors = model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    assert np.abs(second.encode(texts, batch_size=3) - torch_vectors).max() < 1e-5  # the batch session
    assert np.abs(second.encode(texts[:1], batch_size=3) - torch_vectors[:1]).max() < 1e-5  # the query session


def test_token_counts_are_the_tokenizers_own_and_never_truncated(embedder: Embedder) -> None:
    """Budgets count with a private copy of the fast tokenizer: the same numbers as the model's
    tokenizer without special tokens, also for a text longer than the embedding truncates to,
    right after an embedding call has configured truncation on the shared tokenizer."""
    texts = ["What did Caroline research?", "WETH borrow APY jumped to 9%", "", "a much longer text " * 120]
    embedder.embed(texts)
    expected = [len(ids) for ids in embedder._model.tokenizer(texts, add_special_tokens=False)["input_ids"]]
    assert embedder.count_tokens(texts) == expected
    assert expected[-1] == 480 and expected[2] == 0


def test_a_repeated_text_is_embedded_once_and_answered_in_place(embedder: Embedder) -> None:
    texts = ["gas spikes at CPI", "stablecoin depeg", "gas spikes at CPI"]
    vectors = embedder.embed(texts)
    assert vectors.shape == (3, embedder.dimension)
    assert np.array_equal(vectors[0], vectors[2]) and not np.array_equal(vectors[0], vectors[1])
    assert np.abs(vectors[1] - embedder.embed(["stablecoin depeg"])[0]).max() < 1e-5


def test_a_query_does_not_wait_for_a_bulk_call_to_finish(embedder: Embedder) -> None:
    """The Curator embeds hundreds of lessons while agents retrieve: a query's embedding runs beside
    the bulk call instead of queueing behind all of it."""
    if embedder.backend != "onnx":
        pytest.skip("the PyTorch path takes turns of a few texts instead")
    bulk = [f"lesson {i}: avoid swapping token {i % 97} on chain {i % 7} when gas is above {i % 50} gwei"
            for i in range(3000)]
    done = threading.Event()
    started = threading.Event()

    def run_bulk() -> None:
        started.set()
        embedder.embed(bulk)
        done.set()

    worker = threading.Thread(target=run_bulk)
    worker.start()
    try:
        started.wait(10)
        time.sleep(0.2)  # the bulk call is under way
        query = embedder.embed(["what did the agent learn about gas?"])
        assert query.shape == (1, embedder.dimension)
        assert not done.is_set(), "the query waited for the bulk call"
    finally:
        worker.join(120)
