"""The MCP clients the agent frameworks ship (issue 40, part 5): the default /mcp profile's tools fit what they
show, and the OpenAI Agents SDK example's configuration builds without a network.

The limits: OpenAI's function calling takes a name of at most 64 characters of a-z, A-Z, 0-9, underscores and
dashes, and its guide recommends descriptions that fit well within a tool's budget (we hold each to 1,024
characters) and fewer than 20 functions at once (at most 128 a request). Gemini (Google's ADK) takes the same
64 characters but the name must start with a letter or an underscore; Pydantic AI passes the names to the
model's API as they are. So a name holds to both rules; the default profile stays well under 20 tools."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from agents import Agent
from agents.mcp import MCPServerStreamableHttp

from grimoire.api.mcp.catalog import TOOLS, Profile, tools
from grimoire.api.mcp.tools import built

NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$")  # OpenAI's rule with Gemini's first character
DESCRIPTION_MAX = 1024
DEFAULT_MAX = 20   # OpenAI: "fewer than 20 functions at any one time" for accuracy
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mcp_openai_agents.py"


@pytest.mark.parametrize("name", [t.name for t in tools(Profile.default)])
def test_each_default_tool_fits_what_the_clients_show(name: str) -> None:
    tool = built()[name]
    assert NAME.match(tool.name), tool.name
    assert 40 < len(tool.description) <= DESCRIPTION_MAX, (name, len(tool.description))
    for prop in tool.parameters.get("properties", {}):
        assert NAME.match(prop), (name, prop)  # parameter names follow the same rule on Gemini


def test_the_profiles_tool_counts() -> None:
    assert 0 < len(tools(Profile.default)) < DEFAULT_MAX
    assert all(NAME.match(t.name) for t in TOOLS)  # /mcp/full's names too
    # /mcp/full offers every capability, past one request's cap: a client takes it with a tool filter (the
    # README's MCP section), as each of these SDKs has; its descriptions fit all the same
    assert all(len(built()[t.name].description) <= DESCRIPTION_MAX for t in TOOLS)


def test_the_openai_agents_example_builds_its_server_and_agent_offline() -> None:
    spec = importlib.util.spec_from_file_location("mcp_openai_agents", EXAMPLE)
    assert spec and spec.loader
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    server = example.grimoire_server("http://grimoire.test:8000/", "gk_example")
    assert isinstance(server, MCPServerStreamableHttp) and server.name == "grimoire"
    assert server.params["url"] == "http://grimoire.test:8000/mcp"
    assert server.params["headers"] == {"Authorization": "Bearer gk_example"}
    made = example.agent(server, model="gpt-4.1-mini")
    assert isinstance(made, Agent) and made.mcp_servers == [server] and "whoami" in made.instructions
