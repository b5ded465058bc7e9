"""Grimoire's MCP tools in an OpenAI Agents SDK agent: the SDK connects to the service's /mcp (streamable HTTP,
the default profile's tools) with the agent's key, and the model calls them as it would any tool.

    pip install openai-agents==0.24.0
    GRIMOIRE_URL=http://127.0.0.1:8000 GRIMOIRE_API_KEY=gk_... OPENAI_API_KEY=sk-... \\
        python examples/mcp_openai_agents.py "When is gas cheap on mainnet?"

tests/unit/test_mcp_clients.py builds this configuration without a network; tests/integration/
test_mcp_frameworks.py connects it to the live service and calls a tool (no model needed for either)."""

from __future__ import annotations

import asyncio
import os
import sys

from agents import Agent, Runner
from agents.mcp import MCPServerStreamableHttp

INSTRUCTIONS = ("You are a trading agent with a long-term memory in Grimoire. Call whoami first; before deciding, "
                "retrieve_memory or assemble_context for what you know; afterwards record_episodes with what "
                "happened and give_feedback on what helped.")


def grimoire_server(url: str | None = None, api_key: str | None = None) -> MCPServerStreamableHttp:
    """The service's MCP endpoint as the SDK's server: the agent's key as a bearer token, the tool list cached
    (the default profile's tools do not change while the service runs)."""
    base = (url or os.environ.get("GRIMOIRE_URL") or "http://127.0.0.1:8000").rstrip("/")
    key = api_key or os.environ["GRIMOIRE_API_KEY"]
    return MCPServerStreamableHttp(
        params={"url": f"{base}/mcp", "headers": {"Authorization": f"Bearer {key}"}, "timeout": 30},
        name="grimoire", cache_tools_list=True, client_session_timeout_seconds=30)


def agent(server: MCPServerStreamableHttp, model: str | None = None) -> Agent:
    return Agent(name="grimoire-agent", instructions=INSTRUCTIONS, mcp_servers=[server],
                 **({"model": model} if model else {}))


async def main(question: str) -> None:
    async with grimoire_server() as server:
        result = await Runner.run(agent(server), question)
        print(result.final_output)


if __name__ == "__main__":
    asyncio.run(main(" ".join(sys.argv[1:]) or "What do you remember about gas prices?"))
