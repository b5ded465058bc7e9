"""The Neo4j a benchmark runs against: NEO4J_URI when set (use a scratch database: benchmarks write
to it), otherwise a throwaway local server in a temporary home, stopped afterwards."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from graph.db.connection import Database, Target
from graph.db.local_server import LocalNeo4j, free_port


@contextmanager
def bench_database(heap: str = "2g", pagecache: str = "1g") -> Iterator[Database]:
    if os.environ.get("NEO4J_URI"):
        db = Database(Target(os.environ["NEO4J_URI"], os.environ.get("NEO4J_USER", "neo4j"),
                             os.environ.get("NEO4J_PASSWORD", ""), os.environ.get("NEO4J_DATABASE", "neo4j")))
        try:
            yield db
        finally:
            db.close()
        return
    with tempfile.TemporaryDirectory(prefix="grimoire-bench-db-") as tmp:
        server = LocalNeo4j(home=Path(tmp), bolt_port=free_port(), http_port=free_port(), heap=heap,
                            pagecache=pagecache)
        server.start()
        db = Database(Target(server.uri, server.user, server.password, "neo4j"))
        try:
            yield db
        finally:
            db.close()
            server.stop()
