"""The examples run against the real service (issue 20): the agent loop on the Python client, and the desktop
MCP configuration started as a desktop client would start it (its command and environment, the key and URL
filled in), through the SDK's stdio client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from api.mcp.catalog import Profile, tools
from tests.integration.mcp_live import Live, live_fixture, run  # noqa: F401  (the fixture)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BIN = str(Path(sys.executable).parent)


def test_the_agent_loop_runs(live: Live) -> None:
    key = live.api.headers("looper", "clade-loop")["X-API-Key"]
    env = {**os.environ, "GRIMOIRE_URL": live.url, "GRIMOIRE_API_KEY": key}
    done = subprocess.run([sys.executable, str(EXAMPLES / "agent_loop.py")], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("agent looper") and "learned: admitted" in lines[1]
    assert [line.split(":")[0] for line in lines[2:5]] == ["tick 0", "tick 1", "tick 2"]
    assert "decided to wait" in lines[2] and "decided to rebalance" in lines[3]
    assert lines[-1] == "episodes now: 6"
    episodes = live.api.client.get("/episodes", headers={"X-API-Key": key}, params={"limit": 50}).json()
    assert len(episodes) == 6


def test_the_desktop_mcp_configuration_starts_grimoire_mcp(live: Live) -> None:
    key = live.api.headers("desk", "clade-desk")["X-API-Key"]
    server = json.loads((EXAMPLES / "mcp_desktop_config.json").read_text())["mcpServers"]["grimoire"]
    env = {**os.environ, **server["env"], "GRIMOIRE_API_KEY": key, "GRIMOIRE_URL": live.url,
           "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    params = StdioServerParameters(command=server["command"], args=server["args"], env=env)
    out: dict[str, Any] = {}

    async def body() -> None:
        with anyio.fail_after(180):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                out["tools"] = {t.name for t in (await s.list_tools()).tools}
                out["me"] = (await s.call_tool("whoami", {})).structured_content
                made = await s.call_tool("record_episodes", {"episodes": [
                    {"id": "desk-ep", "type": "observation", "text": "written from a desktop client"}]})
                out["made"] = made.structured_content

    run(body)
    assert out["tools"] == {t.name for t in tools(Profile.default)}
    assert out["me"]["agent"]["id"] == "desk" and out["made"]["created"] == ["desk-ep"]
    records = [r for r in live.api.db.run("testing/audit_versions") if r["action"] == "episode.ingest"]
    assert records[-1]["channel"] == "mcp"  # over HTTP to the service, still noted as MCP
