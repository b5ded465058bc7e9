"""The driver, where it points, and the one error type the service turns into a 503."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from neo4j import READ_ACCESS, Bookmarks, Driver, GraphDatabase, ManagedTransaction, Session, SummaryCounters
from neo4j.exceptions import ClientError, ServiceUnavailable, SessionExpired, TransientError
from neo4j.exceptions import DatabaseUnavailable as Neo4jDatabaseUnavailable
from pydantic import BaseModel

from grimoire.graph import meters, observe
from grimoire.graph.db import bookmarks, cypher, fencing
from grimoire.graph.errors import Unavailable
from grimoire.graph.model.rows import Record

T = TypeVar("T")
R = TypeVar("R", bound=BaseModel)
log = logging.getLogger(__name__)
DEFAULT_SLOW_MS = 100.0  # GRIMOIRE_SLOW_QUERY_MS
RECHECK_SECONDS = 5.0    # how often a statement refused for an index being rebuilt asks whether it is online

# Errors that mean "the database is not there right now", as opposed to a bad query.
UNAVAILABLE_ERRORS: tuple[type[Exception], ...] = (ServiceUnavailable, SessionExpired, Neo4jDatabaseUnavailable)


class DatabaseUnavailable(Unavailable):
    """Neo4j cannot be reached; the API answers 503 with this message."""


class IndexOffline(DatabaseUnavailable):
    """A vector index is missing or still populating (`grimoire schema rebuild-vectors`): searches
    that have an exact fallback use it; anything else answers 503 until the index is back."""


def _index_offline(exc: ClientError) -> bool:
    message = exc.message or ""
    return exc.code == "Neo.ClientError.Procedure.ProcedureCallFailed" and (
        "no such vector schema index" in message or "to come online" in message)


class RebuildingIndexes:
    """The vector indexes this process is rebuilding (graph/upkeep/), shared by every Database on the same
    driver (the Curator's PacedDatabase too) and changed from the scheduler's and the requests' threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._names: frozenset[str] = frozenset()
        self._recheck_at = 0.0

    @property
    def names(self) -> frozenset[str]:
        return self._names

    def replace(self, names: Iterable[str]) -> None:
        with self._lock:
            self._names = frozenset(names)
            self._recheck_at = time.monotonic() + RECHECK_SECONDS

    def add(self, name: str) -> None:
        with self._lock:
            self._names = self._names | {name}
            self._recheck_at = time.monotonic() + RECHECK_SECONDS

    def discard(self, names: Iterable[str]) -> None:
        with self._lock:
            self._names = self._names - frozenset(names)

    def refused(self, searched: frozenset[str]) -> set[str]:
        """Which of the indexes a statement searches are being rebuilt."""
        return set(searched & self._names) if self._names else set()

    def recheck_due(self) -> bool:
        """True at most once every RECHECK_SECONDS (and not within that of the last change)."""
        with self._lock:
            now = time.monotonic()
            if now < self._recheck_at:
                return False
            self._recheck_at = now + RECHECK_SECONDS
            return True


@dataclass(frozen=True)
class Target:
    uri: str
    user: str
    password: str
    database: str


class Database:
    """A driver plus the database name; runs the project's named Cypher files."""

    def __init__(self, target: Target, *, connection_timeout: float = 3.0, retry_seconds: float = 5.0,
                 slow_ms: float = DEFAULT_SLOW_MS):
        self.target = target
        self.slow_ms = slow_ms
        self.retry_seconds = retry_seconds
        self.driver: Driver = GraphDatabase.driver(
            target.uri,
            auth=(target.user, target.password),
            connection_timeout=connection_timeout,
            connection_acquisition_timeout=connection_timeout + 2.0,
            max_transaction_retry_time=retry_seconds,
            liveness_check_timeout=30.0,
            notifications_min_severity="WARNING",
            notifications_disabled_categories=["UNRECOGNIZED"],  # an empty database has no such keys yet
        )
        # Vector indexes this process is rebuilding (graph/upkeep/): a statement searching one is answered
        # with IndexOffline at once (its caller's exact fallback), where Neo4j would hold it 30 s first.
        self.rebuilds = RebuildingIndexes()
        # Every session shares the bookmarks: a read sees the writes this process committed before it,
        # also when a cluster routes it to another member.
        self._bookmarks = GraphDatabase.bookmark_manager()
        self.pool = meters.PoolWatch(self.driver)  # the pool's gauges (graph/meters.py)

    @property
    def name(self) -> str:
        return self.target.database

    def close(self) -> None:
        self.driver.close()

    @contextmanager
    def session(self, *, read: bool = False, **kwargs: Any) -> Iterator[Session]:
        """A session on this database; `read=True` declares it read-only (routed to a reader in a
        cluster, and Neo4j refuses a write in it)."""
        if read:
            kwargs["default_access_mode"] = READ_ACCESS
        meters.SESSIONS.inc()
        meters.SESSIONS_OPEN.inc()
        opened = observe.now()
        try:
            with (self.translated(), self.bookmarked(kwargs, read=read) as committed,
                  self.driver.session(database=self.name, **kwargs) as session):
                yield session
                committed(session.last_bookmarks())
        finally:
            meters.SESSIONS_OPEN.dec()
            meters.SESSION_SECONDS.observe(observe.now() - opened)
            self.pool.session_closed()

    @contextmanager
    def bookmarked(self, kwargs: dict[str, Any], *, read: bool) -> Iterator[Callable[[Bookmarks], None]]:
        """A session's arguments given this process's bookmark manager (every session shares it: a read sees
        the writes committed before it, also on another member of a cluster) and, in a request, its caller's
        bookmarks (graph/db/bookmarks.py); yields what to call with the session's last bookmarks once it is done,
        so that a write is noted for the response and a read through another replica may wait for it."""
        kwargs.setdefault("bookmark_manager", self._bookmarks)
        chain = bookmarks.current.get()
        started = chain.opening(kwargs, self._bookmarks.get_bookmarks()) if chain is not None else frozenset()

        def committed(last: Bookmarks) -> None:
            if chain is not None and not read:
                chain.record(started, last)

        yield committed

    @contextmanager
    def translated(self) -> Iterator[None]:
        """The driver's errors as the service's: Neo4j out of reach a DatabaseUnavailable (503), an index being
        rebuilt IndexOffline, a refused bookmark the bookmark's own error; any other error as it was."""
        try:
            yield
        except UNAVAILABLE_ERRORS as exc:
            raise DatabaseUnavailable(f"Neo4j at {self.target.uri} is unavailable: {exc}") from exc
        except ClientError as exc:
            if _index_offline(exc):
                raise IndexOffline(f"a vector index is being rebuilt, retry shortly: {exc.message}") from exc
            bookmarks.refused(exc)
            raise
        except TransientError as exc:
            bookmarks.refused(exc)  # a bookmark this member did not reach in time: 503
            raise

    @contextmanager
    def timed(self, name: str) -> Iterator[None]:
        """A statement or transaction as a `cypher` span (graph/observe.py); one slower than `slow_ms` is logged
        with its name and duration."""
        with observe.span("cypher", name) as s:
            try:
                yield
            finally:
                if (ms := s.ms) >= self.slow_ms:
                    log.warning("slow cypher %s: %.1f ms", name, ms)

    def read(self, work: Callable[[ManagedTransaction], T]) -> T:
        with self.timed(work_name(work)), self.session() as s:
            return s.execute_read(work)

    def write(self, work: Callable[[ManagedTransaction], T]) -> T:
        """`work` in a managed write transaction; under leases (graph/db/fencing.py) it first checks them."""
        with self.timed(work_name(work)), self.session() as s:
            return s.execute_write(fencing.fenced(work))

    def run(self, query_name: str, /, **params: Any) -> list[Record]:
        """Run the one statement of cypher/<query_name>.cypher in an auto-commit transaction that may
        write (reads use `fetch`, `rows` or `read`)."""
        return self._data(query_name, params, read=False)

    def fetch(self, query_name: str, /, **params: Any) -> list[Record]:
        """A read, in a read session: the one statement of cypher/<query_name>.cypher, each record
        converted as `run` does (nodes and relationships to dicts)."""
        return self._data(query_name, params, read=True)

    @property
    def rebuilding(self) -> frozenset[str]:
        return self.rebuilds.names

    @rebuilding.setter
    def rebuilding(self, names: frozenset[str]) -> None:
        self.rebuilds.replace(names)

    def _offline(self, query_name: str) -> None:
        if not self.rebuilds.names or not (names := self.rebuilds.refused(cypher.vector_indexes(query_name))):
            return
        if self.rebuilds.recheck_due():  # online again: searched within seconds, not at the job's next look
            online = {r["name"] for r in self.rows("schema/index_progress", names=sorted(names))
                      if r["state"] == "ONLINE"}
            self.rebuilds.discard(online)
            names -= online
        if names:
            raise IndexOffline(f"a vector index is being rebuilt, retry shortly: {', '.join(sorted(names))}")

    def _data(self, query_name: str, params: dict[str, Any], *, read: bool) -> list[Record]:
        self._offline(query_name)
        with self.timed(query_name), self.session(read=read) as s:
            if not read and fencing.active():  # under leases: the statement in a transaction that checks them
                return s.execute_write(fencing.fenced(lambda tx: [r.data() for r in tx.run(cypher.query(query_name),
                                                                                            params)]))
            return [r.data() for r in s.run(cypher.query(query_name), params)]

    def rows(self, query_name: str, /, **params: Any) -> list[Record]:
        """A read, in a read session: the one statement of cypher/<query_name>.cypher, whose results
        hold only values (no nodes or relationships); records are zipped with their keys instead of
        converted one by one, several times faster."""
        self._offline(query_name)
        with self.timed(query_name), self.session(read=True) as s:
            result = s.run(cypher.query(query_name), params)
            keys = result.keys()
            return [dict(zip(keys, values, strict=True)) for values in result.values()]

    def typed(self, row: type[R], /, **params: Any) -> list[R]:
        """A read of the statement `row` names (`row.query`, graph/model/rows.py), as `rows`, each row validated
        into `row`: a key the model does not declare, or a value of another type, is an error here, at the
        database's edge."""
        query_name = getattr(row, "query", None)
        if not query_name:
            raise TypeError(f"{row.__qualname__} names no statement (its `query`)")
        return [row.model_validate(r) for r in self.rows(query_name, **params)]

    def run_all(self, query_name: str, /, **params: Any) -> list[Any]:
        """Run every statement of cypher/<query_name>.cypher in order; returns their summaries' counters."""
        counters = []
        with self.timed(query_name), self.session() as s:
            for stmt in cypher.statements(query_name):
                if fencing.active():  # under leases: each statement in a transaction that checks them
                    counters.append(s.execute_write(fencing.fenced(_statement(stmt, params))))
                    continue
                counters.append(s.run(stmt, params).consume().counters)
        return counters


def _statement(stmt: str, params: dict[str, Any]) -> Callable[[ManagedTransaction], SummaryCounters]:
    def run(tx: ManagedTransaction) -> SummaryCounters:
        return tx.run(stmt, params).consume().counters

    return run


def work_name(work: Callable[..., Any]) -> str:
    """A transaction function's name for the slow log: where it is defined (module and function)."""
    return f"transaction {getattr(work, '__module__', '?')}.{getattr(work, '__qualname__', repr(work))}"


def wait_for_database(db: Database, timeout: float) -> None:
    """Block until the database answers a query, or raise DatabaseUnavailable after timeout."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        try:
            with db.session() as s:
                s.run("RETURN 1").consume()
            return
        except DatabaseUnavailable as exc:
            if time.monotonic() >= deadline:
                raise DatabaseUnavailable(
                    f"Neo4j at {db.target.uri} did not answer within {timeout:.0f}s: {exc}"
                ) from exc
            time.sleep(0.5)
