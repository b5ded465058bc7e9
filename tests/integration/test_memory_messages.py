"""Agent memory through the message endpoint (issue 16, points 3 and 4; graph/memory/): a conversation
scripted from ../shared/spec/moltbot-memory.md's examples leaves the expected items in the expected stores
with section 8.2's classification (entities and 6.3 relations in the semantic graph, a procedure with its
trigger, steps and the memories it was learned from, the vault pinned, core lines under the cap), recall
questions search by query type (11.1) instead of writing, and one agent's memories are its own."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tests.conftest import Api

AGENT, CLADE, SESSION = "moltbot", "clade-m", "s-2026-02-02"
# today, so that every memory is active (relevance decay is tested at chosen ages in test_memory_relevance.py)
SAID = (datetime.now(UTC) - timedelta(hours=1)).replace(minute=0, second=0, microsecond=0)
DAY = SAID.strftime("%Y-%m-%d")


def say(api: Api, text: str, h: dict[str, str], minutes: int = 0, agent: str = AGENT) -> dict[str, Any]:
    r = api.client.post(f"/agents/{agent}/messages", headers=h,
                        json={"text": text, "session_id": SESSION,
                              "at": (SAID + timedelta(minutes=minutes)).isoformat()})
    assert r.status_code == 200, r.text
    return dict(r.json())


def _relations(db, agent: str) -> set[tuple[str, str, str]]:
    return {(r["s"], r["name"], r["o"]) for r in db.fetch("testing/memory_relations", agent_id=agent)}


CONVERSATION = [
    # (message, intent, store, type, confidence)
    ("My name is Alex and I'm a staff engineer at Acme.", "auto", "core", "fact", "medium"),
    ("Remember that I develop the Moltbot memory project.", "remember", "semantic", "fact", "high"),
    ("Note that the Moltbot memory project uses OpenClaw.", "remember", "semantic", "fact", "high"),
    ("Don't forget: we decided to use OAuth2 PKCE for the mobile client auth.", "remember", "semantic",
     "decision", "high"),
    ("Keep in mind I prefer brainstorming before implementation.", "remember", "semantic", "preference", "high"),
    ("For future reference, when I ask you to deploy: 1. run the test suite 2. check for uncommitted changes "
     "3. deploy to staging before prod", "remember", "procedural", "fact", "high"),
    ("Save this to the vault: the recovery phrase lives in the blue notebook.", "remember", "vault", "fact", "high"),
    ("I'm currently working on the memory architecture design document.", "auto", "core", "fact", "medium"),
    ("Remember that yesterday we fixed the CSS bug in the dashboard.", "remember", "episodic", "event", "high"),
    ("Nice weather today, isn't it?", "none", None, None, None),
]


def test_a_scripted_conversation_leaves_each_memory_in_its_store(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    out = [say(api, text, h, minutes=i) for i, (text, *_rest) in enumerate(CONVERSATION)]
    for (text, intent, store, kind, confidence), got in zip(CONVERSATION, out, strict=True):
        assert got["intent"] == intent, (text, got)
        if store is None:
            assert "memory_id" not in got and "classification" not in got
            continue
        c = got["classification"]
        assert (got["store"], c["store"], c["type"], c["confidence"]) == (store, store, kind, confidence), (text, c)
        assert 2 <= len(c["tags"]) <= 5 and c["summary"] and c["router"] == "rule-based"

    ids = [o.get("memory_id") for o in out]
    # the spec's classification: entities with their types, 6.3 relations between them
    alex = out[1]["classification"]
    assert alex["relations"] == [{"from": "person--alex", "relation": "develops", "to": "project--moltbot-memory"}]
    assert {"name": "Moltbot memory", "type": "project", "id": "project--moltbot-memory"} in alex["entities"]
    pkce = out[3]["classification"]
    assert {"name": "OAuth2 PKCE", "type": "concept", "id": "concept--oauth2-pkce"} in pkce["entities"]
    assert _relations(db, AGENT) == {
        ("person--alex", "develops", "project--moltbot-memory"),
        ("project--moltbot-memory", "uses", "tool--openclaw"),
        ("person--alex", "decided-on", "concept--oauth2-pkce"),
        ("person--alex", "prefers", "concept--brainstorming-before-implementation"),
    }
    # core memory: identity and active context lines, under the cap
    core = api.client.get(f"/agents/{AGENT}/core", headers=h).json()
    blocks = {b["block"]: b["content"] for b in core["blocks"]}
    assert blocks["identity"] == "- My name is Alex and I'm a staff engineer at Acme.\n"
    assert blocks["context"] == "- I'm currently working on the memory architecture design document.\n"
    assert out[0]["core"] == {"block": "identity", "line": "- My name is Alex and I'm a staff engineer at Acme."}
    assert core["tokens"] <= core["cap"]

    # the procedure: trigger, steps, learned from the session's earlier memories
    procedure = api.client.get(f"/agents/{AGENT}/memories/{ids[5]}", headers=h).json()
    assert procedure["trigger"] == "When I ask you to deploy"
    assert procedure["steps"] == ["Run the test suite", "Check for uncommitted changes",
                                  "Deploy to staging before prod"]
    assert procedure["learned_from"] == sorted(ids[0:5][::-1][:5])
    # the vault: pinned, never decays, private
    vault = api.client.get(f"/agents/{AGENT}/memories/{ids[6]}", headers=h).json()
    assert vault["pinned"] is True and vault["scope"] == "private"
    assert vault["relevance"] == {**vault["relevance"], "score": 1.0, "status": "active"}
    # the episodic log by day; a memory is an Episode of its agent (the hybrid retrieval sees it)
    day = api.client.get(f"/agents/{AGENT}/memories", headers=h, params={"day": DAY, "store": "episodic"})
    assert [m["id"] for m in day.json()] == [ids[8]]
    episode = api.client.get(f"/episodes/{ids[8]}", headers=h).json()
    assert episode["type"] == "conversation" and episode["text"] == "Yesterday we fixed the CSS bug in the dashboard."
    # each memory follows the one before it in its session
    follows = db.fetch("testing/memory_follows")
    written = [i for i in ids if i]
    assert {(r["a"], r["b"]) for r in follows} == set(zip(written[1:], written[:-1], strict=True))
    # every memory written has its audit record, in its transaction
    audits = [a for a in db.fetch("testing/audit_records") if a["action"] == "memory.remember"]
    assert sorted(i for a in audits for i in a["target_ids"]) == sorted(written)


def test_recall_questions_search_by_query_type_and_write_nothing(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    ids = [say(api, text, h, minutes=i).get("memory_id") for i, (text, *_rest) in enumerate(CONVERSATION)]
    memories_before = db.fetch("testing/count_memories")[0]["n"]

    entity = say(api, "What do you remember about OAuth2 PKCE?", h, 30)
    assert entity["intent"] == "recall" and "memory_id" not in entity
    r = entity["recall"]
    assert (r["query_type"], r["strategy"], r["explicit"]) == ("entity", "entity", True)
    assert r["results"][0]["id"] == ids[3] and r["results"][0]["via"] == "entity:0"
    assert r["entities"][0]["entity"]["slug"] == "concept--oauth2-pkce"
    # one hop out from the project: Alex (develops) and OpenClaw (uses)
    project = say(api, "What do you know about the Moltbot memory project?", h, 31)["recall"]
    around = {a["name"]: a["depth"] for f in project["entities"] for a in f["around"]}
    assert around["OpenClaw"] == 1 and around["Alex"] == 1 and around["OAuth2 PKCE"] == 2
    assert project["results"][0]["id"] in (ids[1], ids[2])

    how = say(api, "How do I usually deploy?", h, 32)["recall"]
    assert (how["query_type"], how["strategy"]) == ("procedural", "procedural")
    assert how["results"][0]["id"] == ids[5] and how["results"][0]["via"] == "trigger"

    when = say(api, "When did we fix the CSS bug?", h, 33)["recall"]
    assert when["query_type"] == "temporal" and when["results"][0]["id"] == ids[8]

    latest = say(api, "What's the latest on the memory architecture?", h, 34)["recall"]
    assert latest["query_type"] == "latest"
    assert latest["context"] == "- I'm currently working on the memory architecture design document.\n"
    assert ids[7] in [m["id"] for m in latest["results"]]

    # nothing the strategies know: the hybrid retrieval over the agent's memories answers
    fallback = api.client.get(f"/agents/{AGENT}/recall", headers=h,
                              params={"q": "notebook recovery", "type": "entity"}).json()
    assert fallback["strategy"] == "entity+hybrid" and fallback["results"][0]["id"] == ids[6]
    assert db.fetch("testing/count_memories")[0]["n"] == memories_before
    # an explicit question referenced what it found: one more access each (an access record, no audit)
    referenced = api.client.get(f"/agents/{AGENT}/memories/{ids[3]}", headers=h).json()
    assert referenced["access_count"] >= 2


def test_a_compound_statement_is_one_memory_per_clause_and_forgetting_one_keeps_the_other(api: Api, db) -> None:
    # Before: one memory for both, so forgetting the wallet silently forgot the preference too.
    h = api.headers(AGENT, CLADE)
    before = db.fetch("testing/count_memories")[0]["n"]
    said = say(api, "Remember that my wallet is 0xabc123def and I prefer low-risk pools", h)
    assert said["intent"] == "remember"
    memories = said["memories"]
    assert [m["classification"]["summary"] for m in memories] == ["My wallet is 0xabc123def.",
                                                                  "I prefer low-risk pools."], memories
    assert memories[1]["classification"]["type"] == "preference"
    wallet, pools = (m["memory_id"] for m in memories)
    assert said["memory_id"] == wallet and wallet != pools
    assert db.fetch("testing/count_memories")[0]["n"] == before + 2
    texts = {m["id"]: m["text"] for m in api.client.get(f"/agents/{AGENT}/memories", headers=h).json()}
    assert "0xabc123def" in texts[wallet] and "pools" not in texts[wallet]
    assert "low-risk pools" in texts[pools] and "0xabc123def" not in texts[pools]

    preview = say(api, "Forget my wallet", h, 1)["forget"]
    assert [m["id"] for m in preview["memories"]] == [wallet], preview
    done = api.client.post(f"/agents/{AGENT}/forget", headers=h, json={"target": "my wallet"}).json()
    assert done["archived"] == [wallet], done
    still = api.client.get(f"/agents/{AGENT}/recall", headers=h, params={"q": "low-risk pools"}).json()
    assert pools in [m["id"] for m in still["results"]]
    # a statement that only looks compound stays whole ("Alice and I" is no clause of its own)
    whole = say(api, "Remember that Alice and I met at ETHDenver in February", h, 2)
    assert len(whole["memories"]) == 1 and "Alice and I met" in whole["classification"]["summary"]


def test_one_agents_memories_are_its_own(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    other = api.headers("intruder", CLADE)  # same clade: still not its memories
    mine = say(api, "Remember that I develop the Moltbot memory project.", h)["memory_id"]
    for path in (f"/agents/{AGENT}/memories", f"/agents/{AGENT}/memories/{mine}",
                 f"/agents/{AGENT}/recall?q=Moltbot"):
        assert api.client.get(path, headers=other).status_code == 403, path
    for path, body in ((f"/agents/{AGENT}/messages", {"text": "What do you know about Moltbot?"}),
                       (f"/agents/{AGENT}/forget/preview", {"target": "Moltbot"}),
                       (f"/agents/{AGENT}/forget", {"target": "Moltbot"})):
        assert api.client.post(path, headers=other, json=body).status_code == 403, path
    # its own recall finds nothing of the other's
    say(api, "Remember that I develop the Moltbot memory project.", other, agent="intruder")
    theirs = api.client.get("/agents/intruder/recall", headers=other, params={"q": "Moltbot", "type": "entity"})
    assert mine not in [m["id"] for m in theirs.json()["results"]]
    assert api.client.get(f"/agents/{AGENT}/memories", headers=api.admin).status_code == 200
    # bad input: a clear 4xx, nothing written
    assert api.client.post(f"/agents/{AGENT}/messages", headers=h, json={"text": ""}).status_code == 422
    assert api.client.get(f"/agents/{AGENT}/memories", headers=h, params={"day": "Feb 2"}).status_code == 422
    assert api.client.get(f"/agents/{AGENT}/memories/nope", headers=h).status_code == 404
    assert api.client.post("/agents/ghost/messages", headers=api.admin,
                           json={"text": "Remember that ghosts exist."}).status_code == 404


def test_the_openapi_spec_names_the_memory_routes(api: Api) -> None:
    paths = api.client.get("/openapi.json").json()["paths"]
    for word in ("core", "messages", "forget", "reflections", "workspace", "recall", "memories"):
        assert any(word in path for path in paths), word
