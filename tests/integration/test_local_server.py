"""The project's own Neo4j: layout, configuration, reuse, and clear failures."""

from __future__ import annotations

import os
import stat
import urllib.request
from pathlib import Path

import pytest

from grimoire.graph.db import local_server
from grimoire.graph.db.local_server import LocalNeo4j, LocalServerError, find_java, resolve_jars
from grimoire.graph.settings import PROJECT_ROOT


def test_config_is_loopback_with_auth_and_unrestricted_plugins(tmp_path: Path) -> None:
    server = LocalNeo4j(home=tmp_path / "home", bolt_port=17001, http_port=17002)
    conf = server.write_config(tmp_path / "dist").read_text()
    settings = dict(line.split("=", 1) for line in conf.splitlines() if "=" in line and not line.startswith("#"))
    assert settings["server.default_listen_address"] == "127.0.0.1"
    assert settings["server.bolt.listen_address"] == "127.0.0.1:17001"
    assert settings["server.http.listen_address"] == "127.0.0.1:17002"
    assert settings["dbms.security.auth_enabled"] == "true"
    assert settings["dbms.security.procedures.unrestricted"] == "gds.*,apoc.*"
    heap, pagecache = local_server.default_memory()
    assert settings["server.memory.heap.max_size"] == heap and settings["server.memory.pagecache.size"] == pagecache
    for sub in ("conf", "data", "logs", "run", "import"):
        assert (tmp_path / "home" / sub).is_dir()


def test_memory_is_sized_for_the_machine() -> None:
    heap, pagecache = local_server.default_memory()
    total_mb = local_server.machine_memory_bytes() // (1024 * 1024)
    assert 512 <= int(heap[:-1]) <= min(4096, max(512, total_mb // 8))
    assert 256 <= int(pagecache[:-1]) <= 2048


def test_running_server_is_reused_and_reports_status(local_neo4j) -> None:
    local, _ = local_neo4j
    pid = local.pid()
    assert pid is not None
    assert local.start(timeout=30) is local
    assert local.pid() == pid  # no second server
    status = local.status()
    assert status["running"] and status["bolt_answers"] and status["pid"] == pid
    mode = stat.S_IMODE(os.stat(local.password_file).st_mode)
    assert mode == 0o600


def test_neo4j_browser_answers(local_neo4j) -> None:
    local, _ = local_neo4j
    with urllib.request.urlopen(local.browser_url, timeout=10) as resp:
        assert resp.status == 200
        assert "<title>Neo4j Browser</title>" in resp.read().decode()
    with urllib.request.urlopen(f"http://127.0.0.1:{local.http_port}/", timeout=10) as resp:
        assert f"bolt://127.0.0.1:{local.bolt_port}" in resp.read().decode()  # what Browser connects to


def test_port_taken_is_reported(local_neo4j, tmp_path: Path) -> None:
    local, _ = local_neo4j
    other = LocalNeo4j(home=tmp_path / "other", bolt_port=local.bolt_port, http_port=local_server.free_port())
    with pytest.raises(LocalServerError, match=rf"Port {local.bolt_port} \(Bolt\) is taken"):
        other.start(timeout=10)


def test_failed_start_names_the_log(tmp_path: Path) -> None:
    server = LocalNeo4j(home=tmp_path / "bad", bolt_port=local_server.free_port(),
                        http_port=local_server.free_port(), heap="512m", pagecache="64m")
    # A system database that is a plain file: the server reads its config, then fails to open it.
    (server.home / "data" / "databases").mkdir(parents=True)
    (server.home / "data" / "databases" / "system").write_text("not a store")
    server.password_file.write_text("irrelevant\n")
    with pytest.raises(LocalServerError, match="exited during start-up") as err:
        server.start(timeout=120)
    assert str(server.log_file) in str(err.value)
    assert server.pid() is None


def test_java_missing_is_reported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(LocalServerError, match="Java is missing"):
        find_java(jvm_root=tmp_path)


def test_maven_missing_is_reported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(LocalServerError, match="Maven is missing"):
        resolve_jars(pom=PROJECT_ROOT / "pom.xml", root=tmp_path / "dist", log=lambda _: None)


def test_unresolvable_jars_are_reported_with_the_log(tmp_path: Path) -> None:
    pom = tmp_path / "pom.xml"
    pom.write_text((PROJECT_ROOT / "pom.xml").read_text().replace(
        "<gds.version>2.13.9</gds.version>", "<gds.version>0.0.404</gds.version>"))
    with pytest.raises(LocalServerError, match="Maven could not resolve") as err:
        resolve_jars(pom=pom, root=tmp_path / "dist", log=lambda _: None)
    assert "maven.log" in str(err.value)
    assert not (local_server.dist_dir(pom, tmp_path / "dist") / ".complete").exists()
