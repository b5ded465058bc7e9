"""The TypeScript client (clients/typescript) against the live service (issue 38, section 5): its packages installed
from the lock file (`npm ci`, once), its types checked against the committed OpenAPI document, compiled with tsc, then
node's own test runner drives it against a real `grimoire serve` on the test's Neo4j (writes read back, the typed
error, Retry-After on a 429, paging, the event stream), and the TypeScript agent loop (examples/agent_loop.ts) runs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from grimoire.api.openapi_doc import CLIENT
from grimoire.graph.db.connection import Database
from tests.conftest import ADMIN_KEY, Neo4jUnderTest
from tests.replicas import Replica, replicas

NODE, NPM = shutil.which("node"), shutil.which("npm")
pytestmark = pytest.mark.skipif(NODE is None or NPM is None,
                                reason="node and npm are not installed: the TypeScript client needs them to build")
ADMIN = {"X-API-Key": ADMIN_KEY}
NPM_SECONDS = 600


def _run(*args: str, env: dict[str, str] | None = None,
         timeout: float = NPM_SECONDS) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=CLIENT, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def _installed() -> bool:
    """The lock file's packages are in node_modules (npm ci writes its own copy of the lock there)."""
    mine = CLIENT / "node_modules" / ".package-lock.json"
    return mine.exists() and mine.stat().st_mtime >= (CLIENT / "package-lock.json").stat().st_mtime


@pytest.fixture(scope="module")
def built() -> Path:
    """The client installed (from npm's cache when it has the packages) and compiled: dist/, .build/."""
    if not _installed():
        done = _run("npm", "ci", "--prefer-offline", "--no-audit", "--no-fund")
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    done = _run("npm", "run", "build")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return CLIENT


@pytest.fixture(scope="module")
def service(neo4j_server: Neo4jUnderTest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replica]:
    with replicas(neo4j_server, tmp_path_factory.mktemp("ts-client"), 1) as (one,):
        yield one


def _key(url: str, agent: str) -> str:
    made = httpx.post(f"{url}/agents", headers=ADMIN, timeout=60,
                      json={"id": agent, "name": agent, "kind": "main", "clade": "clade-ts"})
    assert made.status_code in (201, 409), made.text
    key = httpx.post(f"{url}/agents/{agent}/keys", headers=ADMIN, json={"scopes": ["read", "write"]}, timeout=60)
    assert key.status_code == 201, key.text
    return str(key.json()["key"])


def _env(url: str, key: str, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRIMOIRE_")}
    return {**env, "GRIMOIRE_URL": url, "GRIMOIRE_API_KEY": key, **more}


def test_the_generated_types_are_the_documents(built: Path) -> None:
    done = _run("npm", "run", "check-generated")
    assert done.returncode == 0, (done.stdout + done.stderr)[-2000:] + "\nrun `grimoire client openapi --write`"


def test_the_node_tests_pass_against_the_live_service(built: Path, service: Replica, db: Database) -> None:
    key = _key(service.url, "ts-agent")
    env = _env(service.url, key, GRIMOIRE_TEST_AGENT="ts-agent", GRIMOIRE_TEST_ADMIN_KEY=ADMIN_KEY)
    done = _run("node", "--test", "--test-reporter=tap", ".build/test/", env=env)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-6000:]
    counts = {name: int(n) for name, n in re.findall(r"^# (tests|pass|fail|cancelled|skipped) (\d+)$", report, re.M)}
    assert counts.get("pass", 0) == counts.get("tests") and counts["pass"] >= 11, report[-3000:]  # all ran, all passed


def test_the_typescript_agent_loop_runs(built: Path, service: Replica, db: Database) -> None:
    key = _key(service.url, "ts-looper")
    done = _run("node", ".build/examples/agent_loop.js", env=_env(service.url, key), timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("agent ts-looper") and "learned: admitted" in lines[1], lines
    assert [line.split(":")[0] for line in lines[2:5]] == ["tick 0", "tick 1", "tick 2"], lines
    assert "decided to wait" in lines[2] and "decided to rebalance" in lines[3], lines
    assert lines[-1] == "episodes now: 6"
    listed = httpx.get(f"{service.url}/episodes", headers={"X-API-Key": key}, params={"limit": 50}, timeout=60).json()
    assert len(listed) == 6
