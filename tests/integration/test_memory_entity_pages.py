"""An entity's page generated from memory (issue 39; graph/memory/entity_pages.py, moltbot-memory.md 6.2):
remembering a few things about an entity gives a page with each section filled; what the agent forgot (archived)
or erased is not on it, nor another agent's memory about the same entity; the workspace export writes the same
page as the entity's file; another agent's key is a 403, an entity the memories never named a 404."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tests.conftest import Api

AGENT, OTHER, CLADE = "pager", "pager-snoop", "clade-pages"
SAID = (datetime.now(UTC) - timedelta(days=2)).replace(minute=0, second=0, microsecond=0)
PAGE = f"/agents/{AGENT}/entities/project--zephyr/page"


def say(api: Api, h: dict[str, str], text: str, minutes: int, agent: str = AGENT) -> str:
    r = api.client.post(f"/agents/{agent}/messages", headers=h,
                        json={"text": text, "at": (SAID + timedelta(minutes=minutes)).isoformat()})
    assert r.status_code == 200, r.text
    return str(r.json()["memory_id"])


def page(api: Api, h: dict[str, str], path: str = PAGE) -> dict[str, Any]:
    r = api.client.get(path, headers=h)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_remembering_an_entity_fills_its_page_with_the_agents_own_memories(api: Api) -> None:
    h, other = api.headers(AGENT, CLADE), api.headers(OTHER, CLADE)  # same clade: still its own memories
    uses = say(api, h, "Remember that the Zephyr project uses Redis.", 0)
    launched = say(api, h, "Remember that yesterday we launched the Zephyr project beta.", 1)
    sam = say(api, h, "Remember that Sam develops the Zephyr project.", 2)
    might = say(api, h, "Remember that the Zephyr project might move to Postgres.", 3)
    asked = say(api, h, "Remember: should the Zephyr project cap its queue?", 4)
    archived = say(api, h, "Remember that the Zephyr project is written in Rust.", 5)
    erased = say(api, h, "Remember that the Zephyr project runs its staging servers in Lisbon.", 6)
    theirs = say(api, other, "Remember that the Zephyr project leaks the launch codes.", 7, agent=OTHER)
    for ids, permanent in (([archived], False), ([erased], True)):
        r = api.client.post(f"/agents/{AGENT}/forget", headers=h, json={"ids": ids, "permanent": permanent})
        assert r.status_code == 200, r.text

    p = page(api, h)
    assert p["entity"]["slug"] == "project--zephyr" and p["entity"]["kind"] == "project"
    assert [f["memory_id"] for f in p["facts"]] == [uses, sam], p["facts"]
    assert [(t["memory_id"], t["day"]) for t in p["timeline"]] == [(launched, SAID.strftime("%Y-%m-%d"))]
    assert [(q["memory_id"], q["reason"]) for q in p["open_questions"]] == [(might, "low confidence"),
                                                                            (asked, "a question")]
    assert {(r["direction"], r["relation"], r["other"]) for r in p["relations"]} == {
        ("outgoing", "uses", "tool--redis"), ("incoming", "develops", "person--sam")}
    assert p["summary"] and set(p["summary_from"]) <= {uses, sam, launched} and len(p["summary_from"]) == 3
    assert p["memories"] == 5
    md = p["markdown"]
    for section in ("## Summary", "## Facts", "## Timeline", "## Open Questions", "## Relations"):
        assert section in md, section
    assert "- → uses [[tool--redis]]" in md and "- ← develops [[person--sam]]" in md
    # forgotten, erased and another agent's: never on the page
    for gone in ("Rust", "Lisbon", "launch codes"):
        assert gone not in md, gone
    assert theirs not in str(p)

    # the page as Markdown, by the graph's id too, and the workspace export's entity file: one generator
    md_file = api.client.get(f"{PAGE}.md", headers=h)
    assert md_file.status_code == 200 and md_file.headers["content-type"].startswith("text/markdown")
    assert md_file.text == md
    assert page(api, h, f"/agents/{AGENT}/entities/project:zephyr/page")["markdown"] == md
    files = api.client.get(f"/agents/{AGENT}/workspace", headers=h).json()["files"]
    assert files["memory/graph/entities/project--zephyr.md"] == md
    assert "| project--zephyr | project | Zephyr | entities/project--zephyr.md |" in files["memory/graph/index.md"]

    # the other agent's page of the same entity holds its own memory only
    mine = page(api, other, f"/agents/{OTHER}/entities/project--zephyr/page")
    assert [f["memory_id"] for f in mine["facts"]] == [theirs] and mine["relations"] == []


def test_an_entity_page_is_its_agents_own(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    say(api, h, "Remember that the Zephyr project uses Redis.", 0)
    intruder = api.headers("pager-intruder", CLADE)
    for path in (PAGE, f"{PAGE}.md"):
        assert api.client.get(path, headers=intruder).status_code == 403, path
        assert api.client.get(path, headers=api.admin).status_code == 200, path
    # an entity its memories never named (another agent's only, or none at all) is a 404, in the one error shape
    say(api, intruder, "Remember that the Quasar project uses Kafka.", 1, agent="pager-intruder")
    for entity in ("project--quasar", "project--nothing-here", "project:quasar"):
        r = api.client.get(f"/agents/{AGENT}/entities/{entity}/page", headers=h)
        assert r.status_code == 404, (entity, r.text)
        assert "no entity" in r.text
    assert api.client.get("/agents/ghost/entities/project--zephyr/page", headers=api.admin).status_code == 404
