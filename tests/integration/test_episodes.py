"""Episodes over REST against the real database: every field, idempotent batches, no half-writes."""

from __future__ import annotations

import uuid

from grimoire.graph.episodes import ingest
from grimoire.graph.model.episode import EpisodeIn
from tests.conftest import counts

FULL = {
    "id": "ep-full-1", "agent_id": "golem-1", "scope": "shared", "type": "action",
    "text": "Swapped 12 WETH for USDC on the 0.05% pool; slippage 0.3%", "tool": "uniswap_swap",
    "outcome": "positive", "outcome_detail": "filled at 3012.5", "chain": "1", "token_pair": "WETH/USDC",
    "tick": 4411, "block": 19_000_123, "importance": "notable", "regime": "high_vol",
    "actions": ["quote", "swap"], "gain": 41.25,
    "emotional_tag": {"primary": "joy", "pleasure": 0.6, "arousal": 0.4, "dominance": 0.2, "phase": "thriving",
                      "intensity": 0.7, "label": "relieved"},
    "consolidated": False, "valid_from": "2024-01-10T12:00:00Z", "valid_until_block": 19_000_200,
    "mentions": [{"kind": "Token", "name": "WETH", "chain_id": 1,
                  "address": "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"},
                 {"kind": "Pool", "name": "WETH/USDC 0.05%", "chain_id": 1,
                  "address": "0x88e6A0c2dDD26FEEb64F039a2c41296FcB3f5640"}],
}


def test_every_field_round_trips(client, db) -> None:
    r = client.post("/episodes", json=FULL)
    assert r.status_code == 201, r.text
    assert r.json()["created"] == ["ep-full-1"]
    got = client.get("/episodes/ep-full-1").json()
    for key in ("agent_id", "scope", "type", "text", "tool", "outcome", "outcome_detail", "chain", "token_pair",
                "tick", "block", "importance", "regime", "actions", "gain", "consolidated", "valid_until_block"):
        assert got[key] == FULL[key], key
    assert got["valid_from"] == "2024-01-10T12:00:00+00:00"
    assert got["valid_from_block"] == 19_000_123 and got["time_axis"] == "block"
    assert got["pad"] == [0.6, 0.4, 0.2] and got["emotion_primary"] == "joy" and got["emotion_phase"] == "thriving"
    assert got["emotion_intensity"] == 0.7 and got["emotion_label"] == "relieved"
    assert "recorded_at" in got and "embedding" not in got
    assert {m["id"] for m in got["mentions"]} == {"1:0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
                                                   "1:0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640"}
    c = counts(db)
    assert c["Episode"] == 1 and c["Entity"] == 2 and c["Token"] == 1 and c["Pool"] == 1 and c["MENTIONS"] == 2
    # registering the agent, making its key, the ingest, and its enrichment (the fixture drained the queue)
    assert c["AuditRecord"] == 4 and got["enrichment"] == "done"


def test_episodes_are_embedded_and_indexed(client, db, embedder) -> None:
    client.post("/episodes", json=FULL)
    hits = client.post("/search", json={"text": "slippage", "mode": "fulltext"}).json()
    assert [h["id"] for h in hits] == ["ep-full-1"]
    vector = embedder.embed_one("swap WETH to USDC with low slippage")
    assert client.post("/search", json={"vector": vector, "k": 1}).json()[0]["id"] == "ep-full-1"


def test_a_uuid7_is_made_when_no_id_is_given(client) -> None:
    r = client.post("/episodes", json={"type": "observation", "text": "ETH at 3000"})
    new_id = uuid.UUID(r.json()["ids"][0])
    assert new_id.version == 7


def _batch(n: int, prefix: str = "b") -> list[dict]:
    return [{"id": f"{prefix}-{i}", "agent_id": "golem-1", "type": "observation",
             "text": f"Tick {i}: WETH borrow APY {2 + i / 100:.2f}%", "tick": i} for i in range(n)]


def test_resending_a_batch_creates_nothing_new(client, db) -> None:
    first = client.post("/episodes/batch", json={"episodes": _batch(1500)}).json()
    assert len(first["created"]) == 1500 and first["existing"] == []
    assert len(first["audit_ids"]) == 2  # two transactions of at most 1,000
    before = counts(db)
    again = client.post("/episodes/batch", json={"episodes": _batch(1500)}).json()
    assert again["created"] == [] and len(again["existing"]) == 1500
    after = counts(db)
    assert after["Episode"] == before["Episode"] == 1500
    assert after["AuditRecord"] == before["AuditRecord"] + 2  # the attempt is audited, nothing else changes


def test_a_malformed_batch_writes_nothing(client, db) -> None:
    before = counts(db)
    bad = _batch(50)
    bad[37]["type"] = "not-a-type"
    r = client.post("/episodes/batch", json={"episodes": bad})
    assert r.status_code == 422
    assert "type" in r.text
    nan = _batch(5)
    nan[2]["gain"] = float("nan")
    assert client.post("/episodes/batch", content=str({"episodes": nan}).replace("'", '"')
                       .replace("nan", "NaN").replace("False", "false"),
                       headers={"content-type": "application/json"}).status_code == 422
    dupes = _batch(3) + _batch(1)
    r = client.post("/episodes/batch", json={"episodes": dupes})
    assert r.status_code == 422 and "repeats ids" in r.text
    assert counts(db) == before


def test_list_filters_by_type_regime_and_both_time_axes(api, client) -> None:
    rows = [
        {"id": "old", "type": "observation", "text": "calm market", "regime": "low_vol", "scope": "public",
         "valid_from": "2024-01-01T00:00:00Z"},
        {"id": "mid", "type": "regime_shift", "text": "volatility spike", "regime": "high_vol", "scope": "public",
         "valid_from": "2024-06-01T00:00:00Z"},
    ]
    assert client.post("/episodes/batch", json={"episodes": rows}).status_code == 201
    newer = {"id": "new", "type": "conversation", "text": "hello there", "valid_from": "2025-01-01T00:00:00Z"}
    assert client.post("/episodes", json=newer, headers=api.headers("golem-b", scopes=("read", "write"))) \
        .status_code == 201
    client.headers.update(api.admin)
    ids = lambda **q: [e["id"] for e in client.get("/episodes", params=q).json()]  # noqa: E731
    assert ids() == ["new", "mid", "old"]
    assert ids(type="regime_shift") == ["mid"]
    assert ids(regime="low_vol") == ["old"]
    assert ids(agent_id="golem-1") == ["mid", "old"]
    assert ids(valid_from="2024-03-01T00:00:00Z", valid_to="2024-12-31T00:00:00Z") == ["mid"]
    recorded = client.get("/episodes/old").json()["recorded_at"]
    assert ids(recorded_to=recorded) == []
    assert set(ids(recorded_from=recorded)) == {"old", "mid", "new"}
    assert client.get("/episodes", params={"type": "bogus"}).status_code == 422
    assert client.get("/episodes/nope").status_code == 404


def test_graph_ingest_pipelines_chunks(db, embedder) -> None:
    eps = [EpisodeIn(id=f"p-{i}", agent_id="g", type="observation", text=f"observation {i}") for i in range(25)]
    result = ingest(db, embedder, eps, actor="test", chunk_size=10)
    assert result.created == [f"p-{i}" for i in range(25)] and len(result.audit_ids) == 3
