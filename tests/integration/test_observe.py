"""One timing idiom (issue 38, section 4; graph/observe.py), on the real service: an observer registered once sees
every Cypher statement and transaction a request runs (by the statement's name), the retrieval pipeline's stages
and the context Governor's: the very laps the response's `timings_ms` reports."""

from __future__ import annotations

import pytest

from tests.conftest import Recorder

AGENT, CLADE = "golem-obs", "clade-obs"


def _episodes(n: int) -> list[dict[str, object]]:
    return [{"agent_id": AGENT, "type": "observation", "text": f"the ETH oracle lagged the market by {i} blocks"}
            for i in range(n)]


def test_a_retrieval_s_statements_and_stages_reach_the_observer(api, recorder: Recorder) -> None:
    h = api.headers(AGENT, CLADE)
    assert api.client.post("/episodes/batch", headers=h, json={"episodes": _episodes(5)}).status_code == 201
    written = {t.name for t in recorder.of("cypher")}
    assert any("ingest" in name for name in written), written  # the batch's write transaction
    recorder.timings.clear()

    r = api.client.post("/retrieve", headers=h, json={"text": "oracle lag", "k": 3})
    assert r.status_code == 200, r.text
    statements = {t.name for t in recorder.of("cypher")}
    # the members and BM25 (in the pool), one statement (with the named entities once the caller's reach is held)
    assert {"retrieval/members_fulltext", "retrieval/members_fulltext_entities"} & statements, statements
    stages = recorder.of("retrieval")
    reported = r.json()["timings_ms"]
    assert [t.name for t in stages] and set(reported) == {t.name for t in stages}
    for stage, ms in reported.items():  # the response's laps are the observer's, stage by stage
        assert ms == pytest.approx(sum(t.ms for t in stages if t.name == stage), abs=0.02)


def test_a_context_assembly_s_laps_reach_the_observer(api, recorder: Recorder) -> None:
    h = api.headers(AGENT, CLADE)
    assert api.client.post("/episodes/batch", headers=h, json={"episodes": _episodes(3)}).status_code == 201
    r = api.client.post(f"/agents/{AGENT}/context/assemble", headers=h,
                        json={"query": "oracle lag", "preassembled": False})
    assert r.status_code == 200, r.text
    laps = {t.name: t.ms for t in recorder.of("context")}
    reported = r.json()["timings_ms"]
    assert {"state_and_embedding", "fetch", "compose", "record"} <= set(laps)
    assert {k: v for k, v in reported.items() if k != "total"} == pytest.approx(laps, abs=0.02)
