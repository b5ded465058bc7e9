"""What versioning costs and what a point-in-time restore takes (issue 17).

- `ingest_ratio`: episode ingest throughput with the audit trail as it now is (before/after versions on every
  record) over the bare embedder's on the same texts, in the same run (bench/ingest.py's measurement). Goal: at
  least 0.90 of the ratio measured before versions (0.943, bench/results/ingest.json of 2026-11-21), 0.849.
- `restore_seconds`: a point-in-time restore of one agent's memory over `changes` (10,000) changes made after its
  time — memories written one per change (each with its audit record, its entities and relations), a tenth of
  them archived and restored again one by one — measured over `RUNS` runs, each on a fresh agent. The restore
  is checked: afterwards the agent has exactly the memories it had at that time.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from bench import ingest as ingest_bench
from bench.common import summary
from bench.server import bench_database
from grimoire.graph import agents
from grimoire.graph.audit.rollback import PointInTime, Rollbacks
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import get_embedder
from grimoire.graph.ids import now_ms
from grimoire.graph.memory import stores
from grimoire.graph.memory.forgetting import Forgetting, archive_in
from grimoire.graph.memory.routing import RuleRouter
from grimoire.graph.schema import apply_schema

CHANGES = 10_000
BASELINE = 200         # memories the agent has at the restore's time
RUNS = 3
RATIO_BEFORE = 0.943   # bench/results/ingest.json before versions (2026-11-21)
GOAL_RATIO = round(0.90 * RATIO_BEFORE, 3)


def _memories(agent: str, texts: list[str], start: int, n: int, router: RuleRouter) -> list[stores.NewMemory]:
    at = now_ms()
    return [stores.NewMemory(agent_id=agent, classification=router.classify(texts[(start + i) % len(texts)],
                                                                            explicit=False),
                             said=texts[(start + i) % len(texts)], at=at, clade="bench-audit")
            for i in range(n)]


def _count(db: Database, agent: str) -> int:
    """The agent's memories, archived ones included (the list with archived=True holds both)."""
    return len(stores.list_memories(db, agent, archived=True, limit=100_000))


def one_restore(db: Database, embedder: Any, texts: list[str], vectors: np.ndarray, run: int) -> dict[str, Any]:
    agent = f"bench-audit-{run}"
    agents.register(db, agents.AgentIn(id=agent, name=agent, clade="bench-audit"), actor="bench")
    router = RuleRouter()
    base = _memories(agent, texts, 0, BASELINE, router)
    stores.write(db, embedder, base, actor="bench", vectors=vectors[:BASELINE])  # texts 0 .. BASELINE - 1
    time.sleep(0.01)
    at = now_ms()
    time.sleep(0.01)
    archiving = CHANGES // 20            # archived one by one, then restored one by one: a tenth of the changes
    writes = CHANGES - 2 * archiving
    made = _memories(agent, texts, BASELINE, writes, router)
    started = time.monotonic()
    ids: list[str] = []
    for i, memory in enumerate(made):   # one change each
        k = (BASELINE + i) % len(texts)
        ids += stores.write(db, embedder, [memory], actor="bench", vectors=vectors[k:k + 1]).ids
        if (i + 1) % 2_000 == 0:
            print(f"    run {run + 1}: {i + 1:,}/{writes:,} memories written ({time.monotonic() - started:.0f} s)",
                  flush=True)
    forgetting_ids = ids[:archiving]
    for memory_id in forgetting_ids:
        db.write(lambda tx, m=memory_id: archive_in(tx, agent, [m], actor="bench", now=now_ms()))
    restorer = Forgetting(db, None)  # type: ignore[arg-type]  # restoring needs no core memory
    for memory_id in forgetting_ids:
        restorer.restore(agent, [memory_id], actor="bench")
    print(f"    run {run + 1}: {CHANGES:,} changes made ({time.monotonic() - started:.0f} s); restoring", flush=True)
    assert _count(db, agent) == BASELINE + writes
    t0 = time.perf_counter()
    done = Rollbacks(db, embedder).rollback(agent, PointInTime(at), actor="bench")
    seconds = time.perf_counter() - t0
    assert len(done.undone) == CHANGES, len(done.undone)
    left = _count(db, agent)
    assert left == BASELINE, left
    print(f"    run {run + 1}: restored in {seconds:.1f} s ({len(done.records)} REVERT records)", flush=True)
    return {"seconds": seconds, "undone": len(done.undone), "revert_records": len(done.records)}


def run() -> dict[str, Any]:
    print("  ingest with versioning against the bare embedder (bench/ingest.py):", flush=True)
    ingest = ingest_bench.run()
    texts = ingest_bench.locomo_texts()
    embedder = get_embedder()
    vectors = embedder.embed(texts)  # memory i says texts[i % len(texts)]
    restores = []
    with bench_database() as db:
        apply_schema(db, embedder.dimension, embedder.model_name)
        for r in range(RUNS):
            restores.append(one_restore(db, embedder, texts, vectors, r))
    seconds = summary([x["seconds"] for x in restores])
    ratio = float(ingest["ratio_of_medians"])
    return {
        "ingest_ratio": ratio,
        "ingest_ratio_before_versions": RATIO_BEFORE,
        "ingest_goal": f"ingest_ratio >= {GOAL_RATIO} (0.90 of {RATIO_BEFORE})",
        "ingest_met": ratio >= GOAL_RATIO,
        "ingest": {k: ingest[k] for k in ("embedder", "ingest", "ratio_per_run", "batch", "model")},
        "changes": CHANGES,
        "baseline_memories": BASELINE,
        "restore_seconds": seconds["median"],
        "restore": seconds,
        "runs": restores,
    }
