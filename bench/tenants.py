"""POST /retrieve latency per tenant in a shared store: 100,000 episodes spread over 100 agents in
10 clades, measured over HTTP (a real uvicorn server in its own process, the query's embedding
included) for four callers:
- `admin`: sees everything;
- `own_1pct`: an agent whose clade keeps its episodes private, so it sees its own 1,000 (1%);
- `clade_10pct`: an agent of the clade whose ten agents share their episodes (10,000, 10%);
- `sees_nothing`: a new agent in a clade of its own.
Goal: every caller's p95 within 1.5x the admin's, i.e. retrieval cost follows what the caller can
see, not what everyone else stores (graph/retrieval/reach.py).

Items are LoCoMo turns repeated with a suffix, each agent holding a run of consecutive turns; their
vectors are the turns' real embeddings plus a little noise (as in bench/retrieval.py). Queries are
LoCoMo questions. The store is measured as written (no index rebuild)."""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from bench.retrieval import QUERIES, locomo_workload, measure_retrieve, perturbed, serve_api
from bench.server import bench_database, settle, vector_segments
from grimoire.graph.agents import AgentIn, KeyIn, create_key, register
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import get_embedder
from grimoire.graph.ids import now_ms
from grimoire.graph.model.enums import KeyScope
from grimoire.graph.schema import apply_schema

EPISODES = 100_000
AGENTS = 100
CLADE_SIZE = 10
SHARING_CLADE = 0  # the one clade whose agents share their episodes with each other
CALLERS = {"own_1pct": "agent-10", "clade_10pct": "agent-00", "sees_nothing": "outsider"}


def _agent(i: int) -> tuple[str, str]:
    return f"agent-{i:02d}", f"clade-{i // CLADE_SIZE}"


def _owner(episode: int) -> int:
    """Each agent holds a run of 1,000 consecutive turns: its own conversations. (Dealing episodes
    out in turn, episode % 100, would tie each text to the agents of one residue class, since the
    2,760 texts and the 100 agents share a factor of 20: half the queries would then have no near
    neighbour a given clade can see.)"""
    return episode * AGENTS // EPISODES


def _write(db: Database, texts: list[str], vectors: np.ndarray, rng: np.random.Generator) -> None:
    now = now_ms()
    for s in range(0, EPISODES, 1_000):
        idx = np.arange(s, min(s + 1_000, EPISODES))
        base = perturbed(vectors, idx, rng)
        rows = []
        for j, i in enumerate(idx):
            agent, clade = _agent(_owner(int(i)))
            scope = "shared" if _owner(int(i)) // CLADE_SIZE == SHARING_CLADE else "private"
            rows.append({"id": f"episode-{i}", "embedding": base[j].tolist(), "props": {
                "agent_id": agent, "clade": clade, "scope": scope, "text": f"{texts[i % len(texts)]} (#{i})",
                "type": "conversation", "importance": "routine", "valid_from": now - int(i) * 60_000,
                "recorded_at": now, "last_accessed_at": now}})
        db.run("testing/bulk_items", label="Episode", rows=rows)
        if s % 10_000 == 0:
            print(f"  episodes: {s + len(idx):,}/{EPISODES:,}", flush=True)


def _keys(db: Database) -> dict[str, str]:
    keys = {}
    for i in range(AGENTS):
        agent, clade = _agent(i)
        register(db, AgentIn(id=agent, name=agent, clade=clade), actor="bench")
    register(db, AgentIn(id="outsider", name="outsider", clade="clade-outside"), actor="bench")
    for caller, agent in CALLERS.items():
        keys[caller], _ = create_key(db, agent, KeyIn(scopes=[KeyScope.read]), actor="bench")
    return keys


def run() -> dict[str, Any]:
    embedder = get_embedder()
    texts, vectors, questions = locomo_workload(embedder)
    rng = np.random.default_rng(7)
    admin_key = secrets.token_urlsafe(24)
    results: dict[str, Any] = {}
    with bench_database(heap="2g", pagecache="1g") as db:
        apply_schema(db, embedder.dimension, embedder.model_name)
        keys = {"admin": admin_key, **_keys(db)}
        _write(db, texts, vectors, rng)
        db.run("schema/await_indexes", seconds=600)
        waited = settle(db)
        segments = vector_segments(db)
        with serve_api(db, GRIMOIRE_ADMIN_KEY=admin_key) as base:
            for caller in ("admin", "own_1pct", "clade_10pct", "sees_nothing"):
                print(f"  {caller}", flush=True)
                m = measure_retrieve(base, keys[caller], questions)
                results[caller] = {"p50_ms": round(m["median"], 2), "p95_ms": round(m["p95"], 2), **m}
    admin_p95 = results["admin"]["p95_ms"]
    ratios = {c: round(r["p95_ms"] / admin_p95, 3) for c, r in results.items()}
    return {
        "unit": "ms per POST /retrieve over HTTP (hybrid mode, k 10, budget 500, embedding included)",
        "store": f"{EPISODES:,} episodes over {AGENTS} agents in {AGENTS // CLADE_SIZE} clades; clade-{SHARING_CLADE} "
                 "shares within the clade, the others keep their episodes private",
        "callers": {"admin": "sees everything", "own_1pct": f"{CALLERS['own_1pct']}: its own 1,000 episodes",
                    "clade_10pct": f"{CALLERS['clade_10pct']}: its clade's 10,000 shared episodes",
                    "sees_nothing": "a new agent in a clade of its own"},
        "queries": QUERIES, "statistic": "p50 and p95 per round of the queries; the medians over 3 rounds",
        "settled_seconds": waited, "vector_segments": segments, "as_written": True,
        **results,
        "p95_over_admin": ratios,
        "goal": "every caller's p95 within 1.5x the admin's",
        "met": all(r <= 1.5 for r in ratios.values()),
    }
