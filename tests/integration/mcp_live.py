"""What the MCP tests share: the app under uvicorn on a free port (the SDK's HTTP client needs a real socket for
its streams) and an MCP client session over it for a key."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import ADMIN_KEY, Api, served


@dataclass
class Live:
    api: Api
    url: str
    app: Any

    @asynccontextmanager
    async def session(self, headers: dict[str, str], path: str = "/mcp/full") -> AsyncIterator[ClientSession]:
        key = headers.get("X-API-Key") or headers["Authorization"].removeprefix("Bearer ")
        async with (httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=120) as http,
                    streamable_http_client(self.url + path, http_client=http) as (read, write),
                    ClientSession(read, write) as session):
            await session.initialize()
            yield session


@pytest.fixture(name="live")
def live_fixture(db, neo4j_server, embedder) -> Iterator[Live]:
    from grimoire.api.app import create_app

    app = create_app(neo4j_server.settings(admin_key=ADMIN_KEY), db=db, embedder=embedder)
    with served(app, "mcp") as url, httpx.Client(base_url=url, timeout=60) as client:
        yield Live(Api(client, db), url, app)


def run(body: Callable[[], Awaitable[Any]]) -> None:
    """anyio.run, raising what failed itself rather than the exception groups the MCP sessions' task groups
    wrap it in (ten deep, which pytest prints as nothing useful)."""
    try:
        anyio.run(body)
    except BaseExceptionGroup as group:
        leaf: BaseException = group
        while isinstance(leaf, BaseExceptionGroup):
            leaf = leaf.exceptions[0]
        raise leaf from group


def text_of(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)
