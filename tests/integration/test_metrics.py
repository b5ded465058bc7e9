"""Cognitive quality metrics on small exact graphs: each metric with input against a hand-computed
value and alarm, the daily series (idempotent, read back for plotting, feeding the rules that need
history), the REST routes, and isolation between agents."""

from __future__ import annotations

from typing import Any

import pytest

from grimoire.graph.db.connection import Database
from grimoire.graph.metrics import MetricsNotFound, UnknownMetric, compute_agent, read_series, record, record_all
from grimoire.graph.metrics.catalog import DAY_MS, shift
from grimoire.graph.metrics.compute import day_of
from grimoire.graph.model.common import from_ms
from grimoire.graph.visibility import EVERYONE, Visibility

NOW = 1_773_576_000_000  # 2026-03-15T12:00:00Z
TODAY = "2026-03-15"
WITH_INPUT = 11
ONCE_WITHOUT = ("reflection_consistency", "decision_cache_hit_rate", "threat_coverage")  # null until there is data
LISTS = ("decisions", "entries", "episodes", "access", "reflections", "cycles", "operations", "samples", "mutations",
         "assemblies", "context_decisions")


def put(db: Database, **lists: list[dict[str, Any]]) -> None:
    """Write the nodes the metrics read, as given (cypher/testing/metric_nodes.cypher)."""
    assert set(lists) <= set(LISTS)
    db.run_all("testing/metric_nodes", **{name: lists.get(name, []) for name in LISTS})


def ago(days: float) -> int:
    return NOW - round(days * DAY_MS)


def metrics(db: Database, agent: str, now: int = NOW) -> dict[str, Any]:
    return {v.name: v for v in compute_agent(db, agent, now)}


def samples(agent: str, name: str, values: dict[int, float]) -> list[dict[str, Any]]:
    """Samples of `name` for `agent`, `days back -> value`, as the series keeps them."""
    return [{"id": f"{agent}:{shift(TODAY, -back)}:{name}", "agent_id": agent, "day": shift(TODAY, -back),
             "name": name, "value": v, "at": ago(back)} for back, v in values.items()]


def test_admission_rate_counts_passing_decisions_of_the_last_7_days(db) -> None:
    window = ["admitted", "admitted_low", "merged", "rejected", "skipped", "quarantined", "rejected", "rejected",
              "admitted", "rejected"]  # 4 of 10 pass
    put(db, decisions=[
        *({"id": f"d{i}", "agent_id": "ar", "at": ago(i * 0.6), "outcome": o} for i, o in enumerate(window)),
        {"id": "old", "agent_id": "ar", "at": ago(7), "outcome": "admitted"},          # exactly 7 days: out
        {"id": "older", "agent_id": "ar", "at": ago(9), "outcome": "admitted"},
        {"id": "future", "agent_id": "ar", "at": NOW + 1, "outcome": "admitted"},      # after now: out
        {"id": "other", "agent_id": "someone-else", "at": ago(1), "outcome": "rejected"},
        *({"id": f"low{i}", "agent_id": "ar-low", "at": ago(1), "outcome": o}
          for i, o in enumerate(["admitted", "rejected", "rejected", "skipped", "rejected", "rejected"])),
    ])
    m = metrics(db, "ar")["admission_rate"]
    assert m.value == pytest.approx(0.4) and m.detail == {"decisions": 10, "passing": 4}
    assert (m.healthy, m.alarm) == (True, False)
    low = metrics(db, "ar-low")["admission_rate"]  # 1 of 6
    assert low.value == pytest.approx(1 / 6) and (low.healthy, low.alarm) == (False, True)


def test_average_quality_and_its_decline_against_the_previous_week(db) -> None:
    put(db, entries=[
        {"id": "q1", "agent_id": "aq", "recorded_at": ago(1), "quality_score": 0.6, "status": "active"},
        {"id": "q2", "agent_id": "aq", "recorded_at": ago(3), "quality_score": 0.7, "status": "candidate"},
        {"id": "q3", "agent_id": "aq", "recorded_at": ago(6.9), "quality_score": 0.5, "status": "archived"},
        {"id": "q-old", "agent_id": "aq", "recorded_at": ago(8), "quality_score": 0.1, "status": "active"},
        {"id": "q-none", "agent_id": "aq", "recorded_at": ago(1), "status": "active"},
        {"id": "q-other", "agent_id": "other", "recorded_at": ago(1), "quality_score": 0.0},
    ], samples=[
        *samples("aq", "average_quality_7d", {1: 0.7, 2: 0.65, 8: 0.0, 0: 0.1}),  # 8 back and today: ignored
        *samples("aq-flat", "average_quality_7d", {1: 0.5}),
    ])
    m = metrics(db, "aq")["average_quality_7d"]
    assert m.value == pytest.approx(0.6) and m.detail == {"entries": 3}
    assert (m.healthy, m.alarm) == (True, True)  # 0.6 < the mean of 0.7 and 0.65
    assert metrics(db, "aq-flat")["average_quality_7d"].value is None  # no entries: null, no alarm


def test_grimoire_size_counts_active_entries_and_alarms_on_a_week_of_growth(db) -> None:
    put(db, entries=[
        *({"id": f"s{i}", "agent_id": "gs", "status": "active"} for i in range(17)),
        {"id": "s-cand", "agent_id": "gs", "status": "candidate"},
        {"id": "s-arch", "agent_id": "gs", "status": "archived"},
    ], samples=[
        *samples("gs", "grimoire_size", {7: 10, 6: 11, 5: 12, 4: 13, 3: 14, 2: 15, 1: 16}),
        *samples("gs", "admission_rate", {7: 100, 1: 0}),  # another metric's series: not this one's history
    ])
    m = metrics(db, "gs")["grimoire_size"]
    assert m.value == 17 and m.detail["growth_7d"] == pytest.approx(0.7)
    assert (m.healthy, m.alarm) == (False, True)
    empty = metrics(db, "nobody")["grimoire_size"]
    assert empty.value == 0 and (empty.healthy, empty.alarm) == (None, False)


def test_growth_recorded_day_by_day_raises_the_alarm_on_the_eighth(db) -> None:
    """The series the daily job writes is what the growth rule reads."""
    for day in range(8):  # 10 active entries 7 days ago, 2 more every day
        put(db, entries=[{"id": f"g{day}-{i}", "agent_id": "grower", "status": "active"}
                         for i in range(10 if day == 0 else 2)])
        at = ago(7 - day)
        if day < 7:
            assert record(db, "grower", at, actor="test") == WITH_INPUT
            assert not metrics(db, "grower", at)["grimoire_size"].alarm
    m = metrics(db, "grower")["grimoire_size"]
    assert m.value == 24 and m.detail["growth_7d"] == pytest.approx(1.4) and m.alarm


def test_retrieval_hit_rate_over_decisions_of_the_last_7_days(db) -> None:
    def access(id_: str, days: float, agent: str = "hr", action: str = "retrieval.for_decision") -> dict[str, Any]:
        return {"id": id_, "agent_id": agent, "at": ago(days), "action": action, "ids": ["x"], "count": 1}

    put(db, access=[access("a0", 10), access("a1", 1), access("a2", 2), access("a3", 3), access("a4", 6.5),
                    access("a-other-action", 1, action="something.else"), access("b1", 1, agent="other"),
                    access("young1", 3, agent="young"), access("young2", 2, agent="young")],
        episodes=[
            {"id": "e1", "agent_id": "hr", "decision_id": "a1"},
            {"id": "e1b", "agent_id": "hr", "decision_id": "a1"},  # two episodes of one decision: one hit
            {"id": "e3", "agent_id": "hr", "decision_id": "a3"},
            {"id": "e0", "agent_id": "hr", "decision_id": "a0"},   # a decision before the window
            {"id": "e-foreign", "agent_id": "other", "decision_id": "a2"},  # another agent's episode
            {"id": "e-plain", "agent_id": "hr"},
        ])
    m = metrics(db, "hr")["retrieval_hit_rate"]
    assert m.value == pytest.approx(0.5)  # a1 and a3 of a1..a4
    assert m.detail == {"decisions": 4, "hits": 2, "first_decision_at": ago(10), "mature": True}
    assert (m.healthy, m.alarm) == (True, False)
    young = metrics(db, "young")["retrieval_hit_rate"]  # no hits, but deciding for 3 days only
    assert young.value == 0.0 and young.detail["mature"] is False and (young.healthy, young.alarm) == (None, False)
    later = metrics(db, "young", ago(-4.5))["retrieval_hit_rate"]  # 7.5 days after its first decision
    assert later.value == 0.0 and later.detail["decisions"] == 1 and (later.healthy, later.alarm) == (False, True)
    assert metrics(db, "no-decisions")["retrieval_hit_rate"].value is None


def test_heuristic_survival_after_100_ticks(db) -> None:
    heuristics = {"h1": "active", "h2": "active", "h3": "archived", "h4": "active", "h5": "archived",
                  "h6": "archived", "h-other": "archived"}
    put(db, episodes=[{"id": f"t{t}", "agent_id": "hs", "tick": t} for t in (10, 250, 500)]
        + [{"id": "t-other", "agent_id": "other", "tick": 10_000}],
        entries=[{"id": k, "agent_id": "hs" if k != "h-other" else "other", "category": "Heuristic", "status": v}
                 for k, v in heuristics.items()]
        + [{"id": "i1", "agent_id": "hs", "category": "Insight", "status": "archived"}],
        cycles=[{"id": "c1", "agent_id": "hs", "tick": 100}, {"id": "c2", "agent_id": "hs", "tick": 400},
                {"id": "c3", "agent_id": "hs", "tick": 450}, {"id": "c-other", "agent_id": "other", "tick": 1}],
        operations=[
            {"id": "o1", "cycle_id": "c1", "agent_id": "hs", "op": "PROMOTE", "entry_id": "h1"},
            {"id": "o2", "cycle_id": "c1", "agent_id": "hs", "op": "PROMOTE", "entry_id": "h2"},
            {"id": "o3", "cycle_id": "c1", "agent_id": "hs", "op": "PROMOTE", "entry_id": "h3"},
            {"id": "o4", "cycle_id": "c2", "agent_id": "hs", "op": "PROMOTE", "entry_id": "h4"},  # tick 400: in
            {"id": "o5", "cycle_id": "c2", "agent_id": "hs", "op": "PROMOTE", "entry_id": "h5"},
            {"id": "o1b", "cycle_id": "c2", "agent_id": "hs", "op": "PROMOTE", "entry_id": "h1"},  # h1 again
            {"id": "o6", "cycle_id": "c3", "agent_id": "hs", "op": "PROMOTE", "entry_id": "h6"},  # 50 ticks: out
            {"id": "o7", "cycle_id": "c1", "agent_id": "hs", "op": "PROMOTE", "entry_id": "i1"},  # an insight
            {"id": "o8", "cycle_id": "c1", "agent_id": "hs", "op": "DEMOTE", "entry_id": "h3"},
            {"id": "o9", "cycle_id": "c-other", "agent_id": "other", "op": "PROMOTE", "entry_id": "h-other"},
        ])
    m = metrics(db, "hs")["heuristic_survival"]
    assert m.value == pytest.approx(0.6) and m.detail == {"promoted": 5, "surviving": 3, "latest_tick": 500}
    assert (m.healthy, m.alarm) == (True, False)
    other = metrics(db, "other")["heuristic_survival"]  # 0 of 1 survive
    assert other.value == 0.0 and other.alarm
    assert metrics(db, "nobody")["heuristic_survival"].value is None


def test_external_trend_rolling_pnl_drawdown_and_14_days_of_decline(db) -> None:
    gains = [(20, 10.0), (15, -4.0), (10, 3.0), (5, -12.0), (1, 5.0)]  # days back, gain
    put(db, episodes=[{"id": f"p{i}", "agent_id": "pnl", "valid_from": ago(back), "gain": g}
                      for i, (back, g) in enumerate(gains)]
        + [{"id": "p-old", "agent_id": "pnl", "valid_from": ago(31), "gain": 100.0},
           {"id": "p-none", "agent_id": "pnl", "valid_from": ago(2)},
           {"id": "p-other", "agent_id": "other", "valid_from": ago(2), "gain": -50.0}],
        samples=samples("pnl", "external_metric_trend", {back: 16.0 + back for back in range(1, 15)}))
    m = metrics(db, "pnl")["external_metric_trend"]
    # cumulative 10, 6, 9, -3, 2: the sum is 2, the worst fall from the peak (10) is 13
    assert m.value == pytest.approx(2.0) and m.detail == {"episodes": 5, "max_drawdown": pytest.approx(13.0)}
    assert (m.healthy, m.alarm) == (False, True)  # 2 < 17 < 18 < ... < 30: 14 declining days
    put(db, samples=samples("pnl-stable", "external_metric_trend", {1: 5.0}),
        episodes=[{"id": "ps", "agent_id": "pnl-stable", "valid_from": ago(3), "gain": 5.0}])
    stable = metrics(db, "pnl-stable")["external_metric_trend"]
    assert stable.value == 5.0 and stable.detail["max_drawdown"] == 0.0 and (stable.healthy, stable.alarm) == (
        True, False)
    assert metrics(db, "nobody")["external_metric_trend"].value is None


def test_prediction_accuracy_of_the_last_7_days(db) -> None:
    verdicts = ["correct"] * 8 + ["wrong", "miscalibrated"]
    put(db, reflections=[{"id": f"reflexion:r{i}", "agent_id": "pa", "at": ago(i * 0.5), "verdict": v}
                         for i, v in enumerate(verdicts)]
        + [{"id": "reflexion:old", "agent_id": "pa", "at": ago(8), "verdict": "wrong"}]
        + [{"id": f"reflexion:b{i}", "agent_id": "pb", "at": ago(1), "verdict": v}
           for i, v in enumerate(["correct"] * 7 + ["wrong"] * 3)])
    m = metrics(db, "pa")["prediction_accuracy"]
    assert m.value == pytest.approx(0.8) and m.detail == {"reflections": 10, "correct": 8}
    assert (m.healthy, m.alarm) == (False, False)  # not above 90%, not below 80%
    b = metrics(db, "pb")["prediction_accuracy"]
    assert b.value == pytest.approx(0.7) and (b.healthy, b.alarm) == (False, True)


def test_dream_yield_is_the_share_of_staged_mutations_validated(db) -> None:
    """Loop 3's staged mutations decided in the last 7 days (by decided_at): validated over decided; one staged and
    not decided, or decided before the window, does not count."""
    day = 86_400_000
    put(db, mutations=[
        {"id": f"dy-{i}", "agent_id": "dy", "status": s, "created_at": NOW - 9 * day,
         "decided_at": NOW - (i + 1) * 3_600_000} for i, s in enumerate(["validated"] + ["refuted"] * 4)] + [
        {"id": "dy-old", "agent_id": "dy", "status": "validated", "created_at": NOW - 20 * day,
         "decided_at": NOW - 10 * day},
        {"id": "dy-staged", "agent_id": "dy", "status": "staged", "created_at": NOW - day}])
    m = metrics(db, "dy")["dream_yield"]
    assert m.value == pytest.approx(0.2) and m.detail == {"decided": 5, "validated": 1}
    assert (m.healthy, m.alarm) == (True, False)  # 10-30%
    put(db, mutations=[{"id": "dz-1", "agent_id": "dz", "status": "refuted", "decided_at": NOW - day}])
    assert (metrics(db, "dz")["dream_yield"].value, metrics(db, "dz")["dream_yield"].alarm) == (0.0, True)


def test_reflection_consistency_is_the_agreement_of_reflections_on_one_recurring_prediction(db) -> None:
    """Pairs of reflections on one series in one regime: 3 correct and 1 wrong on return_bps/bull make 6 pairs, 3
    agreeing; 2 wrong on gas/bear 1 pair, agreeing: 4 of 7. A lone reflection, an old one and another agent's do not
    count."""
    rows = [("return_bps", "bull", "correct")] * 3 + [("return_bps", "bull", "wrong")] + [("gas", "bear", "wrong")] * 2
    put(db, reflections=[{"id": f"reflexion:rc{i}", "agent_id": "rc", "at": ago(i * 0.5), "series": s, "regime": g,
                          "verdict": v} for i, (s, g, v) in enumerate(rows)]
        + [{"id": "reflexion:rc-lone", "agent_id": "rc", "at": ago(1), "series": "fee", "regime": "bull",
            "verdict": "wrong"},
           {"id": "reflexion:rc-old", "agent_id": "rc", "at": ago(8), "series": "gas", "regime": "bear",
            "verdict": "correct"},
           {"id": "reflexion:rc-other", "agent_id": "rc-x", "at": ago(1), "series": "gas", "regime": "bear",
            "verdict": "correct"}])
    m = metrics(db, "rc")["reflection_consistency"]
    assert m.value == pytest.approx(4 / 7) and m.detail == {"pairs": 7, "agreeing": 4, "recurring": 2}
    assert (m.healthy, m.alarm) == (False, False)  # not above 0.7, not below 0.5
    assert metrics(db, "rc-x")["reflection_consistency"].value is None  # one reflection: nothing to compare


def test_decision_cache_hit_rate_counts_decisions_on_a_kept_workspace(db) -> None:
    """Five decisions of the window: on a workspace built ahead (preassembly: a hit), on a cold one twice (the first
    a miss, the second served again: a hit) and on two cold ones once each (misses): 2 of 5. The agent's first
    decision is 20 days old, so the range applies: 40% is healthy."""
    put(db, assemblies=[{"id": "dc-pre", "agent_id": "dc", "source": "preassembly"},
                        *({"id": f"dc-cold{i}", "agent_id": "dc", "source": "cold"} for i in range(4))],
        context_decisions=[
            {"id": "dc-d0", "agent_id": "dc", "assembly_id": "dc-cold0", "at": ago(20)},  # out of the window
            {"id": "dc-d1", "agent_id": "dc", "assembly_id": "dc-pre", "at": ago(3)},
            {"id": "dc-d2", "agent_id": "dc", "assembly_id": "dc-cold1", "at": ago(2)},
            {"id": "dc-d3", "agent_id": "dc", "assembly_id": "dc-cold1", "at": ago(1.5)},
            {"id": "dc-d4", "agent_id": "dc", "assembly_id": "dc-cold2", "at": ago(1)},
            {"id": "dc-d5", "agent_id": "dc", "assembly_id": "dc-cold3", "at": ago(0.5)},
            {"id": "dc-x", "agent_id": "dc-other", "assembly_id": "dc-pre", "at": ago(1)}])
    m = metrics(db, "dc")["decision_cache_hit_rate"]
    assert m.value == pytest.approx(0.4)
    assert m.detail == {"decisions": 5, "from_cache": 2, "days": pytest.approx(20.0)}
    assert (m.healthy, m.alarm) == (True, False)
    young = metrics(db, "dc", now=ago(1.2))["decision_cache_hit_rate"]  # d0..d3 seen then: 1 of 3 in its window
    assert young.value == pytest.approx(2 / 3) and young.detail["decisions"] == 3


def test_threat_coverage_is_the_share_of_warnings_rehearsed_in_the_last_7_days(db) -> None:
    """Four warnings held: one read 2 days ago, one retrieved for a decision yesterday, a bloodstain last read 9
    days ago, one never read (its last_accessed_at is its creation's, with no access): 2 of 4, the alarm. An
    archived warning and a heuristic do not count."""
    put(db, entries=[
        {"id": "tc-read", "agent_id": "tc", "category": "Warning", "status": "active", "last_read_at": ago(2)},
        {"id": "tc-used", "agent_id": "tc", "category": "Warning", "status": "candidate", "access_count": 1,
         "last_accessed_at": ago(1)},
        {"id": "tc-blood", "agent_id": "tc", "category": "Warning", "status": "active", "is_bloodstain": True,
         "last_read_at": ago(9)},
        {"id": "tc-never", "agent_id": "tc", "category": "Warning", "status": "active", "access_count": 0,
         "last_accessed_at": ago(1)},
        {"id": "tc-gone", "agent_id": "tc", "category": "Warning", "status": "archived", "last_read_at": ago(1)},
        {"id": "tc-h", "agent_id": "tc", "category": "Heuristic", "status": "active", "last_read_at": ago(1)}])
    m = metrics(db, "tc")["threat_coverage"]
    assert m.value == pytest.approx(0.5) and m.detail == {"threats": 4, "rehearsed": 2, "bloodstains": 1}
    assert (m.healthy, m.alarm) == (False, True)
    put(db, entries=[{"id": "tc2", "agent_id": "tc-all", "category": "Warning", "status": "active",
                      "last_read_at": ago(1)}])
    assert (metrics(db, "tc-all")["threat_coverage"].value, metrics(db, "tc-all")["threat_coverage"].healthy) == (
        1.0, True)


def test_an_agent_without_data_has_null_metrics_and_no_alarm(db) -> None:
    found = compute_agent(db, "nobody", NOW)
    assert [v.name for v in found][0] == "admission_rate" and len(found) == 11
    for v in found:
        assert v.alarm is False and v.healthy is None
        assert v.value == (0 if v.name == "grimoire_size" else None)
        assert v.metric.no_input is None


def test_the_series_is_idempotent_per_day_and_reads_back(db) -> None:
    put(db, entries=[{"id": f"e{i}", "agent_id": "ser", "status": "active"} for i in range(3)])
    assert record(db, "ser", NOW, actor="test") == WITH_INPUT
    assert record(db, "ser", NOW + 3_600_000, actor="test") == WITH_INPUT  # same day: overwritten
    rows = read_series(db, "ser", EVERYONE)
    assert len(rows) == WITH_INPUT and {r.day for r in rows} == {TODAY}
    assert [r.name for r in rows] == sorted(r.name for r in rows)
    size = [r.model_dump() for r in rows if r.name == "grimoire_size"]
    assert size == [{"name": "grimoire_size", "day": TODAY, "value": 3.0, "at": from_ms(NOW + 3_600_000)}]
    assert next(r for r in rows if r.name == "admission_rate").value is None  # no data: a gap

    put(db, entries=[{"id": "e-next", "agent_id": "ser", "status": "active"}])
    record(db, "ser", NOW + DAY_MS, actor="test")
    record(db, "ser", NOW + 2 * DAY_MS, actor="test")
    plot = read_series(db, "ser", Visibility.of("ser", None), name="grimoire_size")
    assert [(r.day, r.value) for r in plot] == [(TODAY, 3.0), ("2026-03-16", 4.0), ("2026-03-17", 4.0)]
    window = read_series(db, "ser", EVERYONE, name="grimoire_size", since="2026-03-16", until="2026-03-16")
    assert [r.day for r in window] == ["2026-03-16"]
    assert day_of(NOW + 2 * DAY_MS) == "2026-03-17"
    # Each recording is audited (a Noop revert: samples are derived).
    audits = [r for r in db.run("testing/audit_records") if r["action"] == "metrics.record"]
    assert len(audits) == 4 and all('"noop"' in a["revert"] and a["agent_id"] == "ser" for a in audits)


def test_record_all_covers_every_registered_agent(api) -> None:
    for agent in ("golem-1", "golem-2"):
        api.headers(agent)
    assert record_all(api.db, NOW) == 2 * WITH_INPUT
    assert record_all(api.db, NOW) == 2 * WITH_INPUT  # again: overwritten, not added
    assert len(read_series(api.db, "golem-2", EVERYONE)) == WITH_INPUT
    with pytest.raises(UnknownMetric, match="no metric named"):
        read_series(api.db, "golem-2", EVERYONE, name="sharpe")


def test_metrics_over_the_api_from_real_writes(api, db) -> None:
    """Admission decisions from POST /entries, a retrieval for a decision from POST /retrieve, and the
    episode recording that decision from POST /episodes."""
    h = api.headers("golem-1")
    texts = ["Aave WETH borrow utilisation above 90% precedes a variable rate spike within 2 hours",
             "Uniswap v3 ETH/USDC liquidity thins by 30% on weekends between 02:00 and 06:00 UTC"]
    outcomes = [api.client.post("/entries", headers=h, json={"category": "Insight", "content": t}).json()["outcome"]
                for t in [*texts, texts[0], texts[0]]]
    passing = sum(o in ("admitted", "admitted_low", "merged") for o in outcomes)
    assert outcomes[2:] == ["skipped", "skipped"]  # duplicates do not pass
    r = api.client.post("/retrieve", headers=h, json={"text": "Aave utilisation", "for_decision": True})
    assert r.status_code == 200 and r.json()["results"], r.text
    r = api.client.post("/retrieve", headers=h, json={"text": "Uniswap liquidity", "for_decision": True})
    assert r.status_code == 200, r.text
    decisions = [x["record"]["id"] for x in db.run("testing/access_records")]
    assert len(decisions) == 2
    r = api.client.post("/episodes", headers=h, json={"type": "action", "text": "borrowed against WETH",
                                                       "decision_id": decisions[0], "gain": 12.5})
    assert r.status_code == 201, r.text

    body = api.client.get("/metrics", headers=h).json()
    assert body["agent_id"] == "golem-1" and len(body["metrics"]) == 11
    got = {m["name"]: m for m in body["metrics"]}
    assert got["admission_rate"]["value"] == pytest.approx(passing / 4)
    assert got["admission_rate"]["detail"] == {"decisions": 4, "passing": passing}
    assert got["admission_rate"]["healthy_range"] == {"text": "40-60%", "low": 0.4, "high": 0.6}
    assert got["retrieval_hit_rate"]["value"] == 0.5 and got["retrieval_hit_rate"]["healthy"] is None  # day one
    assert got["external_metric_trend"]["value"] == 12.5
    for name in ONCE_WITHOUT:  # no reflections, context decisions or warnings yet: no value, never an alarm
        assert got[name]["value"] is None and got[name]["no_input"] is None and not got[name]["alarm"]
    assert body["alarms"] == [m["name"] for m in body["metrics"] if m["alarm"]]

    made = api.client.post("/metrics/samples", headers=h, json={})
    assert made.status_code == 201 and made.json()["recorded"] == WITH_INPUT and made.json()["agents"] == ["golem-1"]
    plot = api.client.get("/metrics/series", headers=h, params={"name": "external_metric_trend"}).json()
    assert [(s["name"], s["value"]) for s in plot["samples"]] == [("external_metric_trend", 12.5)]
    assert api.client.get("/metrics/series", headers=h, params={"name": "sharpe"}).status_code == 422
    assert api.client.get("/metrics/series", headers=h, params={"since": "yesterday"}).status_code == 422


def test_metrics_are_isolated(api) -> None:
    one, two = api.headers("golem-1"), api.headers("golem-2", "clade-a")  # the same clade: still apart
    for h, content in ((one, "Curve 3pool imbalance above 70% USDT preceded each depeg scare in 2023"),
                       (two, "Morpho Blue ETH markets reprice within 3 blocks of a Chainlink update")):
        r = api.client.post("/entries", headers=h, json={"category": "Insight", "content": content})
        assert r.status_code == 201, r.text
    assert api.client.post("/metrics/samples", headers=two, json={}).status_code == 201

    mine = {m["name"]: m for m in api.client.get("/metrics", headers=one).json()["metrics"]}
    assert mine["admission_rate"]["detail"]["decisions"] == 1  # its own decision only
    for path in ("/metrics", "/metrics/series"):
        r = api.client.get(path, headers=one, params={"agent_id": "golem-2"})
        assert r.status_code == 404, (path, r.text)
    assert api.client.post("/metrics/samples", headers=one, json={"agent_id": "golem-2"}).status_code == 404
    assert api.client.get("/metrics/series", headers=one).json()["samples"] == []  # golem-2's are not golem-1's
    with pytest.raises(MetricsNotFound, match="no metrics for agent"):
        read_series(api.db, "golem-2", Visibility.of("golem-1", "clade-a"))

    # The admin names any agent, must name one, and an unknown one is a 404.
    admin = api.admin
    theirs = api.client.get("/metrics", headers=admin, params={"agent_id": "golem-2"})
    assert theirs.status_code == 200 and theirs.json()["agent_id"] == "golem-2"
    assert len(api.client.get("/metrics/series", headers=admin, params={"agent_id": "golem-2"}).json()["samples"]) \
        == WITH_INPUT
    assert api.client.get("/metrics", headers=admin).status_code == 422
    assert api.client.get("/metrics", headers=admin, params={"agent_id": "ghost"}).status_code == 404
    everyone = api.client.post("/metrics/samples", headers=admin, json={}).json()
    assert everyone["agents"] == ["golem-1", "golem-2"] and everyone["recorded"] == 2 * WITH_INPUT
    assert api.client.get("/metrics", headers=api.headers("golem-1", scopes=("write",))).status_code == 403
