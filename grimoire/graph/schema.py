"""The schema applied at start-up: constraints, range, full-text and vector indexes.

Everything is IF NOT EXISTS, so applying twice changes nothing. Because IF NOT EXISTS
would also silently keep a vector index of another dimension, the dimensions of the
existing vector indexes are checked first and a mismatch stops start-up. Schema that earlier
versions created and nothing writes (cypher/schema/retired.cypher) is dropped, IF EXISTS.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from neo4j.exceptions import ClientError

from grimoire.graph.crystals.backfill import backfill_payload
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.errors import Conflict
from grimoire.graph.topology.entities import backfill_visibility

log = logging.getLogger(__name__)

SCHEMA_FILES = ("schema/retired", "schema/constraints", "schema/range_indexes", "schema/fulltext_indexes",
                "schema/vector_indexes")
VECTOR_INDEXES = ("episode_embedding", "entry_embedding",
                  "skill_procedural", "skill_causal", "skill_entity")  # a skill's three views (graph/crystals/)


class SchemaMismatch(Conflict):
    """The stored vectors were made by a model of another dimension than the configured one."""


@dataclass(frozen=True)
class SchemaReport:
    constraints_added: int
    indexes_added: int
    constraints_removed: int = 0
    indexes_removed: int = 0


def vector_index_dimensions(db: Database) -> dict[str, int]:
    return {r["name"]: int(r["dimensions"]) for r in db.fetch("schema/show_vector_indexes") if r["dimensions"]}


def check_vector_dimensions(db: Database, dimension: int, model: str) -> None:
    wrong = {name: dim for name, dim in vector_index_dimensions(db).items()
             if name in VECTOR_INDEXES and dim != dimension}
    if wrong:
        found = ", ".join(f"{name} has {dim}" for name, dim in sorted(wrong.items()))
        raise SchemaMismatch(
            f"Embedding dimension mismatch: the model {model!r} makes {dimension}-dimensional vectors, "
            f"but the vector index {found} dimensions. Refusing to start. Either set "
            f"GRIMOIRE_EMBEDDING_MODEL back to the model the data was embedded with, or drop the "
            f"vector indexes and re-embed the stored nodes with the new model."
        )


def apply_schema(db: Database, dimension: int, model: str = "the embedding model",
                 quantization: bool = False) -> SchemaReport:
    """Constraints and indexes, created when missing (an existing index keeps its configuration).
    Vector indexes are int8-quantized only with GRIMOIRE_VECTOR_QUANTIZATION=true (then retrieval's
    vector scores are approximate; search re-scores exactly)."""
    check_vector_dimensions(db, dimension, model)
    populating = _populating_vectors(db)  # a rebuild under way (graph/upkeep/): not waited for, not searched
    db.rebuilding = db.rebuilding | populating
    if _in_place(db, populating):  # every constraint and index online, nothing retired left: no DDL to run
        backfill_visibility(db)
        backfill_payload(db)
        report = SchemaReport(0, 0)
        log.info("schema in place (vector dimension %d)", dimension)
        return report
    counters = _create(db, dimension, quantization)
    if populating:
        _await_all_but(db, populating, 300.0)
    else:
        db.run("schema/await_indexes", seconds=300)
    backfill_visibility(db)  # entities stored before entity visibility existed
    backfill_payload(db)     # crystals written before their content hash was kept
    report = SchemaReport(constraints_added=sum(c.constraints_added for c in counters),
                          indexes_added=sum(c.indexes_added for c in counters),
                          constraints_removed=sum(c.constraints_removed for c in counters),
                          indexes_removed=sum(c.indexes_removed for c in counters))
    log.info("schema applied (vector dimension %d): %s", dimension, report)
    return report


def _create(db: Database, dimension: int, quantization: bool, attempts: int = 3) -> list[Any]:
    """Run the schema files. Replicas starting together run them at once, and Neo4j refuses the second of two
    concurrent CREATE ... IF NOT EXISTS of one rule (EquivalentSchemaRuleAlreadyExists): the other replica made
    it, so run the files again, where IF NOT EXISTS now holds."""
    for attempt in range(attempts):
        try:
            return [c for name in SCHEMA_FILES for c in db.run_all(name, dimensions=dimension,
                                                                   quantization=quantization)]
        except ClientError as exc:
            if "AlreadyExists" not in (exc.code or "") or attempt == attempts - 1:
                raise
            log.info("schema: another replica created %s at the same time; applying again", exc.message)
            time.sleep(0.2 * (attempt + 1))
    raise AssertionError("unreachable")


_CREATED = re.compile(r"CREATE (CONSTRAINT|(?:RANGE |FULLTEXT |VECTOR |TEXT |POINT )?INDEX) (\w+) IF NOT EXISTS")
_DROPPED = re.compile(r"DROP (?:CONSTRAINT|INDEX) (\w+) IF EXISTS")


def expected_schema() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The names the schema files create (constraints, indexes) and the retired ones they drop."""
    constraints: set[str] = set()
    indexes: set[str] = set()
    retired: set[str] = set()
    for name in SCHEMA_FILES:
        for stmt in cypher.statements(name):
            if m := _CREATED.search(stmt):
                (constraints if m.group(1) == "CONSTRAINT" else indexes).add(m.group(2))
            elif m := _DROPPED.search(stmt):
                retired.add(m.group(1))
    return frozenset(constraints), frozenset(indexes), frozenset(retired)


def _in_place(db: Database, populating: frozenset[str] = frozenset()) -> bool:
    """True when every constraint and index of the schema files exists and is online (or is a vector index
    being rebuilt) and no retired one is left: two SHOW statements instead of some seventy idempotent CREATEs
    (start-up, and every test's clean database)."""
    constraints, indexes, retired = expected_schema()
    have_constraints = {r["name"] for r in db.fetch("schema/show_constraints")}
    states = {r["name"]: r["state"] for r in db.fetch("schema/show_indexes")}
    return (constraints <= have_constraints and indexes <= states.keys()
            and all(state == "ONLINE" or name in populating for name, state in states.items())
            and not retired & (have_constraints | states.keys()))


def _populating_vectors(db: Database) -> frozenset[str]:
    return frozenset(name for name, (state, _) in vector_index_states(db, VECTOR_INDEXES).items()
                     if state == "POPULATING")


def _await_all_but(db: Database, skip: frozenset[str], timeout: float) -> None:
    """Wait for every index to be online but `skip` (vector indexes being rebuilt, which may take an hour)."""
    deadline = time.monotonic() + timeout
    while (waiting := {r["name"] for r in db.fetch("schema/show_indexes")
                       if r["state"] != "ONLINE" and r["name"] not in skip}):
        if time.monotonic() > deadline:
            raise TimeoutError(f"indexes still populating after {timeout:.0f} s: {sorted(waiting)}")
        time.sleep(0.5)


def progress_line(percent: dict[str, float]) -> str:
    """How far each index being populated is, for a progress display."""
    return "populating " + ", ".join(f"{name} {p:.0f}%" for name, p in sorted(percent.items()))


def start_vector_rebuild(db: Database, dimension: int, names: Sequence[str], quantization: bool = False) -> None:
    """Drop and re-create the named vector indexes in one transaction; Neo4j populates them in the background
    (`vector_index_states` says how far)."""
    unknown = sorted(set(names) - set(VECTOR_INDEXES))
    if unknown:
        raise ValueError(f"not a vector index of this project: {', '.join(unknown)}")
    check_vector_dimensions(db, dimension, "the embedding model")
    wanted = [stmt for stmt in cypher.statements("schema/vector_indexes")
              if (m := _CREATED.search(stmt)) and m.group(2) in names]
    with db.session() as s, s.begin_transaction() as tx:  # schema only: Neo4j keeps data writes apart
        for name in names:
            tx.run(cypher.query("schema/drop_index"), name=name).consume()
        for stmt in wanted:
            tx.run(stmt, dimensions=dimension, quantization=quantization).consume()
        tx.commit()


def vector_index_states(db: Database, names: Sequence[str]) -> dict[str, tuple[str, float]]:
    """Each named index that exists: its state (ONLINE, POPULATING, FAILED) and population percent."""
    return {r["name"]: (str(r["state"]), float(r["percent"])) for r in db.rows("schema/index_progress",
                                                                              names=list(names))}
