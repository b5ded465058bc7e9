"""The scoped full-text indexes (cypher/schema/fulltext_indexes.cypher, graph/db/lucene.py): a query that requires the
caller's scope of each hit loses no item the caller may see, for owners, clades and ids of every shape the analyzer
might split or drop; the scores are the text's alone; and a caller that sees a small share of a crowded store gets
its own best matches, which the store's best thousand left out before the indexes were scoped."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from grimoire.graph.db.connection import Database
from grimoire.graph.db.lucene import escape_lucene, scope_clauses, scoped
from grimoire.graph.ids import now_ms
from grimoire.graph.visibility import EVERYONE, Visibility

# Owners and clades the English analyzer splits ("golem-1"), stems ("oracles"), joins ("x.y"), or partly drops as
# stop words ("the-it-agent", "clade-a"), beside look-alikes that must not pass for them.
OWNERS = ["golem-1", "golem-10", "golem", "Golem-1", "the-it-agent", "it-2", "x.y", "oracles:desk", "a-1", "b_2"]
CLADES = ["clade-a", "clade-b", "clade", "to-be", None]
SCOPES = ["private", "shared", "public"]


def _rows(dimension: int) -> list[dict[str, Any]]:
    rng = np.random.default_rng(7)
    now = now_ms()
    rows = []
    for i, (owner, clade, scope) in enumerate((o, c, s) for o in OWNERS for c in CLADES for s in SCOPES):
        vector = rng.normal(size=dimension)
        props = {"agent_id": owner, "scope": scope, "valid_from": now, "recorded_at": now, "last_accessed_at": now,
                 "text": f"the oracle lagged {'badly ' * (i % 4)}on block {i}", "type": "observation",
                 "importance": "routine"}
        if clade is not None:
            props["clade"] = clade
        rows.append({"id": f"scope-{i}", "props": props, "embedding": (vector / np.linalg.norm(vector)).tolist()})
    return rows


def _hits(db: Database, query: str, visibility: Visibility, agent_id: str | None = None) -> dict[str, float]:
    rows = db.rows("retrieval/fulltext", query=query, candidates=10_000, top=10_000, labels=["Episode"],
                   categories=None, statuses=["active"], regimes=None, valid_at=None, known_as_of=None, levels=None,
                   agent_id=agent_id, memories=False, **visibility.params())
    return {r["id"]: r["score"] for r in rows}


VIEWERS = [Visibility.of(o, c) for o in OWNERS for c in CLADES] + [Visibility.of(None, "clade-a"), EVERYONE]


@pytest.mark.parametrize("agent_filter", [None, "golem-1", "the-it-agent"])
def test_the_scoped_query_loses_no_visible_item_and_keeps_its_score(db: Database, embedder, agent_filter) -> None:
    rows = _rows(embedder.dimension)
    db.run("testing/bulk_items", label="Episode", rows=rows)
    words = escape_lucene("oracle badly")  # every item says "oracle"
    narrowed = 0
    for viewer in VIEWERS:
        visible = {r["id"] for r in rows if viewer.sees(r["props"])
                   and (agent_filter is None or r["props"]["agent_id"] == agent_filter)}
        everything = _hits(db, scoped(words), viewer, agent_filter)  # the whole index, the Cypher rule filtering
        assert set(everything) == visible, viewer
        required = scope_clauses(viewer, agent_filter)
        narrowed += bool(required)
        assert _hits(db, scoped(words, required), viewer, agent_filter) == pytest.approx(everything), viewer
    assert narrowed >= len(VIEWERS) // 2  # most of these viewers were narrowed, not searched whole


def test_a_caller_that_sees_a_small_share_gets_its_own_best_matches(api, db: Database, embedder) -> None:
    """1,100 private items of another agent say "oracle" more often than the caller's one item does: the store's
    best thousand are all theirs, and the caller's match came back only once the index was scoped."""
    rng = np.random.default_rng(11)
    now = now_ms()
    crowd = []
    for i in range(1_100):
        vector = rng.normal(size=embedder.dimension)
        crowd.append({"id": f"crowd-{i}", "embedding": (vector / np.linalg.norm(vector)).tolist(),
                      "props": {"agent_id": "crowd", "clade": "crowds", "scope": "private", "valid_from": now,
                                "recorded_at": now, "last_accessed_at": now, "type": "observation",
                                "importance": "routine", "text": f"oracle oracle oracle price {i}"}})
    db.run("testing/bulk_items", label="Episode", rows=crowd)
    h = api.headers("small-one", "smalls")
    mine = {"agent_id": "small-one", "type": "observation", "text": "an oracle note about the ETH feed"}
    created = api.client.post("/episodes/batch", headers=h, json={"episodes": [mine]})
    assert created.status_code == 201, created.text
    own_id = created.json()["ids"][0]

    r = api.client.post("/retrieve", headers=h, json={"text": "oracle", "mode": "bm25", "k": 5, "no_budget": True})
    assert r.status_code == 200, r.text
    assert [x["id"] for x in r.json()["results"]] == [own_id]


def test_words_the_index_keeps_none_of_find_nothing(api) -> None:
    """The parser drops a clause its analyzer empties: a scoped query of stop words alone would be its scope alone,
    every item the caller sees. BM25 answers nothing for such words, and forget finds no memory by them."""
    h = api.headers("golem-will", "clade-w")
    said = api.client.post("/agents/golem-will/messages", headers=h,
                           json={"text": "Remember that the oracle will lag on Mondays.", "session_id": "s-1"})
    assert said.status_code in (200, 201), said.text
    for text in ("will", "is it", "?", "it's", "__"):
        r = api.client.post("/retrieve", headers=h, json={"text": text, "mode": "bm25", "k": 5, "no_budget": True})
        assert r.status_code == 200, r.text
        assert r.json()["results"] == [], text
    preview = api.client.post("/agents/golem-will/forget/preview", headers=h, json={"target": "will"})
    assert preview.status_code == 200, preview.text
    assert preview.json()["memories"] == []
    found = api.client.post("/agents/golem-will/forget/preview", headers=h, json={"target": "oracle Mondays"})
    assert found.status_code == 200 and len(found.json()["memories"]) == 1, found.text
