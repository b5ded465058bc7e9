"""A crystal's payload (knowledge-crystals.md, lines 25-29; issue 39): its source, the file and line range a writer
that imports from files gives, and a content hash that deduplicates before cosine — in the Admission Gate (an exact
twin in the candidate's own owner and scope is a duplicate, decided without an embedding compared; another agent's
identical text is never merged into it) and in consolidation (exact twins first); crystals written before the hash
was kept get it with the schema."""

from __future__ import annotations

from typing import Any

import pytest

from grimoire.graph.crystals.config import CrystalsConfig
from grimoire.graph.crystals.consolidation import ConsolidationEngine
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.ids import now_ms
from grimoire.graph.memory import workspace
from grimoire.graph.model.crystal.payload import content_hash
from grimoire.graph.schema import apply_schema
from tests.conftest import Api

pytestmark = pytest.mark.integration

TEXT = "Warning: the WETH oracle on the lending market lags by two blocks during volatile hours"
FILE = {"path": "notes/lending.md", "start_line": 3, "end_line": 7}


def _entry(api: Api, h: dict[str, str], entry_id: str, content: str, **extra: Any) -> dict[str, Any]:
    r = api.client.post("/entries", headers=h, json={"id": entry_id, "category": "Warning", "content": content,
                                                      **extra})
    assert r.status_code == 201, r.text
    return dict(r.json())


def test_an_exact_duplicate_is_caught_by_hash_and_another_agents_text_is_its_own(api: Api) -> None:
    a, b = api.headers("pl-a", "clade-p"), api.headers("pl-b", "clade-p")
    first = _entry(api, a, "pl-1", TEXT, source_file=FILE)
    assert first["outcome"] == "admitted"
    # the payload on both read models: source, the file's line range as given, the hash of the normalised text
    for path in ("/entries/pl-1", "/crystals/pl-1"):
        got = api.client.get(path, headers=a).json()
        assert {k: got[k] for k in ("memory_source", "source_path", "start_line", "end_line", "content_hash")} == {
            "memory_source": "memory", "source_path": "notes/lending.md", "start_line": 3, "end_line": 7,
            "content_hash": content_hash(TEXT)}, path

    # The same text again (other white space): a duplicate by hash, no embedding compared, nothing written.
    again = _entry(api, a, "pl-2", "  " + TEXT.replace(" ", "\n", 2) + " ")
    assert (again["outcome"], again["entry_id"], again["target_id"]) == ("skipped", "pl-1", "pl-1")
    assert "hash_duplicate" in again["flags"] and "content hash" in again["explanation"]
    assert again["nearest"] == [] and again["factors"] == {}
    assert api.client.get("/entries/pl-2", headers=a).status_code == 404

    # Another agent's identical text is its own entry: never merged into (nor skipped as) the first's.
    theirs = _entry(api, b, "pl-3", TEXT)
    assert (theirs["outcome"], theirs["entry_id"]) == ("admitted", "pl-3") and "hash_duplicate" not in theirs["flags"]
    assert api.client.get("/entries/pl-3", headers=b).json()["content_hash"] == content_hash(TEXT)
    assert api.client.get("/entries/pl-1", headers=a).json()["tags"] == []

    # The owner's own text at another scope is another partition: the hash never matches across it.
    shared = _entry(api, a, "pl-4", TEXT, scope="shared")
    assert "hash_duplicate" not in shared["flags"]

    # In one batch, the second of two twins is a duplicate of the first.
    twin = "Heuristic: close the loop before the health factor falls under 1.1 on volatile days"
    r = api.client.post("/entries/batch", headers=a, json={"entries": [
        {"id": "pl-5", "category": "Heuristic", "content": twin},
        {"id": "pl-6", "category": "Heuristic", "content": twin}]})
    assert r.status_code == 201, r.text
    out = r.json()
    assert out[0]["outcome"] == "admitted" and (out[1]["outcome"], out[1]["entry_id"]) == ("skipped", "pl-5")
    assert "hash_duplicate" in out[1]["flags"]


@pytest.mark.parametrize("bad", [{"path": "a.md", "start_line": 9, "end_line": 2},
                                 {"path": "a.md", "start_line": 0, "end_line": 2},
                                 {"path": "../a.md", "start_line": 1, "end_line": 2}])
def test_a_bad_line_range_is_a_422_and_nothing_is_written(api: Api, bad: dict[str, Any]) -> None:
    h = api.headers("pl-bad", "clade-p")
    r = api.client.post("/entries", headers=h, json={"id": "pl-bad-1", "category": "Warning", "content": TEXT,
                                                      "source_file": bad})
    assert r.status_code == 422 and r.headers["content-type"].startswith("application/problem+json"), r.text
    assert api.client.get("/entries/pl-bad-1", headers=h).status_code == 404


def test_a_workspace_import_keeps_each_items_file_and_lines(api: Api) -> None:
    agent = "pl-files"
    h = api.headers(agent, "clade-p")
    day = ("# 2026-02-02 — Episode Log\n## 09:00 | event | confidence:high | tags:[]\nThe first line.\n"
           "The second line.\n\n## 10:00 | decision | confidence:high | tags:[]\nOnly one line.\n")
    files = {"memory/episodes/2026-02-02.md": day, "memory/vault/keys.md": "# keys\n<!-- Type: vault -->\nsecret\n"}
    r = api.client.post(f"/agents/{agent}/workspace", headers=h, json={"files": files})
    assert r.status_code == 200, r.text
    spans = {}
    for key in ("episode:2026-02-02:09:00", "episode:2026-02-02:10:00", "vault:keys"):
        got = api.client.get(f"/crystals/{workspace.memory_id(agent, key)}", headers=h).json()
        spans[key] = (got["memory_source"], got["source_path"], got["start_line"], got["end_line"])
        assert got["content_hash"] == content_hash(got["text"])
    assert spans == {"episode:2026-02-02:09:00": ("memory", "memory/episodes/2026-02-02.md", 2, 4),
                     "episode:2026-02-02:10:00": ("memory", "memory/episodes/2026-02-02.md", 6, 7),
                     "vault:keys": ("memory", "memory/vault/keys.md", 2, 3)}


def test_consolidation_merges_exact_twins_by_hash_within_one_source(api: Api, db: Database) -> None:
    h, other = api.headers("pl-c"), api.headers("pl-o")
    text = "The Aave WETH borrow rate spiked right after the Chainlink oracle update"
    for eid, who in (("tw-1", h), ("tw-2", h), ("tw-o", other)):
        r = api.client.post("/episodes", headers=who, json={"id": eid, "type": "observation", "text": text})
        assert r.status_code == 201, r.text
    now = now_ms()
    db.run("testing/set_crystal_props", rows=[{"id": i, "props": {"access_count": n, "last_accessed_at": now}}
                                              for i, n in (("tw-1", 30), ("tw-2", 20), ("tw-o", 30))])
    # A merge threshold no cosine reaches (1.0 + 0.03·cortisol > 1): only the hash can pair them.
    report = ConsolidationEngine(db, CrystalsConfig(merge_overlap_threshold=1.0).consolidation()).run(now)
    assert [(m["winner"], m["losers"], m["by_hash"], m["cosine"]) for m in report.merges] == [
        ("tw-1", ["tw-2"], True, None)]
    crystal = {i: api.client.get(f"/crystals/{i}", headers=who, params={"include_archived": True}).json()
               for i, who in (("tw-1", h), ("tw-2", h), ("tw-o", other))}
    assert (crystal["tw-1"]["lifecycle"], crystal["tw-2"]["lifecycle"], crystal["tw-2"]["parent_id"]) == (
        "consolidated", "archived", "tw-1")
    assert crystal["tw-o"]["lifecycle"] == "activated"  # another owner's twin: never merged


def test_crystals_written_before_the_hash_get_it_with_the_schema(api: Api, db: Database, embedder: Embedder) -> None:
    h = api.headers("pl-old")
    _entry(api, h, "old-1", TEXT)
    r = api.client.post("/episodes", headers=h, json={"id": "old-2", "type": "observation", "text": "an old note"})
    assert r.status_code == 201, r.text
    db.run("testing/set_crystal_props", rows=[{"id": i, "props": {"content_hash": None, "memory_source": None}}
                                              for i in ("old-1", "old-2")])
    assert api.client.get("/crystals/old-1", headers=h).json().get("content_hash") is None
    audits = []
    for _ in range(2):  # idempotent: the second finds nothing to do
        apply_schema(db, embedder.dimension, embedder.model_name)
        audits.append(db.run("testing/audit_actions")[0]["actions"].count("crystal.backfill_payload"))
    assert audits == [2, 2]  # a batch per label: the entry's and the episode's
    got = {i: api.client.get(f"/crystals/{i}", headers=h).json() for i in ("old-1", "old-2")}
    assert (got["old-1"]["content_hash"], got["old-1"]["memory_source"]) == (content_hash(TEXT), "memory")
    assert (got["old-2"]["content_hash"], got["old-2"]["memory_source"]) == (content_hash("an old note"), "sessions")
    # and an exact duplicate of a backfilled entry is caught by its hash
    assert "hash_duplicate" in _entry(api, h, "old-3", TEXT)["flags"]


def test_the_backfill_walks_a_label_once_in_batches(api: Api, db: Database) -> None:
    """A backfill over more crystals than a batch resumes after the last id of each batch (a cursor on the id's
    index, linear in the store): every crystal gets its hash, one audit record per batch, and a second run none."""
    from grimoire.graph.crystals.backfill import backfill_payload

    h = api.headers("pl-batches")
    ids = [f"bf-{i}" for i in range(5)]
    for i in ids:
        r = api.client.post("/episodes", headers=h, json={"id": i, "type": "observation", "text": f"note {i}"})
        assert r.status_code == 201, r.text
    db.run("testing/set_crystal_props", rows=[{"id": i, "props": {"content_hash": None}} for i in ids])
    assert backfill_payload(db, batch=2) == 5
    assert db.run("testing/audit_actions")[0]["actions"].count("crystal.backfill_payload") == 3  # 2 + 2 + 1
    got = {i: api.client.get(f"/crystals/{i}", headers=h).json()["content_hash"] for i in ids}
    assert got == {i: content_hash(f"note {i}") for i in ids}
    assert backfill_payload(db, batch=2) == 0
