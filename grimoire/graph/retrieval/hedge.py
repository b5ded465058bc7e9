"""Exponential weights (Hedge, Freund & Schapire) over the Generative Agents factors: recency,
importance and relevance are three experts, each predicting how useful every item a decision's
retrieval returned would be (its value of the factor, in [0, 1]). When the decision's usefulness is
known (1 useful, 0 not), each factor's loss is its mean absolute error over those items, and its
weight is multiplied by exp(-learning_rate x loss); the weights are normalised to sum to 1 and none
falls under `floor` (removing any factor degenerates an agent: Park et al.'s ablations).

Pure arithmetic; graph/retrieval/feedback.py reads the decision and stores the weights."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

FACTORS = ("recency", "importance", "relevance")


def clamp(value: float) -> float:
    return min(1.0, max(0.0, value))


def losses(values: Mapping[str, Sequence[float]], reward: float) -> dict[str, float]:
    """Each factor's loss in [0, 1]: the mean over the returned items of |its value - reward|
    (values are clamped to [0, 1]: relevance is a cosine). No items: no loss."""
    out = {}
    for f in FACTORS:
        vals = [clamp(v) for v in values.get(f, [])]
        out[f] = sum(abs(v - reward) for v in vals) / len(vals) if vals else 0.0
    return out


def normalise(weights: Mapping[str, float], floor: float = 0.0) -> dict[str, float]:
    """Weights summing to 1, each at least `floor` (clipped ones are fixed at it, the others share
    what is left in proportion)."""
    w = {f: max(0.0, float(weights.get(f, 0.0))) for f in FACTORS}
    floor = min(floor, 1.0 / len(FACTORS))
    fixed: set[str] = set()
    while True:
        free = [f for f in FACTORS if f not in fixed]
        mass = 1.0 - floor * len(fixed)
        total = sum(w[f] for f in free)
        scaled = {f: (w[f] / total * mass if total > 0 else mass / len(free)) for f in free}
        low = [f for f in free if scaled[f] < floor]
        if not low:
            return {**{f: floor for f in fixed}, **scaled}
        fixed.update(low)


def update(weights: Mapping[str, float], loss: Mapping[str, float], learning_rate: float,
           floor: float) -> dict[str, float]:
    """One Hedge step: w_f <- w_f exp(-learning_rate x loss_f), normalised with the floor."""
    return normalise({f: weights[f] * math.exp(-learning_rate * loss[f]) for f in FACTORS}, floor)
