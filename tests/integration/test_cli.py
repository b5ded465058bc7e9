"""The grimoire command line against the real server: the local server, the schema and serving directly; the
commands that read or act on agents through the client against a running service (api/cli_remote.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from grimoire.graph.db.local_server import free_port
from grimoire.graph.settings import PROJECT_ROOT
from tests.conftest import ADMIN_KEY, Neo4jUnderTest
from tests.replicas import Replica, replicas


def _grimoire(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grimoire.api.cli", *args], env=env, cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=300)


def test_neo4j_status_of_the_local_server(local_neo4j) -> None:
    local, _ = local_neo4j
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env.update(GRIMOIRE_NEO4J_HOME=str(local.home), NEO4J_BOLT_PORT=str(local.bolt_port),
               NEO4J_HTTP_PORT=str(local.http_port))
    proc = _grimoire("neo4j", "status", env=env)
    assert proc.returncode == 0, proc.stderr
    status = json.loads(proc.stdout)
    assert status["running"] and status["bolt_answers"] and status["pid"] == local.pid()
    started = _grimoire("neo4j", "start", env=env)  # reuses, starts nothing new
    assert started.returncode == 0 and "reusing" in started.stderr
    assert local.pid() == status["pid"]


def test_schema_apply_on_a_configured_server(db, neo4j_server) -> None:
    env = dict(os.environ, NEO4J_URI=neo4j_server.uri, NEO4J_USER=neo4j_server.user,
               NEO4J_PASSWORD=neo4j_server.password, NEO4J_DATABASE=neo4j_server.database)
    proc = _grimoire("schema", "apply", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "schema applied: 0 constraints and 0 indexes added (vector dimension 384" in proc.stdout


def test_schema_rebuild_vectors_on_a_configured_server(db, neo4j_server) -> None:
    env = dict(os.environ, NEO4J_URI=neo4j_server.uri, NEO4J_USER=neo4j_server.user,
               NEO4J_PASSWORD=neo4j_server.password, NEO4J_DATABASE=neo4j_server.database)
    proc = _grimoire("schema", "rebuild-vectors", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "vector indexes rebuilt (episode_embedding, entry_embedding)" in proc.stdout
    assert "populating entry_embedding 100%, episode_embedding 100%" in proc.stderr


def test_up_applies_the_schema_and_serves(db, neo4j_server, tmp_path) -> None:
    """`make up` runs `grimoire up`: with NEO4J_URI it starts no server, applies the schema, serves."""
    from grimoire.graph.db.local_server import free_port

    port = free_port()
    env = dict(os.environ, NEO4J_URI=neo4j_server.uri, NEO4J_USER=neo4j_server.user,
               NEO4J_PASSWORD=neo4j_server.password, NEO4J_DATABASE=neo4j_server.database,
               GRIMOIRE_NEO4J_HOME=str(tmp_path / "home"))
    proc = subprocess.Popen([sys.executable, "-m", "grimoire.api.cli", "up", "--host", "127.0.0.1",
                             "--port", str(port)],
                            env=env, cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 180
        status = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                status = httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code
            except httpx.HTTPError:
                status = None
            if status == 200:
                break
            time.sleep(1)
        assert status == 200, proc.stdout.read() if proc.poll() is not None else "no answer from /health"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert "schema applied" in proc.stdout.read()


def test_serve_generates_and_keeps_an_admin_key(tmp_path) -> None:
    from grimoire.api.cli import admin_key_file, with_admin_key
    from grimoire.graph.settings import Settings

    settings = Settings(GRIMOIRE_NEO4J_HOME=str(tmp_path / "home"))
    first = with_admin_key(settings)
    path = admin_key_file(settings)
    assert first.admin_key and len(first.admin_key) > 32 and path.stat().st_mode & 0o777 == 0o600
    assert with_admin_key(settings).admin_key == first.admin_key  # the same on every start
    chosen = Settings(GRIMOIRE_NEO4J_HOME=str(tmp_path / "home"), GRIMOIRE_ADMIN_KEY="mine-0123456789")
    assert with_admin_key(chosen).admin_key == "mine-0123456789"


@pytest.fixture(scope="module")
def service(neo4j_server: Neo4jUnderTest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replica]:
    """A running service (its scheduler off, as the tests run it): the agent commands' other end."""
    with replicas(neo4j_server, tmp_path_factory.mktemp("cli"), 1) as (one,):
        yield one


def _through(service: Replica, key: str = ADMIN_KEY) -> dict[str, str]:
    """The environment of a command that goes through the client: the service's URL and a key, no database."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "GRIMOIRE_"))}
    return env | {"GRIMOIRE_URL": service.url, "GRIMOIRE_API_KEY": key}


def test_audit_fold_and_archive(api, service: Replica) -> None:
    """`grimoire audit fold` has the service fold the months past the window into digests now (POST /audit/fold,
    the admin's), whatever its scheduler; `audit archive` prints them; the fold is the command line's in the
    trail."""
    h = api.headers("cli-archivist", "clade-cli")
    api.client.put("/agents/cli-archivist/core/context", headers=h, json={"content": "- one"})
    api.db.run("testing/age_audit", agent_id="cli-archivist", to=1768471200000)  # 2026-01-15
    env = _through(service)
    folded = _grimoire("audit", "fold", env=env)
    assert folded.returncode == 0, folded.stderr
    assert folded.stdout.startswith("1 months folded into digests")
    trail = api.client.get("/agents/cli-archivist/audit", headers=api.admin, params={"limit": 50}).json()
    assert [r["channel"] for r in trail if r["action"] == "audit.fold"] == ["cli"]
    archive = _grimoire("audit", "archive", "--agent", "cli-archivist", env=env)
    assert archive.returncode == 0, archive.stderr
    assert archive.stdout.startswith("# Audit Digest — January 2026\n## Summary\n- ")
    agent_key = h["X-API-Key"]
    refused = _grimoire("audit", "fold", env=_through(service, agent_key))  # folding is the admin's
    assert refused.returncode == 2 and "admin" in refused.stderr.lower(), refused.stderr
    gone = _grimoire("audit", "recent", "--agent", "cli-archivist", env=_through(service, "gk_not-a-key"))
    assert gone.returncode == 2 and gone.stdout == ""


def test_agent_commands_need_the_service(tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "GRIMOIRE_"))}
    env |= {"GRIMOIRE_URL": f"http://127.0.0.1:{free_port()}", "GRIMOIRE_API_KEY": ADMIN_KEY}
    done = _grimoire("context", "policy", "--agent", "anyone", env=env)
    assert done.returncode == 2 and "is the service running" in done.stderr, done.stderr


def test_context_policy_revisions_and_delta(api, service: Replica) -> None:
    """`grimoire context policy|revisions|delta --agent A`: what the REST routes show, as JSON."""
    h = api.headers("cli-governed", "clade-cli")
    r = api.client.put("/agents/cli-governed/context/policy", headers=h,
                       json={"allocations": {"contrarian": 0.07}, "reason": "from the CLI test"})
    assert r.status_code == 200, r.text
    env = _through(service)
    policy = _grimoire("context", "policy", "--agent", "cli-governed", env=env)
    assert policy.returncode == 0, policy.stderr
    assert json.loads(policy.stdout)["revision"] == 1 and json.loads(policy.stdout)["allocations"]["contrarian"] == 0.07
    revisions = json.loads(_grimoire("context", "revisions", "--agent", "cli-governed", env=env).stdout)
    assert [x["revision"] for x in revisions] == [1] and revisions[0]["reason"] == "from the CLI test"
    delta = json.loads(_grimoire("context", "delta", "--agent", "cli-governed", "--from", "0", env=env).stdout)
    assert delta["to"] == 1 and delta["allocations"] == {"contrarian": 0.03}
    missing = _grimoire("context", "delta", "--agent", "cli-governed", "--from", "7", env=env)
    assert missing.returncode == 2 and "no revision 7" in missing.stderr
    # an agent's own key reads its own policy and no one else's: the service's visibility holds for the CLI
    own = _grimoire("context", "policy", "--agent", "cli-governed", env=_through(service, h["X-API-Key"]))
    assert own.returncode == 0 and json.loads(own.stdout)["revision"] == 1
    other = api.headers("cli-other", "clade-cli-2")["X-API-Key"]
    refused = _grimoire("context", "policy", "--agent", "cli-governed", env=_through(service, other))
    assert refused.returncode == 2 and refused.stdout == ""


def test_context_assemble_feedback_and_the_loops(api, service: Replica) -> None:
    """`grimoire context assemble|feedback|recalibrate|decisions|beliefs --agent A`: the Governor from the CLI,
    audited as the command line's."""
    h = api.headers("cli-governed", "clade-cli")
    r = api.client.post("/entries", headers=h, json={"id": "cli-heuristic", "category": "Heuristic",
                                                      "content": "Split large ETH swaps into tranches."})
    assert r.status_code in (200, 201), r.text
    env = _through(service)
    text = _grimoire("context", "assemble", "--agent", "cli-governed", "--query", "swap ETH in tranches",
                     "--regime", "bull", "--budget", "600", "--text", env=env)
    assert text.returncode == 0, text.stderr
    assert "<playbook>" in text.stdout and "Split large ETH swaps into tranches." in text.stdout
    built = _grimoire("context", "assemble", "--agent", "cli-governed", "--query", "swap ETH in tranches",
                      "--regime", "bull", "--pad=-0.5,0.6,0", env=env)
    assert built.returncode == 0, built.stderr[-3000:]
    out = json.loads(built.stdout)
    assert out["situation"]["affect"] == ["stressed"] and out["total_tokens"] <= 8000
    ref = out["categories"]["playbook"][0]["ref"]
    fed = json.loads(_grimoire("context", "feedback", "--agent", "cli-governed", "--assembly", out["assembly_id"],
                               "--quality", "0.9", "--cited", ref, env=env).stdout)
    assert fed["influenced"] == ["playbook"] and fed["outcome"] == "good"
    assert json.loads(_grimoire("context", "decisions", "--agent", "cli-governed", env=env).stdout)[0]["id"] == \
        fed["decision_id"]
    beliefs = json.loads(_grimoire("context", "beliefs", "--agent", "cli-governed", env=env).stdout)
    assert {b["category"] for b in beliefs} >= {"playbook", "affect"}
    again = json.loads(_grimoire("context", "recalibrate", "--agent", "cli-governed", env=env).stdout)
    assert again["revision"] == 1 and again["trigger"] == "manual"
    bad = _grimoire("context", "feedback", "--agent", "cli-governed", "--assembly", "nope", "--quality", "1",
                    env=env)
    assert bad.returncode == 2 and "no workspace" in bad.stderr
    trail = api.client.get("/agents/cli-governed/audit", headers=h, params={"limit": 200}).json()
    assert {r["channel"] for r in trail} >= {"cli", "rest"}  # the CLI's feedback and loops; the test's own writes
