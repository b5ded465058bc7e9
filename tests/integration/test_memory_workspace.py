"""Markdown workspace import and export (issue 16, point 8; graph/memory/workspace.py): an existing file-based
agent memory moves into the graph and back. The spec's example workspace (tests/data/workspace/, from
../shared/spec/moltbot-memory.md sections 4, 5, 6.1 to 6.3, 7 and 9.3) imported and exported again gives the
same files; its items land in their stores with their entities, relations, procedure steps and decay inputs;
bad input is a 422 naming the file and line with nothing written; another agent's key is a 403.

The example workspace, made consistent where the spec's examples disagree:
- every Entity Registry row has its entity file and every entity file its row (an import refuses either one
  alone): the spec shows project--moltbot-memory.md; person--alex.md, concept--oauth2-pkce.md and
  tool--openclaw.md are written in its layout. An edge's end needs no row (concept--brainstorm-first).
- decay scores are section 9.1's formula as of decay-scores.json's last_updated (2026-02-02T16:00:00Z) in the
  index, the entity files, the procedure and decay-scores.json alike: the spec's 0.95, 0.72, 0.98, 0.85, 0.92
  and 0.52 are not its own formula's (and its index and decay file disagree on OAuth2 PKCE). Scores and
  statuses are derived: an import reads the inputs, an export recomputes them as of `at`.
- decay-scores.json has an entry for every item (episodes, entities, the procedure, the vault), since the
  export writes one for each; the spec's two entries are kept as they are.
- memory/episodes/2026-01-25.md is added, so the procedure's first Learned From line names an episode of the
  workspace (a LEARNED_FROM link); the second (2026-01-30 09:15) names one it does not hold: kept as text.
- memory/vault/recovery-phrase.md is added (the spec gives the vault no example), in the layout export writes.
- the labels are the spec's ("Moltbot Memory System" for project--moltbot-memory): the entity is named by the
  label's words that spell its id ("Moltbot Memory"), the label kept for the index.

Normalisation of the round trip: none. Exported at `at` = the file's last_updated, every file equals the
example's byte for byte. A hand-edited copy (blank lines, padded table cells, trailing spaces, rows in another
order, JSON formatted otherwise) exports as the example: that is all the export normalises."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from grimoire.graph.memory import workspace, workspace_files
from tests.conftest import Api

AGENT, CLADE = "moltbot-files", "clade-w"
DATA = Path(__file__).resolve().parents[1] / "data" / "workspace"
AT = "2026-02-02T16:00:00Z"  # decay-scores.json's last_updated


def example() -> dict[str, str]:
    return {str(p.relative_to(DATA)): p.read_text() for p in sorted(DATA.rglob("*")) if p.is_file()}


def do_import(api: Api, h: dict[str, str], files: dict[str, str], agent: str = AGENT) -> Any:
    return api.client.post(f"/agents/{agent}/workspace", headers=h, json={"files": files})


def do_export(api: Api, h: dict[str, str], agent: str = AGENT, at: str | None = AT) -> dict[str, str]:
    r = api.client.get(f"/agents/{agent}/workspace", headers=h, params={"at": at} if at else {})
    assert r.status_code == 200, r.text
    assert set(r.json()) == {"files"}
    return dict(r.json()["files"])


def memories(api: Api, h: dict[str, str], store: str, agent: str = AGENT) -> list[dict[str, Any]]:
    r = api.client.get(f"/agents/{agent}/memories", headers=h, params={"store": store, "limit": 500})
    assert r.status_code == 200, r.text
    return sorted(r.json(), key=lambda m: (m["valid_from"], m["id"]))


def ms(text: str) -> int:
    return workspace_files._parse_iso(text) or 0


def state(api: Api, db, h: dict[str, str]) -> tuple[int, int, str]:
    """What an import would change: memories, audit records, core memory."""
    core = api.client.get(f"/agents/{AGENT}/core/memory.md", headers=h).text
    return db.fetch("testing/count_memories")[0]["n"], len(db.fetch("testing/audit_records")), core


def test_the_example_workspace_round_trips(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    files = example()
    r = do_import(api, h, files)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["created"] == {"episodic": 4, "semantic": 8, "procedural": 1, "vault": 1}, out
    assert out["unchanged"] == 0 and out["relations"] == 4 and out["skipped"] == {}
    assert sorted(out["core_blocks"]) == ["context", "critical", "identity", "persona"]

    exported = do_export(api, h)
    assert sorted(exported) == sorted(files)
    for path, text in files.items():  # no normalisation: byte for byte
        assert exported[path] == text, path

    # the zip holds the same files
    z = api.client.get(f"/agents/{AGENT}/workspace.zip", headers=h, params={"at": AT})
    assert z.status_code == 200 and z.headers["content-type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(z.content)) as archive:
        assert {n: archive.read(n).decode() for n in archive.namelist()} == files

    # importing it again adds nothing and changes nothing
    before = state(api, db, h)
    again = do_import(api, h, files).json()
    assert again["created"] == {} and again["unchanged"] == 14 and again["core_blocks"] == []
    assert again["audit_ids"] == [] and state(api, db, h) == before
    assert do_export(api, h) == exported


def test_each_item_lands_in_its_store_with_entities_relations_steps_and_decay_inputs(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    assert do_import(api, h, example()).status_code == 200
    decay = json.loads(example()["memory/meta/decay-scores.json"])["entries"]

    # MEMORY.md: the four core blocks
    core = {b["block"]: b for b in api.client.get(f"/agents/{AGENT}/core", headers=h).json()["blocks"]}
    assert core["identity"]["content"].startswith("- Name: [User Name]\n- Role: [What they do]\n")
    assert core["critical"]["content"] == "- [Fact 1 — high importance, pinned]\n" \
                                          "- [Fact 2 — high importance, pinned]\n- ...\n"

    # the episode log: an episodic memory per entry, said at its header's time, with its type, confidence, tags
    episodes = memories(api, h, "episodic")
    assert [(m["day"], m["memory_type"], m["confidence_level"], m["tags"]) for m in episodes] == [
        ("2026-01-25", "event", "high", ["deploy", "workflow"]),
        ("2026-02-02", "decision", "high", ["memory", "architecture"]),
        ("2026-02-02", "preference", "medium", ["workflow"]),
        ("2026-02-02", "task", "high", ["memory", "design"])]
    first = episodes[1]
    assert first["valid_from"] == ms("2026-02-02T14:30:00Z")
    assert first["text"].startswith("Discussed memory architecture directions with user. Chose hybrid approach:\n")
    # its decay inputs are decay-scores.json's
    entry = decay["episode:2026-02-02:14:30"]
    assert (first["base_relevance"], first["access_count"], first["last_accessed_at"], first["pinned"]) == (
        1.0, 2, ms(entry["last_accessed"]), False)
    assert first["workspace_key"] == "episode:2026-02-02:14:30"

    # entity files: semantic memories naming their entity and what they link; edges: CUSTOM relations
    semantic = {m["workspace_key"]: m for m in memories(api, h, "semantic")}
    project = semantic["entity:project--moltbot-memory"]
    assert project["text"].startswith("## Summary\nBuilding an intelligent memory system for Moltbot/OpenClaw")
    assert {e["slug"] for e in project["entities"]} == {
        "project--moltbot-memory", "person--alex", "tool--openclaw", "concept--letta-sleep-time",
        "concept--cognitive-memory-systems"}
    named = next(e for e in project["entities"] if e["slug"] == "project--moltbot-memory")
    assert (named["name"], named["kind"], named["id"]) == ("Moltbot Memory", "Project", "project:moltbot memory")
    assert project["workspace_label"] == "Moltbot Memory System" and project["access_count"] == 14
    alex = semantic["entity:person--alex"]
    assert alex["pinned"] is True and alex["relevance"]["score"] == 1.0
    relations = {(r["s"], r["name"], r["o"]): r for r in db.fetch("testing/memory_relations", agent_id=AGENT)}
    assert set(relations) == {
        ("person--alex", "develops", "project--moltbot-memory"),
        ("project--moltbot-memory", "uses", "tool--openclaw"),
        ("project--moltbot-memory", "decided-on", "concept--oauth2-pkce"),
        ("person--alex", "prefers", "concept--brainstorm-first")}
    decided = semantic["edge:project--moltbot-memory:decided-on:concept--oauth2-pkce"]
    assert relations[("project--moltbot-memory", "decided-on", "concept--oauth2-pkce")]["sources"] == [decided["id"]]
    assert (decided["memory_type"], decided["confidence_level"], decided["valid_from"]) == (
        "decision", "medium", ms("2026-01-20T00:00:00Z"))
    assert decided["text"] == "Moltbot Memory System decided-on OAuth2 PKCE Flow."

    # the procedure: trigger, steps, notes, learned from the episode its first Learned From line names
    [deploy] = memories(api, h, "procedural")
    assert deploy["trigger"] == "When user asks to deploy, push to production, or ship."
    assert deploy["steps"][0] == "Run test suite first (user insists on this)" and len(deploy["steps"]) == 5
    assert deploy["notes"] == ["User prefers verbose deploy logs",
                               "Always confirm before prod deploy (never auto-deploy)"]
    assert deploy["learned_from"] == [episodes[0]["id"]]
    assert (deploy["valid_from"], deploy["last_accessed_at"], deploy["access_count"]) == (
        ms("2026-01-25T14:30:00Z"), ms("2026-01-30T09:15:00Z"), 3)

    # the vault: pinned, never decays
    [vault] = memories(api, h, "vault")
    assert vault["pinned"] is True and vault["relevance"]["score"] == 1.0 and vault["scope"] == "private"

    # every memory has its audit record, written with it; the decay inputs theirs
    audits = db.fetch("testing/audit_records")
    ids = {m["id"] for s in ("episodic", "semantic", "procedural", "vault") for m in memories(api, h, s)}
    assert len(ids) == 14
    for action in ("memory.remember", "memory.workspace.import"):
        assert {i for a in audits if a["action"] == action for i in a["target_ids"]} == ids, action


def test_a_hand_edited_workspace_exports_in_the_canonical_form(api: Api) -> None:
    """Blank lines, padded table cells, trailing spaces, rows in another order and JSON formatted otherwise
    import as the example does: the export writes the example."""
    h = api.headers(AGENT, CLADE)
    files = example()
    messy = dict(files)
    messy["memory/episodes/2026-02-02.md"] = files["memory/episodes/2026-02-02.md"].replace("\n## ", "  \n\n## ")
    index = files["memory/graph/index.md"].splitlines()
    rows = [i for i, line in enumerate(index) if line.startswith("| person--") or line.startswith("| project--")]
    padded = [("|  " + "  |  ".join(c.strip() for c in line.strip("|").split("|")) + "  |")
              if line.startswith("| ") else line for line in index]
    padded[rows[0]], padded[rows[1]] = padded[rows[1]], padded[rows[0]]  # alex's and the project's rows
    messy["memory/graph/index.md"] = "\n\n".join(padded) + "\n"
    messy["memory/meta/decay-scores.json"] = json.dumps(
        json.loads(files["memory/meta/decay-scores.json"]), sort_keys=False, separators=(",", ":"))
    messy["memory/procedures/how-to-deploy.md"] = files["memory/procedures/how-to-deploy.md"] \
        .replace("## Steps\n", "\n## Steps   \n")
    assert messy != files
    r = do_import(api, h, messy)
    assert r.status_code == 200, r.text
    assert do_export(api, h) == files


BAD: list[tuple[str, str, str, str]] = [
    # (what, path, the file's new text or "", what the 422 names)
    ("an unknown path", "notes/todo.md", "- buy milk\n", "notes/todo.md: not a file of the workspace's layout"),
    ("a malformed episode header", "memory/episodes/2026-02-02.md",
     "# 2026-02-02 — Episode Log\n## 14:30 | decision | confidence:sure | tags:[memory]\nChose.\n",
     "memory/episodes/2026-02-02.md line 2: malformed header: the confidence reads confidence:high"),
    ("an episode log under a wrong name", "memory/episodes/Feb-2.md", "# x\n",
     "memory/episodes/Feb-2.md: an episode log is named by its day"),
    ("a relation outside 6.3's vocabulary", "memory/graph/index.md", "EDGE inspired-by",
     "memory/graph/index.md line 16: unknown relation 'inspired-by'"),
    ("a registry row without its file", "memory/graph/entities/tool--openclaw.md", "",
     "memory/graph/index.md line 9: the workspace has no memory/graph/entities/tool--openclaw.md"),
    ("an entity file that disagrees with decay-scores.json", "memory/graph/entities/concept--oauth2-pkce.md",
     "ACCESS 7", "memory/graph/entities/concept--oauth2-pkce.md line 3: Access count 7 disagrees with"),
    ("misnumbered steps", "memory/procedures/how-to-deploy.md", "STEPS",
     "memory/procedures/how-to-deploy.md line 9: step 3 is numbered 4"),
    ("broken JSON", "memory/meta/decay-scores.json", '{"version": 1,\n "entries": {,}}',
     "memory/meta/decay-scores.json line 2: not JSON"),
    ("an unknown section of MEMORY.md", "MEMORY.md", "# MEMORY.md\n## Identity\n- Alex\n## Hobbies\n- chess\n",
     "MEMORY.md line 4: unknown section 'Hobbies'"),
    ("a MEMORY.md over the cap", "MEMORY.md", "# MEMORY.md\n## Identity\n" + "- remember this word\n" * 1_000,
     "MEMORY.md line 1: core memory would hold"),
]


def _bad(files: dict[str, str], path: str, text: str) -> dict[str, str]:
    out = dict(files)
    if text == "":
        del out[path]
    elif text == "EDGE inspired-by":
        out[path] = files[path].replace("| person--alex | prefers |", "| person--alex | inspired-by |")
    elif text == "ACCESS 7":
        out[path] = files[path].replace("Access count: 1 |", "Access count: 7 |")
    elif text == "STEPS":
        out[path] = files[path].replace("3. Use `git tag`", "4. Use `git tag`")
    else:
        out[path] = text
    return out


@pytest.mark.parametrize(("what", "path", "text", "named"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_a_422_naming_the_file_and_line_and_nothing_is_written(
        api: Api, db, what: str, path: str, text: str, named: str) -> None:
    h = api.headers(AGENT, CLADE)
    before = state(api, db, h)
    r = do_import(api, h, _bad(example(), path, text))
    assert r.status_code == 422, (what, r.text)
    assert named in r.json()["detail"], (what, r.json()["detail"])
    assert r.json()["detail"].startswith("the workspace was not imported (nothing was written): ")
    assert state(api, db, h) == before


def test_every_problem_is_named_at_once_and_a_changed_item_is_a_conflict(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    files = example()
    two = _bad(_bad(files, "notes/todo.md", "x"), "memory/procedures/how-to-deploy.md", "STEPS")
    detail = do_import(api, h, two).json()["detail"]
    assert "notes/todo.md" in detail and "how-to-deploy.md line 9" in detail
    assert api.client.post(f"/agents/{AGENT}/workspace", headers=h, json={"files": "not a map"}).status_code == 422

    assert do_import(api, h, files).status_code == 200
    before = state(api, db, h)
    changed = dict(files)
    changed["memory/episodes/2026-02-02.md"] = files["memory/episodes/2026-02-02.md"].replace(
        "Next: user review", "Next: a review")
    changed["memory/episodes/2026-02-03.md"] = "# 2026-02-03 — Episode Log\n## 09:00 | event | " \
                                               "confidence:low | tags:[]\nA new day.\n"
    r = do_import(api, h, changed)
    assert r.status_code == 409 and "memory/episodes/2026-02-02.md line 9" in r.json()["detail"], r.text
    assert state(api, db, h) == before
    # a day added to the log is added; what was imported before stays as it was
    changed["memory/episodes/2026-02-02.md"] = files["memory/episodes/2026-02-02.md"]
    r = do_import(api, h, changed)
    assert r.status_code == 200 and r.json()["created"] == {"episodic": 1}, r.text
    exported = do_export(api, h)
    assert exported["memory/episodes/2026-02-03.md"] == changed["memory/episodes/2026-02-03.md"]
    assert exported["memory/episodes/2026-02-02.md"] == files["memory/episodes/2026-02-02.md"]


def test_reflections_meta_files_join_the_export_when_given(api: Api, db) -> None:
    h = api.headers(AGENT, CLADE)
    files = {**example(), "memory/meta/reflection-log.md": "# Reflection Log\n", ".audit/HEAD": "ref: main\n"}
    r = do_import(api, h, files)
    assert r.status_code == 200 and set(r.json()["skipped"]) == {"memory/meta/reflection-log.md", ".audit/HEAD"}
    svc = api.client.app.state.services  # type: ignore[attr-defined]
    meta = {"reflection-log.md": "# Reflection Log\n- #1 approved\n", "evolution.md": ""}
    out = workspace.export_workspace(svc.db, svc.core_memory, AGENT, at=ms(AT), meta=lambda agent_id: meta)
    assert out["memory/meta/reflection-log.md"] == meta["reflection-log.md"]
    assert "memory/meta/evolution.md" not in out and "memory/meta/pending-reflection.md" not in out
    assert {k: v for k, v in out.items() if not k.startswith("memory/meta/reflection")} == example()


def test_what_messages_taught_exports_and_moves_to_another_agent_unchanged(api: Api) -> None:
    """A workspace of memories a conversation wrote (no import) is valid: another agent imports it and exports
    the same files."""
    from tests.integration.test_memory_messages import CONVERSATION, SESSION

    h = api.headers("talker", CLADE)
    for i, (text, *_rest) in enumerate(CONVERSATION):
        r = api.client.post("/agents/talker/messages", headers=h, json={
            "text": text, "session_id": SESSION, "at": f"2026-02-02T10:{i:02d}:00Z"})
        assert r.status_code == 200, r.text
    files = do_export(api, h, "talker", at="2026-02-03T00:00:00Z")
    assert {"MEMORY.md", "memory/graph/entities/person--alex.md", "memory/procedures/when-i-ask-you-to-deploy.md",
            "memory/episodes/2026-02-02.md"} <= set(files)
    assert "- I develop the Moltbot memory project." in files["memory/graph/entities/person--alex.md"]
    assert "| person--alex | develops | project--moltbot-memory | high | 2026-02-02 |" in \
        files["memory/graph/index.md"]
    assert len([p for p in files if p.startswith("memory/vault/")]) == 1

    other = api.headers("listener", CLADE)
    r = do_import(api, other, files, agent="listener")
    assert r.status_code == 200, r.text
    assert do_export(api, other, "listener", at="2026-02-03T00:00:00Z") == files


def test_workspace_is_the_agents_own(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    other = api.headers("intruder-w", CLADE)  # same clade: still not its workspace
    assert do_import(api, h, example()).status_code == 200
    for path in (f"/agents/{AGENT}/workspace", f"/agents/{AGENT}/workspace.zip"):
        assert api.client.get(path, headers=other).status_code == 403, path
        assert api.client.get(path, headers=api.admin).status_code == 200, path
    assert do_import(api, other, example()).status_code == 403
    # its own export holds nothing of the other's
    theirs = do_export(api, other, "intruder-w")
    assert not [p for p in theirs if p.startswith("memory/episodes/")]
    assert "person--alex" not in theirs["memory/graph/index.md"]
    assert api.client.get("/agents/ghost/workspace", headers=api.admin).status_code == 404
    assert do_import(api, api.admin, example(), agent="ghost").status_code == 404
