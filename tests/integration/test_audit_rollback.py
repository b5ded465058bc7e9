"""Versions and rollback (issue 17, points 1 and 3; graph/audit/versions.py, rollback.py; spec 12.2 and 12.8):
every change keeps the state it replaced as a version and names the versions before and after it; a
reflection's approval rolled back as a whole leaves the agent's memory as it was before (and the rollback
itself can be rolled back); a point-in-time restore over a day of activity does the same for a time; one item
goes back to a version; a rollback over a later change by someone else is refused with a 409 naming it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.conftest import Api

AGENT, CLADE = "rewinder", "clade-rb"
HISTORY = {"version", "revision", "revised_at", "changed_at", "changed_by"}  # the chain's bookkeeping
AS_OF = (datetime.now(UTC) + timedelta(hours=1)).isoformat()  # decay scores in every export as of one time


def say(api: Api, h: dict[str, str], text: str, days_ago: float = 0) -> dict[str, Any]:
    at = datetime.now(UTC) - timedelta(days=days_ago, minutes=1)
    r = api.client.post(f"/agents/{AGENT}/messages", headers=h, json={"text": text, "at": at.isoformat()})
    assert r.status_code == 200, r.text
    return dict(r.json())


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if k not in HISTORY}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, float):
        return round(value, 5)  # a restored text's embedding is computed again
    return value


def full_export(api: Api, db, h: dict[str, str], agent: str = AGENT) -> dict[str, Any]:
    """Everything of the agent's memory: the export (nodes, their properties and embeddings, relationships), the
    Markdown workspace, core memory, the archived memories and the relations its memories assert — less the
    version counters a rollback moves on (it is itself a new version)."""
    lines = api.client.get(f"/agents/{agent}/export", headers=h).text.splitlines()[1:]
    core = api.client.get(f"/agents/{agent}/core", headers=h).json()["blocks"]
    archived = api.client.get(f"/agents/{agent}/memories", headers=h, params={"archived": "true", "limit": 200}).json()
    workspace = api.client.get(f"/agents/{agent}/workspace", headers=h, params={"at": AS_OF}).json()
    relations = db.fetch("testing/memory_relations", agent_id=agent)
    return _clean({
        "export": sorted(lines and [json.dumps(_clean(json.loads(line)), sort_keys=True) for line in lines]),
        "core": [{k: b[k] for k in ("block", "content", "pinned")} for b in core],
        "archived": sorted(json.dumps(_clean({k: v for k, v in m.items() if k != "relevance"}), sort_keys=True,
                                      default=str)
                           for m in (archived if isinstance(archived, list) else archived.get("memories", []))),
        "workspace": workspace,
        "relations": sorted(json.dumps(_clean(dict(r)), sort_keys=True, default=str) for r in relations),
    })


def diff(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    out = []
    for k in a:
        if k == "workspace" and a[k] != b[k]:
            fa, fb = a[k].get("files", {}), b[k].get("files", {})
            for name in sorted(set(fa) | set(fb)):
                if fa.get(name) != fb.get(name):
                    la, lb = str(fa.get(name)).splitlines(), str(fb.get(name)).splitlines()
                    out.append(f"{name}: -{[x for x in la if x not in lb][:3]} +{[x for x in lb if x not in la][:3]}")
            continue
        if a[k] != b[k]:
            if isinstance(a[k], list):
                out.append(f"{k}: -{[x for x in a[k] if x not in b[k]][:3]} +{[x for x in b[k] if x not in a[k]][:3]}")
            else:
                out.append(f"{k} differs")
    return out


def rollback(api: Api, h: dict[str, str], agent: str = AGENT, **body: Any) -> Any:
    return api.client.post(f"/agents/{agent}/rollback", headers=h, json=body)


def test_a_reflection_rolled_back_leaves_memory_as_before_and_the_rollback_rolls_back(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    person = api.headers(AGENT, CLADE, scopes=("read", "person"))
    say(api, h, "My name is Alex and I'm a staff engineer at Acme.")
    say(api, h, "I'm currently working on the CSS refactor.", days_ago=80)
    say(api, h, "Remember that we fixed the login bug yesterday.", days_ago=100)
    say(api, h, "Remember that I prefer tabs.")
    say(api, h, "Remember that at yesterday's meeting Sam said the billing service depends on Kafka.")
    for text in ("Remember that today I ran the release checklist before tagging.",
                 "Remember that today I updated the changelog for the release.",
                 "Remember that today I announced the release in the team channel."):
        say(api, h, text)
    say(api, h, "Remember that today we decided to ship on Friday.")
    r1 = api.client.post(f"/agents/{AGENT}/reflections", headers=h, json={}).json()
    kinds = {i["kind"] for i in r1["items"]}
    assert {"fact", "procedure", "archive", "core"} <= kinds, kinds
    before = full_export(api, db, h)

    r = api.client.post(f"/agents/{AGENT}/reflections/{r1['id']}/decision", headers=person,
                        json={"decision": "approve"})
    assert r.status_code == 200 and r.json()["status"] == "approved", r.text
    applied = full_export(api, db, h)
    assert applied != before

    # only a person (or the admin) rolls back: never the agent's own key
    assert rollback(api, h, reflection=r1["id"]).status_code == 403
    preview = rollback(api, person, reflection=r1["id"], dry_run=True).json()
    assert preview["changes"] and preview["conflicts"] == []
    assert full_export(api, db, h) == applied, diff(applied, full_export(api, db, h))
    r = rollback(api, person, reflection=r1["id"])
    assert r.status_code == 200, r.text
    done = r.json()
    assert done["irreversible"] == [] and done["undone"]
    after = full_export(api, db, h)
    assert after == before, diff(before, after)
    reflection = api.client.get(f"/agents/{AGENT}/reflections/{r1['id']}", headers=h).json()
    assert reflection["status"] == "pending"
    # the rollback is a change: REVERT records, by the person, with versions before and after
    trail = api.client.get(f"/agents/{AGENT}/audit", headers=person, params={"verb": "REVERT"}).json()
    assert {t["id"] for t in trail} == set(done["records"]) and all(t["tag"] == "manual" for t in trail)
    assert any(b and a for t in trail for b, a in zip(t["before_versions"], t["after_versions"], strict=True))
    # rolled back once: nothing of it is left to roll back
    assert rollback(api, person, reflection=r1["id"]).status_code == 404

    # and it rolls back itself: the approval's effects are back
    r = rollback(api, person, undo=done["rollback_id"])
    assert r.status_code == 200, r.text
    again = full_export(api, db, h)
    assert again == applied, diff(applied, again)
    assert api.client.get(f"/agents/{AGENT}/reflections/{r1['id']}", headers=h).json()["status"] == "approved"


def test_every_change_keeps_versions_and_one_item_goes_back_to_one(api: Api, db) -> None:
    h = api.headers(AGENT + "-v", CLADE)
    person = api.headers(AGENT + "-v", CLADE, scopes=("read", "person"))
    agent = AGENT + "-v"
    for text in ("first", "second", "third"):
        r = api.client.put(f"/agents/{agent}/core/context", headers=h,
                           json={"content": f"- Working on the {text} thing"})
        assert r.status_code == 200, r.text
    block = f"{agent}:core:context"
    history = api.client.get(f"/agents/{agent}/versions/{block}", headers=h).json()["versions"]
    assert [v["n"] for v in history] == [2, 1] and "first" in history[1]["content"]
    assert history[0]["state"]["content"] == "- Working on the second thing\n"
    records = api.client.get(f"/agents/{agent}/audit", headers=h, params={"item": block}).json()
    assert [(r["before_versions"], r["after_versions"]) for r in records] == [
        ([f"{block}:v2"], [f"{block}:v3"]), ([f"{block}:v1"], [f"{block}:v2"]), ([""], [f"{block}:v1"])]

    # a memory archived and restored: each state kept, the record naming both
    memory = say_as(api, agent, h, "Remember that the deploy key lives in the vault.")
    assert api.client.post(f"/agents/{agent}/forget", headers=h,
                           json={"ids": [memory]}).status_code == 200
    states = api.client.get(f"/agents/{agent}/versions/{memory}", headers=h).json()["versions"]
    assert [v["n"] for v in states] == [1] and "archived_at" not in states[0]["state"]

    # one item back to a version: the text it had, as a new version (the counter only moves on)
    r = rollback(api, person, agent, item=block, to_version=f"{block}:v1")
    assert r.status_code == 200, r.text
    content = {b["block"]: b for b in api.client.get(f"/agents/{agent}/core", headers=h).json()["blocks"]}["context"]
    assert content["content"] == "- Working on the first thing\n" and content["version"] == 4
    assert rollback(api, person, agent, item=block, to_version=f"{block}:v9").status_code == 404


def say_as(api: Api, agent: str, h: dict[str, str], text: str) -> str:
    r = api.client.post(f"/agents/{agent}/messages", headers=h, json={"text": text})
    assert r.status_code == 200, r.text
    return str(r.json()["memory_id"])


def test_a_rollback_over_a_later_change_by_someone_else_is_refused_naming_it(api: Api, db) -> None:
    agent = AGENT + "-c"
    h = api.headers(agent, CLADE)
    person = api.headers(agent, CLADE, scopes=("read", "person"))
    r = api.client.put(f"/agents/{agent}/core/context", headers=api.admin,
                       json={"content": "- Shipping the billing fix"})
    assert r.status_code == 200
    mine = api.client.get(f"/agents/{agent}/audit", headers=person).json()[0]
    # the agent changes the same block afterwards
    assert api.client.post(f"/agents/{agent}/core/context/append", headers=h,
                           json={"text": "- Then the release notes"}).status_code == 200
    later = api.client.get(f"/agents/{agent}/audit", headers=person).json()[0]
    r = rollback(api, person, agent, record=mine["id"])
    assert r.status_code == 409 and later["id"] in r.json()["detail"] and "memory.core.append" in r.json()["detail"]
    preview = rollback(api, person, agent, record=mine["id"], dry_run=True).json()
    assert [c["id"] for c in preview["conflicts"]] == [later["id"]]
    r = rollback(api, person, agent, record=mine["id"], force=True)
    assert r.status_code == 200 and [c["id"] for c in r.json()["forced_over"]] == [later["id"]]
    assert {b["block"]: b["content"] for b in api.client.get(f"/agents/{agent}/core", headers=h).json()["blocks"]
            }["context"] == ""


def test_a_point_in_time_restore_over_a_day_of_activity(api: Api, db) -> None:
    h = api.headers(AGENT + "-t", CLADE)
    person = api.headers(AGENT + "-t", CLADE, scopes=("read", "person"))
    agent = AGENT + "-t"
    morning = ["My name is Robin and I run the data platform team.",
               "Remember that the warehouse migration is due in March.",
               "Remember that Priya owns the ingestion pipeline.",
               "Remember that we use Airflow for scheduling."]
    for text in morning:
        say_as(api, agent, h, text)
    api.client.put(f"/agents/{agent}/core/context", headers=h, json={"content": "- Migrating the warehouse"})
    entry = {"id": "rb-e1", "category": "Heuristic", "content": "When a DAG fails twice, page the owner",
             "parent_episode_ids": []}
    assert api.client.post("/entries", headers=h, json=entry).status_code in (200, 201)
    noon = full_export(api, db, h, agent)
    at = datetime.now(UTC)

    # the afternoon: new memories, a forget, a restore, core edits, votes and an edit, entities
    for text in ("Remember that Priya prefers Slack over email.",
                 "Remember that the migration moved to April.",
                 "Remember that Sam joined the team to help with dbt."):
        say_as(api, agent, h, text)
    gone = api.client.post(f"/agents/{agent}/forget/preview", headers=h, json={"target": "Airflow"}).json()
    ids = [m["id"] for m in gone["memories"]]
    assert ids and api.client.post(f"/agents/{agent}/forget", headers=h,
                                   json={"ids": ids}).status_code == 200
    assert api.client.post(f"/agents/{agent}/memories/restore", headers=h, json={"ids": ids[:1]}).status_code == 200
    assert api.client.post(f"/agents/{agent}/forget", headers=h, json={"ids": ids}).status_code == 200
    api.client.post(f"/agents/{agent}/core/context/append", headers=h, json={"text": "- Then the dbt models"})
    api.client.put(f"/agents/{agent}/core/persona", headers=h, json={"content": "- Be brief"})
    assert api.client.post("/entries/rb-e1/upvote", headers=h).status_code == 200
    r = api.client.post("/entries/rb-e1/edit", headers=h,
                        json={"content": "When a DAG fails twice in a row, page its owner"})
    assert r.status_code == 200, r.text
    assert full_export(api, db, h, agent) != noon

    r = rollback(api, person, agent, at=at.isoformat())
    assert r.status_code == 200, r.text
    assert len(r.json()["undone"]) >= 10 and r.json()["irreversible"] == []
    after = full_export(api, db, h, agent)
    assert after == noon, diff(noon, after)
    # (the export holds every embedding: the edited entry's is its restored text's again, as the index serves it)
    assert any('"rb-e1"' in line and "page the owner" in line for line in after["export"])


def test_versions_are_the_agents_own(api: Api) -> None:
    h = api.headers(AGENT + "-o", CLADE)
    other = api.headers("stranger-rb", "clade-x")
    api.client.put(f"/agents/{AGENT}-o/core/context", headers=h, json={"content": "- one"})
    api.client.put(f"/agents/{AGENT}-o/core/context", headers=h, json={"content": "- two"})
    block = f"{AGENT}-o:core:context"
    assert len(api.client.get(f"/agents/{AGENT}-o/versions/{block}", headers=h).json()["versions"]) == 1
    assert api.client.get(f"/agents/{AGENT}-o/versions/{block}", headers=other).status_code == 403
    # through its own agent path, another agent's item has no versions to show
    assert api.client.get(f"/agents/stranger-rb/versions/{block}", headers=other).json()["versions"] == []
    assert api.client.post(f"/agents/{AGENT}-o/rollback", headers=other, json={"record": "x"}).status_code == 403


def test_one_session_rolled_back_leaves_the_others(api: Api, db) -> None:
    agent = AGENT + "-s"
    h = api.headers(agent, CLADE)
    person = api.headers(agent, CLADE, scopes=("read", "person"))

    def said(text: str, session: str) -> str:
        r = api.client.post(f"/agents/{agent}/messages", headers=h, json={"text": text, "session_id": session})
        assert r.status_code == 200, r.text
        return str(r.json()["memory_id"])

    kept = [said("Remember that the warehouse migration is due in March.", "s-1"),
            said("Remember that Priya owns the ingestion pipeline.", "s-1")]
    before = full_export(api, db, h, agent)
    undone = [said("Remember that Sam joined the team to help with dbt.", "s-2"),
              said("Remember that the team moved scheduling to Dagster.", "s-2")]
    # a message of the session that also writes a core line: that line goes with the session too
    r = api.client.post(f"/agents/{agent}/messages", headers=h,
                        json={"text": "I'm currently working on the dbt migration.", "session_id": "s-2"})
    assert r.status_code == 200 and r.json().get("core", {}).get("block") == "context", r.text
    undone.append(str(r.json()["memory_id"]))
    r = rollback(api, person, agent, session="s-2")
    assert r.status_code == 200, r.text
    assert set(undone) <= {i for c in r.json()["undone"] for i in c["target_ids"]}
    assert "dbt" not in {b["block"]: b["content"] for b in api.client.get(f"/agents/{agent}/core",
                                                                          headers=h).json()["blocks"]}["context"]
    after = full_export(api, db, h, agent)
    assert after == before, diff(before, after)
    ids = {m["id"] for m in api.client.get(f"/agents/{agent}/memories", headers=h,
                                           params={"include_archived": "true"}).json()}
    assert set(kept) <= ids and not set(undone) & ids
    assert rollback(api, person, agent, session="s-2").status_code == 404  # nothing of it left
    assert rollback(api, person, agent, session="s-1", record="x").status_code == 422  # one target at a time
