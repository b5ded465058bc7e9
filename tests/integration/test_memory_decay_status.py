"""Decay status transitions recorded and audited (moltbot-memory.md 9.2, 12.3, 12.4; graph/memory/decay_status.py):
the scheduler's memory.decay job stores each memory's new status and writes one DECAY record by system:decay per
transition (from→to), in its owner's trail only; a second run with nothing changed writes nothing; reinforcement's
way back up is recorded too; reads still compute the status when they read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from grimoire.graph.db.connection import Database
from grimoire.graph.ids import now_ms
from grimoire.graph.memory import decay_status
from tests.conftest import Api

AGENT, OTHER, CLADE = "decay-owner", "decay-mate", "clade-decay"
DAY = 86_400_000


def _say(api: Api, h: dict[str, str], text: str, days: float = 0) -> str:
    at = datetime.now(UTC) - timedelta(days=days)
    r = api.client.post(f"/agents/{AGENT}/messages", headers=h, json={"text": text, "at": at.isoformat()})
    assert r.status_code == 200, r.text
    return str(r.json()["memory_id"])


def _memory(api: Api, h: dict[str, str], mid: str) -> dict[str, Any]:
    r = api.client.get(f"/agents/{AGENT}/memories/{mid}", headers=h)
    assert r.status_code == 200, r.text
    return dict(r.json())


def _decays(api: Api, h: dict[str, str], agent: str = AGENT) -> list[dict[str, Any]]:
    r = api.client.get(f"/agents/{agent}/audit", headers=h, params={"verb": "DECAY", "limit": 500})
    assert r.status_code == 200, r.text
    return [dict(x) for x in r.json() if x["action"] == decay_status.ACTION]


def _run_job(api: Api) -> str | None:
    """The service's own job, on its scheduler (graph/scheduler.py), as the period would run it."""
    scheduler = api.client.app.state.services.scheduler
    assert scheduler.trigger("memory.decay")
    assert scheduler.run_due() == ["memory.decay"]
    job = scheduler.job("memory.decay")
    assert job.last_error is None, job.last_error
    return job.last_result


def test_a_memory_aged_past_the_fading_threshold_gets_one_decay_record(api: Api, db: Database) -> None:
    h, mate = api.headers(AGENT, CLADE), api.headers(OTHER, CLADE)
    aged = _say(api, h, "Remember that the release happened on time.")      # episodic: 0.8, active
    fresh = _say(api, h, "Remember that Postgres uses MVCC.")               # semantic, 1.0: stays active
    born = _say(api, h, "Remember that the auditors came by.", days=30)     # said 30 days ago: fading from birth
    # Written with their status at arrival: the transitions start from it.
    assert _memory(api, h, aged)["decay_status"] == "active"
    assert _memory(api, h, born)["decay_status"] == "fading"
    assert _run_job(api) == "0 status transitions recorded (none) of 3 memories"
    assert _decays(api, h) == []

    # 30 days without access: 0.8 × e^-0.9 = 0.325, under 9.2's 0.5: fading.
    db.run("testing/set_crystal_props", rows=[{"id": aged, "props": {"last_accessed_at": now_ms() - 30 * DAY}}])
    assert _memory(api, h, aged)["relevance"]["status"] == "fading"  # read time, before any run
    assert _memory(api, h, aged)["decay_status"] == "active"
    before = now_ms()
    assert _run_job(api) == "1 status transitions recorded (1 to fading) of 3 memories"
    records = _decays(api, h)
    assert len(records) == 1, records
    record = records[0]
    assert record["target_ids"] == [aged] and record["verb"] == "DECAY" and record["agent_id"] == AGENT
    assert record["actor"] == "system:decay" and record["tag"] == "system:decay" and record["approval"] == "auto"
    assert record["summary"].startswith("active→fading: relevance 0.325"), record
    assert record["channel"] == "scheduler"
    assert " | DECAY | " in record["line"] and "| system:decay | auto | active→fading" in record["line"]
    got = _memory(api, h, aged)
    assert got["decay_status"] == "fading" and got["decay_status_at"] == record["at"] >= before
    assert _memory(api, h, fresh)["decay_status"] == "active" and _memory(api, h, born)["decay_status"] == "fading"
    # The owner's record: a clade mate's trail and its view of the owner's trail show nothing of it.
    assert _decays(api, mate, OTHER) == []
    assert api.client.get(f"/agents/{AGENT}/audit", headers=mate).status_code in (403, 404)
    assert _memory(api, h, aged)["scope"] == "private"

    # A second run with nothing changed writes nothing.
    assert _run_job(api) == "0 status transitions recorded (none) of 3 memories"
    assert len(_decays(api, h)) == 1

    # Further down: 60 days, 0.8 × e^-1.8 = 0.132, dormant; and reinforcement brings it back up, recorded too.
    db.run("testing/set_crystal_props", rows=[{"id": aged, "props": {"last_accessed_at": now_ms() - 60 * DAY}}])
    _run_job(api)
    r = api.client.post(f"/agents/{AGENT}/memories/reinforce", headers=h, json={"ids": [aged], "reason": "used"})
    assert r.status_code == 200, r.text
    _run_job(api)
    summaries = [x["summary"].split(":")[0] for x in reversed(_decays(api, h))]
    assert summaries == ["active→fading", "fading→dormant", "dormant→active"], summaries
    assert _memory(api, h, aged)["decay_status"] == "active"


def test_a_reverted_transition_restores_the_status_it_replaced(api: Api, db: Database) -> None:
    """Each record's revert operation is the status before it (graph/audit/rollback.py undoes one change)."""
    h = api.headers(AGENT, CLADE)
    mid = _say(api, h, "Remember that the release happened on time.")
    db.run("testing/set_crystal_props", rows=[{"id": mid, "props": {"last_accessed_at": now_ms() - 30 * DAY}}])
    out = decay_status.record(db)
    assert out.recorded == 1 and out.to == {"fading": 1} and out.transactions == 1
    assert decay_status.record(db).recorded == 0
    [record] = _decays(api, h)
    r = api.client.post(f"/agents/{AGENT}/rollback", headers=api.admin, json={"record": record["id"]})
    assert r.status_code == 200, r.text
    assert _memory(api, h, mid)["decay_status"] == "active"
    assert decay_status.record(db).recorded == 1  # the formula still says fading: recorded again


def test_transitions_are_written_a_batch_per_transaction(api: Api, db: Database) -> None:
    h = api.headers(AGENT, CLADE)
    ids = [_say(api, h, f"Remember that release {i} happened on time.") for i in range(5)]
    db.run("testing/set_crystal_props", rows=[{"id": i, "props": {"last_accessed_at": now_ms() - 30 * DAY}}
                                              for i in ids])
    out = decay_status.record(db, batch=2)
    assert out.read == 5 and out.recorded == 5 and out.transactions == 3
    assert sorted(x["target_ids"][0] for x in _decays(api, h)) == sorted(ids)
    assert decay_status.record(db, batch=2).transactions == 0


def test_why_was_it_forgotten_finds_a_memory_the_decay_system_archived(api: Api, db: Database) -> None:
    """12.7: "Why did you forget about X?" searches the DECAY records too: 100 days unread, 0.8 × e^-3 = 0.040, under
    0.05: archived, hidden from search; the answer names the memory and the record that archived it."""
    h = api.headers(AGENT, CLADE)
    mid = _say(api, h, "Remember that the server incident was resolved quickly.")
    db.run("testing/set_crystal_props", rows=[{"id": mid, "props": {"last_accessed_at": now_ms() - 100 * DAY}}])
    _run_job(api)
    r = api.client.get(f"/agents/{AGENT}/audit/forgotten", headers=h, params={"about": "server incident"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert [(m["id"], m["decay_status"], m["archived_at"]) for m in body["memories"]] == [(mid, "archived", None)]
    assert [(x["target_ids"], x["tag"], x["summary"].split(":")[0]) for x in body["records"]] == [
        ([mid], "system:decay", "active→archived")], body["records"]
