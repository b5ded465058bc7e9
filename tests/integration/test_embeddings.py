"""The packaged model loads offline and gives normalised, meaningful, batch-stable vectors."""

from __future__ import annotations

import os
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from grimoire.graph.embedding_batcher import MicroBatcher, QueryCache
from grimoire.graph.embeddings import Embedder, EmbeddingOptions, resolve_model_path
from grimoire.graph.embeddings_onnx import QUERY_BATCH, OnnxEncoder, default_cache_dir
from grimoire.graph.settings import Settings


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
    many = texts * 2  # more texts than a query batch: the batch session
    assert len(many) > QUERY_BATCH
    assert np.abs(second.encode(many, batch_size=3) - np.vstack([torch_vectors] * 2)).max() < 1e-5
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


# Issue 37 §4: more work per core. The micro-batcher, the query cache, the ONNX threads, the quantized model.

class Counting:
    """The real model call, counted: how many calls and the texts of each."""

    def __init__(self, encode: Callable[[list[str]], np.ndarray]) -> None:
        self.encode = encode
        self.calls: list[list[str]] = []
        self.first_started, self.release = threading.Event(), threading.Event()

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        if len(self.calls) == 1:  # the first call is held until the test lets it go: the others arrive meanwhile
            self.first_started.set()
            assert self.release.wait(60)
        return self.encode(texts)


def _run_threads(fn: Callable[[int], object], n: int) -> list[object]:
    out: list[object] = [None] * n

    def call(i: int) -> None:
        out[i] = fn(i)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return out


QUERIES = [f"what did agent {i} learn about the oracle on chain {i % 3}?" for i in range(12)]


def test_concurrent_callers_share_one_model_call_and_get_their_own_vectors(embedder: Embedder) -> None:
    """While one model call runs, the callers that arrive join one batch (here it fills up: no waiting on a
    clock), embedded in a single call of the real model; each gets the rows it would have got alone."""
    n = 7
    model = Counting(embedder._embed)
    batcher = MicroBatcher(model, wait_ms=30_000, max_batch=n)
    first = threading.Thread(target=batcher.embed, args=(["the first caller, alone"],))
    first.start()
    assert model.first_started.wait(60)
    got = _run_threads(lambda i: batcher.embed([QUERIES[i]]), n)  # all of these arrive while the first call runs
    model.release.set()
    first.join(60)
    assert len(model.calls) == 2 and sorted(model.calls[1]) == sorted(QUERIES[:n])
    for i, vectors in enumerate(got):
        alone = embedder._embed([QUERIES[i]])
        assert isinstance(vectors, np.ndarray) and vectors.shape == (1, embedder.dimension)
        assert np.abs(vectors - alone).max() < 1e-5


def test_the_served_embedder_answers_concurrent_callers_as_it_answers_one(embedder: Embedder) -> None:
    """The service's embedder (the batcher on): many threads at once, several texts each or one, the same
    rows as a direct call of the model."""
    assert embedder.batcher.wait > 0
    start = threading.Barrier(12)

    def call(i: int) -> np.ndarray:
        start.wait(30)
        return embedder.embed(QUERIES[i:i + 1 + i % 3])

    got = _run_threads(call, 12)
    for i, vectors in enumerate(got):
        assert isinstance(vectors, np.ndarray)
        assert np.abs(vectors - embedder._embed(QUERIES[i:i + 1 + i % 3])).max() < 1e-5


def test_a_caller_with_more_than_a_batch_and_a_disabled_batcher_go_straight_to_the_model(embedder: Embedder) -> None:
    model = Counting(embedder._embed)
    model.release.set()
    MicroBatcher(model, wait_ms=0, max_batch=8).embed(QUERIES[:2])
    MicroBatcher(model, wait_ms=5, max_batch=2).embed(QUERIES[:3])
    assert model.calls == [QUERIES[:2], QUERIES[:3]]


@pytest.fixture(scope="module")
def tuned() -> Embedder:
    """An embedder of its own: a small query cache and three threads for bulk calls."""
    return Embedder(options=EmbeddingOptions(cache_size=3, threads=3))


def test_the_query_cache_answers_a_repeated_query_without_the_model_and_keeps_its_size(tuned: Embedder) -> None:
    model = Counting(tuned._embed)
    model.release.set()
    tuned.batcher.encode = model
    a, b, c, d = QUERIES[:4]
    first = [tuned.embed_one(t) for t in (a, b, c)]
    assert len(model.calls) == 3
    again = tuned.embed_one(a)  # from the cache: no model call, the same vector
    assert len(model.calls) == 3 and again == first[0]
    tuned.embed_one(d)  # the fourth: the least recently used (b) goes
    assert len(model.calls) == 4 and len(tuned.cache) == 3
    assert tuned.embed_one(a) == first[0] and tuned.embed_one(c) == first[2] and len(model.calls) == 4
    assert np.abs(np.asarray(tuned.embed_one(b)) - np.asarray(first[1])).max() < 1e-6
    assert len(model.calls) == 5 and model.calls[-1] == [b]


def test_a_disabled_query_cache_keeps_nothing() -> None:
    cache = QueryCache(0)
    cache.put("m", "t", np.ones(3, dtype=np.float32))
    assert cache.get("m", "t") is None and len(cache) == 0


def test_the_onnx_sessions_take_the_threads_chosen_for_this_process(tuned: Embedder) -> None:
    assert tuned._onnx is not None
    bulk = tuned._onnx.session.get_session_options()
    query = tuned._onnx.query_session.get_session_options()
    assert (bulk.intra_op_num_threads, bulk.inter_op_num_threads) == (3, 1)
    assert (query.intra_op_num_threads, query.inter_op_num_threads) == (1, 1)
    assert bulk.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    cores = os.cpu_count() or 1
    assert EmbeddingOptions(workers=2).onnx_threads() == max(1, cores // 2)
    assert EmbeddingOptions(workers=cores * 4).onnx_threads() == 1
    options = Settings(GRIMOIRE_WORKERS=cores, GRIMOIRE_EMBED_CACHE_SIZE=7).embedding_options()
    assert options.onnx_threads() == 1 and options.cache_size == 7


def test_the_quantized_model_loads_beside_the_export_and_gives_unit_vectors(embedder: Embedder) -> None:
    quantized = Embedder(options=EmbeddingOptions(quantized=True))
    assert quantized._onnx is not None and embedder._onnx is not None
    assert quantized._onnx.path.name == embedder._onnx.path.name.replace(".onnx", "-int8.onnx")
    assert quantized._onnx.path.parent == embedder._onnx.path.parent
    texts = QUERIES[:5] + ["The price oracle for WETH was replaced by a new Chainlink feed"]
    vectors = quantized.embed(texts)
    assert vectors.shape == (len(texts), embedder.dimension) == (len(texts), quantized.dimension)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    floats = embedder.embed(texts)
    cosines = (vectors * floats).sum(axis=1)
    assert cosines.min() > 0.9 and not np.array_equal(vectors, floats)  # near the float model's, not the same
    assert quantized.embed_one(texts[0]) != embedder.embed_one(texts[0])  # each its own cache key
