"""The Python client against the real service (issue 20): sync over the app, async over a socket; its models,
typed errors and paging on real answers."""

from __future__ import annotations

import anyio
import pytest

from grimoire.client import AsyncGrimoire, Conflict, Forbidden, Grimoire, Invalid, NotFound
from grimoire.client.models import CoreOut, RetrievalResult
from tests.conftest import Api
from tests.integration.mcp_live import Live, live_fixture  # noqa: F401  (the fixture)


def test_sync_client_remembers_recalls_and_raises_typed_errors(api: Api) -> None:
    key = api.headers("golem-1")["X-API-Key"]
    g = Grimoire(api_key=key, http=api.client)
    assert g.whoami().agent.id == "golem-1"
    made = g.remember("Gas on mainnet fell to 6 gwei at 03:00 UTC", id="c-ep-1")
    assert made.created == ["c-ep-1"]
    decision = g.learn("Rebalance when gas is under 10 gwei", category="Heuristic", id="c-en-1")
    assert decision.outcome == "admitted"
    found = g.recall_text("when is gas cheap", k=5)
    assert isinstance(found, RetrievalResult) and {"c-ep-1", "c-en-1"} & {r.id for r in found.results}
    core = g.append_core_block("golem-1", "persona", {"text": "- Be brief", "expected_version": 0})
    assert isinstance(core, CoreOut)
    with pytest.raises(Conflict, match="at version 1, not 0"):
        g.append_core_block("golem-1", "persona", {"text": "- Be kind", "expected_version": 0})
    with pytest.raises(NotFound):
        g.get_entry("no-such-entry")
    with pytest.raises(Invalid):
        g.retrieve_memory({"text": "q", "k": 0})
    with pytest.raises(Forbidden):
        g.get_core_memory("someone-else")
    g.record_episodes({"episodes": [{"id": f"c-ep-{i}", "type": "observation", "text": f"note {i}"}
                                    for i in range(2, 8)]})
    ids = [e.id for e in g.iterate(g.list_episodes, agent_id="golem-1", page_size=3)]
    assert len(ids) == len(set(ids)) == 7


def test_async_client_over_a_socket(live: Live) -> None:
    key = live.api.headers("golem-1")["X-API-Key"]
    out: dict[str, object] = {}

    async def body() -> None:
        async with AsyncGrimoire(live.url, api_key=key) as g:
            await g.remember("Curve stETH pool depth halved overnight", id="a-ep-1")
            out["hits"] = [r.id for r in (await g.recall_text("stETH pool depth", k=3)).results]
            out["pages"] = [e.id async for e in g.iterate(g.list_episodes, page_size=1)]
            try:
                await g.get_episode("missing")
            except NotFound as exc:
                out["missing"] = exc.status

    anyio.run(body)
    assert out["hits"][:1] == ["a-ep-1"] and out["pages"] == ["a-ep-1"] and out["missing"] == 404
