"""The consolidation engine (knowledge-crystals.md, "Consolidation Engine") on crystals with scripted access
histories: importance recalculated by I = f(n)·e^(−λ_eff·Δt), against numbers worked out by hand; the forgotten
expired (generated) or archived (activated), never a permanent crystal or a skill; promoted crystals of one source
merged at the hormone-modulated threshold (the winner consolidated, the loser archived under it); each page and
batch audited; on the scheduler and on demand."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from grimoire.graph.crystals import hormonal_state as hs
from grimoire.graph.crystals.config import CrystalsConfig
from grimoire.graph.crystals.consolidation import MERGE_PRIORITY_LEAD, ConsolidationEngine, pick_merges
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.ids import now_ms
from grimoire.graph.model.crystal.hormones import HormonalEvent as E
from tests.conftest import Api

DAY = 86_400_000
DT = 40 * DAY
F0 = 1 - math.exp(-0.1)                 # f(0) = 0.0951626
CALM = 0.15 * 0.2 + 0.10 * 0.2 + 0.02 * 0.3  # homeostasis's decay resistance: 0.056
TWIN_A = "The Aave WETH borrow rate spiked right after the Chainlink oracle update"
TWIN_B = "Right after the Chainlink oracle update, the Aave WETH borrow rate spiked"


def _write(api: Api, h: dict[str, str], eid: str, text: str, **extra: Any) -> None:
    r = api.client.post("/episodes", headers=h, json={"id": eid, "type": "observation", "text": text, **extra})
    assert r.status_code == 201, r.text


def _script(db: Database, now: int, rows: dict[str, dict[str, Any]]) -> None:
    """Each crystal's access count, last access (days ago) and valence."""
    db.run("testing/set_crystal_props", rows=[
        {"id": i, "props": {"access_count": p.get("n", 0), "last_accessed_at": now - p.get("days", 0) * DAY,
                            "emotional_valence": p.get("valence", 0.0)}} for i, p in rows.items()])


def _crystal(api: Api, h: dict[str, str], cid: str) -> dict[str, Any]:
    r = api.client.get(f"/crystals/{cid}", headers=h, params={"include_archived": True})
    return r.json() if r.status_code == 200 else {"status": r.status_code}


def test_importance_forgetting_and_what_never_expires(api: Api, db: Database) -> None:
    h, stressed = api.headers("cs-a"), api.headers("cs-s")
    for i in ("fresh", "old", "moving", "active-old", "kept"):
        _write(api, h, i, f"note {i} about a lending market")
    _write(api, h, "kept-permanent", "a permanent note", governance={"lifespan": "permanent"})
    _write(api, stressed, "old-stressed", "an old note of a stressed agent")
    api.client.post("/crystals/active-old/lifecycle", headers=h, json={"to": "activated"})
    r = api.client.post("/entries", headers=h, json={"id": "sk", "category": "Heuristic",
                                                      "content": "Unwind the loop before the liquidation threshold"})
    assert r.json()["outcome"] == "admitted"
    assert api.client.post("/skills", headers=h, json={"crystal_id": "sk"}).status_code == 201
    now = now_ms()
    _script(db, now, {"fresh": {}, "old": {"days": 40}, "moving": {"days": 40, "valence": 0.8},
                      "active-old": {"days": 40}, "kept-permanent": {"days": 400}, "old-stressed": {"days": 40},
                      "kept": {"days": 10}})
    db.run("testing/set_entry_props", id="sk", props={"last_accessed_at": now - 400 * DAY})
    # What the seed never loses, as old: a warning, a bloodstain, a playbook heuristic (issue 36, section 4).
    kept = {"warn": {"category": "Warning", "content": "Never borrow against stETH when the Lido queue is long"},
            "blood": {"category": "Warning", "provenance": "DeathReflection", "is_bloodstain": True,
                      "content": "Leveraged GMX longs died in the August wick: close before funding flips"},
            "play": {"category": "Heuristic", "content": "Rebalance the Aerodrome LP past forty percent drift"}}
    for eid, body in kept.items():
        r = api.client.post("/entries", headers=h, json={"id": eid, **body})
        assert r.json()["outcome"] == "admitted", r.text
    db.run("testing/set_entry_props", id="play", props={"in_playbook": True, "status": "active"})
    _script(db, now, {eid: {"days": 400} for eid in kept})
    # The stressed agent's cortisol: 0.02 + 0.3 (error) + 0.4 (urgency) = 0.72; its decay resistance
    # 0.72·0.3 + 0.15·0.2 + 0.10·0.2 = 0.266.
    db.write(lambda tx: hs.spike_in(tx, "cs-s", [E.error, E.urgency], now, "test"))
    report = ConsolidationEngine(db).run(now)
    got = {i: _crystal(api, h, i) for i in ("fresh", "old", "moving", "active-old", "kept", "kept-permanent", "sk")}
    assert got["fresh"]["importance_score"] == pytest.approx(F0)                         # 0.0951626
    assert got["kept"]["importance_score"] == pytest.approx(F0 * math.exp(-5e-10 * (1 - CALM) * 10 * DAY))
    assert got["old"] == {"status": 404}   # 0.0951626·e^(−5e−10·0.944·40 d) = 0.018622 < 0.02: expired
    assert got["moving"]["importance_score"] == pytest.approx(0.0357606, rel=1e-5)      # valence 0.8: λ × 0.6
    assert got["moving"]["lifecycle"] == "generated"
    assert got["active-old"]["lifecycle"] == "archived"                                 # activated cannot expire
    assert got["kept-permanent"]["lifecycle"] == "generated"                            # lifespan permanent
    assert got["sk"]["lifecycle"] == "frozen"                                           # a skill never expires
    for eid in kept:                     # 400 days unread: far below the threshold, and kept as the seed says
        crystal = _crystal(api, h, eid)
        assert crystal["lifecycle"] == "generated" and crystal["importance_score"] < 0.02, (eid, crystal)
    stressed_old = _crystal(api, stressed, "old-stressed")
    assert stressed_old["importance_score"] == pytest.approx(0.0267687, rel=1e-3)       # resistance 0.266: kept
    assert (report.expired, report.archived, report.merged) == (1, 1, 0)
    records = [r for r in db.rows("testing/audit_records") if r["action"] == "crystal.lifecycle"]
    assert {r["agent_id"] for r in records} == {"cs-a"} and set(records[0]["target_ids"]) == {"old", "active-old"}


def _cosine(embedder: Embedder, a: str, b: str) -> float:
    va, vb = embedder.embed([a, b])
    return float(np.dot(va, vb) / (np.linalg.norm(va) * np.linalg.norm(vb)))


def test_promoted_crystals_of_one_source_merge_at_the_modulated_threshold(api: Api, db: Database,
                                                                          embedder: Embedder) -> None:
    cos = _cosine(embedder, TWIN_A, TWIN_B)
    assert 0.9 < cos < 0.999
    h, other, stressed = api.headers("cs-m"), api.headers("cs-o"), api.headers("cs-t")
    _write(api, h, "m1", TWIN_A)
    _write(api, h, "m2", TWIN_B)
    _write(api, h, "m3", "Gas fees on Base fell after the Dencun upgrade")
    _write(api, other, "o1", TWIN_B)
    _write(api, stressed, "t1", TWIN_A)
    _write(api, stressed, "t2", TWIN_B)
    now = now_ms()
    # f(30) = 0.954951 and f(20) = 0.877544: both promoted (> 0.7), m1 the more important.
    _script(db, now, {"m1": {"n": 30}, "m2": {"n": 20}, "m3": {"n": 30}, "o1": {"n": 30}, "t1": {"n": 30},
                      "t2": {"n": 20}})
    db.write(lambda tx: hs.spike_in(tx, "cs-t", [E.error, E.urgency], now, "test"))  # cortisol 0.72
    # A base threshold just under the pair's cosine: met at homeostasis (+0.03·0.02), not under stress
    # (+0.03·0.72 = 0.0216).
    config = CrystalsConfig(merge_overlap_threshold=cos - 0.01).consolidation()
    report = ConsolidationEngine(db, config).run(now)
    m1, m2, m3 = (_crystal(api, h, i) for i in ("m1", "m2", "m3"))
    assert m1["importance_score"] == pytest.approx(0.9549508) and m2["importance_score"] == pytest.approx(0.8775436)
    assert (m1["lifecycle"], m2["lifecycle"], m2["parent_id"]) == ("consolidated", "archived", "m1")
    assert m3["lifecycle"] == "activated"                                   # promoted, nothing near it
    assert _crystal(api, other, "o1")["lifecycle"] == "activated"           # another source: never merged with m1
    assert {_crystal(api, stressed, i)["lifecycle"] for i in ("t1", "t2")} == {"activated"}  # stress: 0.0216 higher
    assert report.merged == 1 and report.merges[0]["cosine"] == pytest.approx(cos, abs=1e-5)
    tree = api.client.get("/crystals/m1/provenance", headers=h).json()
    assert tree[0]["operation"] == "merged" and tree[0]["parent_ids"] == ["m2"] and tree[0]["actor"] == "consolidation"
    assert [r["action"] for r in db.rows("testing/audit_records")].count("crystal.merge") == 1


def test_a_merge_keeps_the_higher_priority_crystal(api: Api, db: Database, embedder: Embedder) -> None:
    """The governance priority (knowledge-crystals.md line 118) decides a merge's winner before importance: p2, the
    less important of the twins, is kept (consolidated) because its owner gave it the higher priority; between
    equal priorities the more important one wins (q1), as before."""
    q_a = "Liquidity in the Uniswap v3 ETH/USDC pool thinned during the Asian session"
    q_b = "During the Asian session, liquidity in the Uniswap v3 ETH/USDC pool thinned"
    low = min(_cosine(embedder, TWIN_A, TWIN_B), _cosine(embedder, q_a, q_b)) - 0.01
    assert max(_cosine(embedder, TWIN_A, q_a), _cosine(embedder, TWIN_B, q_b)) < low   # only the twins merge
    h = api.headers("cs-p")
    _write(api, h, "p1", TWIN_A, governance={"priority": 10})
    _write(api, h, "p2", TWIN_B, governance={"priority": 60})
    _write(api, h, "q1", q_a, governance={"priority": 60})
    _write(api, h, "q2", q_b, governance={"priority": 60})
    now = now_ms()
    _script(db, now, {"p1": {"n": 30}, "p2": {"n": 20}, "q1": {"n": 30}, "q2": {"n": 20}})
    report = ConsolidationEngine(db, CrystalsConfig(merge_overlap_threshold=low).consolidation()).run(now)
    p1, p2, q1, q2 = (_crystal(api, h, i) for i in ("p1", "p2", "q1", "q2"))
    assert p1["importance_score"] > p2["importance_score"]
    assert (p2["lifecycle"], p1["lifecycle"], p1["parent_id"]) == ("consolidated", "archived", "p2")
    assert (q1["lifecycle"], q2["lifecycle"], q2["parent_id"]) == ("consolidated", "archived", "q1")
    assert sorted((m["winner"], m["losers"]) for m in report.merges if m["agent_id"] == "cs-p") == [
        ("p2", ["p1"]), ("q1", ["q2"])]


def test_pick_merges_reads_the_priority_first() -> None:
    assert MERGE_PRIORITY_LEAD == 1
    pair = {"a": "x", "b": "y", "cosine": 0.95, "a_score": 0.9, "b_score": 0.8, "agent_id": "g"}
    assert pick_merges([pair])[0]["winner"] == "x"                                     # no priority: importance
    assert pick_merges([{**pair, "a_priority": 5, "b_priority": 5}])[0]["winner"] == "x"   # equal: importance
    assert pick_merges([{**pair, "a_priority": 5, "b_priority": 6}])[0]["winner"] == "y"   # a lead: priority
    assert pick_merges([{**pair, "a_priority": 0, "b_priority": None}])[0]["winner"] == "x"


def test_pick_merges_takes_the_closest_pairs_once() -> None:
    pairs = [{"a": "x", "b": "y", "cosine": 0.95, "a_score": 0.8, "b_score": 0.9, "agent_id": "g"},
             {"a": "y", "b": "x", "cosine": 0.95, "a_score": 0.9, "b_score": 0.8, "agent_id": "g"},
             {"a": "x", "b": "z", "cosine": 0.97, "a_score": 0.8, "b_score": 0.75, "agent_id": "g"},
             {"a": "y", "b": "w", "cosine": 0.93, "a_score": 0.9, "b_score": 0.72, "agent_id": "g"}]
    assert [(m["winner"], m["losers"]) for m in pick_merges(pairs)] == [("x", ["z"]), ("y", ["w"])]


def test_on_demand_is_the_admins(api: Api, db: Database) -> None:
    h = api.headers("cs-d")
    _write(api, h, "d1", "an old note")
    _script(db, now_ms(), {"d1": {"days": 400}})
    assert api.client.post("/crystals/consolidate", headers=h).status_code == 403
    r = api.client.post("/crystals/consolidate", headers=api.admin)
    assert r.status_code == 200 and r.json()["expired"] == 1 and r.json()["scored"] >= 1
    assert api.client.get("/crystals/d1", headers=h).status_code == 404


def test_on_demand_waits_for_another_replicas_pass(api: Api, db: Database) -> None:
    """POST /crystals/consolidate takes the scheduled job's lease: while another replica holds it (its pass runs),
    the request is a 409 and opens no run; once released, it runs."""
    from grimoire.graph.leases import Leases
    from grimoire.graph.services import CONSOLIDATION_JOB

    other = Leases(db, "replica-elsewhere", 60.0)
    with other.hold(CONSOLIDATION_JOB) as seen:
        assert seen.held
        r = api.client.post("/crystals/consolidate", headers=api.admin)
        assert r.status_code == 409 and "replica-elsewhere" in r.text, r.text
    r = api.client.post("/crystals/consolidate", headers=api.admin)
    assert r.status_code == 200, r.text


def test_a_page_with_nothing_to_score_does_not_end_the_pass(api: Api, db: Database) -> None:
    h = api.headers("cs-p")
    for i in range(25):
        _write(api, h, f"p{i:02d}", f"note {i} on a perp venue")
    for i in range(10):  # the first page (ids in order) holds only frozen crystals
        assert api.client.post(f"/crystals/p{i:02d}/lifecycle", headers=h, json={"to": "frozen"}).status_code == 200
    now = now_ms()
    _script(db, now, {f"p{i:02d}": {"days": 60} for i in range(10, 25)})
    report = ConsolidationEngine(db, batch=10).run(now)
    assert report.scored == 15 and report.expired == 15


def test_concurrent_events_all_count(db: Database) -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=3) as pool:
        list(pool.map(lambda _: hs.record_event(db, "cs-c", E.error, actor="test"), range(3)))
    assert hs.levels(db, "cs-c").cortisol == pytest.approx(0.02 + 3 * 0.3, abs=2e-3)  # none lost


def test_retrievals_modulation_reads_levels_once_a_second_and_an_event_at_once(db: Database) -> None:
    """Retrieval's modulation holds an agent's stored levels for a second (every retrieval asks); an event written
    through this replica drops them at once, one written elsewhere shows within the second."""
    hs.LEVELS.clear()
    assert hs.retrieval_modulation(db, "cs-m") is None  # never moved: retrieves as configured
    hs.record_event(db, "cs-m", E.error, actor="test")
    calm = hs.retrieval_modulation(db, "cs-m")
    assert calm is not None  # the event dropped what was held: read at once
    reads: list[str] = []
    typed = db.typed

    def counted(row: Any, /, **params: Any) -> Any:
        reads.append(row.query)
        return typed(row, **params)

    db.typed = counted  # type: ignore[method-assign]
    try:
        assert hs.retrieval_modulation(db, "cs-m") == pytest.approx(calm, abs=1e-3)
        assert "crystals/hormones_get" not in reads  # held
        # Another replica's write (the stored levels set directly): seen here once the second has passed.
        db.run("crystals/hormones_set", agent_id="cs-m", id="cs-m:hormones", dopamine=0.15, cortisol=0.95,
               oxytocin=0.10, at=now_ms(), event="error")
        import time

        time.sleep(hs.LEVELS.seconds + 0.05)  # past the entry's expiry, set when it was read
        stressed = hs.retrieval_modulation(db, "cs-m")
        assert "crystals/hormones_get" in reads and stressed != pytest.approx(calm, abs=1e-3)
    finally:
        db.typed = typed  # type: ignore[method-assign]


def _run(db: Database, run_id: str) -> dict[str, Any]:
    [row] = db.fetch("testing/consolidation_run", id=run_id)
    return row


def _old_notes(api: Api, db: Database, agent: str, n: int, now: int) -> list[str]:
    h = api.headers(agent)
    ids = [f"{agent}-{i:02d}" for i in range(n)]
    for i in ids:
        _write(api, h, i, f"note {i} on a lending venue")
    _script(db, now, {i: {"days": 60} for i in ids})
    return ids


def test_a_run_is_one_audited_record_of_the_four_phases(api: Api, db: Database) -> None:
    """knowledge-crystals.md: the four phases, in order, applied with every transition logged: the pass is a
    ConsolidationRun whose record holds each phase's count, and every audit record it writes names it."""
    now = now_ms()
    _old_notes(api, db, "cs-run", 12, now)
    report = ConsolidationEngine(db, batch=10).run(now)
    assert report.mode == "paged" and report.status == "completed" and not report.resumed
    row = _run(db, report.run_id)
    run = row["run"]
    assert run["status"] == "completed" and run["phases_done"] == ["score", "forget", "merge", "apply"]
    assert run["started_at"] == now and run["finished_at"] >= now
    assert (run["phase_score"], run["phase_forget"], run["phase_merge"], run["phase_apply"]) == (
        report.scored, report.expired + report.archived, report.merged, report.transactions)
    assert report.expired >= 12 and report.transactions >= 2  # pages of 10: more than one transaction
    actions = row["actions"]
    assert actions[0] == "crystal.consolidation_open" and actions[-1] == "crystal.consolidation_done"
    assert {"crystal.consolidate", "crystal.lifecycle"} <= set(actions)
    expired = {i for a, t in zip(actions, row["targets"], strict=True) if a == "crystal.lifecycle" for i in t}
    assert {f"cs-run-{i:02d}" for i in range(12)} <= expired
    # every record the pass wrote names its run
    mine = [r for r in db.rows("testing/audit_records") if r["actor"] == "consolidation" and r["at"] >= now]
    assert len(mine) == len(actions)


def test_an_interrupted_run_is_completed_by_the_next_under_its_id(api: Api, db: Database) -> None:
    from grimoire.graph.crystals.consolidation import PassRunning

    now = now_ms()
    ids = _old_notes(api, db, "cs-int", 25, now)
    calls = {"n": 0}

    def after_one_page() -> bool:
        calls["n"] += 1
        return calls["n"] > 2  # asked before the kinds, then before each page: the first page commits

    engine = ConsolidationEngine(db, batch=10)
    first = engine.run(now, after_one_page)
    assert first.status == "interrupted" and first.transactions == 1
    run = _run(db, first.run_id)["run"]
    assert (run["status"], run["phase"], run["phases_done"]) == ("interrupted", "score", [])
    assert run["after"] and run["scored"] == 10
    # A run another process is still at (touched just now) is not taken over: 409.
    db.run("crystals/run_save", id=first.run_id, props={"status": "running", "touched_at": now_ms()})
    with pytest.raises(PassRunning):
        engine.run(now)
    # One whose process died (running, untouched for long) is completed by the next, from its cursor.
    db.run("crystals/run_save", id=first.run_id, props={"status": "running", "touched_at": 0})
    second = engine.run(now + 1)
    assert second.run_id == first.run_id and second.resumed and second.status == "completed"
    row = _run(db, first.run_id)
    run = row["run"]
    assert run["status"] == "completed" and run["resumes"] == 1
    assert run["phases_done"] == ["score", "forget", "merge", "apply"]
    assert run["scored"] == first.scored + second.scored and run["transactions"] == (
        first.transactions + second.transactions)
    assert all(_crystal(api, api.headers("cs-int"), i) == {"status": 404} for i in ids)  # all 25 expired
    actions = row["actions"]
    # done: interrupted (the shutdown), interrupted again (its process died: a failed attempt, recorded when the
    # next run finds it), completed
    assert actions.count("crystal.consolidation_open") == 2 and actions.count("crystal.consolidation_done") == 3
    assert actions[-1] == "crystal.consolidation_done" and run["failures"] == 1


def test_a_small_store_is_consolidated_in_one_transaction(api: Api, db: Database) -> None:
    now = now_ms()
    ids = _old_notes(api, db, "cs-one", 3, now)
    report = ConsolidationEngine(db, batch=10, single_below=100_000).run(now)
    assert (report.mode, report.status, report.transactions) == ("single", "completed", 1)
    assert report.expired == 3 and report.scored == 3
    row = _run(db, report.run_id)
    assert row["run"]["phases_done"] == ["score", "forget", "merge", "apply"] and row["run"]["mode"] == "single"
    assert row["actions"][0] == "crystal.consolidation_open" and row["actions"][-1] == "crystal.consolidation_done"
    assert all(_crystal(api, api.headers("cs-one"), i) == {"status": 404} for i in ids)
    # the service's setting: at most 5,000 crystals is one transaction
    assert CrystalsConfig().single_transaction_below == 5_000
    r = api.client.post("/crystals/consolidate", headers=api.admin)
    assert r.status_code == 200 and r.json()["mode"] == "single" and r.json()["transactions"] == 1
    assert _run(db, r.json()["run_id"])["run"]["status"] == "completed"


def test_a_run_that_keeps_failing_is_given_up_after_max_attempts(api: Api, db: Database) -> None:
    """A paged run that fails the same way each time is resumed until it has failed `max_attempts` times (3 by
    default), then marked failed and audited; the next run starts fresh under a new id instead of resuming it."""
    from neo4j.exceptions import Neo4jError

    now = now_ms()
    ids = _old_notes(api, db, "cs-fail", 5, now)
    # A crystal no score can be computed for (a valence that is not a number): every attempt fails on its page.
    db.run("testing/set_crystal_props", rows=[{"id": ids[0], "props": {"emotional_valence": "very"}}])
    assert CrystalsConfig().consolidation_max_attempts == 3
    engine = ConsolidationEngine(db, batch=10, max_attempts=3)
    with pytest.raises(Neo4jError):
        engine.run(now)
    [first] = [r["run"] for r in db.fetch("crystals/run_unfinished", stale_before=0)]
    assert (first["status"], first["failures"]) == ("interrupted", 1) and "TypeError" in first["error"]
    for attempt in (2, 3):
        with pytest.raises(Neo4jError):
            engine.run(now + attempt)
        row = _run(db, first["id"])
        assert row["run"]["failures"] == attempt and row["run"]["resumes"] == attempt - 1
    run = row["run"]
    assert run["status"] == "failed" and run["finished_at"] == run["touched_at"]
    assert row["actions"][-1] == "crystal.consolidation_failed"
    assert row["actions"].count("crystal.consolidation_open") == 3
    assert db.fetch("crystals/run_unfinished", stale_before=0) == []  # nothing left to resume
    # The cause mended, the next run is a new one and completes.
    db.run("testing/set_crystal_props", rows=[{"id": ids[0], "props": {"emotional_valence": 0.0}}])
    fresh = engine.run(now + 4)
    assert fresh.run_id != first["id"] and not fresh.resumed and fresh.status == "completed"
    assert _run(db, first["id"])["run"]["status"] == "failed"


def test_an_outage_mid_run_is_no_failed_attempt(api: Api, db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """Neo4j unreachable (or a transient error) in the middle of a run is the database's failure, not the run's: the
    run is left interrupted with no failure counted, even at max_attempts 1, and the next run resumes it."""
    from grimoire.graph.db.connection import DatabaseUnavailable

    now = now_ms()
    _old_notes(api, db, "cs-outage", 3, now)
    engine = ConsolidationEngine(db, batch=10, max_attempts=1)
    merge = ConsolidationEngine._merge

    def unreachable(*args: Any, **kwargs: Any) -> None:
        raise DatabaseUnavailable("Neo4j cannot be reached")

    monkeypatch.setattr(ConsolidationEngine, "_merge", unreachable)
    with pytest.raises(DatabaseUnavailable):
        engine.run(now)
    [first] = [r["run"] for r in db.fetch("crystals/run_unfinished", stale_before=0)]
    assert (first["status"], first["failures"]) == ("interrupted", 0)
    monkeypatch.setattr(ConsolidationEngine, "_merge", merge)
    again = engine.run(now + 1)
    assert again.run_id == first["id"] and again.resumed and again.status == "completed"


def test_a_run_whose_process_keeps_dying_is_given_up_too(api: Api, db: Database) -> None:
    now = now_ms()
    _old_notes(api, db, "cs-dead", 3, now)
    engine = ConsolidationEngine(db, batch=10, max_attempts=2)
    first = engine.run(now, lambda: True)  # cancelled at once: interrupted by a shutdown, which is no failure
    assert first.status == "interrupted" and _run(db, first.run_id)["run"]["failures"] == 0
    db.run("crystals/run_save", id=first.run_id, props={"status": "running", "touched_at": 0})  # its process died
    second = engine.run(now + 1, lambda: True)
    assert second.run_id == first.run_id and _run(db, first.run_id)["run"]["failures"] == 1
    db.run("crystals/run_save", id=first.run_id, props={"status": "running", "touched_at": 0})  # and died again
    third = engine.run(now + 2)
    assert third.run_id != first.run_id and not third.resumed and third.status == "completed"
    row = _run(db, first.run_id)
    assert row["run"]["status"] == "failed" and row["run"]["failures"] == 2
    assert row["actions"].count("crystal.consolidation_failed") == 1


def test_a_paged_runs_phase_change_is_audited_with_the_move(api: Api, db: Database) -> None:
    """Scoring and forgetting done, the run's phase moves to merge in a transaction that writes its audit record
    (tag consolidation:<run id>): a run stopped right after the move shows the move and its record."""
    now = now_ms()
    _old_notes(api, db, "cs-phase", 5, now)
    calls = {"n": 0}

    def after_the_phase_change() -> bool:
        calls["n"] += 1
        # asked before the kinds, before each page (a page, then the end, per kind), before the phase change,
        # then before the merge: stopped there, after the move
        return calls["n"] > 7

    report = ConsolidationEngine(db, batch=10).run(now, after_the_phase_change)
    assert report.status == "interrupted"
    row = _run(db, report.run_id)
    assert row["run"]["phase"] == "merge" and row["run"]["phases_done"] == ["score", "forget"]
    phase = [t for a, t in zip(row["actions"], row["targets"], strict=True) if a == "crystal.consolidation_phase"]
    assert phase == [[report.run_id]]
    assert row["actions"].index("crystal.consolidation_phase") > max(
        i for i, a in enumerate(row["actions"]) if a in ("crystal.consolidate", "crystal.lifecycle"))
    # completed, the run's records are: opened, the pages, the phase change, (merges,) its finish
    done = ConsolidationEngine(db, batch=10).run(now + 1)
    assert done.run_id == report.run_id and done.status == "completed"
    actions = _run(db, report.run_id)["actions"]
    assert actions.count("crystal.consolidation_phase") == 1 and actions[-1] == "crystal.consolidation_done"
