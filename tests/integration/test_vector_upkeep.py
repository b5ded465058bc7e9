"""The service keeps its vector indexes compact on its own (graph/upkeep/vector_indexes.py): an index that a
bulk write left fragmented is rebuilt in the background once the writes stop, exact search answering
meanwhile, and the build is recorded (its node and the audit trail) so it is not rebuilt again for nothing."""

from __future__ import annotations

import json

import numpy as np
import pytest
from fastapi.testclient import TestClient

from grimoire.api.app import create_app
from grimoire.graph.db import connection
from grimoire.graph.db.connection import Database, IndexOffline
from grimoire.graph.embeddings import Embedder
from grimoire.graph.episodes import ingest
from grimoire.graph.foreground import Foreground, PacedDatabase
from grimoire.graph.knowledge import neighbours
from grimoire.graph.model.enums import EpisodeType
from grimoire.graph.model.episode import EpisodeIn
from grimoire.graph.retrieval import search
from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.retrieval.search import Kind
from grimoire.graph.schema import vector_index_states
from grimoire.graph.upkeep.config import UpkeepConfig
from grimoire.graph.upkeep.vector_indexes import VectorUpkeep, Writes
from grimoire.graph.visibility import Visibility
from tests.conftest import ADMIN_KEY, DATA, Neo4jUnderTest

ADMIN = Visibility.everything()
# Through the index while it is there (no exact ranking, whatever the reach)
INDEX = RetrievalConfig(exact_below=0, exact_index_ratio=0, candidates_factor=10)
CONFIG = UpkeepConfig(min_vectors=100, written_ratio=0.25, quiet_seconds=30)


@pytest.fixture
def turns() -> tuple[list[str], list[str]]:
    conversation = json.loads((DATA / "locomo" / "locomo-dev.json").read_text())[0]
    sessions = conversation["conversation"]
    texts = [t["text"] for key in sorted(k for k in sessions if k.startswith("session_") and k[8:].isdigit())
             for t in sessions[key]]
    return texts, [qa["question"] for qa in conversation["qa"][:5]]


def _write(db: Database, embedder: Embedder, texts: list[str], start: int) -> None:
    episodes = [EpisodeIn(id=f"turn-{start + i}", agent_id="golem-1", type=EpisodeType.conversation, text=t)
                for i, t in enumerate(texts)]
    ingest(db, embedder, episodes, actor="golem-1", clade="clade-a", chunk_size=50)  # many small batches


def _writes(db: Database, name: str, since: int = 0, base: int = 0) -> Writes:
    row = next(r for r in db.rows("upkeep/vector_sizes") if r["name"] == name)
    written = next(r["written"] for r in db.rows("upkeep/vector_written", episode_since=since, entry_since=since,
                                                 episode_cap=10_000, entry_cap=10_000) if r["name"] == name)
    return Writes(name, row["size"], written, row["newest"], base)


def _build(db: Database) -> dict:
    return {r["name"]: r["build"] for r in db.rows("testing/vector_index_builds")}["episode_embedding"]


def test_a_fragmented_index_is_rebuilt_in_the_background_once_the_writes_stop(
        db: Database, embedder: Embedder, turns) -> None:
    texts, questions = turns
    _write(db, embedder, texts[:300], 0)
    db.run("schema/await_indexes", seconds=120)
    upkeep = VectorUpkeep(db, embedder.dimension, CONFIG)
    queries = [q.tolist() for q in embedder.embed(questions)]

    def answers() -> list[list[str]]:
        return [[r["id"] for r in search.vector(db, Kind.episodes, q, 10, ADMIN, INDEX)] for q in queries]

    before = answers()
    newest = _writes(db, "episode_embedding").newest
    assert _writes(db, "episode_embedding").written == 300

    # Still being written (the newest vector 1 s old): wait for the bulk write to end.
    assert "still being written" in upkeep.run(now=newest + 1_000)
    assert db.rebuilding == frozenset()
    assert db.fetch("testing/audit_actions")[0]["actions"].count("schema.rebuild_vector_indexes") == 0

    # Quiet for 30 s: the rebuild starts, and the job returns without waiting for it.
    started_at = newest + 31_000
    report = upkeep.run(now=started_at)
    assert "episode_embedding rebuild started (300+ of 300 new since its build)" in report
    assert "entry_embedding" not in report  # no entries: nothing to rebuild
    assert db.rebuilding == {"episode_embedding"}
    assert _build(db)["rebuilding_since"] == started_at

    # Meanwhile the service does not ask the index: a statement searching it is answered at once, and
    # search answers exactly, the same as through the index.
    with pytest.raises(IndexOffline, match="being rebuilt, retry shortly: episode_embedding"):
        db.rows("retrieval/vector", embedding=queries[0])
    assert answers() == before

    db.run("schema/await_indexes", seconds=120)
    assert vector_index_states(db, ["episode_embedding"])["episode_embedding"][0] == "ONLINE"
    finished_at = started_at + 60_000
    assert upkeep.run(now=finished_at) == "episode_embedding rebuilt"
    assert db.rebuilding == frozenset()
    node = _build(db)
    assert (node["built_at"], node["size_at_build"], node["rebuilds"], node.get("rebuilding_since")) == \
        (started_at, 300, 1, None)
    assert db.fetch("testing/audit_actions")[0]["actions"].count("schema.rebuild_vector_indexes") == 2
    assert answers() == before

    # Compact now: a later look rebuilds nothing until a quarter of it is written anew.
    assert upkeep.run(now=finished_at + 120_000) == "compact"


def test_an_index_back_online_is_searched_again_without_waiting_for_the_job(
        db: Database, embedder: Embedder, turns, monkeypatch: pytest.MonkeyPatch) -> None:
    """A statement refused for an index being rebuilt asks, at most every RECHECK_SECONDS, whether it is online."""
    texts, questions = turns
    _write(db, embedder, texts[:50], 0)
    db.run("schema/await_indexes", seconds=120)
    query = embedder.embed(questions[:1])[0].tolist()
    db.rebuilding = frozenset({"episode_embedding"})  # marked just now: not asked again for a while
    with pytest.raises(IndexOffline):
        db.rows("retrieval/vector", embedding=query)
    monkeypatch.setattr(connection, "RECHECK_SECONDS", 0.0)
    db.rebuilding = frozenset({"episode_embedding", "entry_embedding"})
    assert [r["id"] for r in search.vector(db, Kind.episodes, query, 5, ADMIN, INDEX)]
    assert db.rebuilding == frozenset()  # both online: neither refused any more


def test_the_share_written_since_the_last_build_decides(db: Database, embedder: Embedder, turns) -> None:
    texts, _ = turns
    _write(db, embedder, texts[:200], 0)
    db.run("schema/await_indexes", seconds=120)
    cut = _writes(db, "episode_embedding").newest + 1
    _write(db, embedder, texts[200:240], 200)  # 40 of 240 since `cut`: under a quarter
    since = _writes(db, "episode_embedding", cut, base=200)  # as if built at `cut` with 200
    assert (since.size, since.written) == (240, 40)
    assert not since.fragmented(CONFIG)
    _write(db, embedder, texts[240:280], 240)  # 80 of 280: over
    assert _writes(db, "episode_embedding", cut, base=200).fragmented(CONFIG)
    assert not _writes(db, "episode_embedding", cut, base=200).fragmented(
        CONFIG.model_copy(update={"min_vectors": 1_000}))
    assert Writes("x", 10, 10, None).quiet(CONFIG, 0)  # never written: nothing to wait for
    # Counted no further than the share that decides: a large store is not walked once a minute.
    capped = {r["name"]: r["written"] for r in db.rows("upkeep/vector_written", episode_since=0, entry_since=0,
                                                          episode_cap=70, entry_cap=70)}
    assert capped == {"episode_embedding": 70, "entry_embedding": 0}


def test_admission_scans_while_the_entry_index_is_rebuilt(db: Database, embedder: Embedder) -> None:
    """Admission's neighbours come from the exact scan while the entry index is rebuilt, the same ones."""
    texts = ["oracle lag widens liquidation spreads", "gas spikes during NFT mints", "stablecoin depegs cluster"]
    vectors = embedder.embed(texts)
    db.run("testing/bulk_items", label="Entry", rows=[
        {"id": f"en-{i}", "props": {"agent_id": "golem-1", "scope": "private", "clade": "clade-a", "content": t,
                                    "category": "Insight", "status": "active", "confidence": 0.6, "strength": 1.0,
                                    "half_life_ms": 86_400_000, "last_accessed_at": 0, "recorded_at": 0,
                                    "valid_from": 0},
         "embedding": v.tolist()} for i, (t, v) in enumerate(zip(texts, vectors, strict=True))])
    db.run("schema/await_indexes", seconds=60)
    probe = embedder.embed(["oracle delays and liquidations"])
    probe = probe / np.linalg.norm(probe, axis=1, keepdims=True)

    def nearest() -> list[tuple[str, float]]:
        found = neighbours.find(db, probe, ["golem-1"], "clade-a", now=0, floor=0.05, skip=[False])[0]
        return [(n.id, round(n.similarity, 4)) for n in found]

    through_index = nearest()
    db.rebuilding = frozenset({"entry_embedding"})
    with pytest.raises(IndexOffline):
        db.rows("entries/neighbours", items=[{"i": 0, "embedding": probe[0].tolist()}], k=5, candidates=50, now=0,
                floor=0.05, viewer="golem-1", clade="clade-a", admin=False)
    assert nearest() == through_index and through_index[0][0] == "en-0"


def test_the_service_runs_the_upkeep_on_its_scheduler(db: Database, embedder: Embedder, neo4j_server: Neo4jUnderTest,
                                                      turns) -> None:
    # The job the service registers (not a VectorUpkeep made here), run by the service's scheduler: it starts the
    # rebuild of a fragmented index, then records the build once the index is back online.
    upkeep = UpkeepConfig(min_vectors=100, written_ratio=0.25, quiet_seconds=0)
    app = create_app(neo4j_server.settings(admin_key=ADMIN_KEY, vector_upkeep=upkeep), db=db, embedder=embedder)
    with TestClient(app) as client:
        jobs = {j["name"]: j for j in client.get("/scheduler/jobs", headers={"X-API-Key": ADMIN_KEY}).json()["jobs"]}
        assert "vectors.upkeep" in jobs and jobs["vectors.upkeep"]["every_seconds"] == 60.0
        scheduler = app.state.services.scheduler
        _write(db, embedder, turns[0][:300], 0)
        db.run("schema/await_indexes", seconds=120)
        scheduler.trigger("vectors.upkeep")
        assert scheduler.run_due() == ["vectors.upkeep"]
        state = scheduler.job("vectors.upkeep")
        assert state.runs == 1 and state.last_error is None, state
        assert "episode_embedding rebuild started (300+ of 300 new since its build)" in (state.last_result or "")
        assert _build(db)["rebuilding_since"] is not None
        assert db.fetch("testing/audit_actions")[0]["actions"].count("schema.rebuild_vector_indexes") == 1

        db.run("schema/await_indexes", seconds=120)
        scheduler.trigger("vectors.upkeep")
        assert scheduler.run_due() == ["vectors.upkeep"]
        state = scheduler.job("vectors.upkeep")
        assert state.runs == 2 and state.last_error is None and state.last_result == "episode_embedding rebuilt"
        node = _build(db)
        assert (node["size_at_build"], node["rebuilds"], node.get("rebuilding_since")) == (300, 1, None)
        assert db.fetch("testing/audit_actions")[0]["actions"].count("schema.rebuild_vector_indexes") == 2
        listed = {j["name"]: j for j in client.get("/scheduler/jobs", headers={"X-API-Key": ADMIN_KEY}).json()["jobs"]}
        assert listed["vectors.upkeep"]["runs"] == 2


def test_growth_counts_as_written_for_imports_that_keep_their_recorded_times() -> None:
    assert Writes("x", 1_000, 0, None, size_at_build=700).fragmented(CONFIG)       # grew by 300 of 1,000
    assert not Writes("x", 1_000, 0, None, size_at_build=800).fragmented(CONFIG)   # by 200: under a quarter


def test_the_curators_database_shares_what_is_being_rebuilt(db: Database, embedder: Embedder) -> None:
    paced = PacedDatabase(db, Foreground(), max_wait=0.1)
    assert paced.rows("upkeep/vector_sizes")  # statements run as before
    db.rebuilding = frozenset({"entry_embedding"})
    with pytest.raises(IndexOffline):
        paced.rows("entries/neighbours", items=[{"i": 0, "embedding": [0.1] * embedder.dimension}], k=5,
                   candidates=50, now=0, floor=0.05, viewer="golem-1", clade="clade-a", admin=False)

