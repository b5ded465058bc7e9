"""The examples run against the real service (issue 20): the agent loop on the Python client, installed on its own
into a fresh virtual environment (clients/python, issue 38: httpx and pydantic, none of the server), and the desktop
MCP configuration started as a desktop client would start it (its command and environment, the key and URL
filled in), through the SDK's stdio client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from grimoire.api.mcp.catalog import Profile, tools
from tests.integration.mcp_live import Live, live_fixture, run  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
BIN = str(Path(sys.executable).parent)
WHEELHOUSE = Path(os.environ.get("WHEELHOUSE", Path.home() / ".cache" / "grimoire" / "wheels"))  # the Makefile's
SERVER_SIDE = {"fastapi", "starlette", "neo4j", "neomodel", "graphdatascience", "torch", "sentence-transformers",
               "onnxruntime", "uvicorn", "mcp", "grimoire"}


def _pip(python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(python), "-m", "pip", "--disable-pip-version-check", *args], capture_output=True,
                          text=True, timeout=600, check=False)


@pytest.fixture(scope="module")
def client_python(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh virtual environment with the client distribution installed as a user would (not editable), from
    the wheels the Makefile keeps when they are there, else from the index."""
    venv = tmp_path_factory.mktemp("client-venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    source = str(ROOT / "clients" / "python")
    done = _pip(python, "install", "--no-index", "--find-links", str(WHEELHOUSE), source)
    if done.returncode != 0:
        done = _pip(python, "install", source)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    yield python


def test_the_client_installs_alone(client_python: Path) -> None:
    listed = {p["name"].lower() for p in json.loads(_pip(client_python, "list", "--format=json").stdout)}
    assert {"grimoire-client", "httpx", "pydantic"} <= listed
    assert listed & SERVER_SIDE == set(), listed & SERVER_SIDE
    code = ("import sys, grimoire.client; print(sorted(m for m in sys.modules if m.split('.')[:2] in "
            "(['grimoire', 'api'], ['grimoire', 'graph'])))")
    done = subprocess.run([str(client_python), "-c", code], capture_output=True, text=True, cwd="/", timeout=120,
                          check=False)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr[-2000:]


def test_the_agent_loop_runs(live: Live, client_python: Path) -> None:
    # on the installed client, in its own environment: what a user of the client distribution runs
    key = live.api.headers("looper", "clade-loop")["X-API-Key"]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env |= {"GRIMOIRE_URL": live.url, "GRIMOIRE_API_KEY": key}
    done = subprocess.run([str(client_python), str(EXAMPLES / "agent_loop.py")], env=env, capture_output=True,
                          text=True, timeout=300, cwd="/")
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
