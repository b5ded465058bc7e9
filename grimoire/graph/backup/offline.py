"""The offline backup of the project's local Neo4j: `neo4j-admin database dump` and `load`, run from the server's
own jars (.neo4j/dist), while the server is stopped (Community Edition dumps and loads only a stopped database).
A dump is Neo4j's own format: the store files as they are, indexes and all, restored by the same major version."""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from grimoire.graph.db.local_server import LocalNeo4j, LocalServerError, find_java, resolve_jars

DATABASE = "neo4j"
TIMEOUT_SECONDS = 6 * 3600


@dataclass(frozen=True)
class DumpReport:
    path: Path
    bytes: int
    seconds: float


def _stopped(server: LocalNeo4j, what: str) -> None:
    if server.pid() is not None:
        raise LocalServerError(f"the local Neo4j is running (pid {server.pid()}): {what} needs it stopped. Stop the "
                               "service, then `grimoire neo4j stop`; `grimoire neo4j start` afterwards.")


def _admin(server: LocalNeo4j, *args: str) -> None:
    java = find_java()
    dist = resolve_jars(log=server.log)
    server.write_config(dist)  # the tool reads the server's configuration: where its data lives
    env = dict(os.environ, NEO4J_HOME=str(server.home), NEO4J_CONF=str(server.home / "conf"))
    cmd = [java, "-cp", f"{dist / 'lib'}/*", "org.neo4j.cli.AdminTool", "database", *args]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
    if proc.returncode != 0:
        raise LocalServerError(f"neo4j-admin database {args[0]} failed:\n{proc.stdout}\n{proc.stderr}".rstrip())


def dump(server: LocalNeo4j, folder: Path, database: str = DATABASE) -> DumpReport:
    """`<folder>/<database>.dump`, replacing one there."""
    _stopped(server, "a dump")
    started = time.monotonic()
    folder.mkdir(parents=True, exist_ok=True)
    _admin(server, "dump", database, f"--to-path={folder}", "--overwrite-destination=true")
    path = folder / f"{database}.dump"
    return DumpReport(path=path, bytes=path.stat().st_size, seconds=time.monotonic() - started)


def load(server: LocalNeo4j, source: Path, database: str = DATABASE) -> float:
    """Replace the local server's database by a dump: `source` is the dump file or the folder holding
    `<database>.dump`. Seconds taken."""
    _stopped(server, "a load")
    folder = source.parent if source.is_file() else source
    if not (folder / f"{database}.dump").exists():
        raise LocalServerError(f"no {database}.dump in {folder} (a dump is named for its database)")
    started = time.monotonic()
    _admin(server, "load", database, f"--from-path={folder}", "--overwrite-destination=true")
    return time.monotonic() - started
