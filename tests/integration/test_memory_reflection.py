"""Reflection with approval (issue 16, point 7; graph/memory/reflection.py, approval.py, section 10): a
reflection surveys, reviews past reflections and proposes — new facts and relations from episodes, a
repeated pattern as a procedure, archival under 0.05, contradictions, a core rewrite under the cap — as
a pending reflection in section 10.5's format within 8,000 tokens; nothing is applied until a person's
key decides (never the agent's own); a rejection changes nothing in the graph; a partial approval applies
exactly the approved part; approval with changes applies the person's version; the reflection log and
evolution.md keep the history; triggers: manual, phrase, threshold and the nightly schedule."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from grimoire.graph.memory.reflection import ReflectionConfig, Reflections
from tests.conftest import Api

AGENT, CLADE = "reflective", "clade-r"
HEADINGS = ["# Reflection Summary — ", "## 🧠 New Knowledge Extracted", "## 🔗 New Connections",
            "## 📦 Proposed Archival (decay score < 0.05)", "## ⚠️ Contradictions Detected",
            "## ✏️ Core Memory Changes", "## 🌱 Philosophical Evolution", "### What I've Learned About Learning",
            "### Evolving Understanding", "### Emergent Theme", "## ❓ Questions for You", "**Reflection #**: ",
            "**Token budget used**: ", "**Memories processed**: ", "**Reflections reviewed**: ",
            "**Next scheduled reflection**: "]


def say(api: Api, h: dict[str, str], text: str, days_ago: float = 0) -> dict[str, Any]:
    at = datetime.now(UTC) - timedelta(days=days_ago, minutes=1)
    r = api.client.post(f"/agents/{AGENT}/messages", headers=h, json={"text": text, "at": at.isoformat()})
    assert r.status_code == 200, r.text
    return dict(r.json())


def dump(db) -> tuple[list[str], list[str]]:
    """The graph but the reflections themselves (and their earlier states) and the records of what was done."""
    row = db.run("testing/dump")[0]
    skip = {"MemoryReflection", "AccessRecord"}
    left = [n for n in row["nodes"] if skip & set(n["labels"]) or n["props"].get("item_label") == "MemoryReflection"]
    gone = {n["props"].get("id") for n in left}
    nodes = sorted(json.dumps(n, sort_keys=True, default=str) for n in row["nodes"] if n not in left)
    rels = sorted(json.dumps(r, sort_keys=True, default=str) for r in row["relationships"]
                  if r["from"] not in gone and r["to"] not in gone)
    return nodes, rels


def relations(db) -> set[tuple[str, str, str]]:
    return {(r["s"], r["name"], r["o"]) for r in db.fetch("testing/memory_relations", agent_id=AGENT)
            if r["archived_at"] is None}


def core(api: Api, h: dict[str, str]) -> dict[str, str]:
    return {b["block"]: b["content"] for b in api.client.get(f"/agents/{AGENT}/core", headers=h).json()["blocks"]}


def kinds(reflection: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for item in reflection["items"]:
        out.setdefault(item["kind"], []).append(item)
    return out


def decide(api: Api, h: dict[str, str], rid: str, **body: Any) -> Any:
    return api.client.post(f"/agents/{AGENT}/reflections/{rid}/decision", headers=h, json=body)


def test_a_reflection_proposes_and_only_a_person_decides(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    person = api.headers(AGENT, CLADE, scopes=("read", "person"))
    say(api, h, "My name is Alex and I'm a staff engineer at Acme.")
    say(api, h, "I'm currently working on the CSS refactor.", days_ago=80)         # core context, now dormant
    old = say(api, h, "Remember that we fixed the login bug yesterday.", days_ago=100)["memory_id"]  # < 0.05
    say(api, h, "Remember that I prefer tabs.")
    say(api, h, "Note that I avoid tabs.")                                           # a contradiction
    staging = say(api, h, "Remember that the staging server is staging.acme.dev.")["memory_id"]
    for _ in range(5):                                                               # used often: critical
        api.client.post(f"/agents/{AGENT}/memories/reinforce", headers=h, json={"ids": [staging], "reason": "used"})
    kafka = say(api, h, "Remember that at yesterday's meeting Sam said the billing service depends on Kafka.")
    assert kafka["store"] == "episodic"
    for text in ("Remember that today I ran the release checklist before tagging.",
                 "Remember that today I updated the changelog for the release.",
                 "Remember that today I announced the release in the team channel."):
        assert say(api, h, text)["store"] == "episodic"
    say(api, h, "Remember that today we decided to ship on Friday.")
    assert relations(db) == {("person--alex", "prefers", "concept--tabs"), ("person--alex", "avoids", "concept--tabs")}

    # R1, manual: pending, in 10.5's format, within its budget
    r = api.client.post(f"/agents/{AGENT}/reflections", headers=h, json={})
    assert r.status_code == 201, r.text
    r1 = r.json()
    assert (r1["status"], r1["trigger"], r1["number"]) == ("pending", "manual", 1)
    md = r1["markdown"]
    positions = [md.index(heading) for heading in HEADINGS]
    assert positions == sorted(positions)
    assert 0 < r1["tokens_used"] <= r1["budget"] == 8_000
    assert f"**Token budget used**: {r1['tokens_used']:,} / 8,000" in md
    k = kinds(r1)
    assert [i["data"]["relations"] for i in k["fact"]] == [[{
        "from": "project--billing", "from_name": "billing", "from_kind": "Project", "relation": "depends-on",
        "to": "tool--kafka", "to_name": "Kafka", "to_kind": "Tool"}]]
    assert "- project--billing → depends-on → tool--kafka (NEW)" in md
    assert [i["data"]["trigger"] for i in k["procedure"]] == ["When release comes up"]
    assert len(k["procedure"][0]["data"]["steps"]) == 3
    assert [i["data"]["memory_id"] for i in k["archive"]] == [old]
    assert [i["line"] for i in k["contradiction"]] == ["Alex prefers tabs, and also avoids it"]
    core_changes = {i["data"]["block"]: i["data"] for i in k["core"]}
    context = core_changes["context"]
    assert "CSS refactor" in context["before"] and "CSS refactor" not in context["after"]
    assert "- Today we decided to ship on Friday." in core_changes["context"]["after"]
    assert core_changes["critical"]["after"] == "- The staging server is staging.acme.dev.\n"
    assert "This is my first reflection" in md and "Alex prefers tabs, and also avoids it: which holds?" in md
    # one pending at a time; its pending-reflection.md
    assert api.client.post(f"/agents/{AGENT}/reflections", headers=h, json={}).status_code == 409
    assert api.client.get(f"/agents/{AGENT}/reflections/pending.md", headers=person).text == md

    # only a person decides: the agent's own key may not
    assert decide(api, h, r1["id"], decision="approve").status_code == 403
    before = dump(db)
    r = decide(api, person, r1["id"], decision="reject", note="not now")
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "rejected" and r.json()["applied"] == []
    assert dump(db) == before  # a rejection changes nothing in the graph
    assert decide(api, person, r1["id"], decision="approve").status_code == 409  # decided already

    # R2 after new episodes: approve part -> exactly that part
    say(api, h, "Remember that at today's standup Kim said the search service depends on Elasticsearch.")
    r2 = api.client.post(f"/agents/{AGENT}/reflections", headers=h, json={"about": "this week"}).json()
    assert "Across 1 past reflections you approved 0, approved part of 0 and rejected 1." in r2["markdown"]
    k2 = kinds(r2)
    assert [i["data"]["relations"][0]["to"] for i in k2["fact"]] == ["tool--elasticsearch"]
    assert "procedure" not in k2  # the release episodes were read by R1 already
    part = [k2["fact"][0]["id"], k2["archive"][0]["id"]]
    rel_before, core_before = relations(db), core(api, h)
    memories_before = db.fetch("testing/count_memories")[0]
    r = decide(api, person, r2["id"], decision="approve_part", items=part)
    assert r.status_code == 200, r.text
    assert (r.json()["status"], sorted(r.json()["applied"])) == ("partial", sorted(part))
    assert relations(db) == rel_before | {("project--search", "depends-on", "tool--elasticsearch")}
    assert core(api, h) == core_before                      # the core rewrite was not approved
    after = db.fetch("testing/count_memories")[0]
    assert (after["n"], after["searchable"]) == (memories_before["n"] + 1, memories_before["searchable"])  # +1 fact, -1
    archived = api.client.get(f"/agents/{AGENT}/memories/{old}", headers=h, params={"include_archived": True}).json()
    assert archived["relevance"]["status"] == "archived" and archived["archived_at"] is not None
    fact = [m for m in api.client.get(f"/agents/{AGENT}/memories", headers=h, params={"store": "semantic"}).json()
            if m["source"] == "reflection"]
    assert len(fact) == 1 and fact[0]["base_relevance"] == 0.5 and fact[0]["learned_from"]

    # R3 after a repeated deploy pattern: approve with changes (the person's steps)
    for text in ("Remember that today I deployed the api to staging first.",
                 "Remember that today I deployed the api after the smoke tests.",
                 "Remember that today I deployed the api and watched the dashboards."):
        say(api, h, text)
    r3 = api.client.post(f"/agents/{AGENT}/reflections", headers=h, json={}).json()
    k3 = kinds(r3)
    proc = next(i for i in k3["procedure"] if "deployed" in i["data"]["trigger"])
    steps = ["Deploy to staging first", "Run the smoke tests", "Watch the dashboards"]
    r = decide(api, person, r3["id"], decision="approve_with_changes", changes={proc["id"]: {"steps": steps}},
               exclude=[i["id"] for i in k3.get("contradiction", [])], note="my steps")
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "approved", r.json()["skipped"]
    procedures = api.client.get(f"/agents/{AGENT}/memories", headers=h, params={"store": "procedural"}).json()
    assert [p["steps"] for p in procedures] == [steps]
    assert len(procedures[0]["learned_from"]) == 3
    now_core = core(api, h)
    assert "CSS refactor" not in now_core["context"] and "staging.acme.dev" in now_core["critical"]
    assert now_core["identity"] == core_before["identity"]

    # the reflection log and evolution.md
    log = api.client.get(f"/agents/{AGENT}/reflections/log.md", headers=person).text
    assert "## Reflection #1" in log and "— rejected" in log and "“not now”" in log
    assert "## Reflection #2" in log and "— partial" in log and "## Reflection #3" in log
    evolution = api.client.get(f"/agents/{AGENT}/reflections/evolution.md", headers=h).text
    assert "## Reflection #2" in evolution and "## Reflection #3" in evolution and "#1 " not in evolution
    assert [x["number"] for x in api.client.get(f"/agents/{AGENT}/reflections", headers=h).json()] == [3, 2, 1]
    exported = api.client.get(f"/agents/{AGENT}/workspace", headers=h).json()["files"]  # section 3's meta files
    assert exported["memory/meta/reflection-log.md"] == log and exported["memory/meta/evolution.md"] == evolution
    assert "memory/meta/pending-reflection.md" not in exported

    # bad decisions: a clear 4xx
    r4 = say(api, h, "Consolidate your memories")["reflect"]                   # the phrase trigger
    assert r4["status"] == "pending" and r4["number"] == 4
    got = api.client.get(f"/agents/{AGENT}/reflections/{r4['reflection_id']}", headers=h).json()
    assert got["trigger"] == "phrase"
    assert decide(api, person, r4["reflection_id"], decision="approve_part").status_code == 422
    assert decide(api, person, r4["reflection_id"], decision="approve_part", items=["nope"]).status_code == 422
    assert decide(api, person, r4["reflection_id"], decision="maybe").status_code == 422
    bad_key = api.client.post(f"/agents/{AGENT}/keys", headers=api.admin, json={"scopes": ["write", "person"]})
    assert bad_key.status_code == 422
    bad = decide(api, person, r4["reflection_id"], decision="approve_with_changes",
                 changes={r4["reflection_id"]: {"steps": 5}})
    assert bad.status_code == 422
    only_person = api.client.post(f"/agents/{AGENT}/keys", headers=api.admin, json={"scopes": ["person"]})
    assert only_person.status_code == 201 and sorted(only_person.json()["scopes"]) == ["person", "read"]
    r = decide(api, {"X-API-Key": only_person.json()["key"]}, r4["reflection_id"], decision="reject")
    assert r.status_code == 200, r.text


def test_the_scheduler_reflects_past_the_threshold_and_nightly(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    services = api.client.app.state.services
    engine = Reflections(db, services.core_memory, services.memory.router, ReflectionConfig(threshold=3, hour=3))
    say(api, h, "Remember that I prefer tea.")
    noon = int(datetime.now(UTC).replace(hour=12, minute=0).timestamp() * 1000)
    assert engine.due(noon) == []                                    # one memory: under the threshold
    for text in ("Remember that I prefer green tea.", "Remember that I avoid coffee."):
        say(api, h, text)
    assert engine.run_due(noon) == "1 reflections proposed"
    first = api.client.get(f"/agents/{AGENT}/reflections", headers=h).json()[0]
    assert first["trigger"] == "threshold" and first["episodes"] == 3
    assert engine.due(noon) == []                                    # pending: never another
    person = api.headers(AGENT, CLADE, scopes=("read", "person"))
    assert decide(api, person, first["id"], decision="reject").status_code == 200
    say(api, h, "Remember that I prefer oolong.")
    # the first nightly hour at least 20 hours after the rejected reflection (whatever time the test runs at)
    night = (datetime.now(UTC) + timedelta(hours=20)).replace(hour=3, minute=5)
    if night < datetime.now(UTC) + timedelta(hours=20):
        night += timedelta(days=1)
    tomorrow_3am = int(night.timestamp() * 1000)
    assert engine.due(noon) == []
    assert [(a, t.value) for a, t in engine.due(tomorrow_3am)] == [(AGENT, "schedule")]
    jobs = api.client.get("/scheduler/jobs", headers=api.admin).json()["jobs"]
    assert "memory.reflection" in [j["name"] for j in jobs]  # the service's one scheduler runs it hourly


def test_reflections_are_the_agents_own(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    other = api.headers("stranger", CLADE)
    other_person = api.headers("stranger", CLADE, scopes=("read", "person"))
    say(api, h, "Remember that I prefer tabs.")
    rid = api.client.post(f"/agents/{AGENT}/reflections", headers=h, json={}).json()["id"]
    for path in ("", "/pending.md", "/log.md", "/evolution.md", f"/{rid}"):
        assert api.client.get(f"/agents/{AGENT}/reflections{path}", headers=other).status_code == 403, path
    assert api.client.post(f"/agents/{AGENT}/reflections", headers=other, json={}).status_code == 403
    # another agent's person may not decide this one's reflection; the admin may
    assert decide(api, other_person, rid, decision="reject").status_code == 403
    assert api.client.get(f"/agents/stranger/reflections/{rid}", headers=other).status_code == 404
    assert decide(api, api.admin, rid, decision="reject").status_code == 200


def test_the_nightly_reflection_runs_at_the_agents_local_hour(api: Api, db) -> None:
    """moltbot-memory.md 10.1, "3:00 AM local time": an agent registered in Asia/Tokyo is due at 03:00 there (18:00
    UTC), not at 03:00 UTC; one without a time zone at 03:00 UTC; a zone that is not IANA's is refused."""
    r = api.client.post("/agents", headers=api.admin, json={"id": "tokyo-bot", "name": "tokyo-bot", "clade": CLADE,
                                                             "timezone": "Asia/Tokyo"})
    assert r.status_code == 201 and r.json()["timezone"] == "Asia/Tokyo", r.text
    bad = api.client.post("/agents", headers=api.admin, json={"id": "mars-bot", "name": "m", "clade": CLADE,
                                                               "timezone": "Mars/Olympus"})
    assert bad.status_code == 422 and "time zone" in bad.text
    r = api.client.post("/agents/tokyo-bot/messages", headers=api.headers("tokyo-bot", CLADE),
                        json={"text": "Remember that I prefer matcha."})
    assert r.status_code == 200, r.text
    say(api, api.headers(AGENT, CLADE), "Remember that I prefer tea.")
    services = api.client.app.state.services
    engine = Reflections(db, services.core_memory, services.memory.router, ReflectionConfig(threshold=50, hour=3))
    day = datetime.now(UTC) + timedelta(days=1)
    tokyo_3am = int(day.replace(hour=18, minute=5).timestamp() * 1000)   # 03:05 the next day in Tokyo
    utc_3am = int(day.replace(hour=3, minute=5).timestamp() * 1000)
    assert [(a, t.value) for a, t in engine.due(tokyo_3am)] == [("tokyo-bot", "schedule")]
    assert [(a, t.value) for a, t in engine.due(utc_3am)] == [(AGENT, "schedule")]
    made = engine.reflect("tokyo-bot", trigger=engine.due(tokyo_3am)[0][1], actor="test", now=tokyo_3am)
    nxt = day + timedelta(days=1)
    assert f"**Next scheduled reflection**: {nxt:%Y-%m-%d} 18:00" in made.markdown, made.markdown  # 03:00 in Tokyo
