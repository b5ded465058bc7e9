"""What the schema files create, read from the files themselves: the fast path of apply_schema
(graph/schema.py) compares these names with the database's, so every CREATE must be seen."""

from __future__ import annotations

import re

from grimoire.graph.db import cypher
from grimoire.graph.schema import SCHEMA_FILES, VECTOR_INDEXES, expected_schema


def test_every_create_and_drop_in_the_schema_files_is_named() -> None:
    statements = [s for name in SCHEMA_FILES for s in cypher.statements(name)]
    constraints, indexes, retired = expected_schema()
    assert len(constraints) == sum(bool(re.match(r"CREATE CONSTRAINT", s)) for s in statements) >= 20
    assert len(indexes) == sum(bool(re.match(r"CREATE (\w+ )?INDEX", s)) for s in statements) >= 50
    assert len(retired) == sum(s.startswith("DROP ") for s in statements)
    assert set(VECTOR_INDEXES) <= indexes and {"episode_search", "entry_search", "entity_names"} <= indexes
    assert {"episode_id", "entry_id", "access_record_id"} <= constraints
    assert retired == {"core_memory_block_id", "entity_embedding", "skill_id", "episode_text", "entry_text"}
    assert not (constraints | indexes) & retired
