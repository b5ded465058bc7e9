"""One transaction idiom (issue 38 §3): neomodel's saves and the project's own statements in one unit of work
commit together or not at all, through neomodel's public transaction API (graph/db/ogm.py)."""

from __future__ import annotations

import pytest
from neo4j.exceptions import ConstraintError, SessionExpired

from grimoire.graph.db import bookmarks, ogm
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.upkeep.models import VectorIndexBuild

pytestmark = pytest.mark.integration


def _count(db: Database, label: str, uid: str) -> int:
    with db.session(read=True) as s:
        return int(s.run(f"MATCH (n:{label} {{id: $id}}) RETURN count(n) AS c", id=uid).single()["c"])


def _save_and_mark(uid: str, tx: Tx) -> None:
    VectorIndexBuild(uid=uid, valid_from=1, recorded_at=1).save()
    tx.run("CREATE (:OgmProbe {id: $id})", id=uid).consume()


def test_a_neomodel_save_and_a_raw_statement_commit_together(db: Database) -> None:
    ogm.write(db, lambda tx: _save_and_mark("together", tx))
    assert _count(db, "VectorIndexBuild", "together") == 1 and _count(db, "OgmProbe", "together") == 1
    # read back in a shared read transaction: neomodel's query and the raw one see the same
    found = ogm.read(db, lambda tx: (VectorIndexBuild.nodes.get_or_none(uid="together") is not None,
                                     tx.run("MATCH (p:OgmProbe {id: $id}) RETURN p.id AS id", id="together")
                                     .single()))
    assert found[0] is True and found[1] is not None and found[1]["id"] == "together"


def test_a_failing_work_leaves_neither_the_save_nor_the_statement(db: Database) -> None:
    def work(tx: Tx) -> None:
        _save_and_mark("undone", tx)
        raise RuntimeError("the work fails after both writes")

    with pytest.raises(RuntimeError):
        ogm.write(db, work)
    assert _count(db, "VectorIndexBuild", "undone") == 0 and _count(db, "OgmProbe", "undone") == 0
    ogm.write(db, lambda tx: _save_and_mark("after", tx))  # the context holds no transaction left open
    assert _count(db, "OgmProbe", "after") == 1


def test_a_transient_failure_runs_the_work_again_and_commits_once(db: Database) -> None:
    tries: list[int] = []

    def work(tx: Tx) -> int:
        _save_and_mark("retried", tx)
        tries.append(1)
        if len(tries) == 1:
            raise SessionExpired("the connection went away mid-transaction")
        return len(tries)

    assert ogm.write(db, work) == 2
    assert _count(db, "VectorIndexBuild", "retried") == 1 and _count(db, "OgmProbe", "retried") == 1


def test_a_raw_statement_refused_by_a_constraint_raises_the_drivers_error(db: Database) -> None:
    ogm.write(db, lambda tx: _save_and_mark("unique", tx))
    with pytest.raises(ConstraintError):  # what api/errors.py answers 409 for, not neomodel's wrapper
        ogm.write(db, lambda tx: tx.run("CREATE (:VectorIndexBuild {id: $id})", id="unique").consume())
    assert _count(db, "VectorIndexBuild", "unique") == 1


def test_rows_read_in_the_shared_transaction(db: Database) -> None:
    def work(tx: Tx) -> tuple[object, list[int]]:
        none = tx.run("MATCH (n:OgmProbe {id: 'nobody'}) RETURN n").single()
        return none, [r["x"] for r in tx.run("UNWIND [1, 2, 3] AS x RETURN x")]

    assert ogm.read(db, work) == (None, [1, 2, 3])


def test_a_write_in_a_request_names_its_bookmark(db: Database) -> None:
    chain = bookmarks.Chain()
    token = bookmarks.current.set(chain)
    try:
        ogm.write(db, lambda tx: _save_and_mark("bookmarked", tx))
    finally:
        bookmarks.current.reset(token)
    assert chain.wrote and chain.latest
