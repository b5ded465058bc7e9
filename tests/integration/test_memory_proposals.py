"""Sub-agents propose, the main agent commits (issue 17, point 5; graph/memory/proposals.py, section 13): the
proposal example of 13.2 and pending-memories.md; the commit flow of 13.3 (commit to the suggested store or
another, reject with a reason, defer), audited as subagent:NAME and bot:commit-from:NAME; a conflicting pair
flagged and linked (13.6); auto-commit for a trusted sub-agent above a confidence (13.4)."""

from __future__ import annotations

from typing import Any

from tests.conftest import Api

MAIN, CLADE = "moltbot", "clade-m"


def sub_agent(api: Api, name: str, parent: str = MAIN) -> dict[str, str]:
    r = api.client.post("/agents", headers=api.admin,
                        json={"id": name, "name": name, "kind": "sub", "parent_id": parent, "clade": CLADE})
    assert r.status_code in (201, 409), r.text
    return api.headers(name, CLADE, scopes=("read", "propose"))  # registered above: this makes its key


def propose(api: Api, h: dict[str, str], to: str = MAIN, **body: Any) -> dict[str, Any]:
    r = api.client.post(f"/agents/{to}/proposals", headers=h, json=body)
    assert r.status_code == 201, r.text
    return dict(r.json())


def decide(api: Api, h: dict[str, str], pid: str, **body: Any) -> Any:
    return api.client.post(f"/agents/{MAIN}/proposals/{pid}/decision", headers=h, json=body)


def test_the_proposal_example_and_the_commit_flow(api: Api) -> None:
    main = api.headers(MAIN, CLADE)
    person = api.headers(MAIN, CLADE, scopes=("read", "person"))  # who decides (REST, MCP and the console alike)
    researcher, coder = sub_agent(api, "researcher"), sub_agent(api, "coder")
    # 13.2's example, as the sub-agents write it
    p1 = propose(api, researcher, content="User prefers academic sources over blog posts for technical topics",
                 trigger="auto-detect during research task", store="semantic",
                 entities=["preference--source-quality"], confidence="medium", core_worthy=False)
    p2 = propose(api, coder, content="When refactoring, user wants tests written before changing implementation",
                 trigger='user said "remember this pattern"', store="procedural",
                 entities=["procedure--refactoring-workflow"], confidence="high", core_worthy=False)
    assert (p1["number"], p1["status"], p1["from_agent"]) == (1, "pending", "researcher")
    assert (p2["number"], p2["status"], p2["store"]) == (2, "pending", "procedural")
    md = api.client.get(f"/agents/{MAIN}/proposals/pending.md", headers=main).text
    assert md.startswith("# Pending Memory Proposals\n<!-- Sub-agents append proposals here. Main agent reviews "
                         "and commits. -->\n---\n## Proposal #1\n- **From**: researcher\n- **Timestamp**: ")
    assert ("- **Trigger**: auto-detect during research task\n- **Suggested store**: semantic\n"
            "- **Content**: User prefers academic sources over blog posts for technical topics\n"
            "- **Entities**: [preference--source-quality]\n- **Confidence**: medium\n- **Core-worthy**: no\n"
            "- **Status**: pending\n---\n## Proposal #2\n- **From**: coder\n") in md
    # nothing is in the main agent's memory yet
    assert api.client.get(f"/agents/{MAIN}/memories", headers=main).json() == []

    # 13.3: commit to the suggested store; commit to another; a decision is made once, by the main agent's side
    assert decide(api, researcher, p1["id"], decision="commit").status_code == 403
    assert decide(api, main, p1["id"], decision="commit").status_code == 403  # the agent's own key decides nothing
    done = decide(api, person, p1["id"], decision="commit")
    assert done.status_code == 200, done.text
    one = done.json()
    assert (one["status"], one["committed_store"]) == ("committed", "semantic")
    memory = api.client.get(f"/agents/{MAIN}/memories/{one['memory_id']}", headers=main).json()
    assert memory["store"] == "semantic" and "academic sources" in memory["text"]
    two = decide(api, person, p2["id"], decision="commit", store="semantic").json()
    assert two["committed_store"] == "semantic"
    assert decide(api, person, p2["id"], decision="reject").status_code == 409
    # the trail: proposed by the sub-agent (pending), committed from it (13.7)
    trail = api.client.get(f"/agents/{MAIN}/audit", headers=main, params={"limit": 500}).json()
    proposed = [r for r in trail if r["verb"] == "PROPOSE"]
    assert {(r["tag"], r["approval"]) for r in proposed} == {("subagent:researcher", "pending"),
                                                              ("subagent:coder", "pending")}
    commits = {r["tag"]: r for r in trail if r["verb"] == "COMMIT"}
    assert set(commits) == {"bot:commit-from:researcher", "bot:commit-from:coder"}
    assert commits["bot:commit-from:researcher"]["target_ids"] == [one["memory_id"]]
    assert commits["bot:commit-from:researcher"]["approval"] == "auto"

    # 13.6: a conflicting pair is flagged and linked; reject one with a reason, defer the other
    p3 = propose(api, researcher, content="Project deadline is March 15", confidence="medium")
    p4 = propose(api, coder, content="Project deadline is March 30", confidence="medium")
    # flagged for the sub-agent too, without the other sub-agent's proposal id (not its to see)
    assert p3["status"] == "pending" and (p4["status"], p4["conflicts_with"]) == ("conflict", [])
    listed = {x["number"]: x for x in api.client.get(f"/agents/{MAIN}/proposals", headers=main).json()}
    assert (listed[3]["status"], listed[3]["conflicts_with"]) == ("conflict", [p4["id"]])
    md = api.client.get(f"/agents/{MAIN}/proposals/pending.md", headers=main).text
    assert "## Proposal #3 ⚠️ CONFLICT with #4\n- **From**: researcher" in md
    assert "- **Status**: conflict — see #4" in md and "- **Status**: conflict — see #3" in md
    assert "## Proposal #1" not in md  # committed: cleared from pending
    rejected = decide(api, person, p4["id"], decision="reject", reason="the deadline is March 15").json()
    assert (rejected["status"], rejected["reason"]) == ("rejected", "the deadline is March 15")
    assert decide(api, person, p3["id"], decision="defer").json()["status"] == "deferred"
    reject = next(r for r in api.client.get(f"/agents/{MAIN}/audit", headers=main, params={"verb": "REJECT"}).json())
    assert reject["tag"] == "manual" and "the deadline is March 15" in reject["summary"]  # the person's decision
    # a line of core memory is the main agent's own to write: proposed for core, it is kept as semantic
    assert propose(api, researcher, content="User's name is Alex", store="core")["store"] == "semantic"
    # unrelated proposals are no conflict
    assert propose(api, coder, content="The CI pipeline runs on every push", confidence="low")["status"] == "pending"


def test_a_trusted_sub_agent_is_committed_at_once_above_its_confidence(api: Api) -> None:
    main = api.headers(MAIN, CLADE)
    coder = sub_agent(api, "coder")
    r = api.client.put(f"/agents/{MAIN}/subagents/coder/trust", headers=main, json={"auto_commit_at": "high"})
    assert r.status_code == 200, r.text
    person = api.headers(MAIN, CLADE, scopes=("read", "person"))
    assert api.client.put(f"/agents/{MAIN}/review-mode", headers=person, json={"mode": "auto"}).status_code == 200
    auto = propose(api, coder, content="The staging server is staging.acme.dev", confidence="high",
                   store="semantic")
    assert auto["status"] == "committed" and auto["memory_id"]
    assert api.client.get(f"/agents/{MAIN}/memories/{auto['memory_id']}", headers=main).status_code == 200
    waits = propose(api, coder, content="Deploys happen on Tuesdays", confidence="medium")
    assert waits["status"] == "pending"
    commit = next(r for r in api.client.get(f"/agents/{MAIN}/audit", headers=main, params={"verb": "COMMIT"}).json())
    assert commit["tag"] == "bot:commit-from:coder" and "auto-commit" in commit["trigger"]
    # trust withdrawn: every proposal waits again
    api.client.put(f"/agents/{MAIN}/subagents/coder/trust", headers=main, json={"auto_commit_at": None})
    assert propose(api, coder, content="Releases are tagged on main", confidence="high")["status"] == "pending"
    # only a sub-agent of this main agent can be trusted
    assert api.client.put(f"/agents/{MAIN}/subagents/nobody/trust", headers=main,
                          json={"auto_commit_at": "high"}).status_code == 404


def test_proposals_are_the_main_agents_own(api: Api) -> None:
    main = api.headers(MAIN, CLADE)
    researcher, coder = sub_agent(api, "researcher"), sub_agent(api, "coder")
    api.headers("elsewhere", CLADE)
    outsider = sub_agent(api, "outsider", parent="elsewhere")
    mine = propose(api, researcher, content="User reads papers on Sundays")
    propose(api, coder, content="User writes Rust at work")
    # a sub-agent reads its own proposals; the main agent all; another agent none
    assert [p["id"] for p in api.client.get(f"/agents/{MAIN}/proposals", headers=researcher).json()] == [mine["id"]]
    assert "User writes Rust" not in api.client.get(f"/agents/{MAIN}/proposals/pending.md", headers=researcher).text
    assert len(api.client.get(f"/agents/{MAIN}/proposals", headers=main).json()) == 2
    stranger = api.headers("stranger", CLADE)
    assert api.client.get(f"/agents/{MAIN}/proposals", headers=stranger).status_code == 403
    assert api.client.get(f"/agents/{MAIN}/proposals/pending.md", headers=outsider).status_code == 403
    # only a sub-agent of this main agent proposes to it; a main agent writes its own memory
    r = api.client.post(f"/agents/{MAIN}/proposals", headers=outsider, json={"content": "x marks the spot"})
    assert r.status_code == 422 and "works for" in r.json()["detail"]
    r = api.client.post(f"/agents/{MAIN}/proposals", headers=main, json={"content": "I am the main agent"})
    assert r.status_code == 422 and "not a sub-agent" in r.json()["detail"]
    assert decide(api, stranger, mine["id"], decision="commit").status_code == 403
    reader = api.headers(MAIN, CLADE, scopes=("read",))  # the main agent's read-only key reads, decides nothing
    assert len(api.client.get(f"/agents/{MAIN}/proposals", headers=reader).json()) == 2
    assert decide(api, reader, mine["id"], decision="commit").status_code == 403
    assert api.client.put(f"/agents/{MAIN}/subagents/researcher/trust", headers=reader,
                          json={"auto_commit_at": "high"}).status_code == 403
    person = api.headers(MAIN, CLADE, scopes=("read", "person"))
    assert decide(api, person, "nope", decision="commit").status_code == 404
    assert decide(api, person, mine["id"], decision="shred").status_code == 422


def test_the_reflection_engine_processes_deferred_proposals(api: Api) -> None:
    main = api.headers(MAIN, CLADE)
    person = api.headers(MAIN, CLADE, scopes=("read", "person"))
    researcher = sub_agent(api, "researcher")
    deferred = propose(api, researcher, content="User prefers academic sources over blog posts", store="semantic")
    left = propose(api, researcher, content="User drinks green tea every morning", store="episodic")
    assert decide(api, person, deferred["id"], decision="defer").json()["status"] == "deferred"
    r = api.client.post(f"/agents/{MAIN}/reflections", headers=main, json={})
    assert r.status_code == 201, r.text
    reflection = r.json()
    [item] = [i for i in reflection["items"] if i["kind"] == "proposal"]  # only the deferred one
    assert item["data"]["proposal_id"] == deferred["id"]
    assert f"[{item['id']}] From researcher (proposal #1, semantic): User prefers academic sources" in \
        reflection["markdown"]
    r = api.client.post(f"/agents/{MAIN}/reflections/{reflection['id']}/decision", headers=person,
                        json={"decision": "approve"})
    assert r.status_code == 200, r.text
    assert item["id"] in r.json()["applied"]
    listed = {p["id"]: p for p in api.client.get(f"/agents/{MAIN}/proposals", headers=main).json()}
    committed = listed[deferred["id"]]
    assert committed["status"] == "committed" and committed["committed_store"] == "semantic"
    assert listed[left["id"]]["status"] == "pending"
    assert api.client.get(f"/agents/{MAIN}/memories/{committed['memory_id']}", headers=main).status_code == 200
    did = api.client.get(f"/agents/{MAIN}/audit/reflections/{reflection['id']}", headers=person).json()
    commit = next(r for r in did if r["verb"] == "COMMIT" and committed["memory_id"] in r["target_ids"])
    assert (commit["tag"], commit["approval"]) == (f"reflection:{reflection['id']}", "approved")
