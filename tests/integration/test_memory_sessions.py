"""A session's two ends (moltbot-memory.md 13.3 and 10.1): its start lists what waits for the batch review (the
sub-agents' open proposals and the reflection waiting for approval) beside the alerts of 12.5; its end proposes a
reflection over what the session added, once, and none when nothing new was remembered."""

from __future__ import annotations

from tests.conftest import Api
from tests.integration.test_memory_proposals import propose, sub_agent

MAIN, CLADE = "moltbot", "clade-m"


def test_a_session_starts_with_the_batch_review_and_ends_with_a_reflection(api: Api) -> None:
    main = api.headers(MAIN, CLADE)
    start = api.client.post(f"/agents/{MAIN}/sessions", headers=main)
    assert start.status_code == 200, start.text
    assert start.json()["pending_proposals"] == [] and "pending_reflection" not in start.json()

    researcher = sub_agent(api, "researcher")
    one = propose(api, researcher, content="User prefers academic sources", store="semantic", confidence="medium")
    two = propose(api, researcher, content="User reviews pull requests on Mondays", store="episodic")
    for text in ("Remember that I prefer tabs.", "Remember that today we decided to ship on Friday.",
                 "Remember that the staging database is read-only."):
        r = api.client.post(f"/agents/{MAIN}/messages", headers=main, json={"text": text})
        assert r.status_code == 200, r.text

    ended = api.client.post(f"/agents/{MAIN}/sessions/end", headers=main)
    assert ended.status_code == 200, ended.text
    reflection = ended.json()["reflection"]
    assert reflection["trigger"] == "session_end" and reflection["status"] == "pending"
    again = api.client.post(f"/agents/{MAIN}/sessions/end", headers=main)  # one is waiting: not a second
    assert again.status_code == 200 and "reflection" not in again.json()

    start = api.client.post(f"/agents/{MAIN}/sessions", headers=main).json()
    assert [p["id"] for p in start["pending_proposals"]] == [one["id"], two["id"]]
    assert start["pending_reflection"]["id"] == reflection["id"]
    assert api.client.post(f"/agents/{MAIN}/sessions/end", headers=api.headers("someone-else", CLADE)
                           ).status_code == 403
    reader = api.headers(MAIN, CLADE, scopes=("read",))  # ending proposes a reflection: a write
    assert api.client.post(f"/agents/{MAIN}/sessions/end", headers=reader).status_code == 403
    assert api.client.post(f"/agents/{MAIN}/sessions", headers=reader).status_code == 200  # starting reads
    assert api.client.post("/agents/nobody-here/sessions/end", headers=api.admin).status_code == 404


def test_a_session_that_remembered_nothing_ends_without_a_reflection(api: Api) -> None:
    h = api.headers("quiet-bot", CLADE)
    assert api.client.post("/agents/quiet-bot/sessions", headers=h).status_code == 200
    ended = api.client.post("/agents/quiet-bot/sessions/end", headers=h)
    assert ended.status_code == 200, ended.text
    assert "reflection" not in ended.json() and ended.json()["agent_id"] == "quiet-bot"
