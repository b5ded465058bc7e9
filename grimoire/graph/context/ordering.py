"""Lost-in-the-middle ordering (context-governor.md, "Lost-in-Middle Mitigation"): items ranked best first are
laid out so the best sit at the two ends and the weakest in the middle. The spec's example, [r1, r2, r3, r4, r5]
to [r1, r4, r5, r3, r2], generalises as: the first to the front, then pairs in turn to the back and to the front
(r2, r3 at the back, r2 last; r4, r5 after r1; r6, r7 at the back inside r3; …)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def interleave(ranked: Sequence[T]) -> list[T]:
    if not ranked:
        return []
    front: list[T] = [ranked[0]]
    back: list[T] = []
    for i, item in enumerate(ranked[1:]):
        (back if (i // 2) % 2 == 0 else front).append(item)
    return front + back[::-1]
