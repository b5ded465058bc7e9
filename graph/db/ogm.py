"""neomodel on the service's driver, for the control-plane nodes (core memory's blocks and versions now;
agents, keys, reflections, proposals and policies as they move onto it). The hot data path (ingest,
retrieval, topology) stays in cypher/ files.

neomodel keeps its driver and its open transaction per context (ContextVar): a context without a driver
would open one of its own to neomodel's default URL. `transaction` and `reading` bind the calling context
to the service's driver and database first, and run the neomodel work in one explicit transaction that
also carries raw statements (cypher/ files, audit records) — all of it commits together or none does —
with the service's bookmarks, so a read after the write sees it also on a cluster."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from neo4j import Transaction
from neo4j.exceptions import TransientError
from neomodel import db as neo
from neomodel import get_config

from graph.db.connection import UNAVAILABLE_ERRORS, Database, DatabaseUnavailable

log = logging.getLogger(__name__)
T = TypeVar("T")


def bind(database: Database) -> None:
    """neomodel in this context on `database`'s driver (once per context: neomodel asks the server its
    version when it connects)."""
    if neo.driver is not database.driver or getattr(neo, "_database_name", None) != database.name:
        get_config().database_name = database.name
        neo.set_connection(driver=database.driver)


@contextmanager
def transaction(database: Database, name: str, *, read: bool = False) -> Iterator[Transaction]:
    """One neomodel transaction on the service's driver; the raw transaction it yields runs statements in
    the same transaction. Commits when the block ends, rolls back when it raises. Not retried: writes
    use `write`, which retries what Neo4j calls transient (a deadlock, a leader switch)."""
    started = time.perf_counter()
    try:
        bind(database)
        if neo._active_transaction is not None:
            raise RuntimeError(f"{name}: a neomodel transaction is open in this context already")
        try:
            neo.begin(access_mode="READ" if read else "WRITE", bookmark_manager=database._bookmarks)
        except BaseException:
            session = getattr(neo, "_session", None)  # opened, but no transaction began on it
            if session is not None:
                session.close()
                neo._session = None
            raise
        tx = neo._active_transaction
        assert tx is not None
        try:
            yield tx
        except BaseException:
            neo.rollback()
            raise
        neo.commit()
    except UNAVAILABLE_ERRORS as exc:
        raise DatabaseUnavailable(f"Neo4j at {database.target.uri} is unavailable: {exc}") from exc
    finally:
        ms = (time.perf_counter() - started) * 1000
        if ms >= database.slow_ms:
            log.warning("slow cypher transaction %s: %.1f ms", name, ms)


def write(database: Database, name: str, work: Callable[[Transaction], T], *, retry_seconds: float = 5.0) -> T:
    """`work` in a write transaction, run again (from the start, in a new transaction) when Neo4j says the
    failure is transient, as the driver's managed transactions are, for up to `retry_seconds`."""
    deadline, delay = time.monotonic() + retry_seconds, 0.05
    while True:
        try:
            with transaction(database, name) as tx:
                return work(tx)
        except TransientError:
            if time.monotonic() + delay > deadline:
                raise
            log.info("%s: transient failure, retrying in %.2f s", name, delay)
            time.sleep(delay)
            delay = min(delay * 2, 1.0)


@contextmanager
def reading(database: Database, name: str) -> Iterator[Transaction]:
    """A read transaction for neomodel's queries (routed to a reader on a cluster)."""
    with transaction(database, name, read=True) as tx:
        yield tx


def properties(node: Any) -> dict[str, Any]:
    """A neomodel node's properties as stored (by their database names: `id`, not neomodel's `uid`),
    the unset ones left out."""
    out: dict[str, Any] = {}
    for attr, prop in type(node).defined_properties(rels=False, aliases=False).items():
        value = getattr(node, attr, None)
        if value is not None:
            out[prop.get_db_property_name(attr)] = value
    return out
