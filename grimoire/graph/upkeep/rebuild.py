"""Vector indexes rebuilt from scratch on demand and waited for (`grimoire schema rebuild-vectors`), the
rebuild recorded where the service's own upkeep (graph/upkeep/vector_indexes.py) counts writes from. The
schema (graph/schema.py) starts a rebuild and reports its progress; this waits and records it."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from grimoire.graph.audit import Audit, Noop
from grimoire.graph.db import ogm
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.ids import now_ms
from grimoire.graph.schema import VECTOR_INDEXES, start_vector_rebuild, vector_index_states
from grimoire.graph.upkeep import models as upkeep_models


def rebuild_vector_indexes(db: Database, dimension: int, names: Sequence[str] = VECTOR_INDEXES,
                           quantization: bool = False, timeout: float = 3_600.0,
                           progress: Callable[[dict[str, float]], None] | None = None, actor: str = "admin") -> None:
    """Drop and re-create vector indexes in one transaction, then wait until they are online
    (`grimoire schema rebuild-vectors`; the service's own upkeep does the same without waiting,
    graph/upkeep/vector_indexes.py).

    Why: a vector search visits every Lucene segment of the index, and data written in batches
    leaves many (20 for 100,000 episodes written 1,000 at a time: a search took 3x longer than on
    one). Neo4j never merges them all; populating an index from scratch writes few (one per
    `internal.dbms.index.vector.population_ram_buffer_size`, which the local server raises).
    While an index populates, a vector search through it waits up to 30 s for it, then (IndexOffline)
    retrieval and search answer from an exact scan and admission from its scan: run this after a
    bulk load, not under heavy traffic."""
    started = now_ms()
    begun = time.monotonic()
    start_vector_rebuild(db, dimension, names, quantization)
    deadline = time.monotonic() + timeout
    while True:
        states = vector_index_states(db, names)
        if progress:
            progress({name: percent for name, (_, percent) in states.items()})
        if any(state == "FAILED" for state, _ in states.values()):
            raise RuntimeError(f"a vector index failed to populate: {states}")
        if len(states) == len(names) and all(state == "ONLINE" for state, _ in states.values()):
            break
        if time.monotonic() > deadline:
            raise TimeoutError(f"vector indexes still populating after {timeout:.0f} s: {states}")
        time.sleep(1.0)
    seconds = round(time.monotonic() - begun, 1)
    sizes = {r["name"]: int(r["size"]) for r in db.rows("upkeep/vector_sizes")}
    audit = Audit(action="schema.rebuild_vector_indexes", actor=actor, agent_id=None)

    def record(tx: Tx) -> None:
        for name in names:  # what the service's upkeep counts writes from
            upkeep_models.built(name, audit.at, started, sizes.get(name), seconds)
        audit.write(tx, list(names), f"rebuilt vector indexes {', '.join(names)}",
                    [Noop(reason="indexes rebuilt as they were: no data changed")])

    ogm.write(db, record)
