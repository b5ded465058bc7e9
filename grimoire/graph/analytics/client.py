"""The graphdatascience client over the project's own driver (one per Database), with Bolt only:
Neo4j Community with GDS has no Arrow server to discover."""

from __future__ import annotations

import threading
from weakref import WeakKeyDictionary

from graphdatascience import GraphDataScience
from neo4j.exceptions import ServiceUnavailable, SessionExpired

from grimoire.graph.db.connection import Database, DatabaseUnavailable

_clients: WeakKeyDictionary[Database, GraphDataScience] = WeakKeyDictionary()
_lock = threading.Lock()


def gds_for(db: Database) -> GraphDataScience:
    with _lock:
        client = _clients.get(db)
        if client is None:
            try:
                client = GraphDataScience(db.driver, database=db.name, arrow=False, show_progress=False)
            except (ServiceUnavailable, SessionExpired) as exc:
                raise DatabaseUnavailable(f"Neo4j at {db.target.uri} is unavailable: {exc}") from exc
            _clients[db] = client
        return client
