"""Read your own writes through any replica (issue 37 §3): two replicas of the service (two apps, each its own
Database on the routing scheme `neo4j://`, so each its own driver and bookmark manager) over the test's Neo4j. A
write through A answers the bookmark of what it committed (X-Grimoire-Bookmark); a request through B sent with it
opens its database sessions with it, so a cluster member serving B waits until the write is applied there. B's
driver is the real one, its sessions' arguments noted: with one server the read would find the write anyway, so
what shows the chain is that B's sessions were given A's bookmark. The typed client, the MCP server and the
console carry the bookmark from A to B without their caller doing anything."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client

from grimoire.api.app import create_app
from grimoire.api.mcp.calls import OverHttp, Reply
from grimoire.api.mcp.catalog import Profile
from grimoire.api.mcp.keys import Caller
from grimoire.api.mcp.server import GrimoireMCP
from grimoire.client import AsyncGrimoire, Grimoire
from grimoire.graph.db.connection import Database, Target
from grimoire.graph.embeddings import Embedder
from tests.conftest import ADMIN_KEY, Api, Neo4jUnderTest, served

HEADER = "X-Grimoire-Bookmark"


class Recording:
    """A replica's real driver, the arguments of every session it opens noted."""

    def __init__(self, driver: Any):
        self.driver = driver
        self.sessions: list[dict[str, Any]] = []

    def session(self, **kwargs: Any) -> Any:
        self.sessions.append(kwargs)
        return self.driver.session(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.driver, name)

    def given(self) -> set[str]:
        """The bookmarks the sessions were opened with, besides their bookmark manager's."""
        return {b for kw in self.sessions if kw.get("bookmarks") for b in kw["bookmarks"].raw_values}


@dataclass
class Replica:
    api: Api
    url: str
    driver: Recording


class Balancer(httpx.BaseTransport):
    """A load balancer in front of the replicas: each request goes to the replica `to` names."""

    def __init__(self, *urls: str):
        self.urls = [httpx.URL(u) for u in urls]
        self.to = 0
        self.inner = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        target = self.urls[self.to]
        request.url = request.url.copy_with(host=target.host, port=target.port)
        return self.inner.handle_request(request)


class AsyncBalancer(httpx.AsyncBaseTransport):
    def __init__(self, *urls: str):
        self.urls = [httpx.URL(u) for u in urls]
        self.to = 0
        self.inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        target = self.urls[self.to]
        request.url = request.url.copy_with(host=target.host, port=target.port)
        return await self.inner.handle_async_request(request)


@pytest.fixture
def replicas(db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder) -> Iterator[tuple[Replica, Replica]]:
    uri = re.sub(r"^bolt(\+s|\+ssc)?://", "neo4j://", neo4j_server.uri)
    settings = neo4j_server.settings(admin_key=ADMIN_KEY, neo4j_uri=uri)
    with ExitStack() as stack:
        made = []
        for name in ("a", "b"):
            database = Database(Target(uri, neo4j_server.user, neo4j_server.password, neo4j_server.database))
            stack.callback(database.close)
            driver = database.driver = Recording(database.driver)  # type: ignore[assignment]
            url = stack.enter_context(served(create_app(settings, db=database, embedder=embedder), name))
            client = stack.enter_context(httpx.Client(base_url=url, timeout=60))
            made.append(Replica(Api(client, database), url, driver))
        assert type(made[0].api.db.driver.driver).__name__ == "Neo4jDriver"  # the routing driver
        yield made[0], made[1]


def _episode(episode_id: str, text: str) -> dict[str, Any]:
    return {"id": episode_id, "type": "observation", "text": text}


def test_a_write_through_a_is_read_through_b_with_its_bookmark(replicas: tuple[Replica, Replica]) -> None:
    a, b = replicas
    h = a.api.headers("bm-agent")
    made = a.api.client.post("/episodes", headers=h, json=_episode("bm-1", "The WETH borrow rate rose on Aave"))
    assert made.status_code == 201, made.text
    bookmark = made.headers[HEADER]
    assert bookmark and "," not in bookmark  # one database, one bookmark: the write's
    b.driver.sessions.clear()
    read = b.api.client.get("/episodes/bm-1", headers={**h, HEADER: bookmark})
    assert read.status_code == 200 and read.json()["id"] == "bm-1"
    assert b.driver.given() == {bookmark}  # B's sessions waited for A's write
    assert read.headers[HEADER]  # a read names its place in the chain too
    # Without the header, B's sessions are given nothing beyond B's own bookmark manager.
    b.driver.sessions.clear()
    assert b.api.client.get("/episodes/bm-1", headers=h).status_code == 200
    assert b.driver.sessions and not b.driver.given()
    # Several, repeated or comma-separated, are all passed on.
    second = a.api.client.post("/episodes", headers=h, json=_episode("bm-2", "Gas at 4 gwei")).headers[HEADER]
    b.driver.sessions.clear()
    both = b.api.client.get("/episodes/bm-2", headers=[*h.items(), (HEADER, f"{bookmark}, {second}"),
                                                       (HEADER, second)])
    assert both.status_code == 200 and b.driver.given() == {bookmark, second}


@pytest.mark.parametrize("value", ["not a bookmark", "FB:abc;def", "x" * 600, ",".join(f"FB:{i}" for i in range(17)),
                                   "FB:not-base64-at-all"])
def test_a_malformed_bookmark_is_a_400_and_nothing_runs(replicas: tuple[Replica, Replica], value: str) -> None:
    a, _ = replicas
    h = a.api.headers("bm-agent")
    r = a.api.client.post("/episodes", headers={**h, HEADER: value}, json=_episode("bm-bad", "never written"))
    assert r.status_code == 400, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    problem = r.json()
    assert problem["status"] == 400 and HEADER in problem["detail"] and problem["request_id"]
    assert HEADER not in r.headers  # a refused bookmark is not echoed
    assert a.api.client.get("/episodes/bm-bad", headers=h).status_code == 404


def test_the_typed_client_carries_the_bookmark_from_a_to_b(replicas: tuple[Replica, Replica]) -> None:
    a, b = replicas
    key = a.api.headers("bm-client")["X-API-Key"]
    balancer = Balancer(a.url, b.url)
    with Grimoire(api_key=key, http=httpx.Client(base_url=a.url, transport=balancer)) as client:
        client.remember("Routed through A: the USDC supply cap was raised", id="bm-c1")
        written = client.bookmark
        assert written
        balancer.to = 1
        b.driver.sessions.clear()
        assert client.get_episode("bm-c1").id == "bm-c1"
        assert set(written.split(",")) <= b.driver.given()
        # another client continues the chain when handed it; one that opts out sends none
        with Grimoire(api_key=key, http=httpx.Client(base_url=b.url), bookmark=client.bookmark) as other:
            b.driver.sessions.clear()
            other.get_episode("bm-c1")
            assert set(written.split(",")) <= b.driver.given()
        with Grimoire(api_key=key, http=httpx.Client(base_url=a.url, transport=balancer), causal=False) as plain:
            balancer.to = 0
            plain.remember("Not chained", id="bm-c2")
            assert plain.bookmark is None
            balancer.to = 1
            b.driver.sessions.clear()
            plain.get_episode("bm-c2")
            assert not b.driver.given()


def test_the_async_client_carries_the_bookmark_from_a_to_b(replicas: tuple[Replica, Replica]) -> None:
    a, b = replicas
    key = a.api.headers("bm-async")["X-API-Key"]

    async def body() -> tuple[str | None, str]:
        balancer = AsyncBalancer(a.url, b.url)
        async with AsyncGrimoire(api_key=key, http=httpx.AsyncClient(base_url=a.url, transport=balancer)) as client:
            await client.remember("Async through A", id="bm-a1")
            written = client.bookmark
            balancer.to = 1
            b.driver.sessions.clear()
            return written, (await client.get_episode("bm-a1")).id

    written, found = anyio.run(body)
    assert written and found == "bm-a1"
    assert set(written.split(",")) <= b.driver.given()


class Balanced:
    """A stdio MCP server's routes over HTTP to replicas behind a load balancer: each call to the one `to` names."""

    def __init__(self, *urls: str):
        self.replicas = [OverHttp(u) for u in urls]
        self.to = 0

    async def call(self, key: str, method: str, path: str, query: list[tuple[str, str]] | None = None,
                   body: Any = None, bookmark: str | None = None) -> Reply:
        return await self.replicas[self.to].call(key, method, path, query, body, bookmark=bookmark)


def test_an_mcp_session_carries_its_bookmark_between_tool_calls(replicas: tuple[Replica, Replica]) -> None:
    a, b = replicas
    key = a.api.headers("bm-mcp")["X-API-Key"]
    me = a.api.client.get("/agents/me", headers={"X-API-Key": key}).json()

    async def body() -> dict[str, Any]:
        routes = Balanced(a.url, b.url)
        server = GrimoireMCP(Profile.full, routes, fixed=Caller.from_me(key, me))
        async with Client(server) as mcp:
            made = await mcp.call_tool("record_episodes", {"episodes": [_episode("bm-m1", "Remembered over MCP")]})
            assert not made.is_error, made
            routes.to = 1
            b.driver.sessions.clear()
            found = await mcp.call_tool("get_episode", {"episode_id": "bm-m1"})
            assert not found.is_error, found
            for replica in routes.replicas:
                await replica.aclose()
            return {"given": b.driver.given()}

    out = anyio.run(body)
    written = a.api.db._bookmarks.get_bookmarks()  # A's bookmark manager: what A committed, the write last
    assert out["given"] and out["given"] <= set(written)


def test_the_console_keeps_the_bookmark_per_browser(replicas: tuple[Replica, Replica]) -> None:
    a, b = replicas
    person = a.api.headers("bm-console", scopes=("read", "person"))["X-API-Key"]
    core = a.api.client.get("/agents/bm-console/core", headers={"X-API-Key": person}).json()
    version = next(blk for blk in core["blocks"] if blk["block"] == "persona")["version"]
    balancer = Balancer(a.url, b.url)
    with httpx.Client(base_url=a.url, transport=balancer) as browser:
        assert browser.post("/console/sign-in", data={"key": person}).status_code == 303
        page = browser.get("/console/agents/bm-console/memory")
        token = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
        saved = browser.post("/console/agents/bm-console/memory/persona",
                             data={"content": "- Chained through the console", "version": str(version),
                                   "csrf": token})
        assert saved.status_code == 200, saved.text[:300]
        cookie = next(c for c in saved.headers.get_list("set-cookie") if c.startswith("grimoire_bookmark="))
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/console" in cookie
        kept = browser.cookies["grimoire_bookmark"]
        balancer.to = 1
        b.driver.sessions.clear()
        after = browser.get("/console/agents/bm-console/memory")
        assert after.status_code == 200 and "Chained through the console" in after.text
        assert set(kept.split("|")) <= b.driver.given()
