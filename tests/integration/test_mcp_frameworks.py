"""The OpenAI Agents SDK's MCP client on the live service (issue 40, part 5): examples/mcp_openai_agents.py's
configuration connects to /mcp, lists the default profile's tools and calls one, with no model."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import anyio

from grimoire.api.mcp.catalog import Profile, tools
from tests.integration.mcp_live import Live, live_fixture  # noqa: F401  (the fixture)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mcp_openai_agents.py"


def test_the_openai_agents_sdk_lists_and_calls_grimoires_tools(live: Live) -> None:
    spec = importlib.util.spec_from_file_location("mcp_openai_agents", EXAMPLE)
    assert spec and spec.loader
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    key = live.api.headers("golem-1")["X-API-Key"]
    out: dict[str, object] = {}

    async def body() -> None:
        async with example.grimoire_server(live.url, key) as server:
            out["names"] = sorted(t.name for t in await server.list_tools())
            called = await server.call_tool("whoami", {})
            out["whoami"] = json.loads(called.content[0].text)

    anyio.run(body)
    assert out["names"] == sorted(t.name for t in tools(Profile.default))
    assert out["whoami"]["agent"]["id"] == "golem-1"  # type: ignore[index]
