"""The online backup of the whole store and its restore into an empty database (graph/backup/online.py): the same
store back, by the digest (counts per label and type, a hash over every node and relationship, the schema), every
agent's export identical, the vector and full-text indexes ONLINE and answering; a database that is not empty, and
a backup cut short, refused with nothing written."""

from __future__ import annotations

import gzip
import json
import os
import re
import stat
import subprocess
import sys
from typing import Any

import pytest

from bench.backup import SeededVectors  # ingest's embedder for the bulk: seeded unit vectors
from grimoire.graph.backup import online
from grimoire.graph.backup.digest import StoreDigest, digest
from grimoire.graph.db.connection import Database
from grimoire.graph.episodes import ingest
from grimoire.graph.model.episode import EpisodeIn
from grimoire.graph.settings import PROJECT_ROOT
from grimoire.graph.transfer import export_agent

ITEMS = 10_000


def _fill(api, embedder) -> dict[str, str]:
    """Two agents written through the API (episodes with mentions, entries, an upvote: audit records, a version
    chain, decisions), and the bulk: 10,000 episodes of a third through the ingest path."""
    h = api.headers("bk-1", "clade-b")
    eps = [{"id": f"bk-ep-{i}", "type": "action", "text": f"Rebalanced {i} WETH at block {19_000_000 + i}",
            "block": 19_000_000 + i, "regime": "bull", "gain": i * 1.5, "actions": ["swap"],
            "mentions": [{"kind": "Token", "name": "WETH", "chain_id": 1,
                          "address": "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"}]} for i in range(5)]
    assert api.client.post("/episodes/batch", headers=h, json={"episodes": eps}).status_code == 201
    entries = [{"id": "bk-h", "category": "Heuristic", "parent_episode_ids": ["bk-ep-0"], "tags": ["rebalance"],
                "content": "When WETH drifts 5% from target then rebalance within 10 blocks"},
               {"id": "bk-w", "category": "Warning", "parent_episode_ids": ["bk-ep-1"],
                "content": "Avoid rebalancing during the first 3 blocks after an oracle update"}]
    assert api.client.post("/entries/batch", headers=h, json={"entries": entries}).status_code == 201
    assert api.client.post("/entries/bk-h/upvote", headers=h).status_code == 200
    h2 = api.headers("bk-2", "clade-b")
    assert api.client.post("/episodes", headers=h2, json={"id": "bk2-ep", "type": "observation",
                                                          "text": "Oracle heartbeat missed on the ETH/USD feed"},
                           ).status_code == 201
    api.headers("bk-bulk", "clade-b")
    bulk = [EpisodeIn.model_validate({
        "id": f"bulk-{i}", "agent_id": "bk-bulk", "type": "conversation", "text": f"turn {i} about pool {i % 97}",
        "mentions": [{"kind": "Person", "name": f"trader {i % 50}"}] if i % 10 == 0 else []}) for i in range(ITEMS)]
    ingest(api.db, SeededVectors(embedder.dimension, embedder.model_name), bulk, actor="bk-bulk", clade="clade-b")
    return h


def _exports(db: Database) -> dict[str, list[Any]]:
    """Every agent's export (GET /agents/{id}/export), its header's time aside."""
    out: dict[str, list[Any]] = {}
    for row in db.rows("testing/agent_ids"):
        lines = [json.loads(x) for x in export_agent(db, row["id"])]
        lines[0].pop("exported_at")
        out[row["id"]] = lines
    return out


def _empty(db: Database, *, schema: bool = True) -> None:
    """No node; with `schema`, as a fresh server's: no constraint, no index but Neo4j's lookups (without, as one
    `grimoire schema apply` has run on: the restore keeps the indexes and constraints it finds as they were)."""
    db.run("testing/delete_all")
    if not schema:
        return
    for c in db.rows("backup/constraints"):
        db.run("backup/drop_constraint", name=c["name"])
    for i in db.rows("backup/indexes"):
        if i["type"] != "LOOKUP":
            db.run("schema/drop_index", name=i["name"])


def _states(db: Database, names: list[str]) -> dict[str, str]:
    return {r["name"]: r["state"] for r in db.rows("schema/index_progress", names=names)}


def test_a_store_of_10000_items_comes_back_the_same(api, db, embedder, tmp_path) -> None:
    h = _fill(api, embedder)
    before = digest(db)
    exports = _exports(db)
    assert before.labels["Episode"] >= ITEMS and before.labels["AuditRecord"] > 0
    assert before.relationship_types["MENTIONS"] >= ITEMS // 10
    assert any("Version" in label for label in before.labels), before.labels  # the upvote's version chain
    path = tmp_path / "store.jsonl.gz"
    seen: list[tuple[str, int, int]] = []
    made = online.backup(db, path, progress=lambda *p: seen.append(p))
    assert (made.nodes, made.relationships) == (before.nodes, before.relationships)
    assert ("nodes", before.nodes, before.nodes) in seen and len(seen) > ITEMS // online.BATCH

    with pytest.raises(online.RestoreRefused, match="holds .* nodes: a restore writes only into an empty database"):
        online.restore(db, path)
    assert digest(db) == before  # refused before anything was written

    _empty(db)
    assert digest(db).nodes == 0
    done = online.restore(db, path, progress=lambda *p: seen.append(p))
    assert (done.nodes, done.relationships) == (before.nodes, before.relationships)
    after = digest(db)
    assert after.labels == before.labels and after.relationship_types == before.relationship_types
    assert after.schema_statements == before.schema_statements
    assert after == before  # every node's labels and properties (vectors included), every relationship
    assert "_GrimoireRestore" not in after.labels
    assert _exports(db) == exports
    searched = ["episode_embedding", "entry_embedding", "episode_search", "entry_search", "entity_names"]
    assert set(_states(db, searched).values()) == {"ONLINE"}
    # The restored key signs in, and hybrid retrieval (vector and full-text) finds the restored items.
    r = api.client.post("/retrieve", headers=h, json={"text": "rebalance WETH drift", "k": 5, "no_budget": True,
                                                      "filters": {"agent_id": "bk-1"}})
    assert r.status_code == 200, r.text
    assert "bk-h" in [x["id"] for x in r.json()["results"]]


def test_every_kind_of_value_comes_back(db, tmp_path) -> None:
    """Temporal values with their zone, points, durations, non-finite floats, typed lists, bytes, vectors."""
    db.run("testing/backup_values")
    before = digest(db)
    path = tmp_path / "values.jsonl.gz"
    online.backup(db, path)
    _empty(db, schema=False)
    online.restore(db, path)
    assert digest(db) == before
    row = db.rows("testing/backup_values_read")[0]
    assert row["types"] == row["expected"], row


def test_a_backup_cut_short_is_refused_with_nothing_written(db, tmp_path) -> None:
    db.run("testing/backup_values")
    path = tmp_path / "whole.jsonl.gz"
    online.backup(db, path)
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress("\n".join(lines[:-1]).encode()))
    _empty(db, schema=False)
    with pytest.raises(online.BackupError, match="cut short"):
        online.restore(db, cut)
    other = tmp_path / "other.jsonl.gz"
    other.write_bytes(gzip.compress(b'{"record": "header", "format": "grimoire-export", "version": 1}\n'))
    with pytest.raises(online.BackupError, match="not a Grimoire backup"):
        online.restore(db, other)
    assert digest(db).nodes == 0


def _grimoire(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grimoire.api.cli", *args], env=env, cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=600)


def test_the_command_line_backs_up_and_restores(db, neo4j_server, tmp_path) -> None:
    db.run("testing/backup_values")
    env = dict(os.environ, NEO4J_URI=neo4j_server.uri, NEO4J_USER=neo4j_server.user,
               NEO4J_PASSWORD=neo4j_server.password, NEO4J_DATABASE=neo4j_server.database)
    shown = _grimoire("backup", "--digest", env=env)
    assert shown.returncode == 0, shown.stderr
    before = StoreDigest.model_validate_json(shown.stdout)
    path = tmp_path / "cli.jsonl.gz"
    made = _grimoire("backup", str(path), env=env)
    assert made.returncode == 0, made.stderr
    assert f"backed up {before.nodes} nodes" in made.stdout and "[backup] nodes:" in made.stderr
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # the whole store: its owner's alone, whatever the umask
    refused = _grimoire("restore", str(path), env=env)
    assert refused.returncode == 1 and "restore writes only into an empty database" in refused.stderr
    _empty(db, schema=False)
    restored = _grimoire("restore", str(path), env=env)
    assert restored.returncode == 0, restored.stderr
    assert f"restored {before.nodes} nodes" in restored.stdout and re.search(
        r"\[restore\] indexes: ([\d,]+)/\1 ONLINE", restored.stderr)
    assert digest(db) == before
    offline = _grimoire("backup", "--offline", str(tmp_path), env=env)
    assert offline.returncode == 1 and "NEO4J_URI is set" in offline.stderr


def test_the_digest_sees_a_changed_property(db) -> None:
    """The comparison itself: one property changed, one relationship's direction, each changes the digest."""
    db.run("testing/backup_values")
    before = digest(db)
    db.run("testing/backup_values_touch")
    after = digest(db)
    assert (after.labels, after.nodes) == (before.labels, before.nodes)
    assert after.node_hash != before.node_hash and after.relationship_hash != before.relationship_hash
