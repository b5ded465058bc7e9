"""The versions audit/keep_versions.cypher keeps for an item form one chain: each links the one before it, found by
its id (an item changed thousands of times, an agent's hormone levels, is not expanded whole on each change)."""

from __future__ import annotations

from grimoire.graph.agents import AgentIn, register
from grimoire.graph.audit import versions
from grimoire.graph.ids import now_ms


def test_each_kept_version_links_the_one_before(db) -> None:
    register(db, AgentIn(id="chained", name="chained", clade="c"), actor="test")
    for i in range(4):
        db.write(lambda tx, i=i: versions.keep(tx, versions.Versioned.Agent, ["chained"], now=now_ms() + i,
                                               actor="test", reason=f"change {i}", audit_id=f"audit-{i}"))
    rows = db.rows("testing/version_chain", label="Agent", id="chained")
    got = [(r["version"], r["previous"]) for r in rows]
    first = rows[0]["n"]
    want = [(versions.version_id("Agent", "chained", first + j),
             [versions.version_id("Agent", "chained", first + j - 1)] if j else []) for j in range(len(rows))]
    assert len(rows) >= 4 and got == want, got


def test_a_version_kept_before_versions_had_one_label_is_linked_too(db) -> None:
    """A store written before every version carried :Version holds its entries' and core blocks' versions under
    EntryVersion or CoreBlockVersion alone: the next version still links it."""
    register(db, AgentIn(id="legacy", name="legacy", clade="c"), actor="test")
    old = versions.version_id("Agent", "legacy", 7)
    db.run("testing/legacy_version", label="Agent", id="legacy", n=7, version_id=old)
    db.write(lambda tx: versions.keep(tx, versions.Versioned.Agent, ["legacy"], now=now_ms(), actor="test",
                                      reason="change", audit_id="audit-legacy"))
    rows = {r["version"]: r["previous"] for r in db.rows("testing/version_chain", label="Agent", id="legacy")}
    assert rows[versions.version_id("Agent", "legacy", 8)] == [old], rows
