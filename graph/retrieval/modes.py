"""The other scoring modes: the four-factor score (semantic 0.40, temporal 0.20, importance 0.25,
emotional congruence 0.15) and the Generative Agents score (alpha recency + beta importance +
gamma relevance)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from graph.knowledge.decay import DAY_MS, EPISODE, DecayConfig, retention
from graph.retrieval.config import RetrievalConfig
from graph.retrieval.rerank import quality


def cosine(a: Sequence[float] | None, b: Sequence[float] | None) -> float:
    if not a or not b:
        return 0.0
    va, vb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    na, nb = np.linalg.norm(va), np.linalg.norm(vb)
    return float(va @ vb / (na * nb)) if na and nb else 0.0


def emotional_congruence(item_pad: Sequence[float] | None, mood: Sequence[float] | None) -> float:
    """PAD cosine brought into [0, 1]; 0.5 (neutral) when either side has no PAD."""
    if not item_pad or not mood or not any(item_pad) or not any(mood):
        return 0.5
    return (1.0 + cosine(item_pad, mood)) / 2.0


def four_factor(item: dict[str, Any], query: Sequence[float], *, now: int, mood: Sequence[float] | None,
                config: RetrievalConfig, decay: DecayConfig) -> dict[str, float]:
    w = config.four_factor
    hl = item.get("half_life_ms") if item["kind"] == "entry" else decay.type_half_life_days[EPISODE] * DAY_MS
    f = {
        "semantic": cosine(item.get("embedding"), query),
        "temporal": retention(now, item.get("last_accessed_at") or now, hl, item.get("strength") or 1.0),
        "importance": quality(item),
        "emotional": emotional_congruence(item.get("pad"), mood),
    }
    f["score"] = (f["semantic"] * w.semantic + f["temporal"] * w.temporal + f["importance"] * w.importance
                  + f["emotional"] * w.emotional)
    return f


def generative_agents(item: dict[str, Any], query: Sequence[float], *, now: int, block: int | None,
                      config: RetrievalConfig) -> dict[str, float]:
    w = config.generative_agents
    if block is not None and item.get("block") is not None:
        rec = math.exp(-w.decay_per_block * max(0, block - item["block"]))
    else:
        hours = max(0, now - (item.get("valid_from") or now)) / 3_600_000
        rec = math.exp(-w.decay_per_hour * hours)
    f = {"recency": rec, "importance": quality(item), "relevance": cosine(item.get("embedding"), query)}
    f["score"] = w.recency * f["recency"] + w.importance * f["importance"] + w.relevance * f["relevance"]
    return f
