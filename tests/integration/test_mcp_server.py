"""The MCP server's rules over the real app (issue 20): identity only from the key, the profiles, people-only
tools, errors as tool errors carrying REST's message with the session going on, GDS progress, resources, prompts."""

from __future__ import annotations

from typing import Any

import httpx

from grimoire.api.mcp.catalog import TOOLS, Profile, tools
from tests.integration.mcp_live import Live, live_fixture, run, text_of  # noqa: F401  (the fixture)


def _structured(result: Any) -> Any:
    assert not result.is_error, text_of(result)
    return result.structured_content


def test_profiles_list_their_tools_with_schemas(live: Live) -> None:
    h = live.api.headers("golem-1")

    async def body() -> None:
        async with live.session(h, "/mcp") as s:
            listed = (await s.list_tools()).tools
            assert {t.name for t in listed} == {t.name for t in tools(Profile.default)}
        async with live.session(h, "/mcp/full") as s:
            listed = (await s.list_tools()).tools
            assert {t.name for t in listed} == {t.name for t in TOOLS}
            for t in listed:
                assert t.description and t.input_schema["type"] == "object" and t.output_schema, t.name
                assert t.annotations is not None and t.annotations.read_only_hint is not None, t.name
    run(body)


def test_identity_comes_only_from_the_key(live: Live) -> None:
    api = live.api
    a, b = api.headers("agent-a", "clade-y"), api.headers("agent-b", "clade-x")
    # No key, a wrong key: the endpoint refuses before any tool runs.
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "agent-b", "version": "1"}}}
    accept = {"accept": "application/json, text/event-stream"}
    assert httpx.post(live.url + "/mcp", json=init, headers=accept).status_code == 401
    assert httpx.post(live.url + "/mcp", json=init, headers={**accept, "authorization": "Bearer gr_x_y"}
                      ).status_code == 401

    async def body() -> None:
        # X-API-Key is taken as REST takes it; the client's name says nothing about who calls.
        async with live.session({"X-API-Key": a["X-API-Key"]}) as s:
            me = _structured(await s.call_tool("whoami", {}))
            assert me["agent"]["id"] == "agent-a"
            # Naming another agent's memory does not act as that agent: the route refuses, as for REST.
            other = await s.call_tool("get_core_memory", {"agent_id": "agent-b"})
            assert other.is_error and "403" in text_of(other)
            assert api.client.get("/agents/agent-b/core", headers=a).status_code == 403
        async with live.session(b) as s:
            assert _structured(await s.call_tool("whoami", {}))["agent"]["id"] == "agent-b"
    run(body)


def test_people_only_tools_refuse_the_agents_own_key(live: Live) -> None:
    api = live.api
    h = api.headers("golem-1")
    person = api.headers("golem-1", scopes=("read", "person"))
    for text in ("Remember that I prefer tabs.", "Remember that today we decided to ship on Friday."):
        assert api.client.post("/agents/golem-1/messages", headers=h, json={"text": text}).status_code < 300
    reflection = api.client.post("/agents/golem-1/reflections", headers=h, json={}).json()["id"]
    calls = {"decide_reflection": {"reflection_id": reflection, "decision": "approve"},
             "rollback": {"item": "golem-1:core:context", "to_version": "golem-1:core:context:v1"},
             "list_audit": {}, "decide_proposal": {"proposal_id": "p-1", "decision": "commit"}}

    async def body() -> None:
        async with live.session(h) as s:
            for name, args in calls.items():
                before = len(api.db.run("testing/audit_versions"))
                result = await s.call_tool(name, args)
                # the README's promise: a tool error carries the status, as a route's refusal does
                assert result.is_error and "403: " in text_of(result), (name, text_of(result))
                assert "person's key" in text_of(result), (name, text_of(result))
                assert len(api.db.run("testing/audit_versions")) == before, f"{name} changed something"
        async with live.session(person) as s:  # the agent's person approves it
            decided = _structured(await s.call_tool("decide_reflection", calls["decide_reflection"]))
            assert decided["status"] in ("approved", "applied"), decided
            trail = _structured(await s.call_tool("list_audit", {"limit": 5}))
            assert trail["items"] and trail["items"][0]["channel"] == "mcp"
    run(body)


def test_bad_arguments_are_tool_errors_and_the_session_goes_on(live: Live) -> None:
    h = live.api.headers("golem-1")

    async def body() -> None:
        async with live.session(h) as s:
            missing = await s.call_tool("get_entry", {})
            assert missing.is_error and "entry_id" in text_of(missing)
            unknown = await s.call_tool("get_entry", {"entry_id": "no-such-entry"})
            rest = live.api.client.get("/entries/no-such-entry", headers=h)
            assert unknown.is_error and f"404: {rest.json()['detail']}" in text_of(unknown)
            bad = await s.call_tool("record_episodes", {"episodes": [{"id": "e", "type": "observation", "text": ""}]})
            assert bad.is_error and ("422" in text_of(bad) or "text" in text_of(bad)), text_of(bad)
            stale = await s.call_tool("edit_core_memory", {"block": "persona", "operation": "append",
                                                           "text": "- brief", "expected_version": 3})
            assert stale.is_error and "409: the persona block is at version 0, not 3" in text_of(stale)
            assert _structured(await s.call_tool("whoami", {}))["agent"]["id"] == "golem-1"  # still serving
            made = _structured(await s.call_tool("edit_core_memory", {
                "block": "persona", "operation": "append", "text": "- brief", "expected_version": 0}))
            persona = next(b for b in made["blocks"] if b["block"] == "persona")
            assert persona["version"] == 1 and persona["content"].strip() == "- brief"
            inserted = _structured(await s.call_tool("edit_core_memory", {
                "block": "persona", "operation": "insert", "text": "- kind", "line": 1, "expected_version": 1}))
            persona = next(b for b in inserted["blocks"] if b["block"] == "persona")
            assert persona["content"].strip() == "- kind\n- brief"
    run(body)


def test_long_gds_runs_report_progress(live: Live) -> None:
    api = live.api
    facts = [{"id": f"p-f{i}", "subject": f"reserve:p usdc {i}", "predicate": "OracleDependency",
              "object": f"oracle:p feed {i % 3}", "valid_from": 100, "scope": "public"} for i in range(30)]
    ents = [{"kind": "Reserve", "name": f"p usdc {i}"} for i in range(30)] + [
        {"kind": "Oracle", "name": f"p feed {i}"} for i in range(3)]
    assert api.client.post("/entities", headers=api.admin, json={"entities": ents}).status_code < 300
    assert api.client.post("/facts", headers=api.admin, json={"facts": facts}).status_code < 300
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    async def body() -> None:
        async with live.session(api.admin) as s:
            result = await s.call_tool("run_analysis", {"algorithm": "pagerank", "block": 200, "limit": 5},
                                       progress_callback=progress)
            assert _structured(result)["results"]
    run(body)
    assert seen and seen[0][0] == 0.0 and seen[-1][:2] == (1.0, 1.0), seen
    assert [d for d, *_ in seen] == sorted(d for d, *_ in seen)


def test_resources_and_prompts(live: Live) -> None:
    api = live.api
    h = api.headers("golem-1")
    r = api.client.put("/agents/golem-1/core/identity", headers=h, json={"content": "- Name: Golem"})
    assert r.status_code == 200
    assert api.client.post("/episodes", headers=h, json={"id": "g-ep", "type": "observation",
                                                          "text": "WETH borrow rate 5%"}).status_code == 201
    other = api.headers("agent-z", "clade-z")
    assert api.client.post("/episodes", headers=other, json={"id": "z-ep", "type": "observation",
                                                              "text": "z's private note"}).status_code == 201

    async def body() -> None:
        async with live.session(h) as s:
            uris = {str(r.uri) for r in (await s.list_resources()).resources}
            assert {"grimoire://playbook", "grimoire://memory", "grimoire://schema"} <= uris
            templates = {t.uri_template for t in (await s.list_resource_templates()).resource_templates}
            assert {"grimoire://core/{block}", "grimoire://items/{item_id}"} <= templates
            memory = (await s.read_resource("grimoire://memory")).contents[0].text
            assert "- Name: Golem" in memory and "MEMORY.md" in memory
            assert "Name: Golem" in (await s.read_resource("grimoire://core/identity")).contents[0].text
            assert "WETH borrow rate" in (await s.read_resource("grimoire://items/g-ep")).contents[0].text
            assert (await s.read_resource("grimoire://playbook")).contents[0].text.startswith("#")
            schema = (await s.read_resource("grimoire://schema")).contents[0].text
            assert "Insight" in schema and "hybrid" in schema
            try:
                await s.read_resource("grimoire://items/z-ep")  # another agent's private episode
                raise AssertionError("read another agent's item")
            except Exception as exc:
                assert "no item" in str(exc) or "z-ep" in str(exc)
            prompts = {p.name for p in (await s.list_prompts()).prompts}
            assert prompts == {"start_session", "record_outcome"}
            start = await s.get_prompt("start_session", {"task": "rebalance the LP"})
            assert "rebalance the LP" in start.messages[0].content.text
    run(body)
