"""Bad input gets a clear 4xx with a message, never a 500, and writes nothing."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from grimoire.api.app import create_app
from tests.conftest import ADMIN_KEY, counts


def _episode(**extra) -> dict:
    return {"type": "observation", "text": "ETH at 3000", **extra}


def test_limits_on_texts_lists_and_batches(client, db) -> None:
    before = counts(db)
    too_long = client.post("/episodes", json=_episode(text="x" * 20_001))
    assert too_long.status_code == 422 and "text" in too_long.json()["detail"]
    too_many = client.post("/episodes/batch", json={"episodes": [_episode(id=f"e{i}") for i in range(5_001)]})
    assert too_many.status_code == 422 and "episodes" in too_many.json()["detail"]
    empty = client.post("/episodes/batch", json={"episodes": []})
    assert empty.status_code == 422
    actions = client.post("/episodes", json=_episode(actions=["a"] * 101))
    assert actions.status_code == 422
    assert counts(db) == before


def test_numbers_enums_and_vectors(client, embedder) -> None:
    nan = '{"type": "observation", "text": "t", "gain": NaN}'
    r = client.post("/episodes", content=nan, headers={"content-type": "application/json"})
    assert r.status_code == 422 and "finite" in r.json()["detail"]
    inf = '{"type": "observation", "text": "t", "gain": Infinity}'
    assert client.post("/episodes", content=inf, headers={"content-type": "application/json"}).status_code == 422
    r = client.post("/episodes", json=_episode(importance="apocalyptic"))
    assert r.status_code == 422 and "importance" in r.json()["detail"]
    r = client.post("/search", json={"vector": [0.1] * 17})
    assert r.status_code == 422 and "384" in r.json()["detail"]
    r = client.post("/search", content='{"vector": [0.1, NaN]}', headers={"content-type": "application/json"})
    assert r.status_code == 422
    r = client.post("/search", json={"vector": [0.1] * 5_000})
    assert r.status_code == 422
    r = client.post("/search", json={"text": "x", "vector": [0.1]})
    assert r.status_code == 422 and "either" in r.json()["detail"]
    bad_json = client.post("/episodes", content="{not json", headers={"content-type": "application/json"})
    assert bad_json.status_code == 422


def test_cypher_and_lucene_looking_text_is_data(client, db) -> None:
    """Free text is a parameter, never Cypher: it is stored verbatim. Ids and names are patterned,
    so Cypher or Lucene syntax there is refused."""
    injection = "x'}) MATCH (n) DETACH DELETE n //"
    r = client.post("/episodes", json=_episode(id="inj-1", text=injection))
    assert r.status_code == 201
    assert client.get("/episodes/inj-1").json()["text"] == injection
    assert counts(db)["Episode"] == 1
    for bad_id in ("x'}) DETACH DELETE n //", "a b", "ep:1 OR 1=1 --", "*:*"):
        r = client.post("/episodes", json=_episode(id=bad_id))
        assert r.status_code == 422, bad_id
        assert "id" in r.json()["detail"]
    lucene = ['oracle AND (', '"unbalanced', 'a~~ b^^ c**', 'NOT', '\\', 'title:*', 'x || y && !z', '[1 TO 5}']
    for q in lucene:
        r = client.post("/search", json={"text": q, "mode": "fulltext"})
        assert r.status_code == 200, (q, r.text)
    client.post("/episodes", json=_episode(id="lucene-1", text="Use (AND) when oracle:price looks off"))
    hits = client.post("/search", json={"text": "oracle:price", "mode": "fulltext"}).json()
    assert [h["id"] for h in hits] == ["lucene-1"]


def test_oversized_requests_get_413(db, neo4j_server, embedder) -> None:
    app = create_app(neo4j_server.settings(admin_key=ADMIN_KEY, max_body_bytes=10_000), db=db, embedder=embedder)
    with TestClient(app) as c:
        body = json.dumps({"agent_id": "x", "type": "observation", "text": "y" * 20_000})
        r = c.post("/episodes", content=body, headers={"content-type": "application/json", "X-API-Key": ADMIN_KEY})
        assert r.status_code == 413 and "larger than 10000 bytes" in r.json()["detail"]

        def chunks():  # no content-length: the stream itself is counted
            for _ in range(20):
                yield b"y" * 1_000

        r = c.post("/episodes", content=chunks(), headers={"content-type": "application/json",
                                                             "X-API-Key": ADMIN_KEY})
        assert r.status_code == 413


def test_integers_beyond_64_bits_are_refused_not_500(client, db) -> None:
    """Neo4j integers are 64-bit: a larger one is a 422 with a message, and nothing is written."""
    for field in ("block", "tick", "valid_from_block", "valid_until_block"):
        r = client.post("/episodes", json=_episode(id=f"big-{field}", **{field: 2**64}))
        assert r.status_code == 422 and field in r.text, (field, r.text)
    r = client.post("/analytics/pagerank", json={"block": 1, "known_at": 2**70})
    assert r.status_code == 422, r.text
    r = client.post("/retrieve", json={"text": "x", "filters": {"valid_at": 2**64}})
    assert r.status_code == 422, r.text
    assert client.get("/episodes").json() == []
