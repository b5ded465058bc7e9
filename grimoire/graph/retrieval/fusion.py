"""Reciprocal rank fusion: score(d) = sum over backends b of w_b / (k + rank_b(d)), ranks from 1."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def rrf(rankings: Mapping[str, Sequence[str]], k: int = 60,
        weights: Mapping[str, float] | None = None) -> dict[str, float]:
    scores: dict[str, float] = {}
    for backend, ids in rankings.items():
        w = 1.0 if weights is None else weights.get(backend, 1.0)
        for rank, doc in enumerate(ids, start=1):
            scores[doc] = scores.get(doc, 0.0) + w / (k + rank)
    return dict(sorted(scores.items(), key=lambda kv: (-kv[1], kv[0])))


def rrf_ceiling(backends: Sequence[str], k: int = 60, weights: Mapping[str, float] | None = None) -> float:
    """The best possible fused score (first in every list), to bring fused scores into [0, 1]."""
    return sum((1.0 if weights is None else weights.get(b, 1.0)) / (k + 1) for b in backends)
