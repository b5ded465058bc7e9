"""The console's pure parts (api/console/): sessions and who may do what, the decay curve an item page draws,
the diff of two versions, a reflection decision read from a form, conflicting proposals paired, the metric
charts' healthy days, the graph page's elements and its Neo4j Browser query."""

from __future__ import annotations

import secrets
from urllib.parse import unquote

import pytest

from grimoire.api.console.errors import Refused
from grimoire.api.console.pages.approvals import conflict_pairs, verdict
from grimoire.api.console.pages.audit import properties_diff
from grimoire.api.console.pages.graph import allocations_chart, browser_link, causal_elements, entity_elements
from grimoire.api.console.pages.knowledge import decay_stretches
from grimoire.api.console.pages.overview import charts
from grimoire.api.console.pages.signin import _next
from grimoire.api.console.sessions import Session
from grimoire.graph import console_sessions
from grimoire.graph.agents import Principal
from grimoire.graph.db.cypher import for_browser, literal
from grimoire.graph.knowledge.decay import DAY_MS, Stretch, curve, effective_confidence
from grimoire.graph.model.enums import KeyScope


def principal(agent: str | None, *scopes: KeyScope) -> Principal:
    return Principal(key_id=f"k-{agent}-{'-'.join(sorted(scopes))}", agent_id=agent, clade="c", kind="main",
                     scopes=frozenset(scopes))


def session(p: Principal) -> Session:
    secret = secrets.token_urlsafe(32)
    csrf = console_sessions.csrf_of(secret)
    return Session(id="s", hash=console_sessions.digest(secret), principal=p, csrf=csrf,
                   csrf_hash=console_sessions.digest(csrf))


def test_a_session_sees_its_agent_and_only_a_person_or_the_admin_decides() -> None:
    agent = session(principal("a", KeyScope.read, KeyScope.write))
    person = session(principal("a", KeyScope.read, KeyScope.person))
    admin = session(principal(None, KeyScope.admin))
    assert (agent.sees("a"), agent.sees("b"), agent.decides("a")) == (True, False, False)
    assert (person.sees("a"), person.sees("b"), person.decides("a"), person.decides("b")) == (True, False, True, False)
    assert (admin.sees("b"), admin.decides("b")) == (True, True)


def test_a_sessions_form_token_is_derived_from_its_secret_and_checked_against_its_hash() -> None:
    a, b = session(principal("a", KeyScope.read)), session(principal("a", KeyScope.read))
    assert a.csrf != b.csrf and a.hash != b.hash and len(a.csrf) >= 64
    assert a.token_holds(a.csrf) and not a.token_holds(b.csrf)
    assert not a.token_holds(None) and not a.token_holds("") and not a.token_holds(a.csrf_hash)
    secret = secrets.token_urlsafe(32)
    assert console_sessions.csrf_of(secret) == console_sessions.csrf_of(secret)  # any replica derives the same


def test_a_session_slides_only_once_a_tenth_of_its_idle_time_has_passed() -> None:
    idle = 8 * 3_600_000
    assert not console_sessions.slide_due(last_used_at=0, now=idle // 10 - 1, idle_ms=idle)
    assert console_sessions.slide_due(last_used_at=0, now=idle // 10, idle_ms=idle)


def test_a_route_path_never_takes_an_id_that_would_reach_another_route() -> None:
    from grimoire.api.console.gateway import path

    assert path("/entries/{}", "a b:c") == "/entries/a%20b%3Ac"
    for bad in ("x/provenance/tree", "..", ".", ""):
        with pytest.raises(Refused) as e:
            path("/crystals/{}", bad)
        assert e.value.status == 404


def test_sign_in_only_goes_on_to_a_console_page() -> None:
    assert _next("/console/agents/a/audit", "/x") == "/console/agents/a/audit"
    for bad in ("https://evil.example/console", "//evil.example/console", "/console/..\\evil", "/docs", None, ""):
        assert _next(bad, "/fallback") == "/fallback"


def test_the_decay_curve_follows_each_version_then_projects_the_entry_as_it_is() -> None:
    hl = 10 * DAY_MS
    v1 = Stretch(start=0, until=5 * DAY_MS, confidence=0.5, last_accessed=0, half_life=hl)
    now_stretch = Stretch(start=5 * DAY_MS, until=None, confidence=0.6, last_accessed=5 * DAY_MS, half_life=hl)
    now = 8 * DAY_MS
    points = curve([now_stretch, v1], now, points=10)
    past, projected = points["past"], points["projected"]
    assert past[0] == (0, 0.5) and past == sorted(past)
    at_switch = [v for t, v in past if t == 5 * DAY_MS]
    assert at_switch == [pytest.approx(effective_confidence(0.5, 5 * DAY_MS, 0, hl, 1.0)), 0.6]  # the upvote's jump
    assert past[-1] == (now, pytest.approx(effective_confidence(0.6, now, 5 * DAY_MS, hl, 1.0)))
    assert projected[0][0] == now and projected[-1][0] <= now + 2 * hl
    assert all(a[1] >= b[1] for a, b in zip(projected, projected[1:], strict=False))  # only decays from here
    assert min(v for _, v in projected) >= 0.05  # the floor
    never = curve([Stretch(start=0, until=None, confidence=0.9, last_accessed=0, half_life=None)], now, points=4)
    assert {v for _, v in never["past"] + never["projected"]} == {0.9}
    for odd in (0.0, -5.0, float("inf"), float("nan")):  # a stored half-life the formula cannot use: no decay
        flat = curve([Stretch(start=0, until=None, confidence=0.7, last_accessed=0, half_life=odd)], now, points=4)
        assert {v for _, v in flat["past"] + flat["projected"]} == {0.7}
    slow = curve([Stretch(start=0, until=None, confidence=0.7, last_accessed=0, half_life=1e15)], now, points=4)
    assert slow["projected"][-1][0] <= now + 365 * DAY_MS  # the projection is at most a year


def test_decay_stretches_read_versions_and_the_entry() -> None:
    entry = {"confidence": 0.9, "last_accessed_at": "2026-01-03T00:00:00+00:00", "half_life_ms": 100.0,
             "strength": 2.0, "recorded_at": "2026-01-01T00:00:00+00:00"}
    versions = [{"valid_from": 1_000, "valid_until": 2_000, "state": {"confidence": 0.5, "last_accessed_at": 1_000,
                                                                       "half_life_ms": 100.0, "strength": 1.0}},
                {"valid_from": 3, "valid_until": None, "state": {}}]  # no confidence: skipped
    s = decay_stretches(entry, versions)
    assert [(x.start, x.until, x.confidence) for x in s] == [(1_000, 2_000, 0.5), (2_000, None, 0.9)]
    assert s[1].strength == 2.0 and s[1].last_accessed == 1_767_398_400_000


def test_a_diff_shows_what_changed_and_leaves_out_the_bookkeeping() -> None:
    before = {"content": "gas under 40", "confidence": 0.5, "version": 1, "changed_at": 1, "embedding": [0.1]}
    after = {"content": "gas under 35", "confidence": 0.5, "version": 2, "changed_at": 2, "tags": ["gas"]}
    assert properties_diff(before, after) == [
        {"property": "content", "before": "gas under 40", "after": "gas under 35"},
        {"property": "tags", "before": None, "after": ["gas"]}]
    assert properties_diff(None, {"content": "x"}) == [{"property": "content", "before": None, "after": "x"}]


REFLECTION = {"items": [
    {"id": "f1-1", "kind": "fact", "data": {"summary": "Lee said the risk engine depends on Chainlink."}},
    {"id": "p1-1", "kind": "procedure", "data": {"trigger": "When rebalance comes up"}},
    {"id": "x1-1", "kind": "contradiction", "data": {}},
    {"id": "c1-1", "kind": "core", "data": {"after": "- I prefer tabs.\n"}}]}


def test_a_reflection_decision_is_read_from_the_form() -> None:
    every = ["f1-1", "p1-1", "x1-1", "c1-1"]  # the form ticks every proposal at first
    assert verdict(REFLECTION, {"decision": "approve", "items": every}) == {"decision": "approve", "note": None}
    part = verdict(REFLECTION, {"decision": "approve_part", "items": ["f1-1", "nope"], "note": " ok "})
    assert part == {"decision": "approve_part", "note": "ok", "items": ["f1-1"]}
    changed = verdict(REFLECTION, {
        "decision": "approve_with_changes", "items": ["f1-1", "c1-1", "x1-1"],
        "change:f1-1": "Lee said the risk engine depends on Chainlink.",  # unchanged: not a change
        "change:c1-1": "- I prefer spaces.\r\n", "change:p1-1": "When a rebalance is due"})
    assert changed["changes"] == {"c1-1": {"after": "- I prefer spaces.\n"},
                                  "p1-1": {"trigger": "When a rebalance is due"}}
    assert changed["exclude"] == ["p1-1"]
    with pytest.raises(Refused) as e:
        verdict(REFLECTION, {"decision": "approve_part"})
    assert e.value.status == 422
    # what the person unticked or edited is never dropped silently
    with pytest.raises(Refused, match="Approve all"):
        verdict(REFLECTION, {"decision": "approve", "items": ["f1-1"]})
    with pytest.raises(Refused, match="Approve all"):
        verdict(REFLECTION, {"decision": "approve", "items": every, "change:p1-1": "When a rebalance is due"})
    assert verdict(REFLECTION, {"decision": "approve", "items": every,
                                "change:p1-1": "When rebalance comes up"})["decision"] == "approve"
    with pytest.raises(Refused, match="you edited p1-1"):
        verdict(REFLECTION, {"decision": "approve_part", "items": ["f1-1"], "change:p1-1": "When a rebalance is due"})
    with pytest.raises(Refused):
        verdict(REFLECTION, {"decision": "delete everything"})


def test_conflicting_proposals_are_paired_once() -> None:
    a = {"id": "a", "number": 1, "conflicts_with": ["b"]}
    b = {"id": "b", "number": 2, "conflicts_with": ["a"]}
    c = {"id": "c", "number": 3, "conflicts_with": ["gone"]}
    assert conflict_pairs([b, a, c]) == [(a, b)]


def test_metric_charts_mark_the_days_outside_the_healthy_range() -> None:
    now = {"metrics": [
        {"name": "admission_rate", "title": "Admission rate", "unit": "fraction", "value": 0.9, "alarm": True,
         "alarm_rule": "> 80%", "healthy": False, "healthy_range": {"text": "40-60%", "low": 0.4, "high": 0.6}},
        {"name": "unsampled", "title": "U", "unit": "x", "value": None, "alarm": False, "alarm_rule": "",
         "healthy": None, "healthy_range": {"text": "", "low": None, "high": None}}]}
    series = {"samples": [{"name": "admission_rate", "day": "2026-11-02", "value": 0.9},
                          {"name": "admission_rate", "day": "2026-11-01", "value": 0.5},
                          {"name": "admission_rate", "day": "2026-11-03", "value": None}]}
    [c] = charts(now, series)
    assert c["y"] == [0.5, 0.9, None] and c["unhealthy"] == [False, True, False]
    assert c["x"] == [1_793_491_200, 1_793_577_600, 1_793_664_000] and c["alarm"] is True


def test_graph_elements_draw_every_path_and_the_policy_chart_every_revision() -> None:
    reached = [{"id": "b", "name": "B", "kind": "Reserve", "path": ["a", "b"], "predicates": ["CollateralBacking"]},
               {"id": "c", "name": "C", "kind": "Oracle", "path": ["a", "b", "c"],
                "predicates": ["CollateralBacking", "OracleDependency"]}]
    els = entity_elements("a", reached)
    assert {e["data"]["id"] for e in els if "source" not in e["data"]} == {"a", "b", "c"}
    assert {(e["data"]["source"], e["data"]["target"], e["data"]["label"]) for e in els if "source" in e["data"]} == {
        ("a", "b", "CollateralBacking"), ("b", "c", "OracleDependency")}
    causal = causal_elements({"id": "m", "content": "middle"}, [{"id": "c", "path": ["m", "c"]}],
                             [{"id": "e", "path": ["m", "x", "e"]}])
    edges = {(e["data"]["source"], e["data"]["target"]) for e in causal if "source" in e["data"]}
    assert edges == {("c", "m"), ("m", "x"), ("x", "e")}  # causes point at the entry, consequences away
    chart = allocations_chart([{"revision": 2, "policy": {"allocations": {"a": 0.5, "b": 0.5}}},
                               {"revision": 1, "policy": {"allocations": {"a": 1.0}}}])
    assert chart == {"labels": ["r1", "r2"], "datasets": [{"label": "a", "data": [1.0, 0.5]},
                                                          {"label": "b", "data": [0.0, 0.5]}]}


def test_the_browser_link_opens_the_same_cypher_file_with_the_pages_parameters() -> None:
    assert literal("it's") == "'it\\u0027s'" and literal([1, None, True]) == "[1, null, true]"
    injected = for_browser("topology/k_hop", {"id": "x'\nMATCH (n) DETACH DELETE n //"})
    assert injected.count("\n") == for_browser("topology/k_hop", {"id": "x"}).count("\n")  # still one line
    assert ":param id => 'x\\u0027\\u000aMATCH (n) DETACH DELETE n //';" in injected
    text = for_browser("topology/k_hop", {"id": "pool:aave v3 pool", "block": 123, "admin": False})
    assert ":param id => 'pool:aave v3 pool';" in text and ":param block => 123;" in text
    assert ":param admin => false;" in text and ":param hops => 3;" in text  # the others keep the file's
    assert "MATCH" in text
    link = browser_link("http://127.0.0.1:7474/browser/", "causal/export", {"agent_id": "scout"})
    assert link.startswith("http://127.0.0.1:7474/browser/?cmd=edit&arg=")
    assert ":param agent_id => 'scout';" in unquote(link.split("arg=", 1)[1])
