"""The multi-factor rerank after fusion, the bloodstain boost, and MMR diversity.

final = rrf * 0.30 + effective_confidence * 0.25 + quality * 0.20 + recency * 0.15
        + regime_match * 0.10, times 1.2 for bloodstain entries (spec: Hybrid Retrieval Pipeline);
or, with rerank_form product, final = effective_confidence * quality * relevance (grimoire.md, Artifact Quality
Scoring), times 1.2 for bloodstain entries.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from grimoire.graph.knowledge.decay import DAY_MS, EPISODE, DecayConfig, effective_confidence
from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.retrieval.config import RetrievalConfig

DEFAULT = RetrievalConfig()


def cosine(a: Sequence[float] | None, b: Sequence[float] | None) -> float:
    if not a or not b:
        return 0.0
    va, vb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    na, nb = np.linalg.norm(va), np.linalg.norm(vb)
    return float(va @ vb / (na * nb)) if na and nb else 0.0


def confidence_now(item: Candidate, now: int, decay: DecayConfig) -> float:
    """Entries: their effective confidence. Episodes: full confidence decaying with the episode
    half-life (48 h) since last access."""
    last = item.last_accessed_at or item.recorded_at or now
    if item.kind == "entry":
        return effective_confidence(item.confidence or 0.0, now, last, item.half_life_ms, item.strength or 1.0,
                                    decay.floor)
    return effective_confidence(1.0, now, last, decay.type_half_life_days[EPISODE] * DAY_MS, 1.0, decay.floor)


def quality(item: Candidate, config: RetrievalConfig = DEFAULT) -> float:
    """The item's quality score, else its importance as `config.importance` maps it."""
    if item.quality_score is not None:
        return float(item.quality_score)
    return config.importance.get(item.importance or "", config.importance_default)


def recency(item: Candidate, now: int, half_life_days: float) -> float:
    age = max(0, now - (item.valid_from or now))
    return math.exp(-math.log(2) * age / (half_life_days * DAY_MS))


def factors(item: Candidate, rrf_norm: float, *, now: int, regime: str | None, config: RetrievalConfig,
            decay: DecayConfig) -> dict[str, float]:
    return {
        "rrf": rrf_norm,
        "effective_confidence": confidence_now(item, now, decay),
        "quality": quality(item, config),
        "recency": recency(item, now, config.recency_half_life_days),
        "regime_match": 1.0 if regime is not None and item.regime == regime else 0.0,
    }


def score(f: dict[str, float], item: Candidate, config: RetrievalConfig) -> float:
    if config.rerank_form == "product":
        # The document's product: relevance is the fused score over its ceiling (in [0, 1], as the others are).
        product = f["effective_confidence"] * f["quality"] * f["rrf"]
        return product * (config.bloodstain_boost if item.is_bloodstain else 1.0)
    w = config.rerank
    base = (f["rrf"] * w.rrf + f["effective_confidence"] * w.effective_confidence + f["quality"] * w.quality
            + f["recency"] * w.recency + f["regime_match"] * w.regime_match)
    return base * (config.bloodstain_boost if item.is_bloodstain else 1.0)


def relevance(scores: Sequence[float], how: str) -> list[float]:
    """MMR's relevance of each head item, in [0, 1]. `ratio`: score / best. `min_max`: (score - worst) / (best -
    worst), so the head's spread of relevance, not the part of the score every item shares (flat factors: the
    same confidence, quality and recency for every turn of a conversation), is what the similarity penalty
    weighs against."""
    if how == "min_max":
        lo, hi = min(scores), max(scores)
        return [(s - lo) / (hi - lo) if hi > lo else 1.0 for s in scores]
    best = max(scores) or 1.0
    return [s / best for s in scores]


def mmr(items: Sequence[Candidate], *, lam: float, top: int, duplicate_threshold: float,
        normalise: str = "ratio") -> tuple[list[Candidate], list[Candidate]]:
    """Maximal marginal relevance over the first `top` items (by their `score`): each pick
    maximises lam * relevance - (1 - lam) * max similarity to what was picked. An item closer than
    `duplicate_threshold` (cosine) to a picked one is a near-duplicate and is cut."""
    head, tail = list(items[:top]), list(items[top:])
    if len(head) < 2:
        return head + tail, []
    # An item without its embedding (one that expired while this request ran) is unlike every other.
    dim = max((len(it.embedding) for it in head if it.embedding), default=1)
    vecs = np.asarray([it.embedding if it.embedding and len(it.embedding) == dim else [0.0] * dim for it in head],
                      dtype=float)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs = np.divide(vecs, norms, out=np.zeros_like(vecs), where=norms > 0)
    sims = vecs @ vecs.T
    rel = relevance([it.score or 0.0 for it in head], normalise)
    chosen: list[int] = []
    cut: list[int] = []
    remaining = list(range(len(head)))
    while remaining:
        def value(i: int) -> float:
            penalty = max((sims[i, j] for j in chosen), default=0.0)
            return lam * rel[i] - (1 - lam) * penalty

        i = max(remaining, key=lambda j: (value(j), -j))
        remaining.remove(i)
        closest = max((sims[i, j] for j in chosen), default=0.0)
        if chosen and closest >= duplicate_threshold:
            head[i].similar_to = head[max(chosen, key=lambda j: sims[i, j])].id
            cut.append(i)
            continue
        head[i].mmr = value(i)
        chosen.append(i)
    return [head[i] for i in chosen] + tail, [head[i] for i in cut]
