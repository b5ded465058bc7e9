"""Relevance decay's formula and statuses (section 9.1, 9.2; graph/memory/relevance.py), values written out."""

from __future__ import annotations

import pytest

from grimoire.graph.memory.relevance import DAY_MS, Status, relevance, status_of
from grimoire.graph.memory.routing import Store

NOW = 1_800_000_000_000


def score(store: Store, base: float, access: int, days: float, **kw: bool) -> tuple[float, Status, float]:
    r = relevance(store=store, base=base, access_count=access, last_accessed=NOW - int(days * DAY_MS), now=NOW, **kw)
    return round(r.score, 6), r.status, round(r.raw, 6)


@pytest.mark.parametrize(("store", "base", "access", "days", "expected"), [
    # base × e^(−0.03 days) × log2(access + 1) × weight, capped at 1.0
    (Store.episodic, 1.0, 1, 10, (0.592654, Status.active, 0.592654)),     # 0.8 × 0.740818
    (Store.episodic, 1.0, 1, 30, (0.325256, Status.fading, 0.325256)),     # 0.8 × 0.406570
    (Store.episodic, 1.0, 1, 100, (0.039830, Status.archived, 0.039830)),  # 0.8 × 0.049787
    (Store.episodic, 1.0, 3, 100, (0.079659, Status.dormant, 0.079659)),   # × log2(4) = 2
    (Store.semantic, 0.7, 1, 60, (0.138851, Status.dormant, 0.138851)),    # 0.84 × 0.165299
    (Store.semantic, 0.7, 7, 60, (0.416553, Status.fading, 0.416553)),     # × log2(8) = 3
    (Store.semantic, 1.0, 1, 0, (1.0, Status.active, 1.2)),                # capped
    (Store.procedural, 0.5, 1, 23.1, (0.25, Status.fading, 0.25)),         # half-life ln2/0.03 = 23.1 days
    (Store.core, 0.5, 1, 50, (0.167348, Status.dormant, 0.167348)),        # 0.75 × 0.223130
    (Store.vault, 0.5, 1, 3650, (1.0, Status.active, 1.0)),                # never decays
])
def test_the_formula(store: Store, base: float, access: int, days: float,
                     expected: tuple[float, Status, float]) -> None:
    got = score(store, base, access, days)
    assert got[1] == expected[1]
    assert got[0] == pytest.approx(expected[0], abs=2e-4) and got[2] == pytest.approx(expected[2], abs=2e-4)


def test_pinned_never_decays_and_archived_is_zero() -> None:
    assert score(Store.episodic, 0.5, 1, 400, pinned=True)[:2] == (1.0, Status.active)
    assert score(Store.semantic, 1.0, 9, 0, archived=True)[:2] == (0.0, Status.archived)


@pytest.mark.parametrize(("value", "status"), [(1.0, Status.active), (0.5, Status.active), (0.4999, Status.fading),
                                               (0.2, Status.fading), (0.1999, Status.dormant), (0.05, Status.dormant),
                                               (0.0499, Status.archived), (0.0, Status.archived)])
def test_the_thresholds(value: float, status: Status) -> None:
    assert status_of(value) is status
