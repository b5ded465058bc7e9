"""Agent-memory recall's keyword search is retrieval's (graph/retrieval/lookup.py): sized by how many memories the
agent has, not by a fixed over-fetch of the whole index, so an agent with a handful of memories in a store where
other agents hold many more matching ones still recalls its own by keyword (it found none before: the index's
first hits were all the others', and only the hybrid fallback answered)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from grimoire.graph.db.connection import Database
from tests.conftest import Api

AGENT, CLADE = "few-memories", "clade-few"
SAID = (datetime.now(UTC) - timedelta(hours=1)).replace(minute=0, second=0, microsecond=0)


def _say(api: Api, text: str, minutes: int) -> str:
    r = api.client.post(f"/agents/{AGENT}/messages", headers=api.headers(AGENT, CLADE),
                        json={"text": text, "session_id": "s-few",
                              "at": (SAID + timedelta(minutes=minutes)).isoformat()})
    assert r.status_code == 200, r.text
    return str(r.json()["memory_id"])


def _others(db: Database, start: int, n: int) -> None:
    """n memories of other agents, short (so BM25 ranks them above the agent's longer ones) and matching."""
    rows = [{"id": f"other-mem-{i}", "props": {"text": "canary rollout", "agent_id": f"other-{i % 7}",
                                               "scope": "private", "store": "episodic", "type": "conversation"}}
            for i in range(start, start + n)]
    db.run("testing/bulk_memories", rows=rows)


def _recall(api: Api, q: str) -> dict[str, Any]:
    r = api.client.get(f"/agents/{AGENT}/recall", headers=api.headers(AGENT, CLADE),
                       params={"q": q, "type": "temporal"})
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_an_agent_with_few_memories_recalls_its_own_among_many_matching_ones(api: Api, db: Database) -> None:
    mine = [_say(api, "Remember that we moved the canary rollout of the payments service to Thursdays after "
                      "the incident review", 0),
            _say(api, "Remember that the canary rollout for the search cluster waits for the nightly reindex "
                      "to finish first", 1)]
    _say(api, "Remember that the office plants need water on Mondays", 2)
    # 300 matching memories of others: beyond the old x10 over-fetch (100 index hits for k = 10).
    _others(db, 0, 300)
    found = _recall(api, "When did we change the canary rollout?")
    assert found["strategy"] == "temporal", found["strategy"]
    assert sorted(m["id"] for m in found["results"]) == sorted(mine)
    assert {m["via"] for m in found["results"]} == {"keyword"}
    # 1,500 of them: beyond what the index is ever asked for; the agent's own few are still found (exactly).
    _others(db, 300, 1_200)
    found = _recall(api, "When did we change the canary rollout?")
    assert found["strategy"] == "temporal"
    assert sorted(m["id"] for m in found["results"]) == sorted(mine)
