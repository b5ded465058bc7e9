"""The schema is applied idempotently, and a model/index dimension mismatch stops start-up."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from grimoire.api.app import create_app
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.schema import VECTOR_INDEXES, SchemaMismatch, SchemaReport, apply_schema, vector_index_dimensions
from grimoire.graph.settings import PROJECT_ROOT
from tests.conftest import Neo4jUnderTest


def _snapshot(db: Database) -> tuple[list[dict], list[dict]]:
    indexes = [{k: r[k] for k in ("name", "type", "labels", "properties", "state")}
               for r in db.run("schema/show_indexes")]
    return indexes, db.run("schema/show_constraints")


def test_schema_has_every_index_online(db: Database, embedder: Embedder) -> None:
    indexes, constraints = _snapshot(db)
    by_type: dict[str, set[str]] = {}
    for ix in indexes:
        by_type.setdefault(ix["type"], set()).add(ix["name"])
        assert ix["state"] == "ONLINE", ix
    assert by_type["VECTOR"] == set(VECTOR_INDEXES) == {"episode_embedding", "entry_embedding", "skill_procedural",
                                                       "skill_causal", "skill_entity"}
    assert {"episode_search", "entry_search", "entity_names"} <= by_type["FULLTEXT"]
    assert {"episode_valid_from", "episode_recorded_at", "episode_agent", "fact_oracle_dependency_valid",
            "fact_oracle_dependency_recorded"} <= by_type["RANGE"]
    # the audit trail (by time, by agent, an agent's newest first) and the access log
    assert {"audit_at", "audit_agent", "audit_agent_at", "access_at", "access_agent"} <= by_type["RANGE"]
    assert {c["name"] for c in constraints} >= {"episode_id", "entry_id", "entity_id", "agent_id"}
    assert {c["name"] for c in constraints} >= {"fact_oracle_dependency_id", "causes_id", "value_id"}
    assert {c["name"] for c in constraints} >= {"audit_record_id", "access_record_id"}
    assert {c["type"] for c in constraints} == {"UNIQUENESS", "RELATIONSHIP_UNIQUENESS"}
    assert "core_memory_block_id" not in {c["name"] for c in constraints}
    assert vector_index_dimensions(db) == {name: embedder.dimension for name in VECTOR_INDEXES}


def test_applying_the_schema_twice_changes_nothing(db: Database, embedder: Embedder) -> None:
    before = _snapshot(db)
    report = apply_schema(db, embedder.dimension, embedder.model_name)
    assert report == SchemaReport(constraints_added=0, indexes_added=0, constraints_removed=0, indexes_removed=0)
    assert _snapshot(db) == before


def test_schema_drops_what_nothing_writes_from_an_older_database(db: Database, embedder: Embedder) -> None:
    """Earlier versions made a CoreMemoryBlock constraint and an entity vector index, and nothing wrote
    them, and full-text indexes of the text alone that the scoped ones replaced: applying the schema drops them,
    once (an index of another dimension stops nothing), and then changes nothing."""
    expected = _snapshot(db)
    db.run_all("testing/create_retired_schema", dimensions=8)
    indexes, constraints = _snapshot(db)
    assert "entity_embedding" in {ix["name"] for ix in indexes}
    assert "core_memory_block_id" in {c["name"] for c in constraints}
    assert {"episode_text", "entry_text"} <= {ix["name"] for ix in indexes}

    report = apply_schema(db, embedder.dimension, embedder.model_name)
    assert (report.constraints_removed, report.indexes_removed) == (1, 3)
    assert (report.constraints_added, report.indexes_added) == (0, 0)
    assert _snapshot(db) == expected
    again = apply_schema(db, embedder.dimension, embedder.model_name)
    assert again == SchemaReport(constraints_added=0, indexes_added=0, constraints_removed=0, indexes_removed=0)


@pytest.fixture
def mismatched_index(db: Database, embedder: Embedder) -> Iterator[Database]:
    """episode_embedding rebuilt with 8 dimensions, as if made by another model; restored after."""
    db.run("testing/drop_index", name="episode_embedding")
    db.run("testing/create_vector_index", dimensions=8)
    yield db
    db.run("testing/drop_index", name="episode_embedding")
    apply_schema(db, embedder.dimension, embedder.model_name)


def test_dimension_mismatch_refuses_schema(mismatched_index: Database, embedder: Embedder) -> None:
    with pytest.raises(SchemaMismatch) as err:
        apply_schema(mismatched_index, embedder.dimension, embedder.model_name)
    message = str(err.value)
    assert "episode_embedding has 8" in message and "384-dimensional" in message
    assert "Refusing to start" in message
    # Nothing was created on the way to the refusal.
    assert vector_index_dimensions(mismatched_index)["episode_embedding"] == 8


def test_dimension_mismatch_stops_api_start_up(mismatched_index: Database, neo4j_server: Neo4jUnderTest,
                                               embedder: Embedder) -> None:
    app = create_app(neo4j_server.settings(), embedder=embedder)
    with pytest.raises(SchemaMismatch, match="episode_embedding has 8"), TestClient(app):
        pass


def test_dimension_mismatch_stops_the_cli(mismatched_index: Database, neo4j_server: Neo4jUnderTest) -> None:
    env = dict(os.environ, NEO4J_URI=neo4j_server.uri, NEO4J_USER=neo4j_server.user,
               NEO4J_PASSWORD=neo4j_server.password, NEO4J_DATABASE=neo4j_server.database)
    proc = subprocess.run([sys.executable, "-m", "grimoire.api.cli", "schema", "apply"], env=env, cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1
    assert "Embedding dimension mismatch" in proc.stderr and "episode_embedding has 8" in proc.stderr


def test_a_missing_index_or_constraint_is_made_again(db: Database, embedder: Embedder) -> None:
    """Applying a schema that is in place runs no DDL; one missing piece makes it run all of it."""
    before = _snapshot(db)
    db.run("testing/drop_index", name="entry_scope_clade")
    db.run("testing/drop_constraint", name="value_id")
    report = apply_schema(db, embedder.dimension, embedder.model_name)
    assert report == SchemaReport(constraints_added=1, indexes_added=1)
    assert _snapshot(db) == before
    assert apply_schema(db, embedder.dimension, embedder.model_name) == SchemaReport(0, 0)
