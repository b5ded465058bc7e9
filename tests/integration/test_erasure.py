"""Erasure (issue 36, section 2; graph/audit/erasure.py, graph/memory/forgetting.py): a permanent delete takes every
copy of the erased text. A wallet remembered with a unique marker flows into as many places as the service keeps
text — the audit trail and its revert images, core memory's versions, a sub-agent's proposal committed into
memory, a kept workspace, a reflection, the access log, events, the memories' versions — and is then forgotten and
erased. Afterwards no property of any node or relationship in the whole database holds the marker, nor does any
file the service renders or any agent's export; the receipt names every node that held it; the trail keeps its
skeleton (who, when, the verb, the item, the text's hash) with a redaction stamp; and a rollback to before the
erasure brings back everything else, but not the erased memories, and says so."""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime
from typing import Any

from grimoire.graph.audit import alerts
from grimoire.graph.ids import now_ms
from tests.conftest import Api

MAIN, CLADE, SUB = "wallet-keeper", "clade-w", "wallet-scout"


def say(api: Api, h: dict[str, str], text: str) -> dict[str, Any]:
    r = api.client.post(f"/agents/{MAIN}/messages", headers=h, json={"text": text, "session_id": "s-1"})
    assert r.status_code == 200, r.text
    return dict(r.json())


def holding(db: Any, marker: str) -> set[tuple[str, str]]:
    """Every node and relationship of the whole database with a property (list items included) holding the marker."""
    found = db.fetch("testing/containing", marker=marker)[0]["found"]
    return {("|".join(sorted(f["labels"])), str(f["id"])) for f in found}


def ok(r: Any) -> Any:
    assert r.status_code in (200, 201), r.text
    return r.json()


def spread(api: Api, marker: str) -> dict[str, Any]:
    """The marker, remembered and carried into every place the service keeps text."""
    h, person = api.headers(MAIN, CLADE), api.headers(MAIN, CLADE, scopes=("read", "person"))
    ok(api.client.post("/agents", headers=api.admin,
                       json={"id": SUB, "name": SUB, "kind": "sub", "parent_id": MAIN, "clade": CLADE}))
    sub = api.headers(SUB, CLADE, scopes=("read", "propose"))
    said = say(api, h, f"Remember that my wallet is {marker}")
    pools = say(api, h, "Remember that I prefer low-risk pools")["memory_id"]
    # core memory: the line, then another edit (the block's earlier versions hold it)
    ok(api.client.post(f"/agents/{MAIN}/core/critical/append", headers=h, json={"text": f"- Wallet: {marker}"}))
    ok(api.client.post(f"/agents/{MAIN}/core/critical/append", headers=h, json={"text": "- Risk: low"}))
    # a sub-agent's proposal, committed into memory by the person
    proposal = ok(api.client.post(f"/agents/{MAIN}/proposals", headers=sub,
                                  json={"content": f"The user's wallet is {marker}", "confidence": "high"}))
    committed = ok(api.client.post(f"/agents/{MAIN}/proposals/{proposal['id']}/decision", headers=person,
                                   json={"decision": "commit"}))
    # a critical workspace file the person imported (USER.md), holding the wallet on a line of its own
    ok(api.client.post(f"/agents/{MAIN}/workspace", headers=api.admin,
                       json={"files": {"USER.md": f"# USER.md\n\n- Alex, Europe/Berlin\n- Wallet: {marker}\n"}}))
    # a workspace assembled (kept, in the process and as a record), a reflection, a retrieval for a decision
    workspace = api.client.post(f"/agents/{MAIN}/context/assemble", headers=h,
                                json={"query": "what is my wallet", "preassembled": False})
    assert workspace.status_code == 200 and marker in workspace.text
    reflection = ok(api.client.post(f"/agents/{MAIN}/reflections", headers=h, json={"about": "my wallet"}))
    assert marker in str(reflection)
    found = ok(api.client.post("/retrieve", headers=h, json={"text": "my wallet", "k": 10, "for_decision": True}))
    assert marker in str(found["results"])
    # entries derived from the memory: one from it alone, one from it and another memory (then edited: a version)
    only, both = f"only-{marker[-8:]}", f"both-{marker[-8:]}"
    for entry_id, content, parents in ((only, f"Check the wallet {marker} before each rebalance", [said["memory_id"]]),
                                       (both, f"Keep {marker} funds in low-risk pools", [said["memory_id"], pools])):
        made = ok(api.client.post("/entries", headers=h, json={"id": entry_id, "agent_id": MAIN, "category": "Insight",
                                                               "content": content, "parent_episode_ids": parents}))
        assert made["outcome"] == "admitted", made
    ok(api.client.post(f"/entries/{both}/edit", headers=h,
                       json={"content": f"Keep {marker} funds in low-risk pools, never leveraged"}))
    return {"h": h, "person": person, "wallet": said["memory_id"], "committed": committed["memory_id"],
            "pools": pools, "proposal": proposal["id"], "reflection": reflection["id"], "only": only, "both": both}


def rendered(api: Api, h: dict[str, str]) -> dict[str, str]:
    """Every file the service renders for the agent, and every agent's export."""
    paths = {p: h for p in (f"/agents/{MAIN}/audit?limit=500", f"/agents/{MAIN}/audit.log",
                            f"/agents/{MAIN}/audit/archive.md", f"/agents/{MAIN}/core/memory.md",
                            f"/agents/{MAIN}/workspace", f"/agents/{MAIN}/reflections",
                            f"/agents/{MAIN}/reflections/log.md", f"/agents/{MAIN}/reflections/evolution.md",
                            f"/agents/{MAIN}/proposals", f"/agents/{MAIN}/proposals/pending.md",
                            f"/agents/{MAIN}/memories?include_archived=true&limit=500",
                            f"/events?agent_id={MAIN}&limit=1000", "/playbook")}
    agents = [a["id"] for a in ok(api.client.get("/agents", headers=api.admin))]
    assert MAIN in agents and SUB in agents
    paths.update({f"/agents/{a}/export": api.admin for a in agents})
    out = {}
    for path, headers in paths.items():
        r = api.client.get(path, headers=headers)
        assert r.status_code in (200, 404), (path, r.text)
        out[path] = r.text
    return out


def test_an_erasure_leaves_no_copy_anywhere_and_its_receipt_names_each(api: Api, db) -> None:
    marker = "0xabc" + uuid.uuid4().hex
    s = spread(api, marker)
    h = s["h"]
    archived = ok(api.client.post(f"/agents/{MAIN}/forget", headers=h, json={"target": "wallet"}))
    assert sorted(archived["archived"]) == sorted([s["wallet"], s["committed"]])
    before = holding(db, marker)
    kinds = {k for k, _ in before}
    # it did flow everywhere: the trail, core memory's versions, the proposal, the workspace, the reflection, the
    # archived memories' versions
    assert {"AuditRecord", "MemoryProposal", "ContextAssembly", "MemoryReflection", "Version",
            "WorkspaceFile"} <= kinds, kinds
    assert any("CoreBlockVersion" in k for k in kinds), kinds
    assert any(marker in text for text in rendered(api, h).values())

    r = api.client.post(f"/agents/{MAIN}/forget", headers=h, json={"target": "wallet", "permanent": True})
    assert r.status_code == 200, r.text
    receipt = r.json()

    assert holding(db, marker) == set()  # the whole database: every node and relationship property
    for path, text in rendered(api, h).items():
        assert marker not in text, path
    # the receipt names every node that held it
    deleted = set(receipt["deleted"]) | set(receipt["entities"])
    assert deleted == {s["wallet"], s["committed"], f"concept:{marker}"}
    listed = ({r["id"] for r in receipt["redacted"]} | {r["id"] for r in receipt["removed"]}
              | {r["id"] for r in receipt["derived"]})
    unlisted = {(k, i) for k, i in before if i not in listed and i.split(":v")[0] not in deleted}
    assert unlisted == set()
    by_id = {r["id"]: r for r in receipt["redacted"]}
    assert "content" in by_id[s["proposal"]]["fields"]
    assert s["reflection"] in by_id
    assert {r["label"] for r in receipt["redacted"]} >= {"AuditRecord", "MemoryProposal", "ContextAssembly",
                                                          "MemoryReflection", "CoreBlockVersion", "WorkspaceFile"}
    # the file keeps its other lines, and the service's checksum for what it holds now: no tamper alert
    files = ok(api.client.get(f"/agents/{MAIN}/workspace", headers=h))["files"]
    assert files["USER.md"] == "# USER.md\n\n- Alex, Europe/Berlin\n"
    assert alerts.verify(db) == []
    assert receipt["erased_by"] and receipt["erased_at"] and receipt["erasure_id"]
    assert receipt["workspaces"] == 1  # the kept workspace, in the process, went too

    # the trail keeps its skeleton: who, when, the verb, the item, the text's hash, and who erased it when
    trail = ok(api.client.get(f"/agents/{MAIN}/audit", headers=h, params={"limit": 500}))
    remembered = next(x for x in trail if x["action"] == "memory.remember" and s["wallet"] in x["target_ids"])
    stamp = remembered["redaction"][0]
    text = f"My wallet is {marker}."
    assert stamp["redacted"] is True and stamp["erased_by"] == receipt["erased_by"]
    assert stamp["sha256"][s["wallet"]] == receipt["sha256"][s["wallet"]] == hashlib.sha256(text.encode()).hexdigest()
    assert remembered["verb"] and remembered["actor"] and remembered["at"]
    erasure = next(x for x in trail if x["id"] == receipt["erasure_id"])
    assert erasure["target_ids"] == receipt["deleted"] and erasure.get("redaction") is None
    # what derived from it: dropped when it was the only source, kept without its text otherwise
    derived = {d["id"]: d["outcome"] for d in receipt["derived"]}
    assert derived[s["only"]].startswith("dropped") and derived[s["both"]].startswith("kept")
    assert api.client.get(f"/entries/{s['only']}", headers=h).status_code == 404
    kept = ok(api.client.get(f"/entries/{s['both']}", headers=h))
    assert kept["content"].startswith("Keep [erased ")
    assert kept["content"].endswith("funds in low-risk pools, never leveraged")
    assert kept["parent_episode_ids"] == [s["pools"]]
    # what was not erased is as it was
    pools = ok(api.client.get(f"/agents/{MAIN}/memories/{s['pools']}", headers=h))
    assert pools["text"] == "I prefer low-risk pools."
    core = ok(api.client.get(f"/agents/{MAIN}/core", headers=h))
    assert "- Risk: low" in next(b for b in core["blocks"] if b["block"] == "critical")["content"]


def test_a_rollback_to_before_the_erasure_restores_the_rest_and_says_what_it_cannot(api: Api, db) -> None:
    marker = "0xabc" + uuid.uuid4().hex
    s = spread(api, marker)
    h, person = s["h"], s["person"]
    then = now_ms()
    ok(api.client.post(f"/agents/{MAIN}/forget", headers=h, json={"target": "wallet"}))
    ok(api.client.post(f"/agents/{MAIN}/forget", headers=h, json={"ids": [s["pools"]]}))  # archived, not erased
    receipt = ok(api.client.post(f"/agents/{MAIN}/forget", headers=h, json={"target": "wallet", "permanent": True}))
    assert holding(db, marker) == set()

    at = datetime.fromtimestamp(then / 1000, tz=UTC).isoformat(timespec="milliseconds")
    preview = ok(api.client.post(f"/agents/{MAIN}/rollback", headers=person, json={"at": at, "dry_run": True}))
    done = ok(api.client.post(f"/agents/{MAIN}/rollback", headers=person, json={"at": at}))
    for out in (preview, done):
        missing = {x["id"]: x for x in out["not_restored"]}
        assert set(missing) == {s["wallet"], s["committed"]}
        assert missing[s["wallet"]]["erasure"] == receipt["erasure_id"]
        assert missing[s["wallet"]]["erased_by"] == receipt["erased_by"]
    # everything else is back: the memory archived after that time
    listed = [m["id"] for m in ok(api.client.get(f"/agents/{MAIN}/memories", headers=h))]
    assert s["pools"] in listed and s["wallet"] not in listed and s["committed"] not in listed
    assert api.client.get(f"/agents/{MAIN}/memories/{s['wallet']}", headers=h,
                          params={"include_archived": True}).status_code == 404
    assert holding(db, marker) == set()  # nothing of it came back, anywhere
    core = ok(api.client.get(f"/agents/{MAIN}/core", headers=h))
    critical = next(b for b in core["blocks"] if b["block"] == "critical")["content"]
    assert "- Risk: low" in critical and "Wallet" not in critical and "erased" not in critical


def test_an_erasure_after_the_trail_was_folded_into_a_monthly_digest_leaves_nothing(api: Api, db) -> None:
    from grimoire.graph.audit import retention

    marker = "0xdef" + uuid.uuid4().hex
    h = api.headers(MAIN, CLADE)
    say(api, h, f"Remember that my cold wallet is {marker}")
    say(api, h, "Remember that I prefer low-risk pools")
    aged = api.db.run("testing/age_audit", agent_id=MAIN, to=int(datetime(2026, 1, 15, tzinfo=UTC).timestamp() * 1000))
    assert aged[0]["aged"] >= 2
    assert retention.fold(api.db, 90, now=now_ms()).months == 1
    archive = api.client.get(f"/agents/{MAIN}/audit/archive.md", headers=h)
    assert archive.status_code == 200 and "Audit Digest" in archive.text
    # The digest counts and names what happened; the text itself stays only in the memory and its entity.
    assert {k for k, _ in holding(db, marker)} == {"Episode|Memory", "Concept|Entity"}

    r = api.client.post(f"/agents/{MAIN}/forget", headers=h, json={"target": "cold wallet", "permanent": True})
    assert r.status_code == 200, r.text
    assert holding(db, marker) == set()
    after = api.client.get(f"/agents/{MAIN}/audit/archive.md", headers=h)
    assert after.status_code == 200 and "Audit Digest" in after.text and marker not in after.text
    assert api.client.get(f"/agents/{MAIN}/recall", headers=h, params={"q": "low-risk pools"}).status_code == 200
