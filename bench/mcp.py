"""MCP's overhead (issue 20): `retrieve_memory` through MCP over streamable HTTP against POST /retrieve, on the
same server, the same questions, interleaved in one run (each question asked both ways back to back, so drift
in the machine hits both alike). The service runs in its own process as deployed; the MCP client is the SDK's.

Goal: under 5 ms added at p95. Writes bench/results/mcp.json (`python -m bench mcp`)."""

from __future__ import annotations

import statistics
import time
from typing import Any

import anyio
import httpx
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from bench.common import summary
from bench.retrieval import serve_api
from bench.server import bench_database

ADMIN = "bench-admin-key-0123456789"
EPISODES, ENTRIES, ROUNDS, WARMUP = 2_000, 400, 5, 20
GOAL_ADDED_P95_MS = 5.0
TOPICS = ["WETH borrow rate", "stETH depeg", "gas price at night", "Curve pool depth", "Chainlink heartbeat",
          "USDC supply cap", "liquidation cascade", "funding rate", "Uniswap fee tier", "oracle deviation"]


def _seed(base: str) -> str:
    with httpx.Client(base_url=base, timeout=120) as c:
        admin = {"X-API-Key": ADMIN}
        c.post("/agents", headers=admin, json={"id": "bench-mcp", "name": "bench-mcp", "clade": "bench"})
        key = c.post("/agents/bench-mcp/keys", headers=admin, json={"scopes": ["read", "write"]}).json()["key"]
        h = {"X-API-Key": key}
        for start in range(0, EPISODES, 500):
            eps = [{"id": f"ep-{i}", "type": "observation",
                    "text": f"{TOPICS[i % len(TOPICS)]}: reading {i} at block {19_000_000 + i}, {i % 7} sources"}
                   for i in range(start, min(start + 500, EPISODES))]
            assert c.post("/episodes/batch", headers=h, json={"episodes": eps}).status_code == 201
            print(f"  episodes {min(start + 500, EPISODES):,}/{EPISODES:,}", flush=True)
        for start in range(0, ENTRIES, 200):
            ents = [{"id": f"en-{i}", "category": "Insight",
                     "content": f"{TOPICS[i % len(TOPICS)]} moves with {TOPICS[(i * 3) % len(TOPICS)]} (case {i})"}
                    for i in range(start, min(start + 200, ENTRIES))]
            assert c.post("/entries/batch", headers=h, json={"entries": ents}).status_code < 300
        print(f"  entries {ENTRIES:,}", flush=True)
        return str(key)


async def _measure(base: str, key: str) -> dict[str, list[float]]:
    questions = [f"what do we know about {t} {suffix}" for t in TOPICS for suffix in ("lately", "at night", "now")]
    rest_ms: list[float] = []
    mcp_ms: list[float] = []
    auth = {"Authorization": f"Bearer {key}"}
    async with (httpx2.AsyncClient(base_url=base, headers=auth, timeout=60) as http,
                httpx2.AsyncClient(headers=auth, timeout=60) as mcp_http,
                streamable_http_client(base + "/mcp", http_client=mcp_http) as (read, write),
                ClientSession(read, write) as session):
        await session.initialize()
        for i in range(WARMUP):  # plans, caches, the JIT
            q = questions[i % len(questions)]
            await http.post("/retrieve", json={"text": q, "k": 10})
            await session.call_tool("retrieve_memory", {"text": q, "k": 10})
        for r in range(ROUNDS):
            for q in questions:
                t0 = time.perf_counter()
                resp = await http.post("/retrieve", json={"text": q, "k": 10})
                rest_ms.append((time.perf_counter() - t0) * 1000)
                assert resp.status_code == 200, resp.text
                t0 = time.perf_counter()
                result = await session.call_tool("retrieve_memory", {"text": q, "k": 10})
                mcp_ms.append((time.perf_counter() - t0) * 1000)
                assert not result.is_error and result.structured_content["results"], result.content
            print(f"    round {r + 1}/{ROUNDS}: REST p95 {summary(rest_ms[-len(questions):])['p95']:.1f} ms, "
                  f"MCP p95 {summary(mcp_ms[-len(questions):])['p95']:.1f} ms", flush=True)
    return {"rest": rest_ms, "mcp": mcp_ms}


def run() -> dict[str, Any]:
    with bench_database(heap="1g", pagecache="512m") as db:
        db.slow_ms = float("inf")
        with serve_api(db, GRIMOIRE_SCHEDULER="false", GRIMOIRE_ADMIN_KEY=ADMIN,
                       GRIMOIRE_SLOW_QUERY_MS="1000000", GRIMOIRE_SEED_MENTAL_MODELS="false") as base:
            key = _seed(base)
            times = anyio.run(_measure, base, key)
    rest, mcp = summary(times["rest"]), summary(times["mcp"])
    paired = [m - r for m, r in zip(times["mcp"], times["rest"], strict=True)]
    added_p95 = mcp["p95"] - rest["p95"]
    return {
        "unit": "ms per retrieval (k 10, hybrid) over HTTP on one server: POST /retrieve vs the MCP tool "
                "retrieve_memory over streamable HTTP (the SDK's client), interleaved",
        "command": "python -m bench mcp",
        "episodes": EPISODES, "entries": ENTRIES, "requests_each": len(times["rest"]),
        "rest_p50_ms": round(rest["median"], 2), "rest_p95_ms": round(rest["p95"], 2),
        "mcp_p50_ms": round(mcp["median"], 2), "mcp_p95_ms": round(mcp["p95"], 2),
        "added_p50_ms": round(mcp["median"] - rest["median"], 2), "added_p95_ms": round(added_p95, 2),
        "paired_added_median_ms": round(statistics.median(paired), 2),
        "goal_added_p95_ms": GOAL_ADDED_P95_MS, "goal_met": added_p95 < GOAL_ADDED_P95_MS,
        "rest": rest, "mcp": mcp,
    }
