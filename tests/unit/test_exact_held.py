"""The exact ranking's arithmetic and the replica's held vectors (graph/retrieval/exact.py), without a database;
that they rank as the Cypher does is tests/integration/test_retrieval_reach.py's."""

from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np
import pytest

from grimoire.graph.retrieval import exact

ROOT = Path(__file__).resolve().parents[2]
rng = np.random.default_rng(3)


def _unit(n: int, dim: int = 8) -> np.ndarray:
    v = rng.normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _block(n: int = 5, before: dict[int, np.ndarray] | None = None, read_at: float | None = None) -> exact.Block:
    own = _unit(n)
    ids = [f"i{j}" for j in range(n)]
    return exact.block(ids, own, before or {}, 0.7, dict(zip(ids, own, strict=True)),
                       time.monotonic() if read_at is None else read_at)


def test_scores_are_the_cosine_with_the_turn_before_added() -> None:
    before, q = _unit(5), _unit(1)[0]
    has = [0, 2, 4]
    b = _block(before={i: before[i] for i in has})
    got = b.scores(q)
    for i in range(5):
        v = b.own[i] + 0.7 * before[i] if i in has else b.own[i]
        assert got[i] == pytest.approx(float(v @ q / np.linalg.norm(v)), abs=1e-5)


def test_a_block_ranks_best_first_and_ties_by_id() -> None:
    own = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], dtype=np.float32)
    b = exact.block(["c", "b", "a"], own, {}, 0.0, {}, time.monotonic())
    assert [r["id"] for r in b.top(np.array([1.0, 0.0], dtype=np.float32), 3)] == ["a", "c", "b"]


def test_blocks_are_kept_under_their_counter_their_age_and_the_row_budget() -> None:
    held = exact.HeldVectors(held=11, max_age=0.2)
    held.check(1)
    one: exact.Signature = ((("a", 1),), -1, 0.0)
    two: exact.Signature = ((("b", 1),), -1, 0.0)
    held.keep(one, 0, _block())  # built under a counter that has moved on: not kept
    assert held.block(one, 1) is None
    first = _block()
    held.keep(one, 1, first)
    assert held.block(one, 1) is first and held.block(one, 0) is None
    held.keep(two, 1, _block(before={0: _unit(1)[0], 1: _unit(1)[0]}))  # 7 rows: past 11 with the 5 before
    assert held.block(one, 1) is None and held.block(two, 1) is not None
    held.keep(one, 1, _block(read_at=time.monotonic() - 1.0))  # its oldest item past max_age: not given
    assert held.block(one, 1) is None
    held.check(2)  # the counter moved: every block goes with the items
    assert held.block(two, 2) is None


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
CREATING = {"episodes/ingest", "entries/create", "memory/remember", "crystals/new_version", "learning/write_incidents"}
# Statements that change a stored vector, a text or a turn before in place, and the module that runs each with
# vectors_changed(tx) in the same transaction.
IN_PLACE = {"entries/edit": "graph/knowledge/versions.py", "rollback/set_embedding": "graph/audit/rollback.py",
            "rollback/put_nodes": "graph/audit/rollback.py", "audit/redact_apply": "graph/audit/erasure.py",
            "transfer/import_nodes": "graph/transfer.py", "rollback/undo_remember": "graph/audit/rollback.py",
            "memory/delete": "graph/memory/forgetting.py", "episodes/enrich": "graph/enrichment.py"}


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
        source = (ROOT / "grimoire" / module).read_text()
        assert f'"{name}"' in source and ("vectors_changed(" in source or "erasure.redact(" in source), (name, module)


def test_share_points_only_the_items_a_block_was_built_from_into_it() -> None:
    """A block's matrix backs the very items it was stacked from; an item read again since (a counter move between:
    another ranking dropped and re-read it) keeps its own vector, and nothing is shared under a moved counter."""
    held = exact.HeldVectors(held=10)
    held.check(1)
    a, b = exact.Item(_unit(1)[0]), exact.Item(_unit(1)[0])
    held.put(1, {("a", 1): a, ("b", 1): b})
    own = np.stack([a.vector, b.vector])
    fresh = exact.Item(_unit(1)[0])
    held.put(1, {("b", 1): fresh})  # b read again after the block was stacked
    held.share(1, [(("a", 1), a), (("b", 1), b)], own)
    got = held.get([("a", 1), ("b", 1)], 1)[0]
    assert np.shares_memory(got[("a", 1)].vector, own) and got[("b", 1)] is fresh
    held.check(2)
    held.put(2, {("c", 1): (c := exact.Item(_unit(1)[0]))})
    held.share(1, [(("c", 1), c)], own[:1])  # built under counter 1: the replica is at 2 now
    assert held.get([("c", 1)], 2)[0][("c", 1)] is c


def test_a_block_is_read_only() -> None:
    b = _block()
    with pytest.raises(ValueError):
        b.own[0, 0] = 2.0


def test_rankings_served_from_blocks_still_age_out_other_items() -> None:
    held = exact.HeldVectors(held=10, max_age=0.05)
    held.check(0)
    held.put(0, {("a", 1): _item()})
    sig: exact.Signature = ((("b", 1),), -1, 0.0)
    held.keep(sig, 0, _block())
    held._swept -= 120  # the last sweep a while ago (sweeps run at most once a minute)
    time.sleep(0.06)
    held.block(sig, 0)
    assert len(held) == 0
