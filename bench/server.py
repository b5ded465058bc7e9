"""The Neo4j a benchmark runs against: NEO4J_URI when set (use a scratch database: benchmarks write
to it), otherwise a throwaway local server in a temporary home, stopped afterwards."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from grimoire.graph.db.connection import Database, Target
from grimoire.graph.db.local_server import LocalNeo4j, free_port


@contextmanager
def bench_database(heap: str = "2g", pagecache: str = "1g", home: Path | None = None) -> Iterator[Database]:
    """`home`: a local server's home kept between runs (its data stays; the server is stopped afterwards)."""
    if os.environ.get("NEO4J_URI"):
        db = Database(Target(os.environ["NEO4J_URI"], os.environ.get("NEO4J_USER", "neo4j"),
                             os.environ.get("NEO4J_PASSWORD", ""), os.environ.get("NEO4J_DATABASE", "neo4j")))
        try:
            yield db
        finally:
            db.close()
        return
    if home is not None:
        home.mkdir(parents=True, exist_ok=True)
        with _served(home, heap, pagecache) as db:
            yield db
        return
    with tempfile.TemporaryDirectory(prefix="grimoire-bench-db-") as tmp, _served(Path(tmp), heap, pagecache) as db:
        yield db


@contextmanager
def _served(home: Path, heap: str, pagecache: str) -> Iterator[Database]:
    server = LocalNeo4j(home=home, bolt_port=free_port(), http_port=free_port(), heap=heap, pagecache=pagecache)
    try:
        server.start()
        db = Database(Target(server.uri, server.user, server.password, "neo4j"))
        _servers[id(db)] = server
        try:
            yield db
        finally:
            _servers.pop(id(db), None)
            db.close()
    finally:
        server.stop()


_servers: dict[int, LocalNeo4j] = {}


def vector_segments(db: Database) -> dict[str, int] | None:
    """Lucene segments of each vector index (its files, on a server we started); None otherwise."""
    server = _servers.get(id(db))
    if server is None:
        return None
    root = server.home / "data" / "databases" / db.name / "schema" / "index"
    names = {str(r["id"]): r["name"] for r in db.rows("schema/index_ids") if r["type"] == "VECTOR"}
    return {names[d.name]: len(list(d.rglob("*.si"))) for folder in root.glob("vector-*")
            for d in folder.iterdir() if d.name in names}


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def settle(db: Database, *, quiet: float = 0.05, window: float = 5.0, limit: float = 600.0) -> float:
    """Wait until the server is done with what a bulk load left it (Lucene merging index segments
    in the background), so latency is measured in the steady state rather than during merges: its
    process must use under `quiet` of a core over a `window`. Seconds waited; a server we did not
    start (NEO4J_URI) gets a fixed 30 s."""
    started = time.monotonic()
    server = _servers.get(id(db))
    pid = server.pid() if server else None
    if pid is None:
        time.sleep(30)
        return 30.0
    while time.monotonic() - started < limit:
        before = _cpu_seconds(pid)
        time.sleep(window)
        if (_cpu_seconds(pid) - before) / window < quiet:
            break
    waited = time.monotonic() - started
    print(f"  the server settled in {waited:.0f} s", flush=True)
    return round(waited, 1)
