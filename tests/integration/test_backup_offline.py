"""The offline backup (graph/backup/offline.py) through the command line: the local server's dump while it is
stopped, loaded back into it: the same store, by its digest. Refused while the server runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from grimoire.graph.backup.digest import StoreDigest, digest
from grimoire.graph.db.connection import Database
from grimoire.graph.settings import PROJECT_ROOT


def _grimoire(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grimoire.api.cli", *args], env=env, cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=900)


def _digest(server) -> StoreDigest:
    db = Database(server.target())  # a driver of its own: the server restarts between reads
    try:
        return digest(db)
    finally:
        db.close()


def _run(server, name: str) -> None:
    db = Database(server.target())
    try:
        db.run(name)
    finally:
        db.close()


def test_a_dump_of_the_stopped_local_server_loads_back(local_neo4j, tmp_path: Path) -> None:
    local, server = local_neo4j
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env.update(GRIMOIRE_NEO4J_HOME=str(local.home), NEO4J_BOLT_PORT=str(local.bolt_port),
               NEO4J_HTTP_PORT=str(local.http_port))
    _run(server, "testing/delete_all")
    _run(server, "testing/backup_values")
    before = _digest(server)
    assert before.nodes == 2
    running = _grimoire("backup", "--offline", str(tmp_path), env=env)
    assert running.returncode == 1 and "needs it stopped" in running.stderr

    local.stop()
    dumped = _grimoire("backup", "--offline", str(tmp_path), env=env)
    assert dumped.returncode == 0, dumped.stderr
    assert (tmp_path / "neo4j.dump").stat().st_size > 0

    local.start()
    _run(server, "testing/delete_all")
    assert _digest(server).nodes == 0
    local.stop()
    loaded = _grimoire("restore", "--offline", str(tmp_path / "neo4j.dump"), env=env)
    assert loaded.returncode == 0, loaded.stderr
    local.start()
    assert _digest(server) == before
