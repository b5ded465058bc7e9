"""Forgetting (issue 16, point 6; graph/memory/forgetting.py, section 8.3): "forget about X" previews the
matches across every store and core memory and changes nothing; confirmed, X is archived — hidden from
every search path (recall by every strategy, the hybrid retrieval, /search by vector and full text, the
episode list and lookup, the memory list) but kept — and comes back when restored; "permanently delete"
removes X, its embedding, the relations and the procedure that hung off it alone and the entity only it
created, leaving no orphan and nothing else changed (a full dump equal to the one before X was written)."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import Api

AGENT, CLADE = "forgetful", "clade-f"
VOLATILE = {"access_count", "last_accessed_at"}  # reinforcement's bookkeeping (section 9.4), not content


def say(api: Api, h: dict[str, str], text: str, session: str) -> dict[str, Any]:
    r = api.client.post(f"/agents/{AGENT}/messages", headers=h, json={"text": text, "session_id": session})
    assert r.status_code == 200, r.text
    return dict(r.json())


def dump(db) -> tuple[list[str], list[str]]:
    """Every node and relationship but the records of what was done (audit, events, keys, access records)."""
    row = db.run("testing/dump")[0]

    def clean(props: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in props.items() if k not in VOLATILE}

    nodes = sorted(json.dumps({**n, "props": clean(n["props"])}, sort_keys=True, default=str)
                   for n in row["nodes"] if "AccessRecord" not in n["labels"])
    rels = sorted(json.dumps({**r, "props": clean(r["props"])}, sort_keys=True, default=str)
                  for r in row["relationships"])
    return nodes, rels


def hidden_everywhere(api: Api, h: dict[str, str], memory_id: str, text: str) -> bool:
    paths = [
        *(api.client.get(f"/agents/{AGENT}/recall", headers=h, params={"q": text, "type": t, "explicit": True})
          .json()["results"] for t in ("general", "entity", "temporal", "latest", "procedural")),
        api.client.post("/search", headers=h, json={"text": text, "k": 50}).json(),
        api.client.post("/search", headers=h, json={"text": text, "k": 50, "mode": "fulltext"}).json(),
        api.client.post("/retrieve", headers=h, json={"text": text, "k": 50, "no_budget": True}).json()["results"],
        api.client.get("/episodes", headers=h, params={"limit": 500}).json(),
        api.client.get(f"/agents/{AGENT}/memories", headers=h, params={"limit": 500}).json(),
    ]
    seen = [memory_id in [item["id"] for item in found] for found in paths]
    return not any(seen) and api.client.get(f"/episodes/{memory_id}", headers=h).status_code == 404


def test_forget_previews_archives_hides_and_restores(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    keep = say(api, h, "Remember that the dashboard uses React.", "s-1")["memory_id"]
    bug = say(api, h, "Remember that yesterday we fixed the CSS bug in the dashboard.", "s-1")["memory_id"]
    cause = say(api, h, "Note that the CSS bug came from the Tailwind upgrade.", "s-1")["memory_id"]
    r = api.client.post(f"/agents/{AGENT}/core/critical/append", headers=h,
                        json={"text": "- The CSS bug blocks the release"})
    assert r.status_code == 200, r.text
    before = dump(db)

    preview = say(api, h, "Forget about the CSS bug.", "s-1")
    assert preview["intent"] == "forget" and preview["content"] == "the CSS bug"
    found = preview["forget"]
    assert sorted(m["id"] for m in found["memories"]) == sorted([bug, cause])
    assert found["core_lines"] == [{"block": "critical", "line": "- The CSS bug blocks the release"}]
    assert found["message"] == "I found 2 memories and 1 line of core memory about the CSS bug. " \
                               "Should I archive all of them?"
    assert dump(db) == before  # a preview changes nothing

    done = api.client.post(f"/agents/{AGENT}/forget", headers=h, json={"target": "the CSS bug"}).json()
    assert sorted(done["archived"]) == sorted([bug, cause]) and done["core_lines"] == found["core_lines"]
    for memory_id in (bug, cause):
        assert hidden_everywhere(api, h, memory_id, "CSS bug dashboard Tailwind")
    assert not hidden_everywhere(api, h, keep, "dashboard React")
    core = api.client.get(f"/agents/{AGENT}/core", headers=h).json()
    assert "CSS" not in next(b for b in core["blocks"] if b["block"] == "critical")["content"]
    kept = {m["id"]: m for m in api.client.get(f"/agents/{AGENT}/memories", headers=h,
                                                params={"archived": True}).json()}
    assert kept[bug]["relevance"]["status"] == "archived" and kept[bug]["relevance"]["score"] == 0.0
    assert kept[bug]["text"] == "Yesterday we fixed the CSS bug in the dashboard."  # archived, not deleted
    audit = [a for a in db.fetch("testing/audit_records") if a["action"] == "memory.archive"]
    assert len(audit) == 1 and json.loads(audit[0]["revert"])[0]["op"] == "restore_memories"

    restored = api.client.post(f"/agents/{AGENT}/memories/restore", headers=h, json={"ids": [bug]}).json()
    assert restored["restored"] == [bug]
    assert not hidden_everywhere(api, h, bug, "CSS bug dashboard")


def test_permanent_delete_leaves_no_orphan_and_nothing_else_changed(api: Api, db, embedder) -> None:
    h = api.headers(AGENT, CLADE)
    keep = say(api, h, "Remember that the dashboard uses React.", "s-keep")["memory_id"]
    before = dump(db)
    memories_before = db.fetch("testing/count_memories")[0]
    target = say(api, h, "Note that the dashboard depends on Tailwind.", "s-t")
    assert target["classification"]["relations"] == [
        {"from": "concept--dashboard", "relation": "depends-on", "to": "concept--tailwind"}]
    procedure = say(api, h, "For future reference, when I ask you to style the dashboard: first run the linter, "
                            "then rebuild the CSS", "s-t")
    assert procedure["store"] == "procedural"
    learned = api.client.get(f"/agents/{AGENT}/memories/{procedure['memory_id']}", headers=h).json()
    assert learned["learned_from"] == [target["memory_id"]]
    # forgotten first (archived), then deleted for good: the preview of a deletion finds archived memories
    assert api.client.post(f"/agents/{AGENT}/forget", headers=h, json={"target": "Tailwind"}).status_code == 200
    asked = say(api, h, "Please permanently delete the memory about Tailwind.", "s-t")
    assert asked["intent"] == "delete"
    preview = asked["forget"]
    assert [m["id"] for m in preview["memories"]] == [target["memory_id"]]
    assert preview["derived"] == [procedure["memory_id"]]
    assert dump(db) != before

    gone = api.client.post(f"/agents/{AGENT}/forget", headers=h,
                           json={"ids": [target["memory_id"]], "core_lines": [], "permanent": True}).json()
    assert sorted(gone["deleted"]) == sorted([target["memory_id"], procedure["memory_id"]])
    # the relation only it asserted, and the entities only it and its procedure created ("dashboard" is shared)
    assert gone["relations"] == 1 and sorted(gone["entities"]) == ["concept:css", "concept:tailwind"]
    assert dump(db) == before  # no orphan, and nothing else changed
    assert db.fetch("testing/count_memories")[0] == memories_before
    # the shared entity stays, still named by the memory kept; the embedding is gone from the vector index
    hits = api.client.post("/search", headers=h, json={"text": "dashboard depends on Tailwind", "k": 50}).json()
    assert [x["id"] for x in hits] == [keep]
    record = [a for a in db.fetch("testing/audit_records") if a["action"] == "memory.delete"][0]
    assert "Tailwind" not in record["summary"]  # the record names what went, not what it said
    assert api.client.post(f"/agents/{AGENT}/forget", headers=h,
                           json={"ids": [target["memory_id"]], "permanent": True, "core_lines": []}).status_code == 404


def test_forget_it_ids_alone_and_an_entity_two_memories_named(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    first = say(api, h, "Remember that Zephyr uses Postgres.", "s-z")["memory_id"]       # creates the entities
    second = say(api, h, "Note that Zephyr depends on Postgres.", "s-z")["memory_id"]    # names them too
    last = say(api, h, "Forget it.", "s-z")
    assert last["intent"] == "forget" and [m["id"] for m in last["forget"]["memories"]] == [second]
    for memory_id in (first, second):  # ids alone, one after the other: nothing is left behind
        r = api.client.post(f"/agents/{AGENT}/forget", headers=h, json={"ids": [memory_id], "permanent": True})
        assert r.status_code == 200, r.text
    assert db.fetch("testing/memory_relations", agent_id=AGENT) == []
    assert not [e for e in db.fetch("testing/entity_ids") if e["id"] in ("concept:zephyr", "tool:postgres")]
