"""Reads go through read sessions: `Database.rows` opens one, and Neo4j refuses a write in it, so a
statement that writes cannot hide on the read path (where a cluster would route it to a reader)."""

from __future__ import annotations

import pytest
from neo4j.exceptions import ClientError

from grimoire.graph.db.connection import Database


def _labels(db: Database) -> list[str]:
    return db.rows("testing/count_nodes")[0]["labels"]


def test_a_read_runs_in_a_read_session(db: Database) -> None:
    with db.session(read=True) as s:
        assert s.run("RETURN 1 AS one").single()["one"] == 1
    assert _labels(db) == []


def test_a_write_on_the_read_path_is_refused_and_writes_nothing(db: Database) -> None:
    rows = [{"id": "w1", "props": {"text": "x", "agent_id": "a", "scope": "private"}, "embedding": [0.1] * 384}]
    with pytest.raises(ClientError):
        db.rows("testing/bulk_items", label="Episode", rows=rows)
    assert _labels(db) == []
    db.run("testing/bulk_items", label="Episode", rows=rows)  # the write path takes it
    assert _labels(db) == ["Episode"]
