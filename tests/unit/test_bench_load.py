"""The load benchmark's pure parts (bench/load_parts.py): the question pool draws each question at most once per
level and profile, a level's statistics count served, refused and failed requests apart, and the results have
the shape the issue names."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from bench import load_parts as parts


def test_pool_draws_every_question_once_before_any_twice() -> None:
    items = [f"q{i}" for i in range(50)]
    pool = parts.QuestionPool(items, seed=3)
    first = [pool.next() for _ in range(50)]
    assert sorted(first) == sorted(items)
    assert first != items  # shuffled
    assert pool.report() == {"pool": 50, "drawn": 50, "repeated": 0, "exhausted": False}


def test_pool_past_its_size_says_so_and_still_spreads_the_repeats() -> None:
    pool = parts.QuestionPool(["a", "b", "c"], seed=1)
    drawn = [pool.next() for _ in range(7)]
    assert Counter(drawn[:3]) == Counter("abc") and Counter(drawn[3:6]) == Counter("abc")
    assert pool.report() == {"pool": 3, "drawn": 7, "repeated": 4, "exhausted": True}


def test_pool_refuses_nothing_to_draw() -> None:
    with pytest.raises(ValueError):
        parts.QuestionPool([])


def _s(t: float, status: int, ms: float, kind: str = "retrieve") -> dict[str, Any]:
    return {"t": t, "kind": kind, "status": status, "ms": ms, "user": 0}


def test_window_discards_the_warm_up_and_what_started_after() -> None:
    samples = [_s(100.0, 200, 1), _s(104.9, 200, 2), _s(105.0, 200, 3), _s(114.9, 200, 4), _s(115.0, 200, 5)]
    assert [s["ms"] for s in parts.window(samples, 105.0, 10.0)] == [3, 4]


def test_level_stats_counts_served_refused_and_errors_apart() -> None:
    samples = ([_s(0, 200, float(ms)) for ms in range(1, 101)] + [_s(0, 201, 500.0, "batch")]
               + [_s(0, 503, 5.0), _s(0, 429, 7.0), _s(0, 500, 9.0), _s(0, 404, 3.0), _s(0, 0, 60_000.0)])
    stats = parts.level_stats(samples, seconds=10)
    assert stats["served"] == 101 and stats["throughput_per_s"] == 10.1
    assert stats["refused"] == 2 and stats["refused_share"] == round(2 / 106, 4)
    assert stats["refused_p95_ms"] == pytest.approx(6.9)
    assert stats["server_errors"] == 1 and stats["other_failures"] == 2
    assert stats["p50_ms"] == pytest.approx(51.0) and stats["p99_ms"] > stats["p95_ms"] > stats["p50_ms"]
    assert stats["by_kind"]["batch"]["served"] == 1 and stats["by_kind"]["retrieve"]["served"] == 100


def test_level_stats_of_nothing_served_has_no_percentiles() -> None:
    stats = parts.level_stats([_s(0, 503, 4.0)], seconds=10)
    assert stats["p95_ms"] is None and stats["refused_share"] == 1.0 and stats["throughput_per_s"] == 0.0


def _phase(throughput: float, p95: float = 100.0, lost: int = 0, errors: int = 0,
           refused_p95: float | None = None) -> dict[str, Any]:
    return {"stats": {"throughput_per_s": throughput, "p50_ms": 10.0, "p95_ms": p95, "p99_ms": p95 * 2,
                      "refused_share": 0.0, "refused_p95_ms": refused_p95, "server_errors": errors},
            "lost": lost}


def test_shape_names_every_profile_and_level_before_and_after() -> None:
    phases = {parts.phase_key(tree, p, n): _phase(40.0 if tree == "after" else 10.0, lost=1 if tree == "before"
                                                  else 0) for tree in ("after", "before") for p in parts.PROFILES
              for n in parts.LEVELS}
    phases[parts.phase_key("after", "mixed", 64)] = _phase(40.0, errors=2)
    result = parts.shape(phases)
    for p in parts.PROFILES:
        for levels in (result["profiles"][p]["levels"], result["profiles"][p]["before"]["levels"]):
            assert set(levels) == {"1", "4", "16", "64"}
            for stats in levels.values():
                assert {"throughput_per_s", "p50_ms", "p95_ms", "p99_ms", "refused_share"} <= set(stats)
        assert result["profiles"][p]["before"]["lost"] == 12  # 3 profiles x 4 levels, one lost each
    assert result["lost"] == 0 and result["server_errors"] == 2
    assert parts.ratios(result["profiles"])["retrieval"] == {"16": 4.0, "64": 4.0}


def test_goals_judge_each_point_with_its_numbers() -> None:
    phases = {parts.phase_key(tree, p, n): _phase(30.0 if tree == "after" else 10.0, p95=800.0, refused_p95=20.0)
              for tree in ("after", "before") for p in parts.PROFILES for n in parts.LEVELS}
    result = parts.shape(phases)
    result["ratios"] = parts.ratios(result["profiles"])
    result["fairness"] = {"quiet_p95_alone_ms": 50.0, "quiet_p95_during_flood_ms": 120.0}
    goals = parts.goals(result)
    assert goals["throughput_2x_before"]["met"] and goals["throughput_2x_before"]["ratios"]["mixed@64"] == 3.0
    assert goals["at_64_served_p95_le_1s_refused_p95_le_50ms"]["met"]
    assert not goals["fairness_quiet_p95_within_2x"]["met"]
    assert goals["nothing_lost_no_5xx"]["met"]
    phases[parts.phase_key("before", "retrieval", 16)] = _phase(20.0)
    result = parts.shape(phases)
    result["ratios"] = parts.ratios(result["profiles"])
    assert not parts.goals(result)["throughput_2x_before"]["met"]  # 30 / 20 = 1.5


def test_the_other_tree_s_full_text_indexes_are_dropped_before_a_tree_is_served() -> None:
    from bench.load import PROJECT, foreign_fulltext

    present = [{"name": "episode_search", "type": "FULLTEXT"}, {"name": "episode_text", "type": "FULLTEXT"},
               {"name": "entity_names", "type": "FULLTEXT"}, {"name": "episode_id", "type": "RANGE"}]
    assert foreign_fulltext(PROJECT, present) == ["episode_text"]
