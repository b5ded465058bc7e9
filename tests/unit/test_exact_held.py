"""The exact ranking's arithmetic and the replica's held vectors (graph/retrieval/exact.py), without a database;
that they rank as the Cypher does is tests/integration/test_retrieval_reach.py's."""

from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np
import pytest

from graph.retrieval import exact

ROOT = Path(__file__).resolve().parents[2]
rng = np.random.default_rng(3)


def _unit(n: int, dim: int = 8) -> np.ndarray:
    v = rng.normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_scores_are_the_cosine_with_the_turn_before_added() -> None:
    own, before, q = _unit(5), _unit(5), _unit(1)[0]
    has = np.array([True, False, True, False, True])
    got = exact.scores(q, own, np.where(has[:, None], before, 0), has, weight=0.7)
    for i in range(5):
        v = own[i] + 0.7 * before[i] if has[i] else own[i]
        assert got[i] == pytest.approx(float(v @ q / np.linalg.norm(v)), abs=1e-5)


def _item() -> exact.Item:
    return exact.Item(_unit(1)[0])


def test_held_vectors_drop_everything_when_the_counter_moves() -> None:
    held = exact.HeldVectors(held=10)
    held.check(3)
    held.put(3, {("a", 1): _item(), ("b", 1): _item()})
    found, missing = held.get([("a", 1), ("b", 2)], 3)
    assert set(found) == {("a", 1)} and missing == [("b", 2)]
    held.put(2, {("c", 1): _item()})  # read under a counter that has moved on since: not kept
    assert len(held) == 2
    held.check(2)  # a ranking that read an older counter: nothing dropped, and nothing held given to it
    assert len(held) == 2 and held.epoch == 3 and held.get([("a", 1)], 2) == ({}, [("a", 1)])
    held.check(4)
    assert len(held) == 0 and held.dropped == 1


def test_held_vectors_keep_the_most_recently_used_and_expire() -> None:
    held = exact.HeldVectors(held=2, max_age=0.05)
    held.check(0)
    held.put(0, {("a", 1): _item(), ("b", 1): _item()})
    held.get([("a", 1)], 0)
    held.put(0, {("c", 1): _item()})
    assert held.get([("a", 1), ("b", 1), ("c", 1)], 0)[1] == [("b", 1)]
    time.sleep(0.06)
    assert held.get([("a", 1)], 0)[1] == [("a", 1)]


_SETS = re.compile(r"setNodeVectorProperty\(\s*\w+\s*,\s*'embedding'|REMOVE\s+\w+\.embedding"
                   r"|(MERGE|CREATE)\s*\(\w*\)-\[:FOLLOWS\]")
# Statements that set a vector or a turn before only on a node they create (a new key: nothing held can be stale).
CREATING = {"episodes/ingest", "entries/create", "memory/remember", "crystals/new_version"}
# Statements that change a stored vector, a text or a turn before in place, and the module that runs each with
# vectors_changed(tx) in the same transaction.
IN_PLACE = {"entries/edit": "graph/knowledge/versions.py", "rollback/set_embedding": "graph/audit/rollback.py",
            "rollback/put_nodes": "graph/audit/rollback.py", "audit/redact_apply": "graph/audit/erasure.py",
            "transfer/import_nodes": "graph/transfer.py", "rollback/undo_remember": "graph/audit/rollback.py",
            "memory/delete": "graph/memory/forgetting.py"}


def test_every_statement_that_changes_a_stored_vector_moves_the_counter() -> None:
    """A new statement that writes `embedding` or a FOLLOWS must be classified here: one that changes what a replica
    holds in place must be run beside vectors_changed(tx), or some replica would rank with what it read before."""
    writers = set()
    for path in (ROOT / "cypher").rglob("*.cypher"):
        name = path.relative_to(ROOT / "cypher").with_suffix("").as_posix()
        if not name.startswith("testing/") and _SETS.search(path.read_text()):
            writers.add(name)
    assert writers == CREATING | set(IN_PLACE), writers ^ (CREATING | set(IN_PLACE))
    for name, module in IN_PLACE.items():
        source = (ROOT / module).read_text()
        assert f'"{name}"' in source and ("vectors_changed(" in source or "erasure.redact(" in source), (name, module)
