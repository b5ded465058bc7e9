"""The memory console over HTTP (api/console/, issue 21): sign-in behind an HttpOnly SameSite session, every page
rendered from the routes with the session's key, the console as a partition (another agent's pages and
knowledge out of reach), an agent's key reading but never deciding, forged and cross-site posts refused with
nothing changed, core memory edited under the cap with the tokens counted as typed, proposals decided; every
change audited as channel `console`. The browser's view of the same is tests/integration/test_console_browser.py."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import ADMIN_KEY
from tests.integration.console_world import SECRET, World, build, signed_in


@pytest.fixture(scope="module")
def world(session_db, neo4j_server, embedder) -> Iterator[tuple[TestClient, World]]:
    from grimoire.api.app import create_app
    from tests.conftest import clean_database

    clean_database(session_db)
    app = create_app(neo4j_server.settings(admin_key=ADMIN_KEY), db=session_db, embedder=embedder)
    with TestClient(app) as client:
        yield client, build(client, session_db)
    clean_database(session_db)


def csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "the page has no form token"
    return found.group(1)


def rest(client: TestClient, key: str, method: str, path: str, **kw: Any) -> Any:
    r = client.request(method, path, headers={"X-API-Key": key}, **kw)
    assert r.status_code < 300, r.text
    return r.json()


ROLL_BACK_GAS = {"target": "item", "item": "demo-gas", "to_version": "demo-gas:r1"}
PAGES = ["", "/knowledge", "/knowledge?q=gas+rebalance", "/items/demo-gas", "/items/demo-ep-1", "/memory",
         "/approvals", "/audit", "/audit?action=EDIT&item=demo-gas", "/graph", "/graph?entry=demo-oracle",
         "/graph?entity=pool%3Aaave+v3+pool&hops=2", "/graph?q=WETH", "/diff?item=demo-gas&before=demo-gas%3Ar1"]


def test_sign_in_keeps_the_key_on_the_server_and_sign_out_ends_it(world) -> None:
    client, w = world
    r = client.get("/console/agents/scout", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/console/sign-in?next=")
    r = client.post("/console/sign-in", data={"key": "gk_nope_nope"})
    assert r.status_code == 401 and "unknown or revoked" in r.text
    r = client.post("/console/sign-in", data={"key": w.demo.keys["person"], "next": "/console/agents/scout/audit"},
                    follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/console/agents/scout/audit"
    cookie = r.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/console" in cookie
    assert w.demo.keys["person"] not in cookie
    page = client.get("/console/agents/scout")
    assert page.status_code == 200 and w.demo.keys["person"] not in page.text  # nor in the page
    assert "default-src 'self'" in page.headers["content-security-policy"]
    r = client.post("/console/sign-out", data={"csrf": csrf(page.text)}, follow_redirects=False)
    assert r.status_code == 303
    assert client.get("/console/agents/scout", follow_redirects=False).status_code == 303
    client.cookies.clear()


def test_every_page_renders_what_the_routes_say(world) -> None:
    client, w = world
    with signed_in(client, w.demo.keys["person"]):
        for p in PAGES:
            r = client.get(f"/console/agents/scout{p}")
            assert r.status_code == 200, (p, r.text[:500])
        overview = client.get("/console/agents/scout").text
        stats = rest(client, w.demo.keys["person"], "GET", "/stats", params={"agent_id": "scout"})
        assert f'data-count="entries">{stats["entries"]}<' in overview and "Admission rate" in overview
        assert 'id="series-admission_rate"' in overview and "GrimoireWrite" in overview
        search = client.get("/console/agents/scout/knowledge", params={"q": "gas rebalance"}).text
        assert "Rebalance only when gas is under" in search and re.search(r"vector #\d+ · 0\.\d{3}", search)
        assert "effective_confidence" in search and "× 0.25" in search  # factor × its weight
        filtered = client.get("/console/agents/scout/knowledge", params={"category": "Warning"}).text
        assert "health factor under 1.4" in filtered and "Rebalance only when gas" not in filtered
        item = client.get("/console/agents/scout/items/demo-gas").text
        assert "demo-gas:r1" in item and "created" in item and 'id="decay"' in item
        assert "tighter after the spike" in item
        assert "Spreads on Aave widen" in item  # its cause
        memory = client.get("/console/agents/scout/memory").text
        assert "PLAYBOOK.md" in memory and "Q4 collateral review in progress" in memory
        assert "<h2>Identity</h2>" in memory
        approvals = client.get("/console/agents/scout/approvals").text
        assert "Reflection #1" in approvals and "Reflection Summary" in approvals
        assert approvals.count('class="side-by-side conflict card"') == 1 and "December 15" in approvals
        graph = client.get("/console/agents/scout/graph", params={"entity": "pool:aave v3 pool", "hops": 2}).text
        assert "reserve:aave weth" in graph and "oracle:chainlink eth/usd" in graph and "?cmd=edit&amp;arg=" in graph
        diff = client.get("/console/agents/scout/diff", params={"item": "demo-gas", "before": "demo-gas:r1"}).text
        assert "under 40 gwei" in diff and "under 35 gwei" in diff


def test_the_console_is_a_partition(world) -> None:
    client, w = world
    with signed_in(client, w.demo.keys["person"]):
        pages = [client.get(f"/console/agents/scout{p}").text for p in PAGES]
        pages.append(client.get("/console/agents/scout/knowledge", params={"q": "Curve pool rebalances Tuesday"}).text)
        assert not [p for p in pages if SECRET[-40:] in p or w.secret_entry in p]
        for p in ["", "/knowledge", "/memory", "/approvals", "/audit", "/graph", "/events/stream",
                  f"/items/{w.secret_entry}"]:
            r = client.get(f"/console/agents/stranger{p}")
            assert r.status_code == 403, (p, r.status_code)
        assert client.get(f"/console/agents/scout/items/{w.secret_entry}").status_code == 404  # not visible
        assert client.get("/console/agents", follow_redirects=False).headers["location"] == "/console/agents/scout"
    with signed_in(client, ADMIN_KEY):
        listed = client.get("/console/agents").text
        assert "/console/agents/scout" in listed and "/console/agents/stranger" in listed
        assert SECRET[-40:] in client.get("/console/agents/stranger/knowledge").text  # the admin sees every agent
        # an item is shown under its owner's pages: the admin is sent there, not shown it as scout's
        r = client.get(f"/console/agents/scout/items/{w.secret_entry}", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == f"/console/agents/stranger/items/{w.secret_entry}"
        r = client.get("/console/agents/scout/graph", params={"entry": w.secret_entry})
        assert r.status_code == 404 and SECRET[-40:] not in r.text
        search = client.get("/console/agents/scout/knowledge", params={"q": "Curve pool rebalances Tuesday"}).text
        assert SECRET[-40:] not in search  # scout's page searches scout's memory, whoever asks


def test_a_key_that_cannot_read_cannot_sign_in_and_only_the_service_names_the_console_channel(world) -> None:
    client, w = world
    admin = {"X-API-Key": ADMIN_KEY}
    writer = client.post("/agents/scout/keys", headers=admin, json={"scopes": ["write"]}).json()["key"]
    r = client.post("/console/sign-in", data={"key": writer}, follow_redirects=False)
    assert r.status_code == 403 and "read" in r.text and "set-cookie" not in r.headers
    # a client claiming to be the console is REST in the trail
    r = client.post("/agents/scout/core/context/append", json={"text": "- Claimed console"},
                    headers={"X-API-Key": w.demo.keys["agent"], "X-Grimoire-Channel": "console"})
    assert r.status_code == 200, r.text
    [record] = rest(client, w.demo.keys["agent"], "GET", "/agents/scout/audit",
                    params={"item": "scout:core:context", "limit": 1})
    assert record["channel"] == "rest"
    # a form posted after the session ended goes to the sign-in page
    with signed_in(client, w.demo.keys["person"]):
        token = csrf(client.get("/console/agents/scout/audit").text)
        client.cookies.clear()
        r = client.post("/console/agents/scout/rollback/preview", data={"csrf": token}, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/console/sign-in"


def test_an_agents_own_key_reads_its_pages_but_decides_nothing(world) -> None:
    client, w = world
    reflection = w.demo.reflection_id
    with signed_in(client, w.demo.keys["agent"]):
        page = client.get("/console/agents/scout/approvals")
        assert page.status_code == 200 and "read only" in page.text and 'value="approve_part"' not in page.text
        token = csrf(page.text)
        attempts = [
            (f"/console/agents/scout/reflections/{reflection}", {"decision": "approve"}),
            (f"/console/agents/scout/proposals/{w.demo.proposals[0]}", {"decision": "commit"}),
            ("/console/agents/scout/rollback/preview", ROLL_BACK_GAS),
            ("/console/agents/scout/rollback", ROLL_BACK_GAS),
            ("/console/agents/scout/memory/persona", {"content": "- hijacked", "version": "1"}),
            ("/console/agents/scout/alerts/whatever/acknowledge", {}),
        ]
        for url, form in attempts:
            r = client.post(url, data={**form, "csrf": token})
            assert r.status_code == 403, (url, r.text[:300])
        assert client.get("/console/agents/stranger").status_code == 403
    assert rest(client, w.demo.keys["agent"], "GET", f"/agents/scout/reflections/{reflection}")["status"] == "pending"


def test_a_forged_or_cross_site_post_is_refused_and_changes_nothing(world) -> None:
    client, w = world
    reflection = w.demo.reflection_id
    with signed_in(client, w.demo.keys["person"]):
        token = csrf(client.get("/console/agents/scout/approvals").text)
        url = f"/console/agents/scout/reflections/{reflection}"
        assert client.post(url, data={"decision": "reject"}).status_code == 403  # no token
        assert client.post(url, data={"decision": "reject", "csrf": "forged"}).status_code == 403
        r = client.post(url, data={"decision": "reject", "csrf": token}, headers={"Origin": "http://evil.example"})
        assert r.status_code == 403 and "another site" in r.text
        r = client.post(url, data={"decision": "reject", "csrf": token}, headers={"Origin": "null"})
        assert r.status_code == 403
    r = client.post("/console/sign-in", data={"key": w.demo.keys["person"]}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and "grimoire_console" not in r.headers.get("set-cookie", "")
    assert rest(client, w.demo.keys["agent"], "GET", f"/agents/scout/reflections/{reflection}")["status"] == "pending"


def test_core_memory_is_edited_under_the_cap_with_the_tokens_counted_as_typed(world) -> None:
    client, w = world
    with signed_in(client, w.demo.keys["person"]):
        page = client.get("/console/agents/scout/memory").text
        token = csrf(page)
        core = rest(client, w.demo.keys["person"], "GET", "/agents/scout/core")
        persona = next(b for b in core["blocks"] if b["block"] == "persona")
        others = core["tokens"] - persona["tokens"]
        r = client.post("/console/agents/scout/memory/persona/tokens", data={"content": "- Concise"},
                        headers={"X-CSRF-Token": token, "HX-Request": "true"})
        n = int(re.search(r"(\d+) tokens", r.text).group(1))  # type: ignore[union-attr]
        assert r.status_code == 200 and 0 < n < 10 and f"{core['cap'] - others - n:,} of 3,000 left" in r.text
        huge = "- " + "numbers first, " * 1_500
        r = client.post("/console/agents/scout/memory/persona/tokens", data={"content": huge, "csrf": token})
        assert "over the cap" in r.text
        # over the cap: a 409 with the route's reason, the text kept as typed, the block unchanged
        r = client.post("/console/agents/scout/memory/persona",
                        data={"content": huge, "version": str(persona["version"]), "csrf": token})
        assert r.status_code == 409 and "cap" in r.text and "numbers first, numbers first" in r.text
        # within it: saved, as this person, through the console
        r = client.post("/console/agents/scout/memory/persona",
                        data={"content": "- Concise, numbers first\n- Asks before large trades",
                              "version": str(persona["version"]), "csrf": token})
        assert r.status_code == 200, r.text[:300]
        after = rest(client, w.demo.keys["person"], "GET", "/agents/scout/core")
        assert next(b for b in after["blocks"] if b["block"] == "persona")["content"].endswith("large trades\n")
        # the same stale version again: someone saved meanwhile
        r = client.post("/console/agents/scout/memory/persona",
                        data={"content": "- stale", "version": str(persona["version"]), "csrf": token})
        assert r.status_code == 409
    [record] = rest(client, w.demo.keys["person"], "GET", "/agents/scout/audit",
                    params={"item": "scout:core:persona", "limit": 1})
    assert (record["channel"], record["tag"]) == ("console", "manual")


def test_proposals_are_committed_rejected_and_deferred(world) -> None:
    client, w = world
    first, dec15, _dec22, pyth = w.demo.proposals
    with signed_in(client, w.demo.keys["person"]):
        token = csrf(client.get("/console/agents/scout/approvals").text)
        for pid, form in ((first, {"decision": "commit"}), (dec15, {"decision": "reject", "reason": "it is the 22nd"}),
                          (pyth, {"decision": "defer"})):
            r = client.post(f"/console/agents/scout/proposals/{pid}", data={**form, "csrf": token},
                            follow_redirects=False)
            assert r.status_code == 303, r.text[:300]
        assert client.post(f"/console/agents/scout/proposals/{first}",
                           data={"decision": "commit", "csrf": token}).status_code == 409  # decided already
    listed = {p["id"]: p for p in rest(client, w.demo.keys["person"], "GET", "/agents/scout/proposals")}
    assert [listed[p]["status"] for p in (first, dec15, pyth)] == ["committed", "rejected", "deferred"]


def test_a_rollback_to_a_time_is_previewed_before_anything_changes(world) -> None:
    client, w = world
    core_before = rest(client, w.demo.keys["person"], "GET", "/agents/scout/core")
    with signed_in(client, w.demo.keys["person"]):
        token = csrf(client.get("/console/agents/scout/audit").text)
        r = client.post("/console/agents/scout/rollback/preview",
                        data={"csrf": token, "target": "at", "at": "2020-01-01T00:00:00"})
        assert r.status_code == 200 and "Confirm rollback" in r.text and "will undo" in r.text
        assert 'name="at" value="2020-01-01T00:00:00+00:00"' in r.text  # the confirmation posts the same target
        for bad in ({"target": "at", "at": "yesterday"}, {"target": "everything"}, {"target": "item", "item": "x"}):
            r = client.post("/console/agents/scout/rollback/preview", data={"csrf": token, **bad})
            assert r.status_code == 422, bad
    assert rest(client, w.demo.keys["person"], "GET", "/agents/scout/core") == core_before  # a preview writes nothing


def test_another_replica_serves_the_same_session_and_its_sign_out_ends_it_here(world, neo4j_server, embedder) -> None:
    """Sessions live in the database (graph/console_sessions.py): a second app on the same database (another
    replica, its own driver and memory) serves every page of a session this one opened, takes its forms, and
    signs it out here too."""
    from grimoire.api.app import create_app

    client, w = world
    with signed_in(client, w.demo.keys["person"]):
        cookie = {"Cookie": f"grimoire_console={client.cookies['grimoire_console']}"}
        with TestClient(create_app(neo4j_server.settings(admin_key=ADMIN_KEY), embedder=embedder)) as other:
            for p in PAGES:
                r = other.get(f"/console/agents/scout{p}", headers=cookie, follow_redirects=False)
                assert r.status_code == 200, (p, r.text[:300])
            token = csrf(other.get("/console/agents/scout/memory", headers=cookie).text)
            r = other.post("/console/agents/scout/memory/persona/tokens", data={"content": "- Concise", "csrf": token},
                           headers=cookie)
            assert r.status_code == 200 and "tokens" in r.text
            assert client.get("/console/agents/scout/memory").status_code == 200
            r = other.post("/console/sign-out", data={"csrf": token}, headers=cookie, follow_redirects=False)
            assert r.status_code == 303
            assert other.get("/console/agents/scout", headers=cookie, follow_redirects=False).status_code == 303
        assert client.get("/console/agents/scout", follow_redirects=False).status_code == 303
