"""Overload is answered, not queued (issue 37, section 5; api/admission.py), on a served app: a flood from one
agent past the replica's places is answered 503 with Retry-After (and nothing else goes wrong) while another
agent's requests are served; an agent's limits per key, set by the admin, answer 429 with Retry-After; the typed
client waits as told and succeeds; an MCP tool's in-process call over the limit says when to retry. No timed
assertion: statuses, headers and counts."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from grimoire.api.admission import Admission, AdmissionControl
from grimoire.api.mcp.calls import InProcess
from grimoire.api.mcp.keys import Caller
from grimoire.api.mcp.tools import request as tool_request
from tests.conftest import ADMIN_KEY, Api, served

ADMIN = {"X-API-Key": ADMIN_KEY}
CLADE = "clade-load"
QUERY = {"text": "which vault rebalanced after the oracle update", "k": 3}


def _key(http: httpx.Client, agent_id: str) -> dict[str, str]:
    made = http.post("/agents", headers=ADMIN, json={"id": agent_id, "name": agent_id, "clade": CLADE})
    assert made.status_code == 201, made.text
    key = http.post(f"/agents/{agent_id}/keys", headers=ADMIN, json={"scopes": ["read", "write"]})
    assert key.status_code == 201, key.text
    return {"X-API-Key": key.json()["key"]}


def _refusal(r: httpx.Response, status: int) -> None:
    assert r.status_code == status and r.headers["content-type"].startswith("application/problem+json"), r.text
    assert int(r.headers["retry-after"]) >= 1
    body = r.json()
    assert body["status"] == status and body["detail"] and body["instance"] == r.request.url.path


def _gate(app: Any) -> Admission:
    """The served app's admission controller (api/admission.py), to see its queue and set its deadline."""
    layer = app.middleware_stack
    while not isinstance(layer, AdmissionControl):
        layer = layer.app
    return layer.admission


def _client(url: str, n: int) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=url, timeout=600,
                             limits=httpx.Limits(max_connections=n + 10, max_keepalive_connections=0))


async def _all_at_once(url: str, headers: dict[str, str], n: int) -> list[httpx.Response]:
    async with _client(url, n) as http:
        return list(await asyncio.gather(*(http.post("/retrieve", headers=headers, json=QUERY) for _ in range(n))))


async def _quiet_during_flood(url: str, a: dict[str, str], b: dict[str, str], gate: Admission,
                              n: int) -> tuple[list[httpx.Response], httpx.Response, int, int, int]:
    """A's n requests at once; once half of them wait, one of B's. A's answers received before B's and after."""
    done = 0
    async with _client(url, n) as http:
        async def one_of_a() -> httpx.Response:
            nonlocal done
            r = await http.post("/retrieve", headers=a, json=QUERY)
            done += 1
            return r

        flood = [asyncio.create_task(one_of_a()) for _ in range(n)]
        for _ in range(60_000):  # until half of A's wait for the one place (a wait for a state, not a timing)
            if gate.waiting >= n // 2:
                break
            await asyncio.sleep(0.01)
        queued, before = gate.waiting, done
        quiet = await http.post("/retrieve", headers=b, json=QUERY)
        after = done
        return list(await asyncio.gather(*flood)), quiet, queued, before, after


def test_a_flood_is_refused_at_once_and_another_agent_is_served(neo4j_server, db, embedder) -> None:
    from grimoire.api.app import create_app
    from grimoire.client import Grimoire

    # One place, no time to wait for it, no per-key limit: what cannot start at once is refused.
    settings = neo4j_server.settings(admin_key=ADMIN_KEY, max_in_flight=1, queue_deadline_ms=0,
                                     key_concurrency=0, key_cache_seconds=600)
    app = create_app(settings, db=db, embedder=embedder)
    with served(app, "overload") as url, httpx.Client(base_url=url, timeout=600) as http:
        a, b = _key(http, "flooder"), _key(http, "quiet")
        for h in (a, b):  # the keys verified and cached, as a running agent's are
            assert http.get("/agents/me", headers=h).status_code == 200
        gate = _gate(app)

        answers = asyncio.run(_all_at_once(url, a, 50))
        statuses = [r.status_code for r in answers]
        assert set(statuses) <= {200, 503}, sorted(set(statuses))  # no other error, no 5xx but the refusals
        refused = [r for r in answers if r.status_code == 503]
        assert refused and 200 in statuses, statuses
        for r in refused:
            _refusal(r, 503)
            assert "capacity" in r.json()["detail"]
        assert gate.in_flight == 0 and gate.waiting == 0  # every place given back, nothing left waiting

        # A queue now (a long deadline): A's flood waits for the one place, and B's request, sent once half of
        # A's wait, takes the next freed place: at most the one A was running (and one answer in transit) ends
        # before it, where first come first served would have put all the waiting ones first.
        gate.deadline = 600.0
        flood, quiet, queued, before, after = asyncio.run(_quiet_during_flood(url, a, b, gate, 24))
        assert quiet.status_code == 200 and all(r.status_code == 200 for r in flood)
        assert queued >= 12 and after - before <= 2, (queued, before, after)

        # The admin caps A at one request at once: the rest of a burst is 429 at once, B unaffected.
        assert http.put("/agents/flooder/limits", headers=ADMIN, json={"concurrency": 1}).status_code == 200
        assert http.get("/agents/me", headers=a).status_code == 200  # its key looked up again, with the limit
        answers = asyncio.run(_all_at_once(url, a, 20))
        statuses = [r.status_code for r in answers]
        assert set(statuses) == {200, 429}, statuses
        for r in answers:
            if r.status_code == 429:
                _refusal(r, 429)
                assert "in flight" in r.json()["detail"]
        assert http.get("/agents/me", headers=b).status_code == 200

        # A's rate: a request every 10 s. The typed client is told 429 and when, waits that long, and succeeds.
        assert http.put("/agents/flooder/limits", headers=ADMIN,
                        json={"rate_per_s": 0.1, "burst": 1}).status_code == 200
        seen: list[int] = []
        hooks = {"response": [lambda response: seen.append(response.status_code)]}
        with Grimoire(url, api_key=a["X-API-Key"], http=httpx.Client(base_url=url, timeout=600,
                                                                     event_hooks=hooks)) as g:
            assert g.whoami().agent is not None  # the bucket's one token
            me = g.whoami()  # refused (429, Retry-After: 10 at most), retried no sooner
            assert me.agent is not None and me.agent.id == "flooder"
        assert seen == [200, 429, 200], seen


def test_limits_are_the_agents_own_and_the_admins_to_set(api: Api) -> None:
    a, b = api.headers("limited", CLADE), api.headers("other", CLADE)
    shown = api.client.get("/agents/limited/limits", headers=a)
    assert shown.status_code == 200, shown.text
    assert shown.json()["concurrency"] is None and shown.json()["effective_concurrency"] == 16  # the setting's
    assert api.client.get("/agents/limited/limits", headers=b).status_code == 403  # another agent's: not yours
    assert api.client.get("/agents/limited/limits", headers=api.admin).status_code == 200
    assert api.client.get("/agents/nobody/limits", headers=api.admin).status_code == 404
    assert api.client.put("/agents/limited/limits", headers=a, json={"concurrency": 99}).status_code == 403
    for bad in ({"concurrency": 0}, {"rate_per_s": -1}, {"burst": 0}, {"rate": 3}):
        assert api.client.put("/agents/limited/limits", headers=api.admin, json=bad).status_code == 422, bad
    assert api.client.put("/agents/nobody/limits", headers=api.admin, json={"concurrency": 2}).status_code == 404

    set_ = api.client.put("/agents/limited/limits", headers=api.admin, json={"concurrency": 4, "rate_per_s": 0.01})
    assert set_.status_code == 200, set_.text
    assert set_.json() | {"agent_id": "limited"} == {
        "agent_id": "limited", "concurrency": 4, "rate_per_s": 0.01, "burst": None, "effective_concurrency": 4,
        "effective_rate_per_s": 0.01, "effective_burst": 1, "per_replica": True}
    audited = [r for r in api.db.run("testing/audit_versions") if r["action"] == "agent.limits"]
    assert len(audited) == 1 and audited[0]["target_ids"] == ["limited"], audited
    # The bucket holds one token, refilled every 100 s: the next request takes it, the one after is refused.
    assert api.client.get("/agents/limited/limits", headers=a).json()["rate_per_s"] == 0.01
    refused = api.client.get("/agents/me", headers=a)
    _refusal(refused, 429)
    assert 99 <= int(refused.headers["retry-after"]) <= 100 and "rate limit" in refused.json()["detail"]
    assert api.client.get("/agents/me", headers=b).status_code == 200  # the other agent's keys are their own

    # An MCP tool's call is a request to its route in-process: over the limit, its error says when to retry.
    from mcp.server.mcpserver.exceptions import ToolError

    server = SimpleNamespace(routes=InProcess(api.client.app))
    caller = Caller(a["X-API-Key"], "k", "limited", frozenset({"read", "write"}))

    async def whoami() -> Any:
        return await tool_request(server, caller, "GET", "/agents/me")  # type: ignore[arg-type]

    with pytest.raises(ToolError, match=r"^429: .*rate limit.*\(retry after (9[0-9]|100) s\)$"):
        api.client.portal.call(whoami)
    # Back to the settings: no rate limit, and the agent is served again.
    assert api.client.put("/agents/limited/limits", headers=api.admin, json={}).status_code == 200
    assert api.client.get("/agents/me", headers=a).status_code == 200
