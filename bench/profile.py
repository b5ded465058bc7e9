"""Where the API process's CPU goes for a request (issue 37 §4): `POST /retrieve` for an agent whose reach is small
enough to be ranked exactly, and `POST /episodes/batch` of 20, in-process against a local Neo4j.

The app runs on this thread alone so that one profiler sees all of it: its lifespan, its middleware, FastAPI's
validation and encoding, the route, the embedding and the driver (anyio's worker threads and the retrieval and
episode pools run their work inline: the same work, without the overlap). cProfile's clock is this thread's CPU
time, so waiting for Neo4j counts nothing; Neo4j's own CPU is another process's: the unprofiled pass reads it
from /proc (`neo4j_cpu_ms_per_request`).
Each function's own time goes to one share by where its code lives (a built-in to its caller's share):

- embedding (model): onnxruntime's session run, the pooling and normalisation around it;
- tokenizing: the Hugging Face tokenizer (embedding) and the token counts for budgets;
- neo4j driver: Bolt encoding and decoding, the socket, the driver's sessions and transactions (the Cypher
  round-trips as the API process pays for them);
- pydantic / JSON / FastAPI: request validation, response models and encoding, Starlette, anyio;
- grimoire (Python): the project's own code (graph/, api/) outside the above;
- other.

The profiler slows Python code more than native code, so the shares are also given without it where a stage
can be timed alone: each request's CPU (time.process_time) and the embedding's (thread CPU around the model
call), measured on a second pass with the profiler off."""

from __future__ import annotations

import asyncio
import cProfile
import pstats
import secrets
import statistics
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any

import anyio.to_thread
import httpx
import numpy as np

from bench.common import neo4j_cpu, summary
from bench.ingest import locomo_texts
from bench.retrieval import LOCOMO
from bench.server import bench_database
from grimoire.graph.agents import AgentIn, KeyIn, create_key, register
from grimoire.graph.embeddings import Embedder, EmbeddingOptions
from grimoire.graph.model.enums import KeyScope
from grimoire.graph.schema import apply_schema
from grimoire.graph.settings import Settings
from grimoire.loaders.locomo import read

EPISODES = 2_000  # the agent's store: small enough for the exact vector ranking
RETRIEVES = 120
BATCHES = 20
BATCH = 20
SHARES = ("embedding (model)", "tokenizing", "neo4j driver", "pydantic / JSON / FastAPI", "grimoire (Python)",
          "other")


class Inline:
    """An executor that runs what it is given at once, on the caller's thread."""

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            future.set_exception(exc)
        return future

    def map(self, fn: Callable[..., Any], *its: Any) -> Iterator[Any]:
        return map(fn, *its)

    def shutdown(self, *args: Any, **kwargs: Any) -> None:
        return None

    def __enter__(self) -> Inline:
        return self

    def __exit__(self, *_: object) -> None:
        return None


@contextmanager
def one_thread() -> Iterator[None]:
    """Sync routes, dependencies and the pools' work run inline on the event loop's thread."""
    import grimoire.graph.episodes as episodes_module
    import grimoire.graph.retrieval.context as retrieval_context

    async def inline(func: Callable[..., Any], *args: Any, **_: Any) -> Any:
        return func(*args)

    saved = anyio.to_thread.run_sync, retrieval_context.POOL, episodes_module.ThreadPoolExecutor
    anyio.to_thread.run_sync = inline  # type: ignore[assignment]
    retrieval_context.POOL = Inline()  # type: ignore[assignment]
    episodes_module.ThreadPoolExecutor = lambda *_, **__: Inline()  # type: ignore[assignment,misc]
    try:
        yield
    finally:
        anyio.to_thread.run_sync = saved[0]  # type: ignore[assignment]
        retrieval_context.POOL = saved[1]
        episodes_module.ThreadPoolExecutor = saved[2]  # type: ignore[misc]


def share_of(path: str, name: str) -> str | None:
    """The share a function's own time belongs to, by its file (None: a built-in, judged by its caller)."""
    where = f"{path} {name}".replace("\\", "/")
    if "onnxruntime" in where or path.endswith("graph/embeddings_onnx.py") and "encode" in name:
        return "embedding (model)"
    if "tokenizers" in where or "/transformers/" in where or "Tokenizer" in name:
        return "tokenizing"
    if "/neo4j/" in where or "_socket" in where or "ssl" in where.lower() and path == "~":
        return "neo4j driver"
    if any(k in where for k in ("/pydantic", "pydantic_core", "/fastapi/", "/starlette/", "/anyio/", "/json/",
                                "/httpx/", "/h11/", "/asyncio/")):
        return "pydantic / JSON / FastAPI"
    if path == "~":
        return None
    if "/graph/" in where or "/api/" in where:
        return "grimoire (Python)"
    return "other"


def shares(stats: pstats.Stats) -> dict[str, float]:
    """Seconds of own CPU time per share."""
    raw: dict[tuple[str, int, str], Any] = stats.stats  # type: ignore[attr-defined]
    out = dict.fromkeys(SHARES, 0.0)
    for (path, _, name), (_, _, own, _, callers) in raw.items():
        share = share_of(path, name)
        if share is None and callers:  # a built-in: its caller's share (the caller that called it most)
            (cpath, _, cname) = max(callers, key=lambda c: callers[c][2] if isinstance(callers[c], tuple) else 0)
            share = share_of(cpath, cname) or "other"
        out[share or "other"] += own
    return out


async def _requests(app: Any, key: str, questions: list[str], batches: list[list[dict[str, Any]]],
                    timings: dict[str, list[float]]) -> None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://bench", headers={"X-API-Key": key}) as c:
        for q in questions:
            started = time.process_time()
            r = await c.post("/retrieve", json={"text": q, "k": 10})
            timings["retrieve"].append(time.process_time() - started)
            assert r.status_code == 200, r.text
        for batch in batches:
            started = time.process_time()
            r = await c.post("/episodes/batch", json={"episodes": batch})
            timings["episodes_batch"].append(time.process_time() - started)
            assert r.status_code == 201, r.text


def serve_and_call(app: Any, key: str, questions: list[str], batches: list[list[dict[str, Any]]],
                   profiler: cProfile.Profile | None) -> dict[str, list[float]]:
    timings: dict[str, list[float]] = {"retrieve": [], "episodes_batch": []}

    async def main() -> None:
        async with app.router.lifespan_context(app):
            if profiler is not None:
                profiler.enable()
            try:
                await _requests(app, key, questions, batches, timings)
            finally:
                if profiler is not None:
                    profiler.disable()

    with one_thread():
        asyncio.run(main())
    return timings


class TimedModel:
    """The embedder's model call with its thread CPU time recorded (the profiler off)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder, self.inner, self.cpu = embedder, embedder.batcher.encode, 0.0

    def __enter__(self) -> TimedModel:
        def timed(texts: list[str]) -> np.ndarray:
            started = time.thread_time()
            try:
                return self.inner(texts)
            finally:
                self.cpu += time.thread_time() - started
        self.embedder.batcher.encode = timed
        return self

    def __exit__(self, *_: object) -> None:
        self.embedder.batcher.encode = self.inner


def _episodes(texts: list[str], start: int, count: int) -> list[dict[str, Any]]:
    return [{"type": "conversation", "text": texts[i % len(texts)] + f" (#{i})"} for i in range(start, start + count)]


def _part(stats: pstats.Stats, calls: int) -> dict[str, Any]:
    seconds = shares(stats)
    total = sum(seconds.values())
    return {"cpu_ms_per_request": round(1000 * total / calls, 2),
            "ms_per_request": {k: round(1000 * v / calls, 2) for k, v in seconds.items()},
            "share": {k: round(v / total, 3) for k, v in seconds.items()}}


def profile(app_for: Callable[[], Any], key: str, questions: list[str], batches: list[list[dict[str, Any]]],
            only: str) -> pstats.Stats:
    profiler = cProfile.Profile(time.thread_time)
    serve_and_call(app_for(), key, questions if only == "retrieve" else [],
                   batches if only == "episodes_batch" else [], profiler)
    return pstats.Stats(profiler)


def top_functions(stats: pstats.Stats, n: int = 15) -> list[dict[str, Any]]:
    raw: dict[tuple[str, int, str], Any] = stats.stats  # type: ignore[attr-defined]
    rows = sorted(raw.items(), key=lambda kv: kv[1][2], reverse=True)[:n]
    return [{"function": f"{p.rsplit('site-packages/', 1)[-1]}:{line}({name})", "own_ms": round(1000 * v[2], 1)}
            for (p, line, name), v in rows]


def run() -> dict[str, Any]:
    embedder = Embedder(options=EmbeddingOptions(cache_size=0))  # every query embedded: no cache stands in
    texts = locomo_texts()
    questions = [q.question for c in read(LOCOMO) for q in c.questions][:RETRIEVES * 2]
    admin = secrets.token_hex(16)
    with bench_database() as db:
        apply_schema(db, embedder.dimension, embedder.model_name)
        register(db, AgentIn(id="small", name="small", clade="bench"), actor="bench")
        key, _ = create_key(db, "small", KeyIn(scopes=[KeyScope.read, KeyScope.write]), actor="bench")
        settings = Settings(NEO4J_URI=db.target.uri, NEO4J_PASSWORD=db.target.password, GRIMOIRE_ADMIN_KEY=admin,
                            GRIMOIRE_SCHEDULER=False, GRIMOIRE_CURATOR_PROCESS=False, GRIMOIRE_MCP=False,
                            GRIMOIRE_MENTAL_MODELS=True)

        def app() -> Any:
            from grimoire.api.app import create_app

            return create_app(settings, db=db, embedder=embedder)

        print(f"  writing {EPISODES:,} episodes for the agent (batches of 100)", flush=True)
        serve_and_call(app(), key, [], [_episodes(texts, s, 100) for s in range(0, EPISODES, 100)], None)
        db.run("schema/await_indexes", seconds=600)
        warm = serve_and_call(app(), key, questions[:10], [_episodes(texts, EPISODES, BATCH)], None)
        del warm
        first, second = questions[10:10 + RETRIEVES], questions[10 + RETRIEVES:10 + 2 * RETRIEVES]
        batches = [_episodes(texts, EPISODES + BATCH * (b + 1), BATCH) for b in range(BATCHES)]
        more = [_episodes(texts, EPISODES + BATCH * (BATCHES + b + 1), BATCH) for b in range(BATCHES)]
        print(f"  profiling {len(first)} retrievals and {BATCHES} batches of {BATCH}", flush=True)
        retrieve_stats = profile(app, key, first, batches, "retrieve")
        batch_stats = profile(app, key, first, batches, "episodes_batch")
        print("  the same without the profiler: CPU per request, and the model's", flush=True)
        with TimedModel(embedder) as model:
            j0 = neo4j_cpu()
            plain_r = serve_and_call(app(), key, second, [], None)
            j1 = neo4j_cpu()
            model_r, model.cpu = model.cpu, 0.0
            plain_b = serve_and_call(app(), key, [], more, None)
            j2 = neo4j_cpu()
            model_b = model.cpu
    retrieve = _part(retrieve_stats, len(first))
    batch = _part(batch_stats, BATCHES)
    for name, part in (("retrieve", retrieve), ("episodes_batch", batch)):
        print(f"  {name}: " + ", ".join(f"{k} {v:.0%}" for k, v in part["share"].items()), flush=True)
    r_ms, b_ms = (1000 * statistics.median(plain_r["retrieve"]), 1000 * statistics.median(plain_b["episodes_batch"]))
    return {
        "unit": "CPU milliseconds of the API process per request (its own thread's CPU: waiting for Neo4j is free)",
        "agent": {"episodes": EPISODES, "reach": "small: ranked exactly"},
        "requests": {"retrieve": {"count": len(first), "body": {"k": 10, "mode": "hybrid (default)"}},
                     "episodes_batch": {"count": BATCHES, "episodes": BATCH}},
        "profiled": {"retrieve": {**retrieve, "top_functions": top_functions(retrieve_stats)},
                     "episodes_batch": {**batch, "top_functions": top_functions(batch_stats)}},
        "unprofiled": {
            "retrieve": {"cpu_ms": summary([1000 * x for x in plain_r["retrieve"]]),
                         "model_cpu_ms_per_request": round(1000 * model_r / len(second), 2),
                         "model_share_of_median": round(1000 * model_r / len(second) / r_ms, 3),
                         "neo4j_cpu_ms_per_request": round(1000 * (j1 - j0) / len(second), 1)},
            "episodes_batch": {"cpu_ms": summary([1000 * x for x in plain_b["episodes_batch"]]),
                               "model_cpu_ms_per_request": round(1000 * model_b / len(more), 2),
                               "model_share_of_median": round(1000 * model_b / len(more) / b_ms, 3),
                               "neo4j_cpu_ms_per_request": round(1000 * (j2 - j1) / len(more), 1)}},
        "method": __doc__.split("\n\n", 1)[1] if __doc__ else "",
        "neo4j": "unprofiled.*.neo4j_cpu_ms_per_request: the database server's CPU over the unprofiled pass (its "
                 "Java process, from /proc, 10 ms ticks), per request: what a replica's request costs the database, "
                 "besides the API process's own CPU above",
    }
