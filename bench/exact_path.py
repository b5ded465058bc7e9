"""The exact path (issue 41 "the exact path", issue 37 §4): one agent of 600 LoCoMo turns (small enough to be ranked
exactly from the replica's held vectors: graph/retrieval/exact.py), `POST /retrieve` (k 10, the full pipeline), the
reads one after another as before (`sequential`: BM25 after the query's embedding, then the members, the graph
backend, the candidates' properties) and overlapped (`overlapped`, graph/retrieval/context.py OVERLAP: BM25 and the
members read while the query is embedded, the exact ranking's candidates fetched while the graph backend searches),
and overlapped with the members and BM25's first ask read in one statement (`one_read`, context.py ONE_READ:
cypher/retrieval/members_fulltext.cypher), and that with the candidates and the graph's neighbours read in one
statement too (`one_graph_read`, context.py ONE_GRAPH_READ: cypher/retrieval/items_neighbours.cypher), and the named
entities read with the members and BM25 too (`one_entity_read`, ONE_ENTITY_READ: members_fulltext_entities.cypher, the
deployed default), alternating in rounds on one store so that the comparison holds on one machine under one load.
BENCH_EXACT_WAYS picks some of them (comma-separated; all five by default).

In-process (the app on this thread, as bench/profile.py; the pool's work inline, so the overlap is not measured here:
this pass gives the profile): per request, wall time, the API process's CPU, the Neo4j server's CPU (its process
alone, from /proc), the statements by name and the pipeline's stage times (`timings_ms` of the response). Each
retrieval statement is then replayed alone (`statements`: its Neo4j CPU and wall per call).
Over HTTP: one uvicorn server per way (bench/exact_server.py), on the same store, asked in alternating rounds by
one client, one request at a time; the pool's threads overlap there as deployed.
The answers are checked the same: for the same questions on the same store (access recording paused, so that no
retrieval changes what the next sees), each way's ids in order, and the held vector ranking against the one computed
in Cypher (cypher/retrieval/vector_context.cypher)."""

from __future__ import annotations

import asyncio
import itertools
import os
import secrets
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import httpx

from bench import profile as inline
from bench.common import neo4j_cpu, own_cpu
from bench.ingest import locomo_texts
from bench.retrieval import LOCOMO, serve_api
from bench.server import _cpu_seconds, _servers, bench_database
from grimoire.graph.agents import AgentIn, KeyIn, create_key, register
from grimoire.graph.audit.access import Reads
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder, EmbeddingOptions
from grimoire.graph.model.enums import KeyScope
from grimoire.graph.retrieval import context as retrieval_context
from grimoire.graph.retrieval import understood
from grimoire.graph.retrieval.context import Context
from grimoire.graph.schema import apply_schema
from grimoire.graph.settings import Settings
from grimoire.loaders.locomo import read

TURNS = 600
WAYS = tuple(w for w in os.environ.get("BENCH_EXACT_WAYS",
                                       "sequential,overlapped,one_read,one_graph_read,one_entity_read").split(",") if w)
ROUNDS = 4
PER_ROUND = 40
WARM = 40
HTTP_ROUNDS = 6
HTTP_PER_ROUND = 40
CHECKED = 100
REPLAYS = 3


@contextmanager
def way(name: str) -> Iterator[None]:
    c = retrieval_context
    saved = c.OVERLAP, c.ONE_READ, c.ONE_GRAPH_READ, c.ONE_ENTITY_READ
    set_way(name)
    try:
        yield
    finally:
        c.OVERLAP, c.ONE_READ, c.ONE_GRAPH_READ, c.ONE_ENTITY_READ = saved


LADDER = ("sequential", "overlapped", "one_read", "one_graph_read", "one_entity_read")


def set_way(name: str) -> None:
    """Each way is the one before it and one thing more (graph/retrieval/context.py's switches)."""
    step = LADDER.index(name)
    c = retrieval_context
    c.OVERLAP, c.ONE_READ, c.ONE_GRAPH_READ, c.ONE_ENTITY_READ = step >= 1, step >= 2, step >= 3, step >= 4


@contextmanager
def counted(counts: dict[str, list[float]]) -> Iterator[None]:
    """Each statement run (each goes through Database.timed), by name, with its wall time."""
    original = Database.timed

    @contextmanager
    def timed(self: Database, name: str) -> Iterator[None]:
        started = time.perf_counter()
        with original(self, name):
            yield
        counts[name].append(1000 * (time.perf_counter() - started))

    Database.timed = timed  # type: ignore[method-assign]
    try:
        yield
    finally:
        Database.timed = original  # type: ignore[method-assign]


@contextmanager
def captured(into: list[tuple[str, dict[str, Any]]]) -> Iterator[None]:
    """Each retrieval read's name and parameters, to replay alone."""
    original = Database.rows

    def rows(self: Database, name: str, /, **params: Any) -> list[Any]:
        if name.startswith("retrieval/"):
            into.append((name, params))
        return original(self, name, **params)

    Database.rows = rows  # type: ignore[method-assign]
    try:
        yield
    finally:
        Database.rows = original  # type: ignore[method-assign]


@contextmanager
def reads_paused() -> Iterator[None]:
    """No retrieval records what it returned as accessed (recency): the next sees the same store."""
    original = Reads.note
    Reads.note = lambda self, ids, at=None: None  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        Reads.note = original  # type: ignore[method-assign]


def _ask(app: Any, key: str, questions: list[str],
         laps: dict[str, list[float]] | None = None) -> tuple[list[float], list[list[str]]]:
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
                for stage, ms in (r.json().get("timings_ms") or {}).items():
                    if laps is not None:
                        laps[stage].append(ms)

    with inline.one_thread():
        asyncio.run(go())
    return walls, answers


def _percentiles(walls: list[float]) -> dict[str, float]:
    ordered = sorted(walls)
    return {"p50_ms": round(statistics.median(ordered), 2), "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 2)}


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _server_cpu(db: Database) -> Callable[[], float]:
    """The CPU seconds of the benchmark's Neo4j alone (its process), else of every Java process (NEO4J_URI)."""
    server = _servers.get(id(db))
    pid = server.pid() if server else None
    return (lambda: _cpu_seconds(pid)) if pid else neo4j_cpu


def in_process(app: Any, key: str, questions: list[str], cpu: Callable[[], float]) -> dict[str, Any]:
    out: dict[str, dict[str, Any]] = {w: {"wall_ms": [], "api_cpu_ms": [], "neo4j_cpu_ms": [],
                                          "statements": defaultdict(list), "laps": defaultdict(list)} for w in WAYS}
    load = {"before": _load()}
    for name in WAYS:  # both warmed: plans cached, the JIT settled, the vectors held
        with way(name):
            _ask(app, key, questions[:WARM])
    asked = WARM
    for rnd in range(ROUNDS):
        batch = questions[asked:asked + PER_ROUND]
        asked += PER_ROUND
        for name in (WAYS if rnd % 2 == 0 else tuple(reversed(WAYS))):
            part = out[name]
            counts: dict[str, list[float]] = defaultdict(list)
            j0, p0 = cpu(), own_cpu()
            with way(name), counted(counts):
                walls, _ = _ask(app, key, batch, part["laps"])
            j1, p1 = cpu(), own_cpu()
            n = len(batch)
            part["wall_ms"] += walls
            part["api_cpu_ms"].append(1000 * (p1 - p0) / n)
            part["neo4j_cpu_ms"].append(1000 * (j1 - j0) / n)
            for stmt, ms in counts.items():
                part["statements"][stmt] += ms
            part["n"] = part.get("n", 0) + n
            print(f"  in-process round {rnd + 1}/{ROUNDS} {name}: p50 {statistics.median(walls):.1f} ms, Neo4j CPU "
                  f"{part['neo4j_cpu_ms'][-1]:.1f} ms/request, API CPU {part['api_cpu_ms'][-1]:.1f} ms/request",
                  flush=True)
    load["after"] = _load()

    def summarise(part: dict[str, Any]) -> dict[str, Any]:
        n = part["n"]
        return {**_percentiles(part["wall_ms"]),
                "neo4j_cpu_ms_per_request": round(statistics.median(part["neo4j_cpu_ms"]), 2),
                "api_cpu_ms_per_request": round(statistics.median(part["api_cpu_ms"]), 2),
                "statements_per_request": round(sum(len(v) for v in part["statements"].values()) / n, 2),
                "statements": {s: {"per_request": round(len(v) / n, 2),
                                   "wall_ms_median": round(statistics.median(v), 2)}
                               for s, v in sorted(part["statements"].items(), key=lambda kv: -sum(kv[1]))},
                "stages_ms_median": {s: round(statistics.median(v), 2) for s, v in part["laps"].items()}}

    return {**{w: summarise(out[w]) for w in WAYS}, "load_average": load}


def check(app: Any, key: str, questions: list[str]) -> tuple[dict[str, int], dict[str, int],
                                                                list[tuple[str, dict[str, Any]]]]:
    """Every way's answers for the same questions on the same store, and the held vector ranking against Cypher's;
    the statements of the last way's requests (to replay)."""
    held = understood.context_vector
    vector_same = vector_of = 0

    def both(ctx: Context) -> list[str]:
        nonlocal vector_same, vector_of
        ids = held(ctx)
        cfg = ctx.config.query
        rows = ctx.db.rows("retrieval/vector_context", embedding=ctx.embedding.required(),
                           short_chars=cfg.short_chars, weight=cfg.context_weight, top=ctx.config.per_backend,
                           **ctx.params)
        vector_same += [r["id"] for r in rows] == ids
        vector_of += 1
        return ids

    statements: list[tuple[str, dict[str, Any]]] = []
    same = differ = 0
    with reads_paused():
        for q in questions:
            with way(WAYS[0]):
                understood.context_vector = both
                try:
                    _, [a] = _ask(app, key, [q])
                finally:
                    understood.context_vector = held
            answers = [a]
            for name in WAYS[1:]:
                with way(name), captured(statements) if name == WAYS[-1] else ExitStack():
                    answers += _ask(app, key, [q])[1]
            same += all(x == a for x in answers)
            differ += any(x != a for x in answers)
    return {"same": same, "different": differ}, {"same": vector_same, "of": vector_of}, statements


def replay(db: Database, statements: list[tuple[str, dict[str, Any]]], cpu: Callable[[], float]) -> dict[str, Any]:
    """Each retrieval statement alone, as the requests ran it: per call, the Neo4j server's CPU and the wall time."""
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for name, params in statements:
        by[name].append(params)
    out: dict[str, Any] = {}
    for name, calls in sorted(by.items()):
        for params in calls[:3]:
            db.rows(name, **params)
        c0, t0 = cpu(), time.perf_counter()
        for _ in range(REPLAYS):
            for params in calls:
                db.rows(name, **params)
        c1, t1 = cpu(), time.perf_counter()
        n = REPLAYS * len(calls)
        out[name] = {"neo4j_cpu_ms": round(1000 * (c1 - c0) / n, 2), "wall_ms": round(1000 * (t1 - t0) / n, 2)}
    return out


def costed(replayed: dict[str, Any], counted_in: dict[str, Any]) -> dict[str, Any]:
    """Each replayed statement with how often the timed requests ran it (`per_request`; the check's requests each
    started a replica afresh, so they read every held vector: exact_vectors is a cold replica's read, not a
    request's) and its Neo4j CPU per request."""
    out = {}
    for name, cost in replayed.items():
        per = counted_in.get(name, {}).get("per_request", 0.0)
        out[name] = {"per_request": per, **cost, "neo4j_cpu_ms_per_request": round(per * cost["neo4j_cpu_ms"], 2)}
    return dict(sorted(out.items(), key=lambda kv: -kv[1]["neo4j_cpu_ms_per_request"]))


def over_http(db: Database, admin: str, key: str, questions: list[str]) -> dict[str, Any]:
    env = {"GRIMOIRE_ADMIN_KEY": admin, "GRIMOIRE_SCHEDULER": "false", "GRIMOIRE_CURATOR_PROCESS": "false",
           "GRIMOIRE_MCP": "false", "GRIMOIRE_EMBED_CACHE_SIZE": "0"}
    walls: dict[str, list[float]] = {w: [] for w in WAYS}
    load = {"before": _load()}
    with ExitStack() as servers:
        bases = {w: servers.enter_context(serve_api(db, factory="bench.exact_server:create_app", BENCH_EXACT_WAY=w,
                                                    **env)) for w in WAYS}
        clients = {w: httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=60) for w, base in bases.items()}
        try:
            def ask(name: str, qs: list[str]) -> list[float]:
                out = []
                for q in qs:
                    started = time.perf_counter()
                    r = clients[name].post("/retrieve", json={"text": q, "k": 10})
                    out.append((time.perf_counter() - started) * 1000)
                    assert r.status_code == 200, r.text
                return out

            for name in WAYS:
                ask(name, questions[:WARM])
            asked = WARM
            for rnd in range(HTTP_ROUNDS):
                batch = questions[asked:asked + HTTP_PER_ROUND]
                asked += HTTP_PER_ROUND
                for name in (WAYS if rnd % 2 == 0 else tuple(reversed(WAYS))):
                    got = ask(name, batch)
                    walls[name] += got
                    print(f"  HTTP round {rnd + 1}/{HTTP_ROUNDS} {name}: p50 {statistics.median(got):.1f} ms",
                          flush=True)
        finally:
            for c in clients.values():
                c.close()
    load["after"] = _load()
    return {**{w: {**_percentiles(walls[w]), "requests": len(walls[w])} for w in WAYS}, "load_average": load}


def run() -> dict[str, Any]:
    embedder = Embedder(options=EmbeddingOptions(cache_size=0))  # every query embedded: no cache stands in
    texts = locomo_texts()
    questions = [q.question for c in read(LOCOMO) for q in c.questions]
    admin = secrets.token_hex(16)
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
        cpu = _server_cpu(db)
        print("  checking the answers", flush=True)
        same_answers, same_vector, statements = check(app, key, questions[-CHECKED:])
        replayed = replay(db, statements, cpu)
        inproc = in_process(app, key, questions, cpu)
        statement_costs = costed(replayed, inproc[WAYS[-1]]["statements"])
        http = over_http(db, admin, key, questions[ROUNDS * PER_ROUND + WARM:])
    def ratio(part: dict[str, Any], a: str, b: str, stat: str) -> float:
        return round(part[a][stat] / part[b][stat], 2)

    ratios = {f"{a}/{b}": {"in_process_p50": ratio(inproc, a, b, "p50_ms"),
                           "in_process_p95": ratio(inproc, a, b, "p95_ms"),
                           "http_p50": ratio(http, a, b, "p50_ms"), "http_p95": ratio(http, a, b, "p95_ms"),
                           "api_cpu": ratio(inproc, a, b, "api_cpu_ms_per_request"),
                           "neo4j_cpu": ratio(inproc, a, b, "neo4j_cpu_ms_per_request")}
              for a, b in itertools.pairwise(WAYS)}
    return {
        "agent": {"turns": TURNS, "reach": "small: ranked exactly from held vectors"},
        "requests": {"in_process_per_way": ROUNDS * PER_ROUND, "http_per_way": HTTP_ROUNDS * HTTP_PER_ROUND,
                     "body": {"k": 10, "mode": "hybrid (default)"}},
        "in_process": inproc,
        "http": http,
        "ways": list(WAYS),
        "ratios": ratios,
        "statements": statement_costs,
        "same_answers": {**same_answers, "how": "each question asked every way in turn with access recording paused: "
                                                "the same store for each"},
        "same_vector_ranking": same_vector,
        "method": __doc__ or "",
    }
