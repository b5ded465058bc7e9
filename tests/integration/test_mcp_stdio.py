"""`grimoire mcp` over stdio (issue 20), as a desktop agent client starts it: the SDK's stdio client launches the
command with the key in GRIMOIRE_API_KEY, lists the tools and calls them against the real database; a bad key
stops it with the reason, before any tool is offered."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from grimoire.api.mcp.catalog import TOOLS
from tests.conftest import Api
from tests.integration.mcp_live import run

GRIMOIRE = str(Path(sys.executable).with_name("grimoire"))


def _env(neo4j_server: Any, key: str) -> dict[str, str]:
    return {**os.environ, "NEO4J_URI": neo4j_server.uri, "NEO4J_USER": neo4j_server.user,
            "NEO4J_PASSWORD": neo4j_server.password, "NEO4J_DATABASE": neo4j_server.database,
            "GRIMOIRE_API_KEY": key, "GRIMOIRE_SEED_MENTAL_MODELS": "false", "GRIMOIRE_CURATOR_PROCESS": "false",
            "GRIMOIRE_LOG_LEVEL": "WARNING"}


def test_stdio_serves_the_keys_agent(api: Api, neo4j_server: Any) -> None:
    key = api.headers("golem-1")["X-API-Key"]
    params = StdioServerParameters(command=GRIMOIRE, args=["mcp", "--profile", "full"], env=_env(neo4j_server, key))
    out: dict[str, Any] = {}

    async def body() -> None:
        with anyio.fail_after(240):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                out["tools"] = {t.name for t in (await s.list_tools()).tools}
                out["me"] = (await s.call_tool("whoami", {})).structured_content
                made = await s.call_tool("record_episodes", {"episodes": [
                    {"id": "stdio-ep", "type": "observation", "text": "Gas at 4 gwei over stdio"}]})
                out["made"] = made.structured_content
                found = await s.call_tool("retrieve_memory", {"text": "gas over stdio", "k": 3})
                out["found"] = found.structured_content
                out["person"] = (await s.call_tool("list_audit", {})).is_error

    run(body)
    assert out["tools"] == {t.name for t in TOOLS}
    assert out["me"]["agent"]["id"] == "golem-1"
    assert out["made"]["created"] == ["stdio-ep"]
    assert [r["id"] for r in out["found"]["results"]][:1] == ["stdio-ep"]
    assert out["person"], "the agent's own key may not read its audit trail through MCP"
    # The episode is in the database, written as the key's agent, and its audit record says mcp.
    r = api.client.get("/episodes/stdio-ep", headers=api.headers("golem-1"))
    assert r.status_code == 200 and r.json()["agent_id"] == "golem-1"
    records = [x for x in api.db.run("testing/audit_versions") if x["action"] == "episode.ingest"]
    assert records and records[-1]["channel"] == "mcp"


def test_stdio_refuses_a_bad_key(neo4j_server: Any, db: Any, tmp_path: Path) -> None:
    params = StdioServerParameters(command=GRIMOIRE, args=["mcp"], env=_env(neo4j_server, "gr_no_key"))
    errlog = tmp_path / "stderr.txt"

    async def body() -> None:
        with anyio.fail_after(240), errlog.open("w") as err:
            async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as s:
                await s.initialize()

    try:
        anyio.run(body)
        served = True
    except Exception:  # the connection closes under the client: the server stopped
        served = False
    assert not served
    assert "grimoire mcp: the key is refused (401: unknown or revoked API key)" in errlog.read_text()
