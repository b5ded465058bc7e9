"""Retention of the audit log (issue 17, point 2; spec 12.6; graph/audit/retention.py): records older than the
window are folded into monthly digests in the spec's format and pruned, the version chain keeps every state, the
fold is idempotent and resumable, a point-in-time rollback cannot reach behind it, and the digests are the
agent's own."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from grimoire.graph.audit import retention
from grimoire.graph.ids import now_ms
from tests.conftest import Api

AGENT, CLADE = "archivist", "clade-arch"
JANUARY = int(datetime(2026, 1, 15, 10, 0, tzinfo=UTC).timestamp() * 1000)


def _month_of_activity(api: Api) -> tuple[dict[str, str], dict[str, str], str]:
    h = api.headers(AGENT, CLADE)
    person = api.headers(AGENT, CLADE, scopes=("read", "person"))
    for text in ("Remember that I prefer tabs.", "Remember that today we decided to ship on Friday.",
                 "Remember that the billing service depends on Kafka.",
                 "Remember that Priya owns the ingestion pipeline."):
        assert api.client.post(f"/agents/{AGENT}/messages", headers=h, json={"text": text}).status_code == 200
    rid = api.client.post(f"/agents/{AGENT}/reflections", headers=h, json={}).json()["id"]
    r = api.client.post(f"/agents/{AGENT}/reflections/{rid}/decision", headers=person, json={"decision": "approve"})
    assert r.status_code == 200, r.text
    # a critical change by the agent's own key (flagged), and a forget (an archival)
    for name in ("Sam", "Sam Lee"):
        assert api.client.put(f"/agents/{AGENT}/core/identity", headers=h,
                              json={"content": f"- Name: {name}"}).status_code == 200
    gone = api.client.post(f"/agents/{AGENT}/forget/preview", headers=h, json={"target": "Kafka"}).json()
    assert api.client.post(f"/agents/{AGENT}/forget", headers=h,
                           json={"ids": [m["id"] for m in gone["memories"]]}).status_code == 200
    return h, person, rid


def _trail(api: Api, h: dict[str, str], **params: Any) -> list[dict[str, Any]]:
    r = api.client.get(f"/agents/{AGENT}/audit", headers=h, params={"limit": 500, **params})
    assert r.status_code == 200, r.text
    return list(r.json())


def test_old_records_fold_into_a_monthly_digest_and_the_versions_stay(api: Api) -> None:
    h, person, rid = _month_of_activity(api)
    old = _trail(api, h)
    identity = f"{AGENT}:core:identity"
    versions_before = api.client.get(f"/agents/{AGENT}/versions/{identity}", headers=h).json()["versions"]
    assert versions_before
    aged = api.db.run("testing/age_audit", agent_id=AGENT, to=JANUARY)[0]["aged"]
    assert aged == len(old)
    # a change inside the window stays in the log
    api.client.post(f"/agents/{AGENT}/core/context/append", headers=h, json={"text": "- Working on billing"})
    recent = _trail(api, h)
    assert len(recent) == len(old) + 1

    report = retention.fold(api.db, 90, now=now_ms())
    assert report.records == len(old) and report.months == 1

    # the log keeps the recent change and the fold's own record (MERGE), nothing older
    left = _trail(api, h)
    assert [r["action"] for r in left] == ["audit.fold", "memory.core.append"]
    fold = left[0]
    assert fold["verb"] == "MERGE" and fold["after_versions"] == [f"{AGENT}:2026-01:v1"]
    assert f"folded {len(old)} records of January 2026" in fold["summary"]

    [digest] = api.client.get(f"/agents/{AGENT}/audit/digests", headers=h).json()
    expected_items = {i for r in old for i in r["target_ids"]}
    assert digest["month"] == "2026-01" and digest["complete"] is True
    assert digest["mutations"] == len(old) and digest["items"] == len(expected_items)
    assert (digest["reflections"], digest["approved"], digest["partial"], digest["rejected"]) == (1, 1, 0, 0)
    assert digest["critical"] == sum(1 for r in old if r["critical"] and r["verb"] != "ALERT") >= 1
    assert digest["archival"] == sum(1 for r in old if r["verb"] == "ARCHIVE") >= 1
    lines = digest["markdown"].splitlines()
    assert lines[:3] == ["# Audit Digest — January 2026", "## Summary",
                         f"- {len(old)} total mutations across {len(expected_items)} files"]
    assert lines[3] == "- 1 reflection sessions (1 approved, 0 partial, 0 rejected)"
    assert lines[4] == f"- {digest['critical']} critical file changes"
    assert lines[5] == f"- {digest['decay']} decay transitions, {digest['archival']} archival events"
    assert lines[6] == "## Notable Events"
    assert any(line.startswith("- 2026-01-15: reflection approved: reflection #1") for line in lines[7:])
    assert any("critical change" in line for line in lines[7:])
    archive = api.client.get(f"/agents/{AGENT}/audit/archive.md", headers=h)
    assert archive.status_code == 200 and archive.text == digest["markdown"]

    # the version chain keeps every state the folded records named
    assert api.client.get(f"/agents/{AGENT}/versions/{identity}", headers=h).json()["versions"] == versions_before
    # a point-in-time rollback cannot reach behind the folded months; one after them still can
    r = api.client.post(f"/agents/{AGENT}/rollback", headers=person,
                        json={"at": datetime(2026, 1, 20, tzinfo=UTC).isoformat(), "dry_run": True})
    assert r.status_code == 422 and "folded into monthly digests" in r.text
    later = api.client.post(f"/agents/{AGENT}/rollback", headers=person,
                            json={"at": datetime(2026, 2, 2, tzinfo=UTC).isoformat(), "dry_run": True})
    assert later.status_code == 200 and later.json()["folded_before"] == "2026-02-01T00:00Z"
    # a rollback by actor says how far back its records reach
    by_actor = api.client.post(f"/agents/{AGENT}/rollback", headers=person,
                               json={"actor": "bot:trigger-remember", "dry_run": True})
    assert by_actor.status_code in (200, 404) and (by_actor.status_code == 404
                                                     or by_actor.json()["folded_before"] == "2026-02-01T00:00Z")

    # folding again changes nothing
    assert retention.fold(api.db, 90, now=now_ms()) == retention.FoldReport(0, 0)
    assert len(api.client.get(f"/agents/{AGENT}/audit/digests", headers=h).json()) == 1
    del rid


def test_a_fold_stopped_half_way_resumes_without_summarising_again(api: Api) -> None:
    h, _, _ = _month_of_activity(api)
    old = _trail(api, h)
    api.db.run("testing/age_audit", agent_id=AGENT, to=JANUARY)
    start, end = retention.month_start(JANUARY), retention.next_month(JANUARY)
    # stopped right after the digest was written: nothing deleted yet, the digest incomplete
    assert retention.fold_month(api.db, AGENT, start, end, actor="test", cancelled=lambda: True) == 0
    [digest] = retention.digests(api.db, AGENT)
    assert digest.complete is False and digest.mutations == len(old)
    assert len(_trail(api, h)) == len(old) + 1
    # the next run deletes the month's records; the digest is the one written first
    report = retention.fold(api.db, 90, now=now_ms())
    assert report.records == len(old)
    [after] = retention.digests(api.db, AGENT)
    assert after.complete is True and after.mutations == len(old) and after.folded_at == digest.folded_at


def test_digests_are_the_agents_own(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    other = api.headers("stranger-arch", "clade-x")
    api.client.put(f"/agents/{AGENT}/core/context", headers=h, json={"content": "- one"})
    api.db.run("testing/age_audit", agent_id=AGENT, to=JANUARY)
    retention.fold(api.db, 90, now=now_ms())
    assert len(api.client.get(f"/agents/{AGENT}/audit/digests", headers=h).json()) == 1
    for path in ("audit/digests", "audit/archive.md"):
        assert api.client.get(f"/agents/{AGENT}/{path}", headers=other).status_code == 403
    assert api.client.get("/agents/stranger-arch/audit/digests", headers=other).json() == []
    assert api.client.get("/agents/stranger-arch/audit/archive.md", headers=other).text == ""
    assert api.client.get("/audit/digests", headers=h).status_code == 403
    assert api.client.get("/audit/digests", headers=api.admin).status_code == 200
