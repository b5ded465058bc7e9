"""neomodel on the service's driver, for the control-plane nodes (core memory's blocks and versions, agents
and API keys now; reflections, proposals and policies as they land). The hot data path (ingest,
retrieval, topology) stays in cypher/ files.

neomodel keeps its driver and its open transaction per context (ContextVar): a context without a driver
would open one of its own to neomodel's default URL. `write` and `read` bind the calling context to the
service's driver and database, and run the work as one of the service's managed transactions
(`Database.write` / `Database.read`: its bookmarks, its retries of transient failures, its 503 when Neo4j
is down, its slow log) with neomodel's active transaction set to it — so neomodel's statements and the raw
ones the work runs on `tx` (cypher/ files, audit records) commit together or not at all."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from neo4j import ManagedTransaction
from neomodel import db as neo
from neomodel import get_config

from graph.db.connection import Database

T = TypeVar("T")


def bind(database: Database) -> None:
    """neomodel in this context on `database`'s driver (once per context: neomodel asks the server its
    version when it connects)."""
    if neo.driver is not database.driver or getattr(neo, "_database_name", None) != database.name:
        get_config().database_name = database.name
        neo.set_connection(driver=database.driver)


def _bound(work: Callable[[ManagedTransaction], T]) -> Callable[[ManagedTransaction], T]:
    @functools.wraps(work)  # the slow log names the work, not this wrapper
    def run(tx: ManagedTransaction) -> T:
        neo._active_transaction = tx  # neomodel's statements go to this transaction
        try:
            return work(tx)
        finally:
            neo._active_transaction = None

    return run


def write(database: Database, work: Callable[[ManagedTransaction], T]) -> T:
    """`work` in a managed write transaction shared with neomodel (run again on a transient failure)."""
    bind(database)
    return database.write(_bound(work))


def read(database: Database, work: Callable[[ManagedTransaction], T]) -> T:
    """`work` in a managed read transaction shared with neomodel."""
    bind(database)
    return database.read(_bound(work))


def properties(node: Any) -> dict[str, Any]:
    """A neomodel node's properties as stored (by their database names: `id`, not neomodel's `uid`),
    the unset ones left out."""
    out: dict[str, Any] = {}
    for attr, prop in type(node).defined_properties(rels=False, aliases=False).items():
        value = getattr(node, attr, None)
        if value is not None:
            out[prop.get_db_property_name(attr)] = value
    return out
