"""A crystal's ripple count (knowledge-crystals.md line 62, lastRippleCount): the Poisson-sampled number of
sharp-wave ripples that replayed it in its last dream, kept for spaced-repetition prioritisation. The document gives
no rate: the mean is the project's own, RIPPLE_MEAN (3 ripples a replay). The sample is seeded by the crystal and
its dream count, so a replay's count is reproducible (and a test can name it) while successive dreams differ."""

from __future__ import annotations

import math
import random

RIPPLE_MEAN = 3.0


def ripple_count(crystal_id: str, dream_count: int, mean: float = RIPPLE_MEAN) -> int:
    """A Poisson(mean) sample (Knuth's product of uniforms), seeded by the crystal and its dream count."""
    rng = random.Random(f"{crystal_id}:{dream_count}")
    limit, k, p = math.exp(-mean), 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1
