"""The audit trail a person can question (issue 17, point 2; graph/audit/trail.py, vocabulary.py; sections 12.3,
12.4, 12.7): records carry the spec's action, actor tag, approval and trigger; the trail answers what changed
recently, why X was forgotten, what one reflection changed, whether a critical item ever changed and who changed
an item, as JSON and as audit.log lines; an agent reads only its own trail."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.conftest import Api

AGENT, CLADE = "audited", "clade-t"
LINE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z \| [A-Z]+ \| [^|]+ \| [^|]+ \| "
                  r"(auto|approved|pending|rejected|—) \| .+$")


def say(api: Api, h: dict[str, str], text: str, days_ago: float = 0) -> dict[str, Any]:
    at = datetime.now(UTC) - timedelta(days=days_ago, minutes=1)
    r = api.client.post(f"/agents/{AGENT}/messages", headers=h, json={"text": text, "at": at.isoformat()})
    assert r.status_code == 200, r.text
    return dict(r.json())


def trail(api: Api, h: dict[str, str], **params: Any) -> list[dict[str, Any]]:
    r = api.client.get(f"/agents/{AGENT}/audit", headers=h, params=params)
    assert r.status_code == 200, r.text
    return list(r.json())


def test_records_carry_the_spec_words_and_answer_its_questions(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    person = api.headers(AGENT, CLADE, scopes=("read", "person"))
    lisbon = say(api, h, "Remember that I moved to Lisbon in March.")["memory_id"]
    say(api, h, "I prefer green tea in the morning.")

    # What changed recently: newest first, each in the spec's words.
    recent = trail(api, person)
    assert recent == sorted(recent, key=lambda r: (-r["at"], r["id"])) and len(recent) >= 2
    explicit = next(r for r in recent if r["target_ids"] == [lisbon])
    auto = recent[0]
    assert auto["verb"] == "CREATE" and auto["action"] == "memory.remember"
    assert (explicit["tag"], explicit["approval"]) == ("bot:trigger-remember", "auto")
    assert explicit["trigger"] == 'user said "Remember that I moved to Lisbon in March."'
    assert explicit["target_ids"] == [lisbon] and explicit["action"] == "memory.remember"
    assert auto["tag"] == "bot:auto-detect"

    # Why did you forget about Lisbon: the archived memory and the record that archived it.
    r = api.client.post(f"/agents/{AGENT}/forget", headers=h, json={"target": "Lisbon"})
    assert r.status_code == 200, r.text
    why = api.client.get(f"/agents/{AGENT}/audit/forgotten", headers=person, params={"about": "Lisbon"}).json()
    assert [m["id"] for m in why["memories"]] == [lisbon]
    assert [(x["verb"], x["tag"], x["trigger"]) for x in why["records"]] == [
        ("ARCHIVE", "bot:trigger-forget", 'user asked to forget "Lisbon"')]
    assert why["records"][0]["target_ids"] == [lisbon]
    assert api.client.get(f"/agents/{AGENT}/audit/forgotten", headers=h,
                          params={"about": "Porto"}).json()["records"] == []

    # Filters: by verb, by actor tag, by item, by time.
    assert [r["verb"] for r in trail(api, h, verb="ARCHIVE")] == ["ARCHIVE"]
    assert {r["tag"] for r in trail(api, h, actor="bot:auto-detect")} == {"bot:auto-detect"}
    by_item = api.client.get(f"/agents/{AGENT}/audit/items/{lisbon}", headers=h).json()
    assert by_item["changed"] and by_item["changes"] == 2
    assert by_item["actors"] == ["bot:trigger-remember", "bot:trigger-forget"]
    assert [r["verb"] for r in by_item["records"]] == ["ARCHIVE", "CREATE"]
    later = (datetime.now(UTC) + timedelta(minutes=5)).isoformat()
    assert trail(api, h, since=later) == []

    # Has a critical item ever changed: not yet; then the admin edits the identity block by hand.
    critical = api.client.get(f"/agents/{AGENT}/audit/critical", headers=person).json()
    identity = next(i for i in critical["items"] if i["item"] == f"{AGENT}:core:identity")
    assert not identity["changed"]
    r = api.client.put(f"/agents/{AGENT}/core/identity", headers=api.admin, json={"content": "- Name: Alex"})
    assert r.status_code == 200, r.text
    critical = api.client.get(f"/agents/{AGENT}/audit/critical", headers=person).json()
    identity = next(i for i in critical["items"] if i["item"] == f"{AGENT}:core:identity")
    assert identity["changed"] and identity["actors"] == ["manual"]
    edit = identity["records"][0]
    assert (edit["verb"], edit["approval"], edit["critical"]) == ("EDIT", "—", True)
    assert "⚠️ CRITICAL" in edit["line"]
    # An agent's own edit of a block that is not critical: its own tag, nothing flagged.
    api.client.post(f"/agents/{AGENT}/core/context/append", headers=h, json={"text": "- Writing the audit trail"})
    own = trail(api, h, item=f"{AGENT}:core:context")[0]
    assert (own["verb"], own["tag"], own["critical"]) == ("APPEND", f"bot:{AGENT}", False)

    # audit.log: the one-line format of 12.4, oldest first.
    log = api.client.get(f"/agents/{AGENT}/audit.log", headers=person)
    assert log.status_code == 200 and log.headers["content-type"].startswith("text/plain")
    lines = log.text.splitlines()
    assert lines and all(LINE.match(line) for line in lines), lines
    assert len(lines) == len(trail(api, h, limit=500))
    assert any(f"| ARCHIVE | {lisbon} | bot:trigger-forget | auto | archived 1 memories" in line for line in lines)
    assert lines[-1].split(" | ")[1] == "APPEND"


def test_what_one_reflection_did(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    person = api.headers(AGENT, CLADE, scopes=("read", "person"))
    say(api, h, "My name is Alex and I'm a staff engineer at Acme.")
    old = say(api, h, "Remember that we fixed the login bug yesterday.", days_ago=100)["memory_id"]
    say(api, h, "Remember that at yesterday's meeting Sam said the billing service depends on Kafka.")
    rid = api.client.post(f"/agents/{AGENT}/reflections", headers=h, json={}).json()["id"]
    proposed = api.client.get(f"/agents/{AGENT}/audit/reflections/{rid}", headers=person).json()
    assert [(r["verb"], r["tag"], r["approval"]) for r in proposed] == [("PROPOSE", f"reflection:{rid}", "pending")]
    r = api.client.post(f"/agents/{AGENT}/reflections/{rid}/decision", headers=person, json={"decision": "approve"})
    assert r.status_code == 200, r.text
    did = api.client.get(f"/agents/{AGENT}/audit/reflections/{rid}", headers=person).json()
    verbs = [r["verb"] for r in did]
    assert verbs[-1] == "PROPOSE" and "COMMIT" in verbs and "ARCHIVE" in verbs and "CREATE" in verbs
    applied = [r for r in did if r["verb"] in ("ARCHIVE", "CREATE", "EDIT")]
    assert applied and all(r["tag"] == f"reflection:{rid}" and r["approval"] == "approved" for r in applied)
    assert any(old in r["target_ids"] for r in did if r["verb"] == "ARCHIVE")
    # the person's decision is theirs (manual), about the reflection
    commit = next(r for r in did if r["verb"] == "COMMIT")
    assert commit["tag"] == "manual" and commit["target_ids"] == [rid]
    assert {r["id"] for r in trail(api, h, tag=f"reflection:{rid}")} == {r["id"] for r in did if r["verb"] != "COMMIT"}


def test_a_rejection_is_filed_as_reject(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    person = api.headers(AGENT, CLADE, scopes=("read", "person"))
    say(api, h, "Remember that I prefer tabs.")
    rid = api.client.post(f"/agents/{AGENT}/reflections", headers=h, json={}).json()["id"]
    api.client.post(f"/agents/{AGENT}/reflections/{rid}/decision", headers=person, json={"decision": "reject"})
    did = api.client.get(f"/agents/{AGENT}/audit/reflections/{rid}", headers=person).json()
    assert [r["verb"] for r in did] == ["REJECT", "PROPOSE"]


def test_the_trail_is_the_agents_own(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    other = api.headers("stranger", CLADE)
    other_person = api.headers("stranger", CLADE, scopes=("read", "person"))
    memory = say(api, h, "Remember that I moved to Lisbon.")["memory_id"]
    for path in ("/audit", "/audit.log", "/audit/critical", f"/audit/items/{memory}", "/audit/reflections/x"):
        assert api.client.get(f"/agents/{AGENT}{path}", headers=other).status_code == 403, path
        assert api.client.get(f"/agents/{AGENT}{path}", headers=other_person).status_code == 403, path
    assert api.client.get(f"/agents/{AGENT}/audit/forgotten", headers=other,
                          params={"about": "Lisbon"}).status_code == 403
    # another agent's trail, asked for an item of this one, names nothing of it
    mine = api.client.get(f"/agents/stranger/audit/items/{memory}", headers=other).json()
    assert not mine["changed"] and mine["records"] == []
    assert all(r["agent_id"] == "stranger" for r in api.client.get("/agents/stranger/audit", headers=other).json())
    assert memory not in api.client.get("/agents/stranger/audit.log", headers=other).text
    # every record is the admin's to read, the service's own too; not an agent's
    assert api.client.get("/audit", headers=other).status_code == 403
    everything = api.client.get("/audit", headers=api.admin, params={"limit": 500}).json()
    assert {AGENT, "stranger"} <= {r["agent_id"] for r in everything}


def test_bad_questions_are_4xx(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    assert api.client.get(f"/agents/{AGENT}/audit", headers=h, params={"verb": "SHRED"}).status_code == 422
    assert api.client.get(f"/agents/{AGENT}/audit", headers=h, params={"limit": 0}).status_code == 422
    assert api.client.get(f"/agents/{AGENT}/audit", headers=h, params={"since": "yesterday"}).status_code == 422
    r = api.client.get(f"/agents/{AGENT}/audit/forgotten", headers=h, params={"about": "the"})
    assert r.status_code in (400, 422) and "no word" in r.json()["detail"]
    assert api.client.get(f"/agents/{AGENT}/audit/forgotten", headers=h).status_code == 422
