"""Core memory (issue 16, point 1; graph/memory/core.py): the four blocks read together under a cap of
3,000 tokens counted with the embedding model's tokenizer; replace, append and one-line edits, each
keeping the text it replaced as a version closed in valid and recorded time, with its audit record in the
same transaction; a 409 that says by how many tokens an edit would pass the cap, changing nothing; pinned
critical facts kept by every edit; MEMORY.md; one agent's core memory closed to every other agent; the
cap and every edit kept under concurrent edits; the neomodel models' constraints in place (point 2)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from neomodel import db as neo

from grimoire.graph import agents
from grimoire.graph.audit import models as audit_models
from grimoire.graph.context import models as context_models
from grimoire.graph.db import ogm
from grimoire.graph.embeddings import Embedder
from grimoire.graph.memory import memory_md
from grimoire.graph.memory import models as memory_models
from grimoire.graph.memory.blocks import Block
from grimoire.graph.upkeep import models as upkeep_models
from tests.conftest import Api

AGENT, CLADE = "golem-core", "clade-core"


def _core(api: Api, h: dict[str, str], agent: str = AGENT) -> dict[str, Any]:
    r = api.client.get(f"/agents/{agent}/core", headers=h)
    assert r.status_code == 200, r.text
    return dict(r.json())


def _block(core: dict[str, Any], block: str) -> dict[str, Any]:
    return next(b for b in core["blocks"] if b["block"] == block)


def _audits(db) -> list[dict[str, Any]]:
    """Core edits' records: an append is filed as memory.core.append (APPEND), the rest as memory.core.edit."""
    return [r for r in db.fetch("testing/audit_records") if r["action"] in ("memory.core.edit", "memory.core.append")]


def test_blocks_are_read_together_edited_and_versioned_with_tokens_counted_by_the_model(
        api: Api, db, embedder: Embedder) -> None:
    h = api.headers(AGENT, CLADE)
    empty = _core(api, h)
    assert empty["cap"] == 3_000 and empty["tokens"] == 0
    assert [(b["block"], b["version"], b["content"]) for b in empty["blocks"]] == [
        ("identity", 0, ""), ("context", 0, ""), ("persona", 0, ""), ("critical", 0, "")]

    r = api.client.put(f"/agents/{AGENT}/core/identity", headers=h,
                       json={"content": "- Name: Alex\n- Role: Staff engineer\n- Timezone: CET"})
    assert r.status_code == 200, r.text
    r = api.client.post(f"/agents/{AGENT}/core/identity/append", headers=h, json={"text": "- Prefers Vim"})
    assert r.status_code == 200, r.text
    r = api.client.post(f"/agents/{AGENT}/core/identity/line", headers=h,
                        json={"old": "- Timezone: CET", "new": "- Timezone: PST", "reason": "moved"})
    assert r.status_code == 200, r.text
    r = api.client.put(f"/agents/{AGENT}/core/context", headers=h,
                       json={"content": "- Currently working on: the memory architecture"})
    core = r.json()
    identity = _block(core, "identity")
    assert identity["content"] == "- Name: Alex\n- Role: Staff engineer\n- Timezone: PST\n- Prefers Vim\n"
    assert identity["version"] == 3
    # Tokens as the embedding model's tokenizer counts them, per block and together.
    expected = embedder.count_tokens([identity["content"], _block(core, "context")["content"]])
    assert identity["tokens"] == expected[0]
    assert core["tokens"] == sum(expected)
    assert _core(api, h) == core

    versions = api.client.get(f"/agents/{AGENT}/core/identity/versions", headers=h).json()
    assert [v["version"] for v in versions] == [2, 1]
    assert versions[1]["content"] == "- Name: Alex\n- Role: Staff engineer\n- Timezone: CET\n"
    assert versions[0]["content"] == versions[1]["content"] + "- Prefers Vim\n"
    assert versions[0]["reason"] == "moved"
    # Each version closes, in valid and recorded time, when the next text begins.
    assert versions[1]["valid_until"] == versions[0]["valid_from"] == versions[1]["recorded_until"]
    assert versions[0]["valid_until"] == identity["valid_from"]
    # One audit record per edit, naming the block, with what undoes it.
    audits = _audits(db)
    assert len(audits) == 4
    assert {a["target_ids"][0] for a in audits} == {f"{AGENT}:core:identity", f"{AGENT}:core:context"}


def test_an_edit_past_the_cap_is_refused_with_how_many_tokens_over_and_changes_nothing(
        api: Api, db, embedder: Embedder) -> None:
    h = api.headers(AGENT, CLADE)
    api.client.put(f"/agents/{AGENT}/core/identity", headers=h, json={"content": "- Name: Alex"})
    before = _core(api, h)
    audits = len(_audits(db))
    long = "\n".join(f"- Open decision {i}: whether the semantic store keeps entity files per project"
                     for i in range(300))
    tokens = embedder.count_tokens([long])[0]
    over = before["tokens"] + tokens - 3_000
    assert over > 0
    r = api.client.put(f"/agents/{AGENT}/core/context", headers=h, json={"content": long})
    assert r.status_code == 409, r.text
    assert f"{over} over its cap of 3000" in r.json()["detail"]
    # A word the tokenizer cannot split counts by its length (WordPiece would give it one unknown token).
    r = api.client.post(f"/agents/{AGENT}/core/context/append", headers=h, json={"text": "x" * 20_000})
    assert r.status_code == 409, r.text
    assert _core(api, h) == before
    assert len(_audits(db)) == audits
    assert api.client.get(f"/agents/{AGENT}/core/context/versions", headers=h).json() == []


def test_pinned_critical_facts_survive_every_edit_until_unpinned(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    api.client.put(f"/agents/{AGENT}/core/critical", headers=h,
                   json={"content": "- Production deploys need two approvals"})
    r = api.client.post(f"/agents/{AGENT}/core/critical/pin", headers=h, json={"fact": "- Allergic to penicillin"})
    assert r.status_code == 200, r.text
    critical = _block(r.json(), "critical")
    assert critical["pinned"] == ["- Allergic to penicillin"]
    assert critical["content"] == "- Production deploys need two approvals\n- Allergic to penicillin\n"

    r = api.client.put(f"/agents/{AGENT}/core/critical", headers=h, json={"content": "- Something else"})
    assert r.status_code == 409 and "unpin" in r.json()["detail"]
    r = api.client.post(f"/agents/{AGENT}/core/critical/line", headers=h, json={"old": "- Allergic to penicillin",
                                                                                 "new": "- Allergic to nothing"})
    assert r.status_code == 409
    r = api.client.post(f"/agents/{AGENT}/core/persona/line", headers=h, json={"line": 1, "new": "x"})
    assert r.status_code == 404  # the persona block has no line 1
    # Other lines of the block may change.
    r = api.client.post(f"/agents/{AGENT}/core/critical/line", headers=h, json={"line": 1, "new": ""})
    assert r.status_code == 200 and _block(r.json(), "critical")["content"] == "- Allergic to penicillin\n"

    md = api.client.get(f"/agents/{AGENT}/core/memory.md", headers=h)
    assert md.status_code == 200 and md.headers["content-type"].startswith("text/markdown")
    assert "## Critical Facts" in md.text and "- Allergic to penicillin (pinned)" in md.text
    contents, pinned = memory_md.parse(md.text)
    assert pinned == ["- Allergic to penicillin"] and contents[Block.critical] == "- Allergic to penicillin\n"

    assert api.client.post(f"/agents/{AGENT}/core/critical/unpin", headers=h,
                           json={"fact": "- Not pinned"}).status_code == 404
    r = api.client.post(f"/agents/{AGENT}/core/critical/unpin", headers=h, json={"fact": "- Allergic to penicillin"})
    assert r.status_code == 200 and _block(r.json(), "critical")["pinned"] == []
    r = api.client.put(f"/agents/{AGENT}/core/critical", headers=h, json={"content": "- Something else"})
    assert r.status_code == 200, r.text


def test_core_memory_is_the_agents_own(api: Api) -> None:
    owner, peer = api.headers(AGENT, CLADE), api.headers("golem-peer", CLADE)
    api.client.put(f"/agents/{AGENT}/core/identity", headers=owner, json={"content": "- Name: Alex"})
    for path in ("core", "core/memory.md", "core/identity/versions"):
        assert api.client.get(f"/agents/{AGENT}/{path}", headers=peer).status_code == 403, path
    assert api.client.put(f"/agents/{AGENT}/core/identity", headers=peer, json={"content": "x"}).status_code == 403
    assert api.client.post(f"/agents/{AGENT}/core/critical/pin", headers=peer, json={"fact": "x"}).status_code == 403
    assert _block(_core(api, api.admin), "identity")["content"] == "- Name: Alex\n"  # the admin may
    assert _core(api, api.headers("golem-peer", CLADE), "golem-peer")["tokens"] == 0
    assert api.client.put("/agents/nobody/core/identity", headers=api.admin, json={"content": "x"}).status_code == 404
    assert api.client.get("/agents/nobody/core", headers=api.admin).status_code == 404
    reader = api.headers(AGENT, CLADE, scopes=("read",))
    assert api.client.put(f"/agents/{AGENT}/core/identity", headers=reader, json={"content": "x"}).status_code == 403
    assert api.client.get(f"/agents/{AGENT}/core/nothing/versions", headers=owner).status_code == 422


def test_concurrent_edits_lose_nothing_and_keep_the_cap(api: Api, embedder: Embedder) -> None:
    h = api.headers(AGENT, CLADE)
    # 40 appends of one line each (about 90 tokens), to two blocks at once: not all of them fit in 3,000 tokens.
    lines = [f"- Note {i:02d}: " + " ".join(f"detail{i}x{j}" for j in range(30)) for i in range(40)]

    def append(i: int) -> int:
        block = "context" if i % 2 else "critical"
        return api.client.post(f"/agents/{AGENT}/core/{block}/append", headers=h, json={"text": lines[i]}).status_code

    with ThreadPoolExecutor(max_workers=8) as pool:
        codes = list(pool.map(append, range(40)))
    assert set(codes) <= {200, 409} and 200 in codes and 409 in codes
    core = _core(api, h)
    kept = [line for b in core["blocks"] for line in b["content"].splitlines()]
    # Every accepted append is there (no lost update), no refused one is, and the total is under the cap.
    assert sorted(kept) == sorted(lines[i] for i, c in enumerate(codes) if c == 200)
    assert core["tokens"] == sum(embedder.count_tokens([b["content"] for b in core["blocks"] if b["content"]]))
    assert core["tokens"] <= 3_000
    for block in ("context", "critical"):
        accepted = sum(1 for i, c in enumerate(codes) if c == 200 and (block == "context") == bool(i % 2))
        assert _block(core, block)["version"] == accepted
        versions = api.client.get(f"/agents/{AGENT}/core/{block}/versions", headers=h).json()
        assert [v["version"] for v in versions] == list(range(accepted - 1, 0, -1))


def _schema(db) -> tuple[set[tuple[str, str]], set[tuple[str, str]], int]:
    constraints = {(r["labels"][0], r["properties"][0]) for r in db.fetch("schema/show_constraints")
                   if r["labels"] and r["properties"]}
    indexes = {(r["labels"][0], r["properties"][0]) for r in db.fetch("schema/show_indexes")
               if r["labels"] and r["properties"]}
    names = len(db.fetch("schema/show_constraints")) + len(db.fetch("schema/show_indexes"))
    return constraints, indexes, names


def test_the_neomodel_models_constraints_are_installed_by_the_schema_step(db) -> None:
    """Point 2: the control-plane nodes (agents, keys, core blocks and their versions) are neomodel models,
    and the schema step (cypher/schema/) installs what their unique and indexed properties need."""
    constraints, indexes, names = _schema(db)
    models = (*memory_models.MODELS, *agents.MODELS, *audit_models.MODELS, *context_models.MODELS,
              *upkeep_models.MODELS)
    assert {m.__label__ for m in models} == {"Agent", "ApiKey", "CoreBlock", "CoreBlockVersion", "WorkspaceFile",
                                             "MemoryReflection",
                                             "Alert", "MemoryProposal", "ContextPolicy", "ContextPolicyRevision",
                                             "ContextMutation", "VectorIndexBuild"}
    for model in models:
        for attr, prop in model.defined_properties(rels=False, aliases=False).items():
            key = (model.__label__, prop.get_db_property_name(attr))
            if prop.unique_index:
                assert key in constraints, key
            elif prop.index:
                assert key in indexes, key
    # neomodel's own install finds everything in place: it adds nothing.
    ogm.bind(db)
    for model in models:
        neo.install_labels(model, quiet=True)
    assert _schema(db)[2] == names
