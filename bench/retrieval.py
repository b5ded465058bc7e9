"""POST /retrieve latency over HTTP (a real uvicorn server in its own process; the query's embedding included) at
10,000 and 100,000 episodes plus 10,000 knowledge entries, as the data was written. Goal: p95 under 40 ms at
100,000 (moonshot 25 ms).

The items are LoCoMo dialogue turns (real text) repeated with a suffix to reach the counts; their
vectors are the turns' real embeddings plus a little noise (normalised), so that building 110,000
items does not take an hour of embedding on two cores. Queries are LoCoMo questions.

Two servers run on the same database. Writing 1,000 items per transaction leaves the vector indexes in several
Lucene segments, each searched on its own. The first server has its vector-index upkeep turned off
(GRIMOIRE_VECTOR_UPKEEP={"enabled": false}) and measures that fragmented store (`without_upkeep`). The
second is the service as shipped: its scheduler's upkeep (graph/upkeep/vector_indexes.py, default settings)
sees the bulk write, waits for it to end, rebuilds the fragmented index in the background and reports the
store compact; then it is measured (`as_written`, also the top-level figures). Nobody runs a command."""

from __future__ import annotations

import os
import secrets
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from bench.common import summary
from bench.ingest import locomo_texts
from bench.server import bench_database, settle, vector_segments
from grimoire.graph.agents import AgentIn, KeyIn, create_key, register
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import get_embedder
from grimoire.graph.episodes import ingest
from grimoire.graph.ids import now_ms
from grimoire.graph.model.enums import KeyScope
from grimoire.graph.model.episode import EpisodeIn
from grimoire.graph.schema import apply_schema
from grimoire.graph.settings import PROJECT_ROOT
from grimoire.graph.upkeep.config import UpkeepConfig
from grimoire.loaders.locomo import read

SIZES = (10_000, 100_000)
ENTRIES = 10_000
QUERIES = 200
ROUNDS = 3
# The Curator's sweep (every 600 s by default) and the crystals' consolidation pass (every 30 min) would run over
# the bench agent's episodes in the middle of a measurement; the benchmark measures retrieval, so both are put off
# a day. The other jobs run, the vector-index upkeep among them.
NO_SWEEP = {"GRIMOIRE_LEARNING": '{"interval_seconds": 86400}',
            "GRIMOIRE_CRYSTALS": '{"consolidation_interval_minutes": 1440}'}
MIN_VECTORS = UpkeepConfig().min_vectors  # the service's default: smaller indexes are never rebuilt
LOCOMO = PROJECT_ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
# The small-reach profile: an agent of a fleet, with its own 500 conversation turns (written through the episode
# ingest, sessions of 20 turns linked by FOLLOWS) and 100 entries, in the store of 100,000 episodes: its 600 items
# are ranked exactly (RetrievalConfig.exact_below), the path most agents of a fleet take.
SMALL_AGENT = "fleet-1"
SMALL_EPISODES = 500
SMALL_ENTRIES = 100
SESSION = 20


def perturbed(vectors: np.ndarray, idx: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The embeddings of items `idx` (item i is text i mod the texts), each nudged by a little noise and
    normalised: many distinct vectors distributed as real ones are (the benchmarks at scale)."""
    base = vectors[idx % len(vectors)] + rng.normal(0, 0.02, (len(idx), vectors.shape[1])).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    return base


def bulk_row(label: str, item_id: str, text: str, agent: str, clade: str, valid_from: int, now: int,
             embedding: np.ndarray) -> dict[str, Any]:
    """One private item of `agent` as cypher/testing/bulk_items.cypher writes it: an Episode or an Insight entry."""
    props: dict[str, Any] = {"agent_id": agent, "scope": "private", "clade": clade, "valid_from": valid_from,
                             "recorded_at": now, "last_accessed_at": now}
    if label == "Episode":
        props.update(text=text, type="conversation", importance="routine")
    else:
        props.update(content=text, category="Insight", status="active", confidence=0.6, strength=1.0,
                     half_life_ms=7 * 86_400_000, quality_score=0.5)
    return {"id": item_id, "props": props, "embedding": embedding.tolist()}


def _add(db: Database, label: str, start: int, count: int, texts: list[str], vectors: np.ndarray,
         rng: np.random.Generator) -> None:
    for s in range(start, start + count, 1_000):
        now = now_ms()  # recorded as it is written: the upkeep reads when the bulk write ended
        idx = np.arange(s, min(s + 1_000, start + count))
        base = perturbed(vectors, idx, rng)
        rows = []
        for j, i in enumerate(idx):
            rows.append(bulk_row(label, f"{label.lower()}-{i}", f"{texts[i % len(texts)]} (#{i})", "bench", "bench",
                                 now - int(i) * 60_000, now, base[j]))
        db.run("testing/bulk_items", label=label, rows=rows)
        if (s - start) % 10_000 == 0:
            print(f"  {label}: {s + len(idx) - start:,}/{count:,}", flush=True)


def add_small_agent(db: Database, embedder: Any, texts: list[str]) -> str:
    """The small-reach profile's agent (SMALL_AGENT, in a clade of its own) and its 600 items; returns its key."""
    register(db, AgentIn(id=SMALL_AGENT, name=SMALL_AGENT, clade=SMALL_AGENT), actor="bench")
    key, _ = create_key(db, SMALL_AGENT, KeyIn(scopes=[KeyScope.read, KeyScope.write]), actor="bench")
    start = 1_000  # turns of their own, apart from the first ones the store repeats most
    turns = [EpisodeIn(id=f"{SMALL_AGENT}-ep-{i}", agent_id=SMALL_AGENT, type="conversation",
                       text=texts[(start + i) % len(texts)],
                       follows=f"{SMALL_AGENT}-ep-{i - 1}" if i % SESSION else None) for i in range(SMALL_EPISODES)]
    ingest(db, embedder, turns, actor="bench", clade=SMALL_AGENT)
    notes = [texts[(start + SMALL_EPISODES + i) % len(texts)] for i in range(SMALL_ENTRIES)]
    now = now_ms()
    rows = [{"id": f"{SMALL_AGENT}-entry-{i}", "embedding": v.tolist(), "props": {
        "agent_id": SMALL_AGENT, "scope": "private", "clade": SMALL_AGENT, "content": text, "category": "Insight",
        "status": "active", "confidence": 0.6, "strength": 1.0, "half_life_ms": 7 * 86_400_000,
        "quality_score": 0.5, "valid_from": now, "recorded_at": now, "last_accessed_at": now}}
        for i, (text, v) in enumerate(zip(notes, embedder.embed(notes), strict=True))]
    db.run("testing/bulk_items", label="Entry", rows=rows)
    return key


@contextmanager
def serve_api(db: Database, code: Path | None = None, factory: str = "grimoire.api.app:create_app",
              start_seconds: float = 180.0, **extra_env: str) -> Iterator[str]:
    """The API in its own process, as deployed (`uvicorn api.app:create_app --factory`), on the
    benchmark's database: the client's work does not compete with the server's for one GIL. `code`: the
    project's code from another checkout (a worktree of an earlier commit), for a before/after comparison.
    `factory`: the app factory uvicorn serves (a benchmark's variant of the app: bench/exact_server.py).
    `start_seconds`: how long its start may take (a large store's schema upkeep at start takes longer)."""
    from grimoire.graph.db.local_server import free_port

    port = free_port()
    t = db.target
    env = {**os.environ, "NEO4J_URI": t.uri, "NEO4J_USER": t.user, "NEO4J_PASSWORD": t.password,
           "NEO4J_DATABASE": t.database, **extra_env}
    if code is not None:
        env["PYTHONPATH"] = str(code)
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", factory, "--factory", "--host",
                             "127.0.0.1", "--port", str(port), "--log-level", "warning"], env=env,
                            cwd=code or PROJECT_ROOT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + start_seconds
        while True:
            try:
                if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None:
                raise RuntimeError(f"the API server exited at its start (code {proc.returncode}): see its output")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the API server did not answer /health within {start_seconds:.0f} s")
            time.sleep(0.5)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def wait_for_upkeep(db: Database, base: str, admin: str, limit: float = 3_600.0) -> dict[str, Any]:
    """Until the service's own upkeep job has rebuilt every index the bulk write left fragmented and recorded the
    builds (the service searches an index again within seconds of its coming online): the builds, the job's
    reports and the seconds waited."""
    started = time.monotonic()
    reports: list[str] = []
    with httpx.Client(base_url=base, headers={"X-API-Key": admin}, timeout=30) as client:
        while time.monotonic() - started < limit:
            job = next(j for j in client.get("/scheduler/jobs").json()["jobs"] if j["name"] == "vectors.upkeep")
            builds = {r["name"]: r["build"] for r in db.rows("testing/vector_index_builds")}
            written = {r["name"]: r["newest"] for r in db.rows("upkeep/vector_sizes")
                       if r["size"] >= MIN_VECTORS}
            caught_up = all((b := builds.get(n) or {}).get("built_at", 0) >= (t or 0) and
                            b.get("rebuilding_since") is None for n, t in written.items())
            if job["last_result"] and (not reports or job["last_result"] != reports[-1]):
                reports.append(job["last_result"])
                print(f"    upkeep: {reports[-1]}", flush=True)
            if caught_up:
                return {"waited_seconds": round(time.monotonic() - started, 1), "builds": builds, "reports": reports}
            time.sleep(2.0)
    raise TimeoutError(f"the service's vector upkeep did not finish within {limit:.0f} s: {reports[-1:]}")


def measure_retrieve(base: str, key: str, questions: list[str]) -> dict[str, Any]:
    rounds = []
    stages: dict[str, list[float]] = {}
    with httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=30) as client:
        for q in questions:  # one pass to warm the plans, the page cache and the JIT
            client.post("/retrieve", json={"text": q, "k": 10})
        for r in range(ROUNDS):
            times = []
            for q in questions:
                t0 = time.perf_counter()
                resp = client.post("/retrieve", json={"text": q, "k": 10})
                times.append((time.perf_counter() - t0) * 1000)
                assert resp.status_code == 200, resp.text
                for stage, ms in resp.json()["timings_ms"].items():
                    stages.setdefault(stage, []).append(ms)
            rounds.append(summary(times))
            print(f"    round {r + 1}/{ROUNDS}: p50 {rounds[-1]['median']:.1f} ms, p95 {rounds[-1]['p95']:.1f} ms",
                  flush=True)
    print("    stage medians (ms): " + ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in stages.items()),
          flush=True)
    return {"median": statistics.median(x["median"] for x in rounds),
            "p95": statistics.median(x["p95"] for x in rounds), "rounds": rounds,
            "stage_medians_ms": {k: round(statistics.median(v), 2) for k, v in stages.items()}}


def measure_small_reach(servers: dict[str, str], key: str, questions: list[str], vectors: np.ndarray,
                        rounds: int = ROUNDS) -> dict[str, Any]:
    """POST /retrieve as the small-reach agent, the servers asked in turn for each query (so that a busy moment of
    the machine falls on both alike): per server, p50 and p95 per round, the medians over rounds, and the stage
    medians. Each request carries the query's text and its vector: the embedder (its own benchmark, its caches)
    stays out of the comparison, the search is what is measured."""
    bodies = [{"text": q, "vector": v.tolist(), "k": 10} for q, v in zip(questions, vectors, strict=True)]
    clients = {name: httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=30)
               for name, base in servers.items()}
    times: dict[str, list[list[float]]] = {name: [] for name in servers}
    stages: dict[str, dict[str, list[float]]] = {name: {} for name in servers}
    results: dict[str, list[list[str]]] = {name: [] for name in servers}
    try:
        for body in bodies:  # one pass to warm the plans, the page cache and the JIT
            for client in clients.values():
                client.post("/retrieve", json=body)
        for r in range(rounds):
            for name in servers:
                times[name].append([])
            for body in bodies:
                for name, client in clients.items():
                    t0 = time.perf_counter()
                    resp = client.post("/retrieve", json=body)
                    times[name][-1].append((time.perf_counter() - t0) * 1000)
                    assert resp.status_code == 200, resp.text
                    for stage, ms in resp.json()["timings_ms"].items():
                        stages[name].setdefault(stage, []).append(ms)
                    if r == 0:
                        results[name].append([x["id"] for x in resp.json()["results"]])
            print("    round " + f"{r + 1}/{rounds}: " + ", ".join(
                f"{name} p50 {statistics.median(t[-1]):.1f} ms p95 {summary(t[-1])['p95']:.1f} ms"
                for name, t in times.items()), flush=True)
    finally:
        for client in clients.values():
            client.close()
    out: dict[str, Any] = {}
    for name in servers:
        per_round = [summary(t) for t in times[name]]
        out[name] = {"p50_ms": round(statistics.median(x["median"] for x in per_round), 2),
                     "p95_ms": round(statistics.median(x["p95"] for x in per_round), 2), "rounds": per_round,
                     "stage_medians_ms": {k: round(statistics.median(v), 2) for k, v in stages[name].items()}}
    first = next(iter(servers))
    out["same_results"] = {name: sum(a == b for a, b in zip(results[name], results[first], strict=True))
                           for name in servers if name != first}
    return out


def small_reach(db: Database, embedder: Any, texts: list[str], questions: list[str],
                before: Path | None = None) -> dict[str, Any]:
    """The small-reach profile on the store as it is (its agent added when missing): the service from this checkout
    (`after`) and, given a worktree of an earlier commit, the service from that one (`before`), side by side."""
    from grimoire.graph.agents import get

    if get(db, SMALL_AGENT) is None:
        key = add_small_agent(db, embedder, texts)
    else:
        key, _ = create_key(db, SMALL_AGENT, KeyIn(scopes=[KeyScope.read]), actor="bench")
    vectors = embedder.embed(questions)
    quiet = {"GRIMOIRE_VECTOR_UPKEEP": '{"enabled": false}', **NO_SWEEP}  # the exact path reads no vector index
    with serve_api(db, **quiet) as after, \
            (serve_api(db, before, **quiet) if before is not None else _nothing()) as earlier:
        servers = {"after": after, **({"before": earlier} if earlier else {})}
        print(f"  small reach: {SMALL_EPISODES + SMALL_ENTRIES} items of {SMALL_AGENT}, servers {list(servers)}",
              flush=True)
        measured = measure_small_reach(servers, key, questions, vectors)
    return {"agent": SMALL_AGENT, "items": SMALL_EPISODES + SMALL_ENTRIES,
            "store": "the benchmark's store (100,000 episodes and 10,000 entries of the bench agent) and these",
            "request": "hybrid mode, k 10, budget 500; the query's text and vector (no embedding in the server)",
            "before_code": str(before) if before else None, **measured}


@contextmanager
def _nothing() -> Iterator[str]:
    yield ""


def locomo_workload(embedder: Any) -> tuple[list[str], np.ndarray, list[str]]:
    """LoCoMo turns with their embeddings (computed once) and the questions to ask."""
    texts = locomo_texts()
    questions = [q.question for c in read(LOCOMO) for q in c.questions if q.category in (1, 2, 3, 4)][:QUERIES]
    print(f"  embedding {len(texts):,} LoCoMo turns once", flush=True)
    return texts, embedder.embed(texts), questions


def run() -> dict[str, Any]:
    embedder = get_embedder()
    texts, vectors, questions = locomo_workload(embedder)
    rng = np.random.default_rng(7)
    out: dict[str, Any] = {}
    admin = secrets.token_hex(16)
    with bench_database(heap="2g", pagecache="1g") as db:
        apply_schema(db, embedder.dimension, embedder.model_name)
        register(db, AgentIn(id="bench", name="bench", clade="bench"), actor="bench")
        key, _ = create_key(db, "bench", KeyIn(scopes=[KeyScope.read, KeyScope.write]), actor="bench")
        _add(db, "Entry", 0, ENTRIES, texts, vectors, rng)
        have = 0
        for size in SIZES:
            _add(db, "Episode", have, size - have, texts, vectors, rng)
            have = size
            db.run("schema/await_indexes", seconds=600)
            # One server at a time: the service's upkeep must not rebuild while the store is measured without it.
            with serve_api(db, GRIMOIRE_VECTOR_UPKEEP='{"enabled": false}', **NO_SWEEP) as plain:
                print(f"  {size:,} episodes + {ENTRIES:,} entries as written, the upkeep off", flush=True)
                fragmented = {**measure_retrieve(plain, key, questions), "vector_segments": vector_segments(db)}
            with serve_api(db, GRIMOIRE_ADMIN_KEY=admin, **NO_SWEEP) as kept:
                print("  waiting for the service's own vector upkeep", flush=True)
                upkeep = wait_for_upkeep(db, kept, admin)
                waited = settle(db)
                print(f"  {size:,} episodes + {ENTRIES:,} entries as written, after the service's upkeep", flush=True)
                written = {**measure_retrieve(kept, key, questions), "settled_seconds": waited,
                           "vector_segments": vector_segments(db), "upkeep": upkeep}
            out[f"{size}_episodes"] = {"median": written["median"], "p95": written["p95"],
                                       "as_written": written, "without_upkeep": fragmented}
        out["small_reach"] = small_reach(db, embedder, texts, questions)
    return {
        "unit": "ms per POST /retrieve over HTTP (hybrid mode, k 10, budget 500, embedding included)",
        "entries": ENTRIES, "queries": QUERIES, "rounds": ROUNDS,
        "statistic": "p50 and p95 per round; the medians over rounds",
        "steady_state": "as_written is measured once the service's upkeep says the store is compact and the "
                        "server's background work is done: under 5% of a core for 5 s (settled_seconds)",
        "indexes": "1,000 items per transaction leave the vector indexes in several Lucene segments "
                   "(vector_segments). without_upkeep: a server with GRIMOIRE_VECTOR_UPKEEP={\"enabled\": false} "
                   "right after the write; as_written (and the top-level median and p95): the service as shipped, "
                   "once its own upkeep job rebuilt what the write fragmented (upkeep.builds)",
        "items": "LoCoMo turns repeated with a suffix; vectors are their embeddings plus noise (see docstring)",
        **out,
        "goal": "p95 < 40 ms at 100,000 episodes as written (moonshot 25 ms)",
        "met": out["100000_episodes"]["as_written"]["p95"] < 40.0,
    }


def run_small(before: Path | None) -> dict[str, Any]:
    """Only the small-reach profile, on the benchmark's store (written when the database lacks it: NEO4J_URI may
    point at a scratch server that holds it from an earlier run), merged into bench/results/retrieval.json."""
    embedder = get_embedder()
    texts, vectors, questions = locomo_workload(embedder)
    with bench_database(heap="2g", pagecache="1g") as db:
        if db.rows("testing/count_episodes")[0]["episodes"] < SIZES[-1]:
            apply_schema(db, embedder.dimension, embedder.model_name)
            register(db, AgentIn(id="bench", name="bench", clade="bench"), actor="bench")
            rng = np.random.default_rng(7)
            _add(db, "Entry", 0, ENTRIES, texts, vectors, rng)
            _add(db, "Episode", 0, SIZES[-1], texts, vectors, rng)
            db.run("schema/await_indexes", seconds=600)
            settle(db)
        return small_reach(db, embedder, texts, questions, before)


if __name__ == "__main__":
    # python -m bench.retrieval small [WORKTREE]: the small-reach profile alone, beside the code of WORKTREE; the rest
    # of bench/results/retrieval.json (its own run, its own time) is kept as it was.
    import json

    from bench.common import RESULTS, machine

    if sys.argv[1:2] != ["small"]:
        sys.exit("usage: python -m bench.retrieval small [worktree of the commit before]")
    small = run_small(Path(sys.argv[2]) if len(sys.argv) > 2 else None)
    path = RESULTS / "retrieval.json"
    kept = json.loads(path.read_text())
    kept["small_reach"] = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "machine": machine(),
                           "command": "python -m bench.retrieval small [worktree]", **small}
    path.write_text(json.dumps(kept, indent=2) + "\n")
    print(f"[bench] -> {path}")
