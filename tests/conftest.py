"""Fixtures: a real Neo4j for the whole run, a clean database for every test.

Where the server comes from, in order:
1. NEO4J_URI (with NEO4J_USER / NEO4J_PASSWORD) when set: the user's own server or Aura;
2. a testcontainers Neo4j 5.26 with GDS and APOC when a Docker daemon answers;
3. otherwise the project's own local server, on free ports in a temporary home,
   stopped when the run ends.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from grimoire.graph import observe
from grimoire.graph.crystals.config import CrystalsConfig
from grimoire.graph.db.connection import Database, Target
from grimoire.graph.db.local_server import LocalNeo4j, free_port
from grimoire.graph.embeddings import Embedder, get_embedder
from grimoire.graph.knowledge.admission import AdmissionConfig
from grimoire.graph.model.crystal.privacy import MemoryScope
from grimoire.graph.observe import Observer, Timing
from grimoire.graph.schema import apply_schema
from grimoire.graph.settings import DEFAULT_MODEL, Settings
from grimoire.graph.topology.cooccurrence import CoOccurrenceConfig
from grimoire.graph.topology.freshness import FactConfig

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
if not DATA.exists():
    DATA = Path(os.environ.get("GRIMOIRE_DATA", "../shared/data")).resolve()

NEO4J_IMAGE = "neo4j:5.26-community"


@dataclass
class Neo4jUnderTest:
    kind: str  # "external", "testcontainers" or "local"
    uri: str
    user: str
    password: str
    database: str = "neo4j"
    http_url: str | None = None
    local: LocalNeo4j | None = None

    def target(self) -> Target:
        return Target(self.uri, self.user, self.password, self.database)

    def settings(self, **overrides: object) -> Settings:
        values: dict[str, object] = {
            "neo4j_uri": self.uri, "neo4j_user": self.user, "neo4j_password": self.password,
            "neo4j_database": self.database, "startup_wait_seconds": 20.0,
            "scheduler_enabled": False,  # no periodic job runs under another test; test_scheduler turns it on
            "seed_mental_models": False,  # the 13 mental models; test_mental_models turns them on
            "curator_process": False,  # cycles on a thread of the test's process; test_curator_process turns it on
            # Episodes and facts keep the scope they are written with, so the isolation tests have shared and
            # public ones to partition; the document's rule (memory crystals private, the service's default) is
            # test_memory_crystals_private's, which builds its app with the default.
            "crystals": CrystalsConfig(memory_scope=MemoryScope.as_written),
            # A factor under its threshold only flags (per_factor flag): the suite's entries are written to exercise
            # other things, many of them generic advice (rule-based future utility 0.3) the gate's default rejects.
            # The default (reject) is tests/unit/test_admission.py's, test_entries' and test_learning_life's, which
            # set it on their app.
            "admission": AdmissionConfig(per_factor="flag"),
            # The jobs a test runs see what it wrote just before: no ingest of another is in flight to wait for
            # (the co-occurrence watermark's settle time; its own tests set theirs).
            "facts": FactConfig(co_occurrence=CoOccurrenceConfig(settle_seconds=0.0)),
        }
        values.update(overrides)
        return Settings(**values)  # type: ignore[arg-type]


def _docker_answers() -> bool:
    try:
        import docker

        docker.from_env(timeout=3).ping()
        return True
    except Exception:
        return False


def _testcontainers_neo4j() -> tuple[Neo4jUnderTest, object]:
    from testcontainers.neo4j import Neo4jContainer

    password = "grimoire-test-password"
    container = (
        Neo4jContainer(NEO4J_IMAGE, password=password)
        .with_env("NEO4J_PLUGINS", '["graph-data-science","apoc"]')
        .with_env("NEO4J_dbms_security_procedures_unrestricted", "gds.*,apoc.*")
        .with_exposed_ports(7474, 7687)
    )
    container.start()
    http = f"http://{container.get_container_host_ip()}:{container.get_exposed_port(7474)}/browser/"
    return Neo4jUnderTest("testcontainers", container.get_connection_url(), "neo4j", password,
                          http_url=http), container


@pytest.fixture(autouse=True)
def _no_remembered_outage() -> Iterator[None]:
    """Each test starts with no model remembered as down: a port one test's dead model had may serve the next's."""
    from grimoire.graph.knowledge.llm import Breaker

    Breaker.forget_all()
    yield


@pytest.fixture(scope="session")
def neo4j_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jUnderTest]:
    if os.environ.get("NEO4J_URI"):
        yield Neo4jUnderTest(
            "external", os.environ["NEO4J_URI"], os.environ.get("NEO4J_USER", "neo4j"),
            os.environ.get("NEO4J_PASSWORD", ""), os.environ.get("NEO4J_DATABASE", "neo4j"),
            http_url=os.environ.get("NEO4J_BROWSER_URL"),
        )
        return
    if _docker_answers():
        server, container = _testcontainers_neo4j()
        try:
            yield server
        finally:
            container.stop()  # type: ignore[attr-defined]
        return
    local = LocalNeo4j(
        home=tmp_path_factory.mktemp("neo4j-home"), bolt_port=free_port(), http_port=free_port(),
        heap="1g", pagecache="512m",
    )
    atexit.register(local.stop)  # also on an aborted run
    # A terminated run (CI timeout, Ctrl-C from a wrapper) exits normally, so atexit stops the server.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    local.start()
    try:
        yield Neo4jUnderTest("local", local.uri, local.user, local.password,
                             http_url=local.browser_url, local=local)
    finally:
        local.stop()


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return get_embedder(DEFAULT_MODEL)


@pytest.fixture(scope="session")
def session_db(neo4j_server: Neo4jUnderTest, embedder: Embedder) -> Iterator[Database]:
    db = Database(neo4j_server.target())
    apply_schema(db, embedder.dimension, embedder.model_name)
    yield db
    db.close()


def clean_database(db: Database) -> None:
    """Remove every node and relationship and every GDS projection; keep the schema."""
    db.run("testing/drop_gds_graphs")
    db.run("testing/delete_all")


@pytest.fixture
def db(session_db: Database, embedder: Embedder) -> Database:
    session_db.rebuilding = frozenset()  # no vector index left marked as being rebuilt (graph/upkeep/)
    clean_database(session_db)
    apply_schema(session_db, embedder.dimension, embedder.model_name)
    return session_db


@pytest.fixture
def local_neo4j(neo4j_server: Neo4jUnderTest,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalNeo4j, Neo4jUnderTest]]:
    """A local server a test may stop and restart: the session's own when it is local, else a new one."""
    if neo4j_server.local is not None:
        yield neo4j_server.local, neo4j_server
        neo4j_server.local.start()  # running again (or reused) for the tests after this one
        return
    local = LocalNeo4j(home=tmp_path_factory.mktemp("own-home"), bolt_port=free_port(),
                       http_port=free_port(), heap="512m", pagecache="128m")
    local.start()
    try:
        yield local, Neo4jUnderTest("local", local.uri, local.user, local.password,
                                    http_url=local.browser_url, local=local)
    finally:
        local.stop()


ADMIN_KEY = "test-admin-key-0123456789"


class Api:
    """The API on the session's server, with a clean database, and keys for agents on demand."""

    def __init__(self, client, db: Database):
        self.client = client
        self.db = db
        self._keys: dict[tuple[str, tuple[str, ...]], str] = {}
        self.admin = {"X-API-Key": ADMIN_KEY}
        # Episodes are enriched lazily (GRIMOIRE_EPISODE_ENRICHMENT=lazy, graph/enrichment.py) and the scheduler is
        # off under tests: the queue is drained after every write, so a test reads an ingest's mentions at once.
        # A test of the pending state itself sets `drain` False (and runs the job when it means to).
        self.drain = True
        drain_after_writes(client, db, lambda: self.drain)

    def headers(self, agent_id: str = "golem-1", clade: str = "clade-a",
                scopes: tuple[str, ...] = ("read", "write"), kind: str = "main") -> dict[str, str]:
        if (agent_id, scopes) not in self._keys:
            r = self.client.post("/agents", headers=self.admin,
                                 json={"id": agent_id, "name": agent_id, "kind": kind, "clade": clade})
            assert r.status_code in (201, 409), r.text
            made = self.client.post(f"/agents/{agent_id}/keys", headers=self.admin, json={"scopes": list(scopes)})
            assert made.status_code == 201, made.text
            self._keys[(agent_id, scopes)] = made.json()["key"]
        return {"X-API-Key": self._keys[(agent_id, scopes)]}


def drain_after_writes(client: Any, db: Database, when: Any = lambda: True) -> None:
    """After every request of `client` but a read, the lazy enrichment job run to the end (graph/enrichment.py)."""
    from grimoire.graph import enrichment

    def drained(response: Any) -> None:
        if response.request.method not in ("GET", "HEAD", "OPTIONS") and when():
            enrichment.enrich(db)

    client.event_hooks = {**client.event_hooks, "response": [*client.event_hooks.get("response", []), drained]}


@contextmanager
def served(app: Any, name: str) -> Iterator[str]:
    """The app under uvicorn in a thread on a free port (a real socket: streams, MCP's HTTP client); its URL."""
    import threading
    import time

    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           timeout_graceful_shutdown=2))
    thread = threading.Thread(target=server.run, name=f"uvicorn-{name}", daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(15)


@pytest.fixture
def api(db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder):
    from fastapi.testclient import TestClient

    from grimoire.api.app import create_app

    app = create_app(neo4j_server.settings(admin_key=ADMIN_KEY), db=db, embedder=embedder)
    with TestClient(app) as c:
        yield Api(c, db)


@pytest.fixture
def client(api: Api):
    """A client acting as agent golem-1 (clade-a) with read and write scopes."""
    api.client.headers.update(api.headers("golem-1"))
    return api.client


def counts(db: Database) -> dict[str, int]:
    """How many nodes of each label and relationships of each type there are."""
    from collections import Counter

    row = db.run("testing/count_nodes")[0]
    return dict(Counter(row["labels"]) + Counter(row["types"]))


@pytest.fixture(scope="module")
def aave(session_db: Database, embedder: Embedder, neo4j_server: Neo4jUnderTest):
    """The Aave world loaded from ../shared/data (with the service's fact settings), for the tests of one module."""
    from grimoire.loaders.aave.load import load

    clean_database(session_db)
    report = load(session_db, embedder, DATA, freshness=neo4j_server.settings().facts,
                  progress=lambda items, *_: items)
    assert report.facts_created > 3_000 and report.facts_closed > 100 and report.episodes_created > 300
    yield session_db
    clean_database(session_db)


@pytest.fixture(scope="module")
def admin_client(aave: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder):
    """The API over the loaded Aave world, as the admin."""
    from fastapi.testclient import TestClient

    from grimoire.api.app import create_app

    with TestClient(create_app(neo4j_server.settings(admin_key=ADMIN_KEY), db=aave, embedder=embedder)) as c:
        c.headers.update({"X-API-Key": ADMIN_KEY})
        drain_after_writes(c, aave)
        yield c


UNIT = Path(__file__).resolve().parent / "unit"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`integration` marks every test that needs Neo4j (its fixtures reach neo4j_server) and every
    test under tests/integration/ (the model, servers of their own); tests/unit/ must need neither,
    so `pytest -m "not integration"` starts no database."""
    for item in items:
        needs_db = "neo4j_server" in getattr(item, "fixturenames", ())
        in_unit = UNIT in Path(str(item.fspath)).resolve().parents
        if in_unit and needs_db:
            raise pytest.UsageError(f"{item.nodeid} needs Neo4j: it belongs in tests/integration/")
        if needs_db or not in_unit:
            item.add_marker(pytest.mark.integration)


class Recorder(Observer):
    """An observer (graph/observe.py) that keeps what it is told: each span's start, each timing with its handle."""

    def __init__(self) -> None:
        self.began_with: list[tuple[str, str]] = []
        self.timings: list[tuple[Timing, object]] = []

    def began(self, kind: str, name: str) -> object:
        self.began_with.append((kind, name))
        return f"handle:{name}"

    def ended(self, timing: Timing, handle: object = None) -> None:
        self.timings.append((timing, handle))

    def of(self, kind: str) -> list[Timing]:
        return [t for t, _ in self.timings if t.kind == kind]


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    """A Recorder registered for the test, unregistered after."""
    r = Recorder()
    unregister = observe.register(r)
    try:
        yield r
    finally:
        unregister()

