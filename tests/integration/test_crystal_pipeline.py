"""MemoryPipeline (knowledge-crystals.md, "Indexing Pipeline"): retrieve → filter → augment → store in Python over
the service's own retrieval and an audited write-back, as the caller may see and only on what it owns."""

from __future__ import annotations

import pytest

from grimoire.graph.crystals.service import Crystals
from grimoire.graph.errors import Invalid
from grimoire.graph.retrieval.pipeline import build
from grimoire.graph.visibility import Visibility
from tests.conftest import Api


def test_retrieve_filter_augment_store(api: Api, embedder) -> None:
    mine, theirs = api.headers("pl-a", "clade-pl"), api.headers("pl-b", "clade-pl")
    texts = {"pl-1": "The Aave WETH borrow rate spiked after the oracle update",
             "pl-2": "The Aave WETH borrow rate fell back within the hour",
             "pl-3": "Aave governance raised the WETH supply cap"}
    for eid, text in texts.items():
        assert api.client.post("/episodes", headers=mine, json={"id": eid, "type": "observation",
                                                                 "text": text}).status_code == 201
    assert api.client.post("/episodes", headers=theirs, json={"id": "pl-shared", "scope": "shared",
                                                               "type": "observation",
                                                               "text": "The Aave WETH borrow rate doubled"}
                           ).status_code == 201
    assert api.client.post("/crystals/pl-3/lifecycle", headers=mine, json={"to": "frozen"}).status_code == 200
    crystals = Crystals(api.db, build(api.db, embedder))
    view = Visibility("pl-a", "clade-pl")
    result = (crystals.pipeline(view, agent_id="pl-a", actor="test")
              .retrieve("Aave WETH borrow rate", semantic_type="episode", limit=10)
              .filter(lambda c: c["id"] != "pl-2")
              .augment(lambda c: {**c, "priority": 10, "importance_score": c["importance_score"] * 1.1})
              .store()
              .execute())
    assert {c["id"] for c in result.crystals} == {"pl-1", "pl-3", "pl-shared"}
    assert result.stored == ["pl-1"]
    assert result.skipped == {"pl-3": "frozen: immutable (a change is a new version)",
                              "pl-shared": "not the caller's: only an owner's crystals are stored"}
    one = api.client.get("/crystals/pl-1", headers=mine).json()
    assert one["priority"] == 10 and one["importance_score"] == pytest.approx(0.095163 * 1.1)
    assert api.client.get("/crystals/pl-2", headers=mine).json()["priority"] == 0
    assert api.client.get("/crystals/pl-shared", headers=theirs).json()["priority"] == 0
    records = [r for r in api.db.rows("testing/audit_records") if r["action"] == "crystal.pipeline_store"]
    assert len(records) == 1 and records[0]["id"] == result.audit_id and records[0]["target_ids"] == ["pl-1"]
    # Nothing is stored without a store step; a pipeline starts with retrieve.
    again = crystals.pipeline(view, agent_id="pl-a", actor="test").retrieve("WETH", limit=2).execute()
    assert len(again.crystals) == 2 and again.stored == []
    with pytest.raises(Invalid):
        crystals.pipeline(view, agent_id="pl-a", actor="test").store().execute()
