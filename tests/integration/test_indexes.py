"""The native vector index and the full-text index answer like their definitions say."""

from __future__ import annotations

import json

import numpy as np
import pytest

from grimoire.graph.db.connection import Database, IndexOffline
from grimoire.graph.embeddings import Embedder
from grimoire.graph.retrieval import backends, search
from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.retrieval.filters import RetrievalFilters
from grimoire.graph.retrieval.search import Kind
from grimoire.graph.schema import VECTOR_INDEXES, vector_index_dimensions
from grimoire.graph.upkeep.rebuild import rebuild_vector_indexes
from grimoire.graph.visibility import Visibility
from tests.conftest import DATA

ADMIN = Visibility.everything()
# Through the vector index, asking it for 10 x k candidates, even where the store is small enough
# to be ranked exactly (graph/retrieval/reach.py): these tests are about the index.
INDEX = RetrievalConfig(exact_below=0, exact_index_ratio=0, candidates_factor=10)


@pytest.fixture
def locomo_turns() -> tuple[list[dict], list[str]]:
    conversation = json.loads((DATA / "locomo" / "locomo-dev.json").read_text())[0]
    sessions = conversation["conversation"]
    turns = [t for key in sorted(k for k in sessions if k.startswith("session_") and k[8:].isdigit())
             for t in sessions[key]]
    questions = [qa["question"] for qa in conversation["qa"][:25]]
    return turns, questions


def test_vector_index_matches_brute_force_cosine(db: Database, embedder: Embedder, locomo_turns) -> None:
    turns, questions = locomo_turns
    vectors = embedder.embed([t["text"] for t in turns])
    rows = [{"id": t["dia_id"], "text": t["text"], "embedding": v.tolist()}
            for t, v in zip(turns, vectors, strict=True)]
    for start in range(0, len(rows), 1000):
        db.run("testing/create_episodes", rows=rows[start:start + 1000])
    db.run("schema/await_indexes", seconds=120)
    ids = [r["id"] for r in rows]
    k = 10
    for question, q in zip(questions, embedder.embed(questions), strict=True):
        cosine = vectors @ q / (np.linalg.norm(vectors, axis=1) * np.linalg.norm(q))
        expected = [ids[i] for i in np.argsort(-cosine)[:k]]
        got = search.vector(db, Kind.episodes, q.tolist(), k, ADMIN, INDEX)
        assert [r["id"] for r in got] == expected, question
        # Search reports retrieval's scale: the cosine similarity itself, in [-1, 1].
        expected_scores = [cosine[ids.index(i)] for i in expected]
        assert np.allclose([r["score"] for r in got], expected_scores, atol=1e-4)


def test_fulltext_index_finds_a_node_by_a_word(db: Database, embedder: Embedder) -> None:
    texts = ["The Chainlink ETH/USD oracle was replaced by governance",
             "Liquidity moved from the USDC pool to the DAI pool",
             "I went to a pottery class with my kids yesterday"]
    rows = [{"id": f"ft{i}", "text": t, "embedding": v.tolist()}
            for i, (t, v) in enumerate(zip(texts, embedder.embed(texts), strict=True))]
    db.run("testing/create_episodes", rows=rows)
    db.run("schema/await_indexes", seconds=60)
    assert [r["id"] for r in search.fulltext(db, Kind.episodes, "pottery", 5, ADMIN)] == ["ft2"]
    assert [r["id"] for r in search.fulltext(db, Kind.episodes, "oracle", 5, ADMIN)] == ["ft0"]
    assert search.fulltext(db, Kind.episodes, "nonexistentword", 5, ADMIN) == []


def test_rebuilt_vector_indexes_answer_the_same_and_retrieval_outlives_a_missing_one(
        db: Database, embedder: Embedder, locomo_turns) -> None:
    """`grimoire schema rebuild-vectors` drops and re-creates the episode and entry indexes in one
    transaction and waits for them (showing progress): the same dimensions, the same answers. A
    vector search while an index is missing answers exactly instead of failing."""
    turns, questions = locomo_turns
    vectors = embedder.embed([t["text"] for t in turns])
    rows = [{"id": t["dia_id"], "text": t["text"], "embedding": v.tolist()}
            for t, v in zip(turns, vectors, strict=True)]
    for start in range(0, len(rows), 100):  # written in batches: several index segments
        db.run("testing/create_episodes", rows=rows[start:start + 100])
    db.run("schema/await_indexes", seconds=120)
    queries = [q.tolist() for q in embedder.embed(questions[:5])]

    def answers() -> list[list[str]]:
        return [[r["id"] for r in search.vector(db, Kind.episodes, q, 10, ADMIN, INDEX)] for q in queries]

    before = answers()
    seen: list[dict[str, float]] = []
    rebuild_vector_indexes(db, embedder.dimension, progress=seen.append)
    assert answers() == before
    assert seen and seen[-1] == dict.fromkeys(VECTOR_INDEXES, 100.0)
    assert vector_index_dimensions(db) == {name: embedder.dimension for name in VECTOR_INDEXES}
    assert "schema.rebuild_vector_indexes" in db.run("testing/audit_actions")[0]["actions"]
    with pytest.raises(ValueError, match="not a vector index"):
        rebuild_vector_indexes(db, embedder.dimension, names=["episode_search"])

    db.run("schema/drop_index", name="episode_embedding")
    params = RetrievalFilters(kinds=["episodes"]).params(ADMIN)
    assert [r["id"] for r in backends.vector(db, queries[0], 10, 1, params)] == before[0]
    assert answers() == before  # /search: the exact search too


def test_admission_stays_open_while_the_entry_index_is_missing(api, db: Database, embedder: Embedder) -> None:
    """Admission compares a candidate with its nearest entries through the entry index; while the index is
    missing or rebuilt (Neo4j answers IndexOffline) it compares with the owner's entries read in full instead,
    and finds the same neighbour."""
    h = api.headers("golem-1", "clade-a")
    first = {"id": "en-before", "category": "Insight", "content": "oracle lag widens liquidation spreads on lending"}
    assert api.client.post("/entries", headers=h, json=first).status_code == 201
    db.run("schema/drop_index", name="entry_embedding")
    with pytest.raises(IndexOffline):
        db.run("entries/neighbours", items=[{"i": 0, "embedding": [0.1] * embedder.dimension}], k=5, candidates=50,
               now=0, floor=0.05, viewer="golem-1", clade="clade-a", admin=False)
    body = {"id": "en-during-rebuild", "category": "Insight", "content": "oracle lag widens liquidation spreads"}
    r = api.client.post("/entries", headers=h, json=body)
    assert r.status_code == 201, r.text
    assert [n["id"] for n in r.json()["nearest"]][:1] == ["en-before"]
    rebuild_vector_indexes(db, embedder.dimension, names=["entry_embedding"])
    again = {"id": "en-after", "category": "Insight", "content": "stablecoin depegs cluster in thin markets"}
    assert api.client.post("/entries", headers=h, json=again).status_code == 201
