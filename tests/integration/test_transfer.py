"""Export then import into an empty database gives the same nodes, relationships and properties."""

from __future__ import annotations

import json

from tests.conftest import counts


def _dump(db) -> tuple[list, list]:
    """The graph but the version chain: an export carries an agent's knowledge, not its history (the earlier
    states stay where they were written, graph/audit/versions.py)."""
    row = db.run("testing/dump")[0]
    key = lambda x: json.dumps(x, sort_keys=True, default=str)  # noqa: E731
    nodes = [n for n in row["nodes"] if "Version" not in n["labels"]]
    rels = [r for r in row["relationships"] if r["type"] not in ("PREVIOUS_VERSION", "PREVIOUS")]
    return (sorted(nodes, key=key), sorted(rels, key=key))


def _fill(api) -> dict[str, str]:
    h = api.headers("heir-0", "clade-t")
    eps = [{"id": f"t-ep-{i}", "type": "action", "text": f"Rebalanced {i} WETH at block {19_000_000 + i}",
            "block": 19_000_000 + i, "regime": "bull", "gain": i * 1.5, "actions": ["swap"],
            "emotional_tag": {"primary": "trust", "pleasure": 0.3, "arousal": 0.1, "dominance": 0.2},
            "mentions": [{"kind": "Token", "name": "WETH", "chain_id": 1,
                          "address": "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"},
                         {"kind": "Person", "name": f"trader {i % 2}"}]} for i in range(6)]
    assert api.client.post("/episodes/batch", headers=h, json={"episodes": eps}).status_code == 201
    entries = [
        {"id": "t-h", "category": "Heuristic", "parent_episode_ids": ["t-ep-0", "t-ep-1"], "tags": ["rebalance"],
         "content": "When WETH drifts 5% from target then rebalance within 10 blocks"},
        {"id": "t-w", "category": "Warning", "parent_episode_ids": ["t-ep-2"], "provenance": "DeathReflection",
         "is_bloodstain": True, "content": "Avoid rebalancing during the first 3 blocks after an oracle update"},
        {"id": "t-dup", "category": "Heuristic", "parent_episode_ids": ["t-ep-3"],
         "content": "When WETH drifts 5% from target then rebalance within 10 blocks"},
    ]
    assert api.client.post("/entries/batch", headers=h, json={"entries": entries}).status_code == 201
    api.client.post("/entries/t-h/upvote", headers=h)
    return h


def test_export_then_import_into_an_empty_database(api, db) -> None:
    h = _fill(api)
    before = _dump(db)
    exported = api.client.get("/agents/heir-0/export", headers=h)
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("application/x-ndjson")
    lines = exported.text.splitlines()
    header = json.loads(lines[0])
    assert header["record"] == "header" and header["agent_id"] == "heir-0"
    kinds = [json.loads(line)["record"] for line in lines[1:]]
    assert kinds.count("node") == 1 + 6 + 2 + 3 + 3  # agent, episodes, entries, decisions, entities
    assert kinds.count("relationship") == 12 + 3 + 3  # MENTIONS, DERIVED_FROM (the duplicate is skipped), DECIDED

    db.run("testing/delete_all")
    assert counts(db) == {}
    r = api.client.post("/agents/import", headers={**api.admin, "content-type": "application/x-ndjson"},
                        content=exported.text)
    assert r.status_code == 200, r.text
    assert r.json()["nodes"] == 15 and r.json()["relationships"] == 18 and r.json()["relationships_skipped"] == 0
    assert _dump(db) == before  # the same nodes, labels, relationships and properties (embeddings too)
    # Importing again changes nothing.
    api.client.post("/agents/import", headers={**api.admin, "content-type": "application/x-ndjson"},
                    content=exported.text)
    assert _dump(db) == before


def test_a_bad_line_imports_nothing(api, db) -> None:
    h = _fill(api)
    lines = api.client.get("/agents/heir-0/export", headers=h).text.splitlines()
    db.run("testing/delete_all")
    for bad, message in [
        (json.dumps({"record": "node", "labels": ["Episode", "Admin"], "id": "x", "properties": {}}), "unknown labels"),
        (json.dumps({"record": "relationship", "type": "OWNS", "from": "a", "from_label": "Episode", "to": "b",
                     "to_label": "Entity"}), "type"),
        (json.dumps({"record": "node", "labels": ["Episode"], "id": "x", "properties": {"a b": 1}}), "identifier"),
        ('{"record": "node", "labels": ["Episode"], "id": "x", "properties": {"gain": NaN}}', "finite"),
        ("not json at all", "line"),
        # a node this service could not read back as its answer (an agent of an unknown kind, a generation of 1.5)
        (json.dumps({"record": "node", "labels": ["Agent"], "id": "odd", "properties": {"kind": "person"}}),
         "could not read back"),
        (json.dumps({"record": "node", "labels": ["Agent"], "id": "odd", "properties": {"generation": 1.5}}),
         "could not read back"),
        (json.dumps({"record": "node", "labels": ["Entry"], "id": "e", "properties": {"scope": "everyone"}}),
         "could not read back"),
    ]:
        body = "\n".join(lines[:5] + [bad] + lines[5:])
        r = api.client.post("/agents/import", headers={**api.admin, "content-type": "application/x-ndjson"},
                            content=body)
        assert r.status_code == 422 and message in r.json()["detail"], (bad, r.text)
        assert counts(db) == {}
    r = api.client.post("/agents/import", headers={**api.admin, "content-type": "application/x-ndjson"},
                        content="\n".join(lines[1:]))
    assert r.status_code == 422 and "header" in r.json()["detail"]
    assert api.client.post("/agents/import", headers=h, content="\n".join(lines)).status_code == 403


def _import(api, lines: list[str]):
    return api.client.post("/agents/import", headers={**api.admin, "content-type": "application/x-ndjson"},
                           content="\n".join(lines))


def test_a_refusal_half_way_leaves_nothing_behind(api, db) -> None:
    """The database refuses the 1,201st node (Neo4j cannot store a list mixing types) after a whole
    batch of 1,000 has gone in: the import is one transaction, so nothing of it remains."""
    h = _fill(api)
    lines = api.client.get("/agents/heir-0/export", headers=h).text.splitlines()
    db.run("testing/delete_all")
    many = [json.dumps({"record": "node", "labels": ["Episode"], "id": f"bulk-{i}",
                        "properties": {"agent_id": "heir-0", "scope": "private", "text": f"bulk turn {i}"}})
            for i in range(1_500)]
    many[1_200] = json.dumps({"record": "node", "labels": ["Episode"], "id": "mixed",
                              "properties": {"agent_id": "heir-0", "tags": [1, "one"]}})
    r = _import(api, [lines[0], *many, *lines[1:]])
    assert r.status_code == 422 and "nothing written" in r.json()["detail"], r.text
    assert counts(db) == {}  # not the first 1,000 episodes, not an audit record
    # Without the bad line, the same import goes through whole, with one audit record.
    del many[1_200]
    r = _import(api, [lines[0], *many, *lines[1:]])
    assert r.status_code == 200, r.text
    assert r.json()["nodes"] == 1_499 + 15 and len(r.json()["audit_ids"]) == 1
    assert counts(db)["Episode"] == 1_499 + 6 and counts(db)["AuditRecord"] == 1


def test_degenerate_embeddings_are_refused_before_writing(api, db) -> None:
    h = _fill(api)
    lines = api.client.get("/agents/heir-0/export", headers=h).text.splitlines()
    db.run("testing/delete_all")
    node = next(json.loads(line) for line in lines if '"Episode"' in line)
    for embedding, rule in [([0.0] * 384, "norm"), ([1e308] * 384, "float32"), ([0.1] * 3, "dimension")]:
        bad = json.dumps({**node, "embedding": embedding})
        r = _import(api, [*lines, bad])
        assert r.status_code == 422 and "embedding:" in r.text and f"{rule}:" in r.text, (rule, r.text)
        assert counts(db) == {}
