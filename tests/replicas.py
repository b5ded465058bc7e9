"""Replicas of the service as separate processes (`grimoire serve`) on the test's Neo4j: what a fleet runs, each with
its own model, driver, scheduler and caches, sharing only the database. A test starts them, kills one with SIGKILL,
restarts it, and every one started is stopped when the test ends (`replicas()`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from grimoire.graph.db.local_server import free_port
from grimoire.graph.settings import PROJECT_ROOT
from tests.conftest import ADMIN_KEY, Neo4jUnderTest

START_SECONDS = 180.0  # a cold start loads the model (and exports it to ONNX once per machine)


@dataclass
class Replica:
    """One `grimoire serve` process on its own port; `env` adds to or overrides the service's settings."""

    server: Neo4jUnderTest
    log_dir: Path
    name: str
    env: dict[str, str] = field(default_factory=dict)
    workers: int = 1
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_file(self) -> Path:
        return self.log_dir / f"{self.name}.log"

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "GRIMOIRE_"))}
        env.update(NEO4J_URI=self.server.uri, NEO4J_USER=self.server.user, NEO4J_PASSWORD=self.server.password,
                   NEO4J_DATABASE=self.server.database, GRIMOIRE_ADMIN_KEY=ADMIN_KEY,
                   GRIMOIRE_MENTAL_MODELS="false", GRIMOIRE_CURATOR_PROCESS="false",
                   GRIMOIRE_SCHEDULER="false", GRIMOIRE_STARTUP_WAIT="60")
        env.update(self.env)
        return env

    def start(self, wait: bool = True) -> Replica:
        assert self.proc is None or self.proc.poll() is not None, f"{self.name} is already running"
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log = self.log_file.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "grimoire.api.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port),
             "--workers", str(self.workers)],
            env=self.environment(), cwd=PROJECT_ROOT, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)  # its own process group: a kill reaches uvicorn's workers too
        self.starts += 1
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self, timeout: float = START_SECONDS) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.name} exited ({self.proc.returncode}):\n{self.tail()}")
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise AssertionError(f"{self.name} did not answer /health within {timeout:.0f} s:\n{self.tail()}")

    def kill(self) -> None:
        """SIGKILL to the whole process group: no shutdown hook runs, leases are left to expire."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(30)

    def tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


@contextmanager
def replicas(server: Neo4jUnderTest, log_dir: Path, count: int, *, env: dict[str, str] | None = None,
             workers: int = 1) -> Iterator[list[Replica]]:
    """`count` replicas started side by side (they load their models at once), all stopped afterwards."""
    started = [Replica(server, log_dir, f"replica-{i}", dict(env or {}), workers) for i in range(count)]
    try:
        for r in started:
            r.start(wait=False)
        for r in started:
            r.wait_ready()
        yield started
    finally:
        for r in started:
            r.stop()
