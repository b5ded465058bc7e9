"""neomodel on the service's driver, for the control-plane nodes (core memory's blocks and versions, agents
and API keys, reflections, proposals, policies, alerts, leases' neighbours). The hot data path (ingest,
retrieval, topology) stays in cypher/ files.

A unit of work that saves neomodel nodes and runs the project's own statements (audit records, versions, the
cypher/ files) commits them together or not at all, through neomodel's public transaction API only: `write`
and `read` open neomodel's transaction (`db.begin`, `db.commit`, `db.rollback`) on the service's driver,
database and bookmark manager, and give the work a `Tx` whose statements go through neomodel's
`db.cypher_query`, which runs them in that open transaction. Around it, what the service's managed
transactions give every other write (graph/db/connection.py): a transient failure run again within the
database's retry time, the request's bookmarks, the leases' fencing check, the 503 when Neo4j is away and
the slow log. neomodel keeps its driver and its open transaction per context (ContextVar), so concurrent
requests and jobs each have their own; a work never opens another one inside itself."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from neo4j import READ_ACCESS, WRITE_ACCESS
from neo4j import Record as DriverRecord
from neo4j.exceptions import DriverError, Neo4jError
from neomodel import db as neo
from neomodel import get_config
from neomodel.exceptions import ConstraintValidationFailed

from grimoire.graph.db import fencing
from grimoire.graph.db.connection import Database, work_name
from grimoire.graph.db.tx import Tx
from grimoire.graph.model.rows import Record

T = TypeVar("T")
FIRST_DELAY, MAX_DELAY = 0.05, 1.0  # seconds between tries of a transiently failed transaction, doubling


def bind(database: Database) -> None:
    """neomodel in this context on `database`'s driver (once per context: neomodel asks the server its
    version when it connects)."""
    if neo.driver is not database.driver or get_config().database_name != database.name:
        get_config().database_name = database.name
        neo.set_connection(driver=database.driver)


class Fetched:
    """A statement's records, read in full by neomodel (`Rows`)."""

    def __init__(self, records: list[DriverRecord]) -> None:
        self.records = records

    def __iter__(self) -> Iterator[DriverRecord]:
        return iter(self.records)

    def single(self) -> DriverRecord | None:
        return self.records[0] if self.records else None

    def consume(self) -> None:
        return None


class SharedTx:
    """The project's statements in neomodel's open transaction (`Tx`), through its public `cypher_query`."""

    def run(self, query: str, parameters: dict[str, Any] | None = None, **kwparameters: Any) -> Fetched:
        try:
            rows, keys = neo.cypher_query(query, {**(parameters or {}), **kwparameters}, handle_unique=False)
        except ConstraintValidationFailed as exc:  # neomodel's wrapping: the driver's own error, as elsewhere
            raise (exc.__cause__ or exc) from None
        return Fetched([DriverRecord(zip(keys or (), row, strict=True))  # type: ignore[no-untyped-call]
                        for row in rows or []])


def write(database: Database, work: Callable[[Tx], T]) -> T:
    """`work` in a write transaction shared with neomodel (run again on a transient failure)."""
    return _transact(database, fencing.fenced(work), write=True)


def read(database: Database, work: Callable[[Tx], T]) -> T:
    """`work` in a read transaction shared with neomodel."""
    return _transact(database, work, write=False)


def _transact(database: Database, work: Callable[[Tx], T], *, write: bool) -> T:
    bind(database)
    deadline, delay = time.monotonic() + database.retry_seconds, FIRST_DELAY
    with database.timed(work_name(work)), database.translated():
        while True:
            try:
                return _once(database, work, write=write)
            except (Neo4jError, DriverError) as exc:
                if not exc.is_retryable() or time.monotonic() + delay > deadline:
                    raise
            time.sleep(delay * random.uniform(0.8, 1.2))  # noqa: S311 (jitter, not a secret)
            delay = min(2 * delay, MAX_DELAY)


def _once(database: Database, work: Callable[[Tx], T], *, write: bool) -> T:
    kwargs: dict[str, Any] = {}
    with database.bookmarked(kwargs, read=not write) as committed:
        neo.begin(WRITE_ACCESS if write else READ_ACCESS, **kwargs)
        try:
            out = work(SharedTx())
        except BaseException:
            with contextlib.suppress(Exception):  # the work's error is the one to raise
                neo.rollback()
            raise
        committed(neo.commit())
    return out


def properties(node: Any) -> Record:
    """A neomodel node's properties as stored (by their database names: `id`, not neomodel's `uid`),
    the unset ones left out."""
    out: dict[str, Any] = {}
    for attr, prop in type(node).defined_properties(rels=False, aliases=False).items():
        value = getattr(node, attr, None)
        if value is not None:
            out[prop.get_db_property_name(attr)] = value
    return out
