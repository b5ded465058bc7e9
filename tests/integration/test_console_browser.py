"""The console in a real browser (issue 21): Playwright for Python driving Debian's Chromium (/usr/bin/chromium,
installed by `make chromium`; never `playwright install`) against the service on a socket. Signs in; every
page renders with no console error and no request to another host (every request recorded); the charts and
the graph draw their points (read back from the canvas); new events arrive live; approving part of a
reflection changes exactly that part; a rollback from the audit page restores the item; an agent's key can
neither open another agent's pages nor act (403); a forged form post without the session's token is refused.
Each page's screenshot is written to bench/results/console/ (shown in README)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from bench.console import CHROMIUM, FLAGS
from tests.conftest import ADMIN_KEY, served
from tests.integration.console_world import World, build

SHOTS = Path(__file__).resolve().parents[2] / "bench" / "results" / "console"
AGENT = "scout"


@dataclass
class Site:
    url: str
    world: World
    api: httpx.Client  # REST, to check what a click changed

    def rest(self, key: str, method: str, path: str, **kw: Any) -> Any:
        r = self.api.request(method, path, headers={"X-API-Key": key}, **kw)
        assert r.status_code < 300, r.text
        return r.json()


@pytest.fixture(scope="module")
def site(session_db, neo4j_server, embedder) -> Iterator[Site]:
    from grimoire.api.app import create_app
    from tests.conftest import clean_database

    clean_database(session_db)
    app = create_app(neo4j_server.settings(admin_key=ADMIN_KEY), db=session_db, embedder=embedder)
    with served(app, "console") as url, httpx.Client(base_url=url, timeout=60) as api:
        yield Site(url, build(api, session_db), api)
    clean_database(session_db)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), ("Debian's Chromium is missing: `make chromium` installs it "
                                     "(apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)  # a fresh profile each launch
        yield b
        b.close()


@dataclass
class Tab:
    page: Any
    base: str
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def foreign(self) -> list[str]:
        host = urlsplit(self.base).netloc
        return [u for u in self.requests if urlsplit(u).scheme not in ("data", "blob") and urlsplit(u).netloc != host]

    def go(self, path: str) -> Any:
        return self.page.goto(self.base + path, wait_until="load")


@pytest.fixture
def tab(browser, site: Site) -> Iterator[Tab]:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    t = Tab(context.new_page(), site.url)
    t.page.on("console", lambda m: t.errors.append(f"console: {m.text}") if m.type == "error" else None)
    t.page.on("pageerror", lambda e: t.errors.append(f"page: {e}"))
    t.page.on("request", lambda r: t.requests.append(r.url))
    yield t
    context.close()


def sign_in(tab: Tab, key: str) -> None:
    tab.go("/console")
    assert "/console/sign-in" in tab.page.url
    tab.page.fill("input[name=key]", key)
    with tab.page.expect_navigation():
        tab.page.click("button[type=submit]")


def shot(tab: Tab, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def drawn(tab: Tab, key: str) -> int:
    tab.page.wait_for_function("k => (window.grimoireDrawn || {})[k] !== undefined", arg=key, timeout=10_000)
    return int(tab.page.evaluate("k => window.grimoireDrawn[k]", key))


# Pixels of the series' colour on a uPlot chart's canvas: the points and lines really drawn.
INKED = """sel => { const c = document.querySelector(sel + ' canvas'); const d = c.getContext('2d')
  .getImageData(0, 0, c.width, c.height).data; let n = 0;
  for (let i = 0; i < d.length; i += 4) { if (Math.abs(d[i] - 44) < 30 && Math.abs(d[i + 1] - 111) < 30
    && Math.abs(d[i + 2] - 187) < 30 && d[i + 3] > 200) n++; } return n; }"""


PAGES = [("overview", f"/console/agents/{AGENT}"), ("knowledge", f"/console/agents/{AGENT}/knowledge?q=gas+rebalance"),
         ("item", f"/console/agents/{AGENT}/items/demo-gas"), ("memory", f"/console/agents/{AGENT}/memory"),
         ("approvals", f"/console/agents/{AGENT}/approvals"), ("audit", f"/console/agents/{AGENT}/audit"),
         ("graph", f"/console/agents/{AGENT}/graph?entity=pool%3Aaave+v3+pool&hops=2"),
         ("causal-graph", f"/console/agents/{AGENT}/graph")]


def test_every_page_renders_with_no_error_and_nothing_from_another_host(tab: Tab, site: Site) -> None:
    tab.go("/console/sign-in")
    shot(tab, "sign-in")
    sign_in(tab, site.world.demo.keys["person"])
    assert tab.page.url.endswith(f"/console/agents/{AGENT}")
    for name, path in PAGES:
        response = tab.go(path)
        assert response.status == 200, (name, response.status)
        assert tab.page.locator("header.top nav a.on").count() == 1, name
        if name == "overview":
            assert drawn(tab, "series-average_quality_7d") >= 1 and drawn(tab, "by-category") >= 1
            assert tab.page.evaluate(INKED, '.js-series[data-source="series-average_quality_7d"]') >= 5
        if name == "item":
            assert drawn(tab, "decay") > 10 and tab.page.evaluate(INKED, ".js-decay") > 100
        if name in ("graph", "causal-graph"):
            assert drawn(tab, "graph") >= 5 and drawn(tab, "allocations") >= 13
            link = tab.page.locator("a.browser-link").get_attribute("href")
            assert link and link.startswith("http://127.0.0.1:") and "/browser/?cmd=edit&arg=" in link
        tab.page.wait_for_timeout(300)  # charts settle before the picture
        shot(tab, name)
    assert tab.errors == []
    assert tab.foreign() == [] and len(tab.requests) > 20


def test_new_events_arrive_live_on_the_overview(tab: Tab, site: Site) -> None:
    sign_in(tab, site.world.demo.keys["person"])
    tab.go(f"/console/agents/{AGENT}")
    tab.page.wait_for_timeout(500)  # the stream is open
    site.rest(site.world.demo.keys["agent"], "POST", "/episodes", json={
        "id": "live-ep-1", "type": "observation", "text": "Utilisation of the USDC reserve crossed 92%."})
    tab.page.wait_for_selector("#events li.new", timeout=15_000)
    assert "GrimoireWrite" in tab.page.locator("#events li.new").first.inner_text()
    assert tab.errors == [] and tab.foreign() == []


def test_approving_part_of_a_reflection_changes_exactly_that_part(tab: Tab, site: Site, session_db) -> None:
    person, rid = site.world.demo.keys["person"], site.world.demo.reflection_id
    reflection = site.rest(person, "GET", f"/agents/{AGENT}/reflections/{rid}")
    [fact] = [i for i in reflection["items"] if i["kind"] == "fact"]
    relation = fact["data"]["relations"][0]
    edge = (relation["from"], relation["relation"], relation["to"])

    def relations() -> set[tuple[str, str, str]]:
        return {(r["s"], r["name"], r["o"]) for r in session_db.fetch("testing/memory_relations", agent_id=AGENT)
                if r["archived_at"] is None}

    before, core_before = relations(), site.rest(person, "GET", f"/agents/{AGENT}/core")["blocks"]
    procedures = len(site.rest(person, "GET", f"/agents/{AGENT}/memories", params={"store": "procedural"}))
    assert edge not in before

    sign_in(tab, person)
    tab.go(f"/console/agents/{AGENT}/approvals")
    form = tab.page.locator(f'section[data-reflection="{rid}"] form')
    for box in form.locator('input[name="items"]').all():
        if box.get_attribute("value") != fact["id"]:
            box.uncheck()
    with tab.page.expect_navigation():
        form.locator('button[value="approve_part"]').click()
    assert "done=reflection-1-partial" in tab.page.url
    shot(tab, "approvals-decided")

    decided = site.rest(person, "GET", f"/agents/{AGENT}/reflections/{rid}")
    assert (decided["status"], decided["applied"]) == ("partial", [fact["id"]])
    assert relations() == before | {edge}  # the approved fact, and nothing else
    assert site.rest(person, "GET", f"/agents/{AGENT}/core")["blocks"] == core_before  # the core change was not
    assert len(site.rest(person, "GET", f"/agents/{AGENT}/memories", params={"store": "procedural"})) == procedures
    [record] = site.rest(person, "GET", f"/agents/{AGENT}/audit", params={"limit": 1})  # the decision's
    assert record["channel"] == "console" and record["tag"] == "manual"
    assert tab.errors == []


def test_a_rollback_from_the_audit_page_restores_the_item(tab: Tab, site: Site) -> None:
    person = site.world.demo.keys["person"]
    first = site.rest(person, "GET", f"/agents/{AGENT}/versions/demo-gas")["versions"][-1]
    assert first["id"] == "demo-gas:r1" and "40 gwei" in first["content"]
    assert "35 gwei" in site.rest(person, "GET", "/entries/demo-gas")["content"]

    sign_in(tab, person)
    tab.go(f"/console/agents/{AGENT}/audit?item=demo-gas")
    tab.page.locator("table.trail button:has-text('diff')").first.click()  # the change's diff, in place
    tab.page.wait_for_selector("td .diff table", timeout=10_000)
    form = tab.page.locator("form:has(input[name=to_version])")
    form.locator("input[name=item]").fill("demo-gas")
    form.locator("input[name=to_version]").fill("demo-gas:r1")
    with tab.page.expect_navigation():
        form.locator("button[type=submit]").click()
    assert tab.page.locator("h1").inner_text() == "Confirm rollback"
    assert "will undo" in tab.page.locator("section.confirm").inner_text()
    shot(tab, "rollback-confirm")
    assert "35 gwei" in site.rest(person, "GET", "/entries/demo-gas")["content"]  # the preview changed nothing
    with tab.page.expect_navigation():
        tab.page.locator("section.confirm button[type=submit]").click()
    assert "done=rollback-" in tab.page.url

    restored = site.rest(person, "GET", "/entries/demo-gas")
    assert restored["content"] == first["content"]
    [record] = site.rest(person, "GET", f"/agents/{AGENT}/audit", params={"item": "demo-gas", "limit": 1})
    assert record["action"] == "audit.rollback" and record["channel"] == "console" and record["tag"] == "manual"
    assert tab.errors == []


def test_an_agents_key_cannot_open_another_agents_pages_or_act_on_them(tab: Tab, site: Site) -> None:
    sign_in(tab, site.world.demo.keys["agent"])
    assert tab.go(f"/console/agents/{AGENT}").status == 200
    for path in ("", "/knowledge", "/approvals", "/audit", "/graph", "/memory"):
        response = tab.go(f"/console/agents/stranger{path}")
        assert response.status == 403, path
    assert "opens the pages of agent 'scout' only" in tab.page.locator("p.error").inner_text()
    shot(tab, "refused")
    tab.go(f"/console/agents/{AGENT}/audit")
    assert tab.page.locator("form[action$='/rollback/preview']").count() == 0  # read only: no rollback forms
    token = tab.page.locator("input[name=csrf]").first.get_attribute("value")
    for action, form in ((f"/console/agents/{AGENT}/rollback", {"target": "item", "item": "demo-gas",
                                                                  "to_version": "demo-gas:r1"}),
                         (f"/console/agents/{AGENT}/proposals/{site.world.demo.proposals[0]}", {"decision": "commit"}),
                         ("/console/agents/stranger/memory/persona", {"content": "x", "version": "0"})):
        r = tab.page.request.post(site.url + action, form={**form, "csrf": token})  # the session's own cookie
        assert r.status == 403, action


def test_a_forged_form_post_without_the_sessions_token_is_refused(tab: Tab, site: Site) -> None:
    person = site.world.demo.keys["person"]
    [alert] = site.rest(person, "GET", f"/agents/{AGENT}/alerts")[:1]
    sign_in(tab, person)
    tab.go(f"/console/agents/{AGENT}/audit")
    # A form the page did not render: same cookie, same origin, but no token.
    with tab.page.expect_navigation():
        tab.page.evaluate("""action => { const f = document.createElement('form'); f.method = 'post';
            f.action = action; document.body.append(f); f.submit(); }""",
                          f"/console/agents/{AGENT}/alerts/{alert['id']}/acknowledge")
    assert "does not match your session" in tab.page.locator("p.error").inner_text()
    r = tab.page.request.post(site.url + f"/console/agents/{AGENT}/alerts/{alert['id']}/acknowledge",
                              form={"csrf": "forged-token"})
    assert r.status == 403
    assert alert["id"] in [a["id"] for a in site.rest(person, "GET", f"/agents/{AGENT}/alerts")]  # still waiting
    # the page's own form, with its token, does it
    tab.go(f"/console/agents/{AGENT}/audit")
    with tab.page.expect_navigation():
        tab.page.locator(f'li[data-alert="{alert["id"]}"] button').click()
    assert "done=acknowledged" in tab.page.url
    assert alert["id"] not in [a["id"] for a in site.rest(person, "GET", f"/agents/{AGENT}/alerts")]


def test_core_memory_counts_the_tokens_left_while_typing(tab: Tab, site: Site) -> None:
    person = site.world.demo.keys["person"]
    sign_in(tab, person)
    tab.go(f"/console/agents/{AGENT}/memory")
    counter = tab.page.locator("#tokens-critical")
    before = counter.inner_text()
    area = tab.page.locator('form[data-block="critical"] textarea')
    area.fill("- Never rebalance while an oracle is stale\n- Ask before any trade above 50k USDC")
    tab.page.wait_for_function("t => document.querySelector('#tokens-critical').innerText !== t", arg=before,
                               timeout=10_000)  # htmx posted the text; the server counted it
    shown = counter.inner_text()
    core = site.rest(person, "GET", f"/agents/{AGENT}/core")
    typed = int(shown.split(" tokens")[0])
    assert typed > 10 and f"{core['cap'] - core['tokens'] - typed:,} of 3,000 left" in shown
    with tab.page.expect_navigation():
        tab.page.locator('form[data-block="critical"] button[type=submit]').click()
    saved = {b["block"]: b for b in site.rest(person, "GET", f"/agents/{AGENT}/core")["blocks"]}
    assert saved["critical"]["content"].startswith("- Never rebalance while an oracle is stale")
    assert saved["critical"]["tokens"] == typed  # the count shown is the count the cap judged
    assert tab.errors == [] and tab.foreign() == []
