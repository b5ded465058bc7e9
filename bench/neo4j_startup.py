"""How long the project's own Neo4j takes to start: a fresh home (first start, password set)
and a restart of an existing one, each timed until Bolt answers a query."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import summary, write_result
from grimoire.graph.db.local_server import LocalNeo4j, free_port, resolve_jars

COLD_RUNS = 3
WARM_RUNS = 5


def _timed_start(server: LocalNeo4j) -> float:
    started = time.perf_counter()
    server.start(timeout=300)
    return time.perf_counter() - started


def run() -> dict[str, Any]:
    resolve_jars()  # jar resolution is a one-off, not part of a start
    quiet = lambda _msg: None  # noqa: E731
    cold: list[float] = []
    warm: list[float] = []
    with tempfile.TemporaryDirectory(prefix="grimoire-bench-") as tmp:
        for i in range(COLD_RUNS):
            server = LocalNeo4j(home=Path(tmp) / f"cold{i}", bolt_port=free_port(), http_port=free_port(),
                                heap="1g", pagecache="256m", log=quiet)
            cold.append(_timed_start(server))
            print(f"  cold start {i + 1}/{COLD_RUNS}: {cold[-1]:.1f}s", flush=True)
            if i < COLD_RUNS - 1:
                server.stop()
        for i in range(WARM_RUNS):
            server.stop()
            warm.append(_timed_start(server))
            print(f"  restart {i + 1}/{WARM_RUNS}: {warm[-1]:.1f}s", flush=True)
        server.stop()
    return {"unit": "seconds", "first_start": summary(cold), "restart": summary(warm),
            "note": "time from launching the JVM until Bolt answers a query on the neo4j database"}


if __name__ == "__main__":
    print(write_result("neo4j_startup", run()))
