"""Visibility through MCP equals visibility through REST (issue 20): test_isolation.py's world — agent B's
private, shared and public items, B2 in B's clade, A outside it — read by each through the tools and through
the routes; the answers must be the same, item for item."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.mcp_live import Live, live_fixture, run, text_of  # noqa: F401  (the fixture)
from tests.integration.test_isolation import EXPECTED, SCOPES, TEXTS, WETH_ID
from tests.integration.test_isolation import world as isolation_world


@pytest.fixture
def api(live: Live):  # test_isolation's world, made on the live server
    return live.api


world = isolation_world


def _ids(items: list[dict[str, Any]], field: str = "id") -> set[str]:
    return {str(i[field]) for i in items}


@pytest.mark.parametrize("who", ["A", "B2", "B"])
def test_mcp_sees_what_rest_sees(live: Live, world: dict[str, dict[str, str]], who: str) -> None:
    h, rest = world[who], live.api.client
    seen: dict[str, Any] = {}

    async def body() -> None:
        async with live.session(h) as s:
            async def call(name: str, **args: Any) -> Any:
                result = await s.call_tool(name, args)
                return None if result.is_error else result.structured_content

            for scope in SCOPES:
                seen[f"episode {scope}"] = await call("get_episode", episode_id=f"b-ep-{scope}")
                seen[f"entry {scope}"] = await call("get_entry", entry_id=f"b-en-{scope}")
                seen[f"search {scope}"] = await call("search_memory", text=TEXTS[scope], kind="entries", k=20)
                seen[f"retrieve {scope}"] = await call("retrieve_memory", text=TEXTS[scope], k=20, no_budget=True)
            seen["episodes"] = await call("list_episodes", limit=100)
            seen["entries"] = await call("list_entries", limit=100)
            seen["related"] = await call("entity_episodes", entity_id=WETH_ID)
            seen["stats"] = await call("memory_stats")
            seen["events"] = await call("list_events", limit=100)

    run(body)
    for scope in SCOPES:
        visible = scope in EXPECTED[who]
        assert (seen[f"episode {scope}"] is not None) == visible == (
            rest.get(f"/episodes/b-ep-{scope}", headers=h).status_code == 200)
        assert (seen[f"entry {scope}"] is not None) == visible
        hits = rest.post("/search", headers=h, json={"text": TEXTS[scope], "kind": "entries", "k": 20}).json()
        assert _ids(seen[f"search {scope}"]["items"]) == _ids(hits)
        got = rest.post("/retrieve", headers=h, json={"text": TEXTS[scope], "k": 20, "no_budget": True}).json()
        assert _ids(seen[f"retrieve {scope}"]["results"]) == _ids(got["results"])
    assert _ids(seen["episodes"]["items"]) == _ids(rest.get("/episodes", headers=h, params={"limit": 100}).json())
    assert _ids(seen["entries"]["items"]) == _ids(rest.get("/entries", headers=h, params={"limit": 100}).json())
    related = rest.get(f"/entities/{WETH_ID}/related", headers=h).json()
    assert _ids(seen["related"]["items"], "episode_id") == _ids(related, "episode_id")
    stats = rest.get("/stats", headers=h).json()
    assert {k: seen["stats"][k] for k in ("episodes", "entries")} == {k: stats[k] for k in ("episodes", "entries")}
    events = rest.get("/events", headers=h, params={"limit": 100}).json()
    assert _ids(seen["events"]["items"]) == _ids(events)
    b_ids = {i for i in _ids(seen["episodes"]["items"]) if i.startswith("b-ep-")}
    assert b_ids == {f"b-ep-{s}" for s in EXPECTED[who]}  # and that is the partition, not just agreement
