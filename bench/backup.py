"""Backup and restore of the whole store (graph/backup/online.py) at 100,000 items (BENCH_BACKUP_ITEMS): one
agent's episodes written through the ingest path (1,000 per transaction, with their audit records, events and, for
one in ten, a mention of an entity), then `grimoire backup`'s online export timed, the database emptied as a fresh
server's (no node, no index but Neo4j's lookups), and the restore timed until every index is ONLINE (the vector and
full-text ones rebuilt from the restored data). The store's digest (graph/backup/digest.py) before and after must be
the same. Vectors are seeded unit vectors: the model would take hours on two cores and the backup does not care
what they mean. The machine's cores are shared with whatever else runs (the result records its load average)."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.server import bench_database
from grimoire.graph.agents import AgentIn, register
from grimoire.graph.backup import online
from grimoire.graph.backup.digest import digest
from grimoire.graph.db.connection import Database
from grimoire.graph.episodes import ingest
from grimoire.graph.model.episode import EpisodeIn
from grimoire.graph.schema import apply_schema
from grimoire.graph.settings import DEFAULT_MODEL

ITEMS = int(os.environ.get("BENCH_BACKUP_ITEMS", "100000"))
STEP = 10_000
AGENT = "bench-backup"
DIMENSION = 384  # the default model's


class SeededVectors:
    """Ingest's embedder here: seeded unit vectors in the model's dimension."""

    def __init__(self, dimension: int = DIMENSION, model_name: str = DEFAULT_MODEL) -> None:
        self.dimension = dimension
        self.model_name = model_name
        self.rng = np.random.default_rng(40)

    def embed(self, texts: list[str]) -> np.ndarray:
        v = self.rng.normal(size=(len(texts), self.dimension)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def _fill(db: Database) -> float:
    embedder = SeededVectors()
    started = time.perf_counter()
    for s in range(0, ITEMS, STEP):
        episodes = [EpisodeIn.model_validate({
            "id": f"bk-{i}", "agent_id": AGENT, "type": "conversation", "text": f"turn {i} about pool {i % 997}",
            "mentions": [{"kind": "Person", "name": f"trader {i % 500}"}] if i % 10 == 0 else []})
            for i in range(s, min(s + STEP, ITEMS))]
        ingest(db, embedder, episodes, actor=AGENT, clade="bench", chunk_size=1_000)  # type: ignore[arg-type]
        print(f"  ingest {min(s + STEP, ITEMS):,}/{ITEMS:,}", flush=True)
    return time.perf_counter() - started


def _empty(db: Database) -> None:
    db.run("testing/delete_all")
    for c in db.rows("backup/constraints"):
        db.run("backup/drop_constraint", name=c["name"])
    for i in db.rows("backup/indexes"):
        if i["type"] != "LOOKUP":
            db.run("schema/drop_index", name=i["name"])


def run() -> dict[str, Any]:
    with bench_database(heap=os.environ.get("BENCH_BACKUP_HEAP", "2g"),
                        pagecache=os.environ.get("BENCH_BACKUP_PAGECACHE", "1g")) as db, \
            tempfile.TemporaryDirectory(prefix="grimoire-bench-backup-") as tmp:
        db.slow_ms = float("inf")
        apply_schema(db, DIMENSION, DEFAULT_MODEL)
        register(db, AgentIn(id=AGENT, name=AGENT, clade="bench"), actor=AGENT)
        fill_s = _fill(db)
        db.run("schema/await_indexes", seconds=3_600)
        before = digest(db)
        path = Path(tmp) / "store.jsonl.gz"
        load_before = os.getloadavg()[0]
        made = online.backup(db, path, progress=online.Printer("backup"))
        print(f"  backup: {made.nodes:,} nodes, {made.relationships:,} relationships in {made.seconds:.1f}s, "
              f"{made.bytes / 1024**2:,.1f} MiB", flush=True)
        _empty(db)
        restored = online.restore(db, path, progress=online.Printer("restore"))
        print(f"  restore: {restored.seconds:.1f}s (indexes ONLINE after {restored.schema_seconds:.1f}s of it)",
              flush=True)
        after = digest(db)
        load_after = os.getloadavg()[0]
    return {
        "unit": "seconds, wall clock; backup: the online export to gzipped JSON lines; restore: into an emptied "
                "database (no node, no index or constraint but Neo4j's lookups) until every index is ONLINE",
        "items": ITEMS,
        "nodes": made.nodes,
        "relationships": made.relationships,
        "labels": before.labels,
        "constraints": made.constraints,
        "indexes": made.indexes,
        "fill_seconds": round(fill_s, 1),
        "backup_seconds": round(made.seconds, 1),
        "backup_nodes_per_s": round(made.nodes / made.seconds),
        "file_mib": round(made.bytes / 1024**2, 1),
        "restore_seconds": round(restored.seconds, 1),
        "restore_data_seconds": round(restored.seconds - restored.schema_seconds, 1),
        "restore_index_seconds": round(restored.schema_seconds, 1),
        "identical": after == before,
        "load_average_1m": {"before_backup": round(load_before, 1), "after_restore": round(load_after, 1)},
    }
