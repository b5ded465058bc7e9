"""Forgotten items read as forgotten (issue 36, section 3): an entity that only forgotten items mention is not
resolved; a forgotten memory's crystal lifecycle is archived, and reads by id (REST's memory, episode, entry and
crystal routes, MCP's grimoire://items/{id}) answer 404 unless the caller asks for archived items too; on the
memory list `archived=true` means only the archived ones and `include_archived=true` both."""

from __future__ import annotations

from typing import Any

from tests.conftest import Api
from tests.integration.mcp_live import Live, live_fixture, run  # noqa: F401  (the fixture)

AGENT, CLADE = "wallet-owner", "clade-w"
WALLET = "0xabc0000000000000000000000000000000000def"


def _say(api: Api, h: dict[str, str], text: str, agent: str = AGENT) -> dict[str, Any]:
    r = api.client.post(f"/agents/{agent}/messages", headers=h, json={"text": text, "session_id": "s-1"})
    assert r.status_code == 200, r.text
    return dict(r.json())


def _forget(api: Api, h: dict[str, str], ids: list[str], agent: str = AGENT) -> None:
    r = api.client.post(f"/agents/{agent}/forget", headers=h, json={"ids": ids})
    assert r.status_code == 200 and sorted(r.json()["archived"]) == sorted(ids), r.text


def _resolved(api: Api, h: dict[str, str], q: str) -> list[str]:
    r = api.client.get("/entities/resolve", headers=h, params={"q": q})
    assert r.status_code == 200, r.text
    return [e["id"] for e in r.json()]


def _ids(api: Api, h: dict[str, str], **params: Any) -> set[str]:
    r = api.client.get(f"/agents/{AGENT}/memories", headers=h, params={"limit": 500, **params})
    assert r.status_code == 200, r.text
    return {m["id"] for m in r.json()}


def test_an_entity_only_forgotten_memories_mention_is_not_resolved(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    wallet = _say(api, h, f"Remember that my wallet is {WALLET}")["memory_id"]
    kept = _say(api, h, "Remember that I prefer low-risk pools")["memory_id"]
    found = _resolved(api, h, WALLET)
    assert found, "the wallet's entity is resolved while its memory is live"
    _forget(api, h, [wallet])
    assert _resolved(api, h, WALLET) == []
    assert api.client.get(f"/entities/{found[0]}/related", headers=h).status_code == 404
    assert kept in _ids(api, h)
    # restored, the memory mentions it again
    assert api.client.post(f"/agents/{AGENT}/memories/restore", headers=h, json={"ids": [wallet]}).status_code == 200
    assert _resolved(api, h, WALLET) == found


def test_an_entity_a_live_item_still_mentions_stays_resolved(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    first = _say(api, h, f"Remember that my wallet is {WALLET}")["memory_id"]
    _say(api, h, f"Remember that {WALLET} holds the vault shares")
    found = _resolved(api, h, WALLET)
    assert found
    _forget(api, h, [first])
    assert _resolved(api, h, WALLET) == found


def test_a_forgotten_memory_is_archived_and_read_by_id_only_when_asked(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    gone = _say(api, h, f"Remember that my wallet is {WALLET}")["memory_id"]
    live = _say(api, h, "Remember that I prefer low-risk pools")["memory_id"]
    assert api.client.get(f"/crystals/{gone}", headers=h).json()["lifecycle"] == "generated"
    _forget(api, h, [gone])
    for path in (f"/agents/{AGENT}/memories/{gone}", f"/crystals/{gone}", f"/episodes/{gone}"):
        assert api.client.get(path, headers=h).status_code == 404, path
    memory = api.client.get(f"/agents/{AGENT}/memories/{gone}", headers=h, params={"include_archived": True})
    crystal = api.client.get(f"/crystals/{gone}", headers=h, params={"include_archived": True})
    assert memory.status_code == 200 and memory.json()["lifecycle"] == "archived"
    assert memory.json()["relevance"]["status"] == "archived"
    assert crystal.status_code == 200 and crystal.json()["lifecycle"] == "archived"
    assert crystal.json()["lifecycle_reason"] == "forgotten"
    # lists: live by default, only the archived with archived=true, both with include_archived=true
    assert gone not in _ids(api, h) and live in _ids(api, h)
    assert _ids(api, h, archived=True) == {gone}
    assert {gone, live} <= _ids(api, h, include_archived=True)
    # restored: the lifecycle it had, readable again
    assert api.client.post(f"/agents/{AGENT}/memories/restore", headers=h, json={"ids": [gone]}).status_code == 200
    back = api.client.get(f"/crystals/{gone}", headers=h)
    assert back.status_code == 200 and back.json()["lifecycle"] == "generated"
    assert "lifecycle_before_archive" not in back.json()
    assert api.client.get(f"/agents/{AGENT}/memories/{gone}", headers=h).status_code == 200


def test_an_archived_entry_and_episode_are_read_by_id_only_when_asked(api: Api) -> None:
    h = api.headers("archivist", "clade-r")
    r = api.client.post("/entries", headers=h, json={
        "id": "arch-entry", "category": "Insight",
        "content": "Curve stETH pool depth halves during weekend liquidations on mainnet"})
    assert r.json()["outcome"] == "admitted", r.text
    assert api.client.post("/episodes", headers=h, json={"id": "arch-ep", "type": "observation",
                                                         "text": "the stETH pool thinned out"}).status_code == 201
    for path, cid in (("/entries/arch-entry", "arch-entry"), ("/episodes/arch-ep", "arch-ep")):
        for to in ("activated", "archived"):
            moved = api.client.post(f"/crystals/{cid}/lifecycle", headers=h, json={"to": to})
            assert moved.status_code == 200, moved.text
        assert api.client.get(path, headers=h).status_code == 404, path
        assert api.client.get(f"/crystals/{cid}", headers=h).status_code == 404
        asked = api.client.get(path, headers=h, params={"include_archived": True})
        assert asked.status_code == 200 and asked.json()["lifecycle"] == "archived", path


def test_the_mcp_item_resource_does_not_read_a_forgotten_memory(live: Live) -> None:
    api = live.api
    h = api.headers(AGENT, CLADE)
    gone = _say(api, h, f"Remember that my wallet is {WALLET}")["memory_id"]
    kept = _say(api, h, "Remember that I prefer low-risk pools")["memory_id"]
    _forget(api, h, [gone])

    async def body() -> None:
        async with live.session(h) as s:
            assert "low-risk" in (await s.read_resource(f"grimoire://items/{kept}")).contents[0].text
            try:
                text = (await s.read_resource(f"grimoire://items/{gone}")).contents[0].text
            except Exception as exc:  # the resource's error: no such item for this key
                assert gone in str(exc) or "no item" in str(exc)
            else:
                raise AssertionError(f"a forgotten memory read through MCP: {text}")

    run(body)
