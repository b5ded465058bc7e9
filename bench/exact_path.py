"""The exact path, in Neo4j or from the replica's held vectors (issue 41 "the exact path", issue 37 §4): one agent of
600 LoCoMo turns (small enough to be ranked exactly), `POST /retrieve` in-process, the vector ranking done the old way
(cypher/retrieval/vector_context.cypher: every visible vector read and its cosines computed in the database) and the
new (graph/retrieval/exact.py: the database names the visible set, the replica ranks it from the vectors it holds),
alternating in rounds on one store so that the comparison is a ratio on one machine.

Per request: wall time; the API process's CPU; Neo4j's CPU (the server process's, from the operating system: the
share every replica has to leave to the database); statements and the answer (the same ten ids either way, counted).
The requests run one at a time (the app on this thread, as bench/profile.py), so nothing else uses Neo4j meanwhile."""

from __future__ import annotations

import secrets
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from bench import profile as inline
from bench.common import neo4j_cpu, own_cpu
from bench.ingest import locomo_texts
from bench.retrieval import LOCOMO
from bench.server import bench_database
from grimoire.graph.agents import AgentIn, KeyIn, create_key, register
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder, EmbeddingOptions
from grimoire.graph.model.enums import KeyScope
from grimoire.graph.retrieval import understood
from grimoire.graph.retrieval.context import Context
from grimoire.graph.schema import apply_schema
from grimoire.graph.settings import Settings
from grimoire.loaders.locomo import read

TURNS = 600
ROUNDS = 6
PER_ROUND = 50
WARM = 100


def in_cypher(ctx: Context) -> list[str]:
    """The vector ranking as it was: vector_context.cypher."""
    cfg = ctx.config.query
    rows = ctx.db.rows("retrieval/vector_context", embedding=ctx.embedding.required(), short_chars=cfg.short_chars,
                       weight=cfg.context_weight, top=ctx.config.per_backend, **ctx.params)
    return ctx.note("vector", rows)


HELD = understood.context_vector
WAYS: dict[str, Callable[[Context], list[str]]] = {"cypher": in_cypher, "held": HELD}
RANKED: dict[str, dict[str, list[str]]] = {name: {} for name in WAYS}  # each way's vector ranking, by question


def recorded(name: str) -> Callable[[Context], list[str]]:
    def way(ctx: Context) -> list[str]:
        ids = WAYS[name](ctx)
        RANKED[name][ctx.req.text or ""] = ids
        return ids

    return way


@contextmanager
def counted(counts: list[int]) -> Iterator[None]:
    """Counts the statements run (each goes through Database.timed)."""
    original = Database.timed

    @contextmanager
    def timed(self: Database, name: str) -> Iterator[None]:
        counts[0] += 1
        with original(self, name):
            yield

    Database.timed = timed  # type: ignore[method-assign]
    try:
        yield
    finally:
        Database.timed = original  # type: ignore[method-assign]


def _ask(app: Any, key: str, questions: list[str]) -> tuple[list[float], list[list[str]]]:
    walls: list[float] = []
    answers: list[list[str]] = []

    async def go() -> None:
        transport = httpx.ASGITransport(app=app)
        async with app.router.lifespan_context(app), httpx.AsyncClient(
                transport=transport, base_url="http://bench", headers={"X-API-Key": key}) as c:
            for q in questions:
                started = time.perf_counter()
                r = await c.post("/retrieve", json={"text": q, "k": 10})
                walls.append((time.perf_counter() - started) * 1000)
                assert r.status_code == 200, r.text
                answers.append([x["id"] for x in r.json()["results"]])

    import asyncio

    with inline.one_thread():
        asyncio.run(go())
    return walls, answers


def run() -> dict[str, Any]:
    embedder = Embedder(options=EmbeddingOptions(cache_size=0))  # every query embedded: no cache stands in
    texts = locomo_texts()
    questions = [q.question for c in read(LOCOMO) for q in c.questions]
    admin = secrets.token_hex(16)
    out: dict[str, dict[str, list[float]]] = {w: {"wall_ms": [], "api_cpu_ms": [], "neo4j_cpu_ms": [],
                                                  "statements": []} for w in WAYS}
    same = differ = 0
    with bench_database() as db:
        apply_schema(db, embedder.dimension, embedder.model_name)
        register(db, AgentIn(id="small", name="small", clade="bench"), actor="bench")
        key, _ = create_key(db, "small", KeyIn(scopes=[KeyScope.read, KeyScope.write]), actor="bench")
        settings = Settings(NEO4J_URI=db.target.uri, NEO4J_PASSWORD=db.target.password, GRIMOIRE_ADMIN_KEY=admin,
                            GRIMOIRE_SCHEDULER=False, GRIMOIRE_CURATOR_PROCESS=False, GRIMOIRE_MCP=False)
        from grimoire.api.app import create_app

        app = create_app(settings, db=db, embedder=embedder)
        print(f"  writing {TURNS} turns for one agent", flush=True)
        inline.serve_and_call(app, key, [], [inline._episodes(texts, s, 100) for s in range(0, TURNS, 100)], None)
        db.run("schema/await_indexes", seconds=600)
        for name in WAYS:  # both warmed: plans cached, the JIT settled, the vectors held
            understood.context_vector = recorded(name)
            _ask(app, key, questions[:WARM])
        asked = WARM
        for rnd in range(ROUNDS):
            batch = questions[asked:asked + PER_ROUND]
            asked += PER_ROUND
            answers: dict[str, list[list[str]]] = {}
            for name in (list(WAYS) if rnd % 2 == 0 else list(reversed(WAYS))):
                understood.context_vector = recorded(name)
                counts = [0]
                j0, p0 = neo4j_cpu(), own_cpu()
                with counted(counts):
                    walls, answers[name] = _ask(app, key, batch)
                j1, p1 = neo4j_cpu(), own_cpu()
                n = len(batch)
                part = out[name]
                part["wall_ms"] += walls
                part["api_cpu_ms"].append(1000 * (p1 - p0) / n)
                part["neo4j_cpu_ms"].append(1000 * (j1 - j0) / n)
                part["statements"].append(counts[0] / n)
                print(f"  round {rnd + 1}/{ROUNDS} {name}: p50 {statistics.median(walls):.1f} ms, Neo4j CPU "
                      f"{part['neo4j_cpu_ms'][-1]:.1f} ms/request, API CPU {part['api_cpu_ms'][-1]:.1f} ms/request",
                      flush=True)
            for a, b in zip(answers["cypher"], answers["held"], strict=True):
                same += a == b
                differ += a != b
        understood.context_vector = HELD

    def summarise(part: dict[str, list[float]]) -> dict[str, float]:
        walls = sorted(part["wall_ms"])
        return {"p50_ms": round(statistics.median(walls), 2), "p95_ms": round(walls[int(0.95 * (len(walls) - 1))], 2),
                "neo4j_cpu_ms_per_request": round(statistics.median(part["neo4j_cpu_ms"]), 2),
                "api_cpu_ms_per_request": round(statistics.median(part["api_cpu_ms"]), 2),
                "statements_per_request": round(statistics.median(part["statements"]), 2),
                "rounds_neo4j_cpu_ms": [round(x, 2) for x in part["neo4j_cpu_ms"]]}

    cypher, held = summarise(out["cypher"]), summarise(out["held"])
    return {
        "agent": {"turns": TURNS, "reach": "small: ranked exactly"},
        "requests": {"per_way": ROUNDS * PER_ROUND, "rounds": ROUNDS, "body": {"k": 10, "mode": "hybrid (default)"}},
        "cypher": cypher,
        "held": held,
        "ratios": {"neo4j_cpu": round(cypher["neo4j_cpu_ms_per_request"] / held["neo4j_cpu_ms_per_request"], 2),
                   "p50": round(cypher["p50_ms"] / held["p50_ms"], 2),
                   "p95": round(cypher["p95_ms"] / held["p95_ms"], 2)},
        "same_vector_ranking": {"same": sum(RANKED["cypher"][q] == ids for q, ids in RANKED["held"].items()),
                                "of": len(RANKED["held"])},
        "same_answers": {"same": same, "different": differ,
                         "why_some_differ": "each retrieval records what it returned as accessed (recency), so the "
                                            "way asked second sees a store the first has touched"},
        "method": __doc__ or "",
    }
