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
    assert start.json()["review_mode"] == "batch"   # 13.4's recommended default

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
    assert [p["id"] for p in ended.json()["pending_proposals"]] == [one["id"], two["id"]]  # "at start or end"
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


def test_the_review_modes(api: Api) -> None:
    """13.4: batch (the default) holds a trusted sub-agent's proposal for the session's review; auto commits it at
    once from its trusted confidence; manual holds it for the person, and the sessions list none."""
    main = api.headers("reviewer", CLADE)
    person = api.headers("reviewer", CLADE, scopes=("read", "person"))
    coder = sub_agent(api, "rev-coder", parent="reviewer")
    assert api.client.put("/agents/reviewer/subagents/rev-coder/trust", headers=main,
                          json={"auto_commit_at": "medium"}).status_code == 200
    held = propose(api, coder, to="reviewer", content="The build cache lives in /var/cache/ci", confidence="high")
    assert held["status"] == "pending"                               # batch: trusted, yet held
    r = api.client.put("/agents/reviewer/review-mode", headers=person, json={"mode": "auto"})
    assert r.status_code == 200 and r.json() == {"agent_id": "reviewer", "mode": "auto", "before": "batch"}
    auto = propose(api, coder, to="reviewer", content="Deploy keys rotate every 90 days", confidence="high")
    assert auto["status"] == "committed" and auto["memory_id"]
    assert propose(api, coder, to="reviewer", content="Lint runs before tests", confidence="low")["status"] == "pending"
    assert api.client.put("/agents/reviewer/review-mode", headers=person, json={"mode": "manual"}).json()[
        "before"] == "auto"
    manual = propose(api, coder, to="reviewer", content="The nightly job runs at 02:00", confidence="high")
    assert manual["status"] == "pending"
    start = api.client.post("/agents/reviewer/sessions", headers=main).json()
    assert start["review_mode"] == "manual" and start["pending_proposals"] == []
    ended = api.client.post("/agents/reviewer/sessions/end", headers=main).json()
    assert ended["review_mode"] == "manual" and ended["pending_proposals"] == []
    # the person still sees them all, and decides (every mode: a person's key or the admin's)
    listed = api.client.get("/agents/reviewer/proposals", headers=person, params={"status": "pending"}).json()
    assert {held["id"], manual["id"]} <= {p["id"] for p in listed} and auto["id"] not in str(listed)
    # audited; the agent's own keys (it cannot lift its person's review), another agent and a sub-agent cannot set
    # it; a bad mode is a 422
    audit = api.client.get("/agents/reviewer/audit", headers=main).json()
    assert sum(1 for a in audit if a["action"] == "agent.review_mode") == 2
    reader = api.headers("reviewer", CLADE, scopes=("read",))
    for own in (reader, main):
        assert api.client.put("/agents/reviewer/review-mode", headers=own, json={"mode": "auto"}).status_code == 403
    assert api.client.put("/agents/reviewer/review-mode", headers=api.headers("other-bot", CLADE),
                          json={"mode": "auto"}).status_code == 403
    assert api.client.put("/agents/rev-coder/review-mode", headers=api.admin,
                          json={"mode": "auto"}).status_code == 422   # a sub-agent reviews nothing
    bad = api.client.put("/agents/reviewer/review-mode", headers=person, json={"mode": "sometimes"})
    assert bad.status_code == 422 and "mode" in bad.text
