"""The console's pages at scale (issue 21): each page's server time and the browser's load time, p95, for an
agent holding 100,000 episodes and 5,000 entries on top of the demo agent's memory (loaders/demo.py).

- server time: the page's HTML over loopback, signed in as the agent's person (a session cookie), requests
  one after another; the page makes its route calls in-process, so this is everything the service does;
- load time: Debian's Chromium (Playwright) opening the page, navigation start to the load event (the
  vendored scripts, the charts and the graph drawn), with the browser's cache warm as a person's would be.

Goal: every page under 300 ms server time at p95. Writes bench/results/console.json (`python -m bench console`)
and console.png."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import numpy as np

from bench.common import RESULTS, summary
from bench.retrieval import locomo_workload, perturbed, serve_api
from bench.server import bench_database, settle
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import get_embedder
from grimoire.graph.ids import now_ms
from grimoire.graph.schema import apply_schema
from grimoire.loaders.demo import AGENT, CLADE, seed

ADMIN = "bench-admin-key-0123456789"
EPISODES, ENTRIES = 100_000, 5_000
SERVER_ROUNDS, LOAD_ROUNDS, WARMUP = 30, 10, 3
GOAL_SERVER_P95_MS = 300.0
CHROMIUM = "/usr/bin/chromium"  # Debian's (`make chromium`); the browser tests launch it the same way
# No background traffic: this machine's network is closed, and a run must see only the console's requests.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions"]
CATEGORIES = ["Insight", "Heuristic", "Warning", "StrategyFragment"]

PAGES = {
    "sign-in": "/console/sign-in",
    "overview": f"/console/agents/{AGENT}",
    "knowledge": f"/console/agents/{AGENT}/knowledge",
    "search": f"/console/agents/{AGENT}/knowledge?q=what+did+they+say+about+the+trip",
    "item": f"/console/agents/{AGENT}/items/demo-gas",
    "memory": f"/console/agents/{AGENT}/memory",
    "approvals": f"/console/agents/{AGENT}/approvals",
    "audit": f"/console/agents/{AGENT}/audit",
    "graph": f"/console/agents/{AGENT}/graph?entity=pool%3Aaave+v3+pool&hops=2",
    "causal-graph": f"/console/agents/{AGENT}/graph",
}


def _bulk(db: Database, texts: list[str], vectors: np.ndarray) -> None:
    """The agent's 100,000 episodes over the last 100 days and 5,000 entries, with their texts' embeddings."""
    rng = np.random.default_rng(21)
    now = now_ms()
    for label, count in (("Episode", EPISODES), ("Entry", ENTRIES)):
        for s in range(0, count, 1_000):
            idx = np.arange(s, min(s + 1_000, count))
            base = perturbed(vectors, idx, rng)
            rows = []
            for j, i in enumerate(idx):
                at = now - int(i) * 86_400  # 100,000 over 100 days
                props: dict[str, Any] = {"agent_id": AGENT, "clade": CLADE, "scope": "private", "valid_from": at,
                                         "recorded_at": at, "last_accessed_at": at}
                if label == "Episode":
                    props.update(text=f"{texts[i % len(texts)]} (#{i})", type="conversation", importance="routine")
                else:
                    props.update(content=f"{texts[i % len(texts)]} (#{i})", category=CATEGORIES[i % 4],
                                 status="active" if i % 3 else "candidate", confidence=0.4 + (i % 6) / 10,
                                 strength=1.0, half_life_ms=14 * 86_400_000, quality_score=0.5)
                rows.append({"id": f"bench-{label.lower()}-{i}", "props": props, "embedding": base[j].tolist()})
            db.run("testing/bulk_items", label=label, rows=rows)
            if s % 20_000 == 0:
                print(f"  {label}: {s + len(idx):,}/{count:,}", flush=True)


def _server_times(base: str, key: str) -> dict[str, list[float]]:
    import time

    out: dict[str, list[float]] = {name: [] for name in PAGES}
    with httpx.Client(base_url=base, timeout=120) as c:
        assert c.post("/console/sign-in", data={"key": key}).status_code == 303  # the session cookie set
        for r in range(WARMUP + SERVER_ROUNDS):
            for name, path in PAGES.items():
                t0 = time.perf_counter()
                resp = c.get(path)
                ms = (time.perf_counter() - t0) * 1000
                assert resp.status_code == 200, (name, resp.status_code, resp.text[:300])
                if r >= WARMUP:
                    out[name].append(ms)
            if r >= WARMUP and (r - WARMUP + 1) % 10 == 0:
                done = r - WARMUP + 1
                worst = max(summary(v)["p95"] for v in out.values())
                print(f"  server round {done}/{SERVER_ROUNDS}: worst page p95 so far {worst:.0f} ms", flush=True)
    return out


LOAD_MS = """() => { const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd - n.startTime; }"""


def _load_times(base: str, key: str) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    out: dict[str, list[float]] = {name: [] for name in PAGES}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
        page.goto(base + "/console/sign-in")
        page.fill("input[name=key]", key)
        with page.expect_navigation():
            page.click("button[type=submit]")
        for r in range(1 + LOAD_ROUNDS):  # the first round fills the cache
            for name, path in PAGES.items():
                response = page.goto(base + path, wait_until="load")
                assert response is not None and response.status == 200, name
                if r:
                    out[name].append(float(page.evaluate(LOAD_MS)))
            if r:
                print(f"  browser round {r}/{LOAD_ROUNDS}", flush=True)
        browser.close()
    return out


def _chart(pages: dict[str, dict[str, float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(pages)
    x = np.arange(len(names))
    fig, ax = plt.subplots(figsize=(10, 4.2))
    ax.bar(x - 0.2, [pages[n]["server_p95_ms"] for n in names], 0.4, label="server time p95")
    ax.bar(x + 0.2, [pages[n]["load_p95_ms"] for n in names], 0.4, label="browser load p95")
    ax.axhline(GOAL_SERVER_P95_MS, color="#c0392b", linestyle="--", linewidth=1, label="server goal (300 ms)")
    ax.set_xticks(x, names, rotation=30, ha="right")
    ax.set_ylabel("ms")
    ax.set_title(f"Console pages, {EPISODES:,} episodes and {ENTRIES:,} entries")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run() -> dict[str, Any]:
    embedder = get_embedder()
    texts, vectors, _ = locomo_workload(embedder)
    with bench_database(heap="2g", pagecache="1g") as db:
        apply_schema(db, embedder.dimension, embedder.model_name)
        db.slow_ms = float("inf")
        with serve_api(db, GRIMOIRE_SCHEDULER="false", GRIMOIRE_ADMIN_KEY=ADMIN, GRIMOIRE_SLOW_QUERY_MS="1000000",
                       GRIMOIRE_SEED_MENTAL_MODELS="false") as base:
            with httpx.Client(base_url=base, timeout=300) as c:
                print("  the demo agent", flush=True)
                demo = seed(c, ADMIN, db=db, days=14, progress=lambda step: print(f"    {step}", flush=True))
            _bulk(db, texts, vectors)
            db.run("schema/await_indexes", seconds=900)
            waited = settle(db)
            person = demo.keys["person"]
            server = _server_times(base, person)
            load = _load_times(base, person)
    pages = {}
    for name in PAGES:
        s, b = summary(server[name]), summary(load[name])
        pages[name] = {"server_p50_ms": round(s["median"], 1), "server_p95_ms": round(s["p95"], 1),
                       "load_p50_ms": round(b["median"], 1), "load_p95_ms": round(b["p95"], 1)}
    _chart(pages, RESULTS / "console.png")
    worst = max(p["server_p95_ms"] for p in pages.values())
    return {
        "unit": "ms per page: server time (the HTML over loopback, signed in) and the browser's load time "
                "(Debian's Chromium: navigation start to the load event, cache warm)",
        "command": "python -m bench console",
        "episodes": EPISODES, "entries": ENTRIES, "agent": AGENT,
        "rounds": {"server": SERVER_ROUNDS, "browser": LOAD_ROUNDS, "warmup": WARMUP},
        "settled_seconds": waited,
        "pages": pages,
        "worst_server_p95_ms": worst,
        "goal": f"every page under {GOAL_SERVER_P95_MS:.0f} ms server time (p95)",
        "goal_met": worst < GOAL_SERVER_P95_MS,
        "chart": "bench/results/console.png",
    }
