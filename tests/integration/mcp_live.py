"""What the MCP tests share: the app under uvicorn on a free port (the SDK's HTTP client needs a real socket for
its streams) and an MCP client session over it for a key."""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import httpx2
import pytest
import uvicorn
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from graph.db.local_server import free_port
from tests.conftest import ADMIN_KEY, Api


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
    from api.app import create_app

    app = create_app(neo4j_server.settings(admin_key=ADMIN_KEY), db=db, embedder=embedder)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           timeout_graceful_shutdown=2))
    thread = threading.Thread(target=server.run, name="uvicorn-mcp", daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    url = f"http://127.0.0.1:{port}"
    with httpx.Client(base_url=url, timeout=60) as client:
        yield Live(Api(client, db), url, app)
    server.should_exit = True
    thread.join(15)


def text_of(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)
