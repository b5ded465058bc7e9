"""Fact confidence at read time and the information-lag term of curiosity, as formulas (graph/topology/freshness.py)."""

from __future__ import annotations

import math

import pytest

from grimoire.graph.topology.answers import FactLag
from grimoire.graph.topology.freshness import DAY_MS, MINUTE_MS, FactConfig, effective_confidence, lag_term, summary
from grimoire.graph.topology.freshness import with_effective_confidence as fresh

CFG = FactConfig()


def test_confidence_decays_from_the_last_reinforcement_to_the_floor() -> None:
    assert effective_confidence(0.8, 1_000, 1_000, CFG) == 0.8
    assert effective_confidence(0.8, 0, 30 * DAY_MS, CFG) == pytest.approx(0.8 * math.exp(-1))
    assert effective_confidence(0.8, 0, 365 * DAY_MS, CFG) == 0.05  # the floor
    assert effective_confidence(0.8, 5_000, 1_000, CFG) == 0.8  # a clock behind: no growth
    assert effective_confidence(None, 0, 1, CFG) is None
    short = FactConfig(half_life_days=1.0, floor=0.1)
    assert effective_confidence(1.0, 0, DAY_MS, short) == pytest.approx(math.exp(-1))
    assert effective_confidence(1.0, 0, 10 * DAY_MS, short) == 0.1


def test_recorded_time_counts_until_a_reinforcement() -> None:
    fact = {"confidence": 1.0, "recorded_at": 0}
    assert fresh(fact, 30 * DAY_MS, CFG)["last_reinforced"] == 0
    assert fresh(fact, 30 * DAY_MS, CFG)["effective_confidence"] == pytest.approx(math.exp(-1))
    again = fresh({**fact, "last_reinforced": 30 * DAY_MS}, 30 * DAY_MS, CFG)
    assert again["last_reinforced"] == 30 * DAY_MS and again["effective_confidence"] == 1.0


def test_the_lag_term_grows_with_the_lag_and_is_capped() -> None:
    assert lag_term(None, CFG) == 0.0 and lag_term(0, CFG) == 0.0 and lag_term(-5_000, CFG) == 0.0
    terms = [lag_term(m * MINUTE_MS, CFG) for m in (1, 15, 60, 600)]
    assert terms == sorted(terms) and all(0 < t <= CFG.lag_cap for t in terms)
    assert terms[1] == pytest.approx(0.5 * (1 - math.exp(-1)))
    assert lag_term(10**12, CFG) == pytest.approx(CFG.lag_cap)
    assert lag_term(10**12, FactConfig(lag_cap=0.2)) == pytest.approx(0.2)


def _lag(lag_ms: int | None, lag_blocks: int | None, approximate: bool) -> FactLag:
    return FactLag(fact_id="f", predicate=None, name=None, type="T", subject="s", object=None, valid_from=1,
                   recorded_at=2, approximate=approximate, agent_id=None, scope=None, valid_time=None,
                   valid_time_source=None, lag_ms=lag_ms, seen_block=None, lag_blocks=lag_blocks)


def test_the_summary_leaves_out_unknown_and_approximate_lags() -> None:
    rows = [_lag(1_000, 2, False), _lag(3_000, None, False), _lag(99_000, 50, True), _lag(None, None, False)]
    s = summary(rows)
    assert (s.count, s.with_lag, s.mean_lag_ms, s.median_lag_ms, s.max_lag_ms) == (4, 2, 2_000, 2_000, 3_000)
    assert (s.with_lag_blocks, s.mean_lag_blocks) == (1, 2)
    assert summary([]).mean_lag_ms is None
