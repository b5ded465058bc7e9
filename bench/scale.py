"""A scale curve: 10,000, 100,000 and 1,000,000 episodes of one agent (plus 10,000 entries), written through the
service's own ingest path (graph/episodes.py: 1,000 episodes per transaction with their audit records, events
and mentions), measured at each size:

- ingest_per_s: episodes written per second over the step (from the size before),
- neo4j_rss_gib: the Neo4j process's resident memory once it settles,
- p50_ms / p95_ms: POST /retrieve over HTTP to the API in its own process (hybrid, k 10, the query's embedding
  included), 3 rounds of 200 LoCoMo questions after a warm-up pass, medians over the rounds; measured as
  written, once the service's own vector-index upkeep (graph/upkeep/) has rebuilt what the write fragmented.

Vectors are the LoCoMo turns' real embeddings nudged by noise and normalised (bench/retrieval.py `perturbed`):
a million distinct vectors distributed as real ones are, without a day of embedding on two cores. The texts
are the turns with a suffix. Goal: p95 at 1M no more than twice p95 at 100k."""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import RESULTS
from bench.retrieval import (
    ENTRIES,
    NO_SWEEP,
    _add,
    locomo_workload,
    measure_retrieve,
    perturbed,
    serve_api,
    wait_for_upkeep,
)
from bench.server import _servers, bench_database, settle, vector_segments
from grimoire.graph.agents import AgentIn, KeyIn, create_key, register
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import get_embedder
from grimoire.graph.episodes import ingest
from grimoire.graph.model.enums import EpisodeType, KeyScope
from grimoire.graph.model.episode import EpisodeIn
from grimoire.graph.schema import apply_schema

SIZES = tuple(int(n) for n in os.environ.get("BENCH_SCALE_SIZES", "10000,100000,1000000").split(","))
STEP = 10_000  # episodes per ingest call (itself 1,000 per transaction)
AGENT = "bench"
# The upkeep as shipped but looking every 15 s and waiting 15 s of quiet (60 and 60 by default): the same
# rebuilds, minutes sooner at each size (bench/retrieval.py keeps the defaults).
UPKEEP = '{"interval_seconds": 15, "quiet_seconds": 15}'


class PerturbedEmbedder:
    """Stands in for the model at ingest only: item i's vector is LoCoMo turn (i mod turns)'s embedding plus
    noise. Ingest embeds its chunks in order, so the items are numbered as they come."""

    def __init__(self, vectors: np.ndarray, model_name: str, start: int = 0) -> None:
        self.vectors = vectors
        self.dimension = int(vectors.shape[1])
        self.model_name = model_name
        self.next = start
        self.rng = np.random.default_rng(11)

    def embed(self, texts: list[str]) -> np.ndarray:
        idx = np.arange(self.next, self.next + len(texts))
        self.next += len(texts)
        return perturbed(self.vectors, idx, self.rng)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def _ingest(db: Database, embedder: PerturbedEmbedder, texts: list[str], start: int, stop: int) -> float:
    """Episodes start..stop through the ingest path; seconds spent writing (building the request objects
    excluded)."""
    spent = 0.0
    for s in range(start, stop, STEP):
        episodes = [EpisodeIn(id=f"ep-{i}", agent_id=AGENT, type=EpisodeType.conversation,
                              text=f"{texts[i % len(texts)]} (#{i})") for i in range(s, min(s + STEP, stop))]
        t0 = time.perf_counter()
        ingest(db, embedder, episodes, actor=AGENT, clade="bench", chunk_size=1_000)
        spent += time.perf_counter() - t0
        done = min(s + STEP, stop)
        if done % 50_000 == 0 or done == stop:
            print(f"  ingest {done:,}/{stop:,}: {(done - start) / spent:,.0f} episodes/s", flush=True)
    return spent


def _rss_gib(db: Database) -> float | None:
    server = _servers.get(id(db))
    pid = server.pid() if server else None
    if pid is None:
        return None
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024 / 1024, 2)
    return None


def _chart(points: dict[str, dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [int(k) for k in points]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    series = [("p95_ms", "p50_ms", "POST /retrieve (ms)"), ("ingest_per_s", None, "ingest (episodes/s)"),
              ("neo4j_rss_gib", None, "Neo4j resident memory (GiB)")]
    for ax, (key, second, title) in zip(axes, series, strict=True):
        ax.plot(sizes, [points[str(s)][key] for s in sizes], marker="o", label=key)
        if second:
            ax.plot(sizes, [points[str(s)][second] for s in sizes], marker="o", label=second)
            ax.axhline(2 * points[str(sizes[-2])]["p95_ms"], color="#c0392b", linestyle="--", linewidth=1,
                       label=f"goal: 2x p95 at {sizes[-2]:,}")
            ax.legend()
        ax.set_xscale("log")
        ax.set_xlabel("episodes")
        ax.set_title(title)
        ax.set_ylim(bottom=0)
    fig.suptitle("Grimoire at scale: one agent's episodes (+10,000 entries), as written")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run() -> dict[str, Any]:
    model = get_embedder()
    texts, vectors, questions = locomo_workload(model)
    admin = secrets.token_hex(16)
    points: dict[str, dict[str, Any]] = {}
    heap, pagecache = os.environ.get("BENCH_SCALE_HEAP", "4g"), os.environ.get("BENCH_SCALE_PAGECACHE", "6g")
    with bench_database(heap=heap, pagecache=pagecache) as db:
        db.slow_ms = float("inf")
        apply_schema(db, model.dimension, model.model_name)
        register(db, AgentIn(id=AGENT, name=AGENT, clade="bench"), actor=AGENT)
        key, _ = create_key(db, AGENT, KeyIn(scopes=[KeyScope.read, KeyScope.write]), actor=AGENT)
        _add(db, "Entry", 0, ENTRIES, texts, vectors, np.random.default_rng(7))
        embedder = PerturbedEmbedder(vectors, model.model_name)
        have = 0
        with serve_api(db, GRIMOIRE_ADMIN_KEY=admin, GRIMOIRE_SLOW_QUERY_MS="1000000",
                       GRIMOIRE_VECTOR_UPKEEP=UPKEEP, **NO_SWEEP) as base:
            for size in SIZES:
                spent = _ingest(db, embedder, texts, have, size)
                rate = (size - have) / spent
                have = size
                db.run("schema/await_indexes", seconds=3_600)
                print(f"  {size:,} episodes: waiting for the service's vector upkeep", flush=True)
                upkeep = wait_for_upkeep(db, base, admin, limit=7_200)
                waited = settle(db)
                measured = measure_retrieve(base, key, questions)
                points[str(size)] = {
                    "ingest_per_s": round(rate, 1), "neo4j_rss_gib": _rss_gib(db),
                    "p50_ms": round(measured["median"], 2), "p95_ms": round(measured["p95"], 2),
                    "rounds": measured["rounds"], "stage_medians_ms": measured["stage_medians_ms"],
                    "upkeep": upkeep, "settled_seconds": waited, "vector_segments": vector_segments(db),
                }
                print(f"  {size:,}: ingest {rate:,.0f}/s, Neo4j RSS {points[str(size)]['neo4j_rss_gib']} GiB, "
                      f"p50 {measured['median']:.1f} ms, p95 {measured['p95']:.1f} ms", flush=True)
    _chart(points, Path(os.environ.get("BENCH_SCALE_CHART", RESULTS / "scale.png")))
    ratio = points[str(SIZES[-1])]["p95_ms"] / points[str(SIZES[-2])]["p95_ms"]
    return {
        "unit": "ingest: episodes/s through graph/episodes.py ingest (1,000 per transaction, vectors precomputed); "
                "memory: the Neo4j process's VmRSS; latency: ms per POST /retrieve over HTTP (hybrid, k 10, "
                "embedding included), medians of 3 rounds of 200 questions",
        "neo4j_memory": {"heap": heap, "pagecache": pagecache},
        "upkeep": UPKEEP,
        "entries": ENTRIES,
        "items": "LoCoMo turns with a suffix; vectors are their embeddings plus noise (see docstring)",
        **points,
        "p95_1m_over_100k": round(ratio, 2),
        "goal": "p95 at 1,000,000 episodes <= 2 x p95 at 100,000",
        "met": ratio <= 2.0,
        "chart": "scale.png",
    }
