"""Isolation over the background (issue 36): three agents — two of one clade, one of another — and a sub-agent,
each owner with private, shared, public and confidential episodes, entries and memories (a private Warning that
holds an API key among them), lessons for the Curator to distil, promote and offer, predictions for Reflexion, broken
invariants (Reflexion's safety_incident episodes), near-duplicates across owners and scopes for the consolidation
engine, and memories unread for a month for the decay system. Every scheduler job runs; then every read route of
the isolation registry
(tests/integration/test_isolation.py's READ_ROUTES) is walked as each agent: no 2xx answer holds anything of another
owner's private or confidential items (their ids or their text), and no item's scope, clade or owner changed —
derived items take the narrowest of their sources' scopes, merges stay within one owner, scope and clade. Also: a
near-duplicate written by one agent is never merged into another's entry by the Admission Gate, and the merge
statement itself refuses a merge across partitions."""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import pytest

from grimoire.graph.crystals import provenance
from grimoire.graph.db.connection import Database
from grimoire.graph.ids import now_ms
from tests.conftest import Api
from tests.integration.test_isolation import NO_AGENT_DATA, READ_ROUTES

SCOPES = ("private", "shared", "public")
RANK = {"private": 0, "shared": 1, "public": 2}
OWNERS = {"a": "bg-clade-x", "m": "bg-clade-x", "c": "bg-clade-y"}   # a and m are clade mates, c is not
SUB = "s"                                                           # a's sub-agent, in a's clade
TWIN = "Aave WETH borrow rate spiked right after the Chainlink oracle update on mainnet"
DAY = 86_400_000


def agent(o: str) -> str:
    return f"bg-agent-{o}"


@dataclass
class Item:
    id: str
    kind: str            # episode, entry, memory
    owner: str           # a, m, c
    scope: str           # as written
    marker: str          # a word only this item's text holds
    confidential: bool = False
    by_id: bool = True   # read by id on every route that takes one (the many alike are read through lists)

    def visible_to(self, viewer: str) -> bool:
        if self.owner == viewer or (viewer == SUB and self.owner == "a"):
            return True
        if self.confidential or self.scope == "private":
            return False
        return self.scope == "public" or OWNERS[self.owner] == OWNERS.get(viewer, OWNERS["a"])


@dataclass
class World:
    api: Api
    headers: dict[str, dict[str, str]]
    items: list[Item] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)

    def forbidden(self, viewer: str) -> list[str]:
        """What no answer to `viewer` may hold: the ids and markers of the items it may not see."""
        return [t for i in self.items if not i.visible_to(viewer) for t in (i.id, i.marker)]

    def ids(self, *kinds: str) -> list[str]:
        return [i.id for i in self.items if i.kind in kinds and i.by_id]


def _post(api: Api, h: dict[str, str], path: str, body: dict[str, Any]) -> dict[str, Any]:
    r = api.client.post(path, headers=h, json=body)
    assert r.status_code in (200, 201), (path, r.text)
    return dict(r.json())


def _episode(w: World, o: str, name: str, scope: str, text: str, confidential: bool = False,
             **extra: Any) -> str:
    eid, marker = f"ep-{o}-{name}-z", f"MK{o}{name}ep".replace("-", "")
    _post(w.api, w.headers[o], "/episodes", {"id": eid, "scope": scope, "type": "action" if "tool" in extra
                                             else "observation", "text": f"{text} {marker}", **extra})
    w.items.append(Item(eid, "episode", o, scope, marker, confidential, by_id=not extra.get("tool")))
    return eid


def _entry(w: World, o: str, name: str, scope: str, category: str, text: str, confidential: bool = False) -> str:
    eid, marker = f"en-{o}-{name}-z", f"MK{o}{name}en".replace("-", "")
    d = _post(w.api, w.headers[o], "/entries", {"id": eid, "scope": scope, "category": category,
                                                "content": f"{text} {marker}"})
    assert d["outcome"] == "admitted" and d["entry_id"] == eid, d
    w.decisions.append(d["decision_id"])
    w.items.append(Item(eid, "entry", o, scope, marker, confidential))
    return eid


def _memory(w: World, o: str) -> None:
    marker = f"MK{o}memory"
    said = _post(w.api, w.headers[o], f"/agents/{agent(o)}/messages",
                 {"text": f"Remember that my treasury runbook is codenamed {marker}."})
    assert said.get("memory_id"), said
    w.items.append(Item(said["memory_id"], "memory", o, "private", marker))


# Nine unrelated lessons (one per owner and scope): no two are near-duplicates for the Admission Gate.
LESSONS = {
    ("a", "private"): "Treasury multisig rotation is planned at block 777 with the hidden ceremony",
    ("a", "shared"): "The WETH borrow cap on Aave was raised to 1.5 million last Tuesday",
    ("a", "public"): "Liquidity on the 0.05% USDC pool doubled this week after the incentives",
    ("m", "private"): "Our Curve gauge votes go to the frxETH pool until the epoch ends",
    ("m", "shared"): "Bridging to Base takes seven minutes when the sequencer is healthy",
    ("m", "public"): "Gas on mainnet stays under ten gwei on Sunday mornings",
    ("c", "private"): "The Lido withdrawal queue is our exit if stETH depegs again",
    ("c", "shared"): "Morpho vault curators cut exposure to wrapped bitcoin markets",
    ("c", "public"): "Uniswap v4 hooks add latency to swaps routed through aggregators",
}
SIGHTS = {"private": "a silent whale moved funds between cold wallets", "shared": "the sequencer paused for a minute",
          "public": "the stablecoin supply grew overnight"}


def _own_world(w: World, o: str, key: str) -> None:
    for scope in SCOPES:
        _episode(w, o, scope, scope, f"Agent {o} saw that {SIGHTS[scope]}")
        _entry(w, o, scope, scope, "Warning" if scope == "private" else "Insight", LESSONS[(o, scope)])
    # Confidential: a raw key on a shared episode, an API key on a Warning written public (both kept private),
    # and the case: a Warning that holds an API key, written private.
    _episode(w, o, "key", "shared", f"Hot wallet signer for agent {o}: {key}", confidential=True)
    _entry(w, o, "apikey", "public", "Warning", f"API key sk-live-{key[:24]} rotates weekly for agent {o}",
           confidential=True)
    _entry(w, o, "warn", "private", "Warning", f"Never paste the API key sk-live-{key[24:48]} of agent {o} into a "
                                               f"prompt", confidential=True)
    # What the Curator distils (a losing tool: a Warning lesson; a winning one: a Heuristic) and Reflexion reads.
    for i in range(4):
        _episode(w, o, f"loss{i}", SCOPES[i % 3], f"aave-supply of USDC lost money in a bull market, try {i}",
                 tool="aave-supply", chain="1", token_pair="USDC", regime="bull", outcome="negative", gain=-8.0)
        _episode(w, o, f"win{i}", "private", f"uniswap-swap of WETH/USDC filled with a gain, try {i}",
                 tool="uniswap-swap", chain="1", token_pair="WETH/USDC", regime="bull", outcome="positive", gain=10.0)
    informed = f"en-{o}-private-z"
    for i in range(3):
        _episode(w, o, f"probe{i}", "private", f"Predicted the USDC yield for agent {o}, probe {i}",
                 tool=f"probe-{i}", regime="bull", outcome="negative",
                 prediction={"expected": 20, "actual": -60, "tolerance": 5, "informed_by": [informed]})
    # Reflexion's invariants (issue 39): one broken in every scope and on a confidential episode; each records a
    # safety_incident episode in its source's scope, never wider (testing/partitions follows INCIDENT_OF).
    for scope in SCOPES:
        _broken(w, o, f"inv-{scope}", scope, f"Agent {o} rebalanced the {scope} vault")
    _broken(w, o, "inv-key", "shared", f"Rebalanced with the signer of agent {o}: {key}", confidential=True)
    # Near-duplicates for the consolidation engine: one text in every scope, and twice in the private one.
    for scope in SCOPES:
        _episode(w, o, f"twin-{scope}", scope, TWIN)
    _episode(w, o, "twin-private2", "private", TWIN)
    _memory(w, o)
    _strategy(w, o)
    _co_occurring(w, o, key)


def _co_occurring(w: World, o: str, key: str) -> None:
    """For the co-occurrence inference: in each scope, two pools of this owner's whose episodes fall 2 blocks apart
    on three occasions (each scope's far from the others'), and a confidential pair (a key in a shared episode's
    text: kept private, and fed to no inference)."""
    base = 100_000 * (list(OWNERS).index(o) + 1)
    for n, (name, scope) in enumerate((*((s, s) for s in SCOPES), ("secret", "shared"))):
        secret = name == "secret"
        batch = [{"id": f"ep-{o}-co{name}{i}{side}-z", "scope": scope, "type": "observation", "chain": "1",
                  "block": base + 10_000 * n + 100 * i + (2 if side == "b" else 0),
                  "mentions": [{"kind": "Pool", "name": f"bg {o} {name} {side}"}],
                  "text": f"Pool {side} of agent {o} moved{f' for signer {key}' if secret else ''} "
                          f"MK{o}co{name}{i}{side}ep"}
                 for i in range(3) for side in "ab"]
        _post(w.api, w.headers[o], "/episodes/batch", {"episodes": batch})
        w.items += [Item(e["id"], "episode", o, scope, str(e["text"]).rsplit(" ", 1)[1], secret, by_id=False)
                    for e in batch]


def _inferred_facts_keep_their_partition(w: World, db: Database) -> None:
    """The co-occurrence job inferred one fact per owner and scope, in that partition, none from the confidential
    episodes; each viewer sees exactly those of its partitions among them."""
    facts = db.rows("testing/inferred_facts")
    got = {(r["subject"], r["scope"], r["agent_id"], r["clade"]) for r in facts}
    want = {(f"pool:bg {o} {s} a", s, agent(o) if s == "private" else "co-occurrence",
             OWNERS[o] if s != "public" else "") for o in OWNERS for s in SCOPES}
    assert got == want, (got ^ want)
    for viewer in OWNERS:
        for r in facts:
            sees = (r["scope"] == "public" or r["agent_id"] == agent(viewer)
                    or (r["scope"] == "shared" and r["clade"] == OWNERS[viewer]))
            res = w.api.client.get(f"/entities/{quote(r['subject'])}/facts", headers=w.headers[viewer])
            shown = res.status_code == 200 and r["fact_id"] in {f["fact_id"] for f in res.json()}
            assert shown is sees, (viewer, r)


def _broken(w: World, o: str, name: str, scope: str, text: str, confidential: bool = False) -> None:
    """An episode whose invariant did not hold, and the safety_incident Reflexion recorded for it (its id is the
    marker: its text names the source's id, which every answer to who may not see it must leave out too)."""
    eid = _episode(w, o, name, scope, text, confidential, pre_state={"balance:WETH": 10.0},
                   post_state={"balance:WETH": 4.0}, invariants=[{"key": "balance:WETH", "min": 5}])
    incident = f"safety-incident:{eid}"
    w.items.append(Item(incident, "episode", o, scope, incident, confidential))


def _strategy(w: World, o: str) -> None:
    """Twenty decided episodes of one strategy, all well: its PSR passes 0.90 and it can be packaged, and ExpeL
    (past 10 episodes) distils it; two of them are shared, one public: its Insight stays private."""
    scopes = ["shared", "shared", "public"] + ["private"] * 17
    batch = [{"id": f"ep-{o}-strat{i}-z", "scope": scopes[i], "type": "action", "tool": "bg-dca", "chain": "1",
              "token_pair": "WETH/USDC", "strategy": "bg-strategy", "outcome": "positive", "gain": 3.0,
              "text": f"Bought WETH on the weekly schedule, step {i} MK{o}strat{i}ep"} for i in range(20)]
    _post(w.api, w.headers[o], "/episodes/batch", {"episodes": batch})
    w.items += [Item(e["id"], "episode", o, scopes[i], f"MK{o}strat{i}ep", by_id=False) for i, e in enumerate(batch)]


@pytest.fixture
def world(api: Api, db: Database) -> World:
    api.drain = False  # the episodes stay pending: the enrichment job (episodes.enrich) runs with the others
    headers = {o: api.headers(agent(o), clade) for o, clade in OWNERS.items()}
    r = api.client.post("/agents", headers=api.admin, json={"id": agent(SUB), "name": "scout", "kind": "sub",
                                                            "parent_id": agent("a"), "clade": OWNERS["a"]})
    assert r.status_code == 201, r.text
    key = api.client.post(f"/agents/{agent(SUB)}/keys", headers=api.admin, json={"scopes": ["read"]})
    assert key.status_code == 201, key.text
    headers[SUB] = {"X-API-Key": key.json()["key"]}
    w = World(api, headers)
    for n, o in enumerate(OWNERS):
        _own_world(w, o, f"{n + 1}f{'0' * 8}4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f36"[:64])
    # Every near-duplicate important enough to merge (f(30) = 0.955 > 0.7), read recently.
    now = now_ms()
    db.run("testing/set_crystal_props", rows=[{"id": i.id, "props": {"access_count": 30, "last_accessed_at": now}}
                                              for i in w.items if "twin" in i.id])
    # Every memory unread for 30 days: fading (under 0.5), a transition for the decay system to record.
    db.run("testing/set_crystal_props", rows=[{"id": i.id, "props": {"last_accessed_at": now - 30 * DAY}}
                                              for i in w.items if i.kind == "memory"])
    return w


def _partitions(db: Database) -> dict[str, dict[str, Any]]:
    return {r["key"]: dict(r) for r in db.rows("testing/partitions")}


def _pending_enrichment(api: Api) -> dict[str, int]:
    """Each owner's episodes still waiting for the enrichment job, as the admin counts them."""
    return {o: api.client.get("/stats", headers=api.admin, params={"agent_id": agent(o)}).json()[
        "episodes_pending_enrichment"] for o in OWNERS}


def _run_every_job(api: Api) -> dict[str, str | None]:
    """Every periodic job the service schedules, run now on this thread (graph/scheduler.py's run_due); a
    reflection is due at one new memory (the default waits for twenty)."""
    services = api.client.app.state.services
    reflections = services.memory.reflections
    reflections.config = dataclasses.replace(reflections.config, threshold=1)
    scheduler = services.scheduler
    names = [j.name for j in scheduler.jobs()]
    for name in names:  # an ingest may have asked for one already (curator.expel, curator.ticks): one run
        assert scheduler.trigger(name) or scheduler.job(name).triggered
    ran = scheduler.run_due()
    assert sorted(ran) == sorted(names), (ran, names)
    return {name: scheduler.job(name).last_error for name in names}


# ------------------------------------------------------------------ the read routes, table-driven

def _agents(w: World, viewer: str) -> list[str]:
    return [agent(o) for o in (*OWNERS, SUB)]


MEANINGS = [TWIN, "API key sk-live", "hot wallet signer key", "treasury multisig rotation", "aave-supply lost money"]


def _hidden(w: World, viewer: str) -> list[str]:
    """The markers of what the viewer may not see: each searched for word for word."""
    return [i.marker for i in w.items if not i.visible_to(viewer) and i.kind != "memory"]


def _search(w: World, viewer: str) -> list[tuple[str, dict[str, Any]]]:
    return [("json", {"text": text, "kind": kind, "k": 100, "mode": mode}) for kind in ("episodes", "entries")
            for mode, texts in (("vector", MEANINGS), ("fulltext", MEANINGS + _hidden(w, viewer)))
            for text in texts]


def _retrieve(w: World, viewer: str) -> list[tuple[str, dict[str, Any]]]:
    return [("json", {"text": text, "k": 100, "no_budget": True, "mode": mode})
            for mode, texts in (("hybrid", MEANINGS), ("bm25", _hidden(w, viewer))) for text in texts]


def _dry_run(w: World, viewer: str) -> list[tuple[str, dict[str, Any]]]:
    return [("json", {"agent_id": agent(viewer), "category": "Warning", "content": f"{TWIN} {i.marker}"})
            for i in w.items][:12] + [("json", {"agent_id": agent(viewer), "category": "Warning",
                                               "content": "Never paste the API key into a prompt"})]


def _query(params: dict[str, Any]) -> Any:
    return lambda w, viewer: [("params", params)]


# For each read route: the values of its path's placeholders (each combination is asked), and its query or body
# (a list of them). A route absent here (and from NOT_WALKED) fails test_every_read_route_is_walked.
PLACEHOLDERS = {
    "agent_id": _agents,
    # the probes too: their predictions are what Reflexion judges (GET /episodes/{episode_id}/reflection)
    "episode_id": lambda w, v: w.ids("episode") + [i.id for i in w.items if "-probe" in i.id],
    "entry_id": lambda w, v: w.ids("entry"),
    "crystal_id": lambda w, v: w.ids("episode", "entry", "memory"),
    "item_id": lambda w, v: w.ids("episode", "entry", "memory"), "memory_id": lambda w, v: w.ids("memory"),
    "decision_id": lambda w, v: w.decisions, "block": lambda w, v: ["critical", "persona"],
    "strategy": lambda w, v: ["bg-strategy"], "cycle_id": lambda w, v: _cycles(w),
    "reflection_id": lambda w, v: _reflections(w),
    # an agent's memory entities (its entity pages): every entity the world's memories and episodes mention
    "entity_id": lambda w, v: sorted({r["id"] for r in w.api.db.rows("testing/entity_ids")})[:40],
}
REQUESTS: dict[str, Any] = {
    "GET /episodes": _query({"limit": 1000}), "GET /entries": _query({"limit": 1000}),
    "GET /episodes/{episode_id}": _query({"include_archived": True}),
    "GET /episodes/{episode_id}/reflection": _query({"include_archived": True}),
    "GET /entries/{entry_id}": _query({"include_archived": True}),
    "GET /crystals/{crystal_id}": _query({"include_archived": True}),
    "GET /agents/{agent_id}/memories": _query({"include_archived": True, "limit": 500}),
    "GET /agents/{agent_id}/recall": lambda w, v: [("params", {"q": i.marker}) for i in w.items
                                                   if i.kind == "memory"],
    "GET /agents/{agent_id}/audit": _query({"limit": 500}), "GET /agents/{agent_id}/audit.log": _query({"limit": 500}),
    "GET /agents/{agent_id}/audit/forgotten": _query({"about": "treasury"}),
    "GET /agents/{agent_id}/context/policy/delta": _query({"from": 0}),
    "GET /curator/cycles": lambda w, v: [("params", {"agent_id": a, "limit": 100}) for a in _agents(w, v)],
    "GET /playbook": lambda w, v: [("params", {"agent_id": a}) for a in _agents(w, v)],
    "GET /strategies": lambda w, v: [("params", {"agent_id": a}) for a in _agents(w, v)],
    "GET /stats": lambda w, v: [("params", {})] + [("params", {"agent_id": a}) for a in _agents(w, v)],
    "GET /metrics": lambda w, v: [("params", {})] + [("params", {"agent_id": a}) for a in _agents(w, v)],
    "GET /events": _query({"limit": 1000}), "GET /events/stream": _query({"max_seconds": 0.2}),
    "GET /entities/resolve": lambda w, v: [("params", {"q": i.marker}) for i in w.items if i.by_id],
    "GET /skills/search": _query({"q": TWIN}),
    "POST /search": _search, "POST /retrieve": _retrieve, "POST /admission/dry-run": _dry_run,
    "POST /hooks/before_compact": _query({}),  # replaced below: a body
    "POST /agents/{agent_id}/context/assemble": lambda w, v: [("json", {"query": "aave oracle API key sk-live"})],
    "POST /agents/{agent_id}/context/preassemble": lambda w, v: [("json", {"query": "aave oracle"})],
}
REQUESTS["POST /hooks/before_compact"] = lambda w, v: [("json", {"episodes": 100})]
# Read routes with nothing of the items above to show: the world graph and analyses (its entities and facts, the
# co-occurrence inference's among them, are checked by _inferred_facts_keep_their_partition),
# skills (none is crystallised by a background job), a bounty by id (no background job writes or reads bounties:
# their partition is test_crystal_verification.py's), the caller's own key and keys list, the admin's lists.
NOT_WALKED = {
    "GET /bounties/{bounty_id}",
    "GET /entities/{entity_id}/related", "GET /entities/{entity_id}/facts", "GET /entities/{entity_id}/lag",
    "GET /facts/{fact_id}", "POST /topology/k-hop", "GET /topology/path", "POST /topology/curiosity",
    "POST /analytics/cascade", "POST /analytics/{algorithm}", "GET /analytics/runs", "GET /analytics/runs/{run_id}",
    "GET /skills/{stable_id}", "GET /scheduler/jobs", "GET /audit", "GET /audit/digests", "GET /metrics/prometheus",
}


def _cycles(w: World) -> list[str]:
    out: list[str] = []
    for o in OWNERS:
        r = w.api.client.get("/curator/cycles", headers=w.api.admin, params={"agent_id": agent(o)})
        assert r.status_code == 200, r.text
        out += [c["id"] for c in r.json()]
    return out


def _reflections(w: World) -> list[str]:
    out: list[str] = []
    for o in OWNERS:
        r = w.api.client.get(f"/agents/{agent(o)}/reflections", headers=w.api.admin)
        assert r.status_code == 200, r.text
        body = r.json()
        out += [x["id"] for x in (body if isinstance(body, list) else body.get("reflections", []))]
    return out or ["none"]


def _paths(template: str, w: World, viewer: str) -> list[str]:
    """The template with each combination of its placeholders' values; an item's id goes with its owner's agent
    id and the viewer's own (not with every agent)."""
    names = [n for n in re.findall(r"{(\w+)}", template) if n != "agent_id"]
    paths = [template]
    for name in names:
        paths = [p.replace(f"{{{name}}}", v) for p in paths for v in PLACEHOLDERS[name](w, viewer)]
    if "{agent_id}" not in template:
        return paths
    owners = {i.id: agent(i.owner) for i in w.items}
    out = []
    for p in paths:
        mentioned = [a for i, a in owners.items() if f"/{i}" in p]
        for a in dict.fromkeys([*mentioned, agent(viewer)]) if mentioned else _agents(w, viewer):
            out.append(p.replace("{agent_id}", a))
    return out


def _calls(route: str, w: World, viewer: str) -> list[tuple[str, str, dict[str, Any]]]:
    method, template = route.split(" ", 1)
    shapes = REQUESTS.get(route, lambda w, v: [("params", {})])(w, viewer)
    return [(method, path, {kind: value}) for path in _paths(template, w, viewer) for kind, value in shapes]


def walk(w: World, viewer: str, answered: dict[str, int]) -> list[str]:
    """Every read route as `viewer`: the leaks found (route: what); `answered` counts each route's 2xx answers."""
    forbidden = w.forbidden(viewer)
    leaks: dict[str, list[str]] = {}
    for route in sorted(set(READ_ROUTES) - NOT_WALKED):
        answered.setdefault(route, 0)
        for method, path, kw in _calls(route, w, viewer):
            r = w.api.client.request(method, path, headers=w.headers[viewer], **kw)
            assert r.status_code < 500, (route, path, r.status_code, r.text[:300])
            if r.status_code >= 300:
                continue
            answered[route] += 1
            # What the request itself names (an id in its path, a word it searched for) may be echoed back.
            asked = f"{path} {json.dumps(kw)}"
            found = [t for t in forbidden if t in r.text and t not in asked]
            if found:
                leaks.setdefault(route, []).append(f"{path}: {sorted(set(found))[:6]}")
    return [f"{k}: {v[:3]}" for k, v in leaks.items()]


# ------------------------------------------------------------------ the invariants over the graph

def _widened(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> list[str]:
    """Items whose owner, scope or clade moved, confidential items not private, derived items wider than a source
    or in another partition, merges under another partition's winner, evidence added across partitions."""
    out: list[str] = []
    by_id = {(tuple(r["kinds"]), r["id"]): r for r in after.values()}
    for key, now in after.items():
        was = before.get(key)
        if was is not None and any(was[k] != now[k] for k in ("agent_id", "scope", "clade")):
            out.append(f"{now['id']}: {[was[k] for k in ('agent_id', 'scope', 'clade')]} -> "
                       f"{[now[k] for k in ('agent_id', 'scope', 'clade')]}")
        if now["sensitivity"] == "confidential" and now["scope"] != "private":
            out.append(f"{now['id']}: confidential and {now['scope']}")
        if now["clade"] is not None and now["owner_clade"] is not None and now["clade"] != now["owner_clade"]:
            out.append(f"{now['id']}: in clade {now['clade']}, its owner's is {now['owner_clade']}")
        for src in now["sources"]:
            if RANK.get(now["scope"], 0) > RANK.get(src["scope"], 0) or (
                    src["agent_id"] != now["agent_id"] and src["scope"] == "private"):
                out.append(f"{now['id']} ({now['agent_id']}, {now['scope']}) derives from {src}")
        parent = by_id.get((tuple(now["kinds"]), now["parent_id"])) if now["parent_id"] else None
        if parent is not None and any(parent[k] != now[k] for k in ("agent_id", "scope", "clade")):
            out.append(f"{now['id']} ({now['agent_id']}, {now['scope']}) merged under {parent['id']} "
                       f"({parent['agent_id']}, {parent['scope']})")
    return out


def test_the_background_widens_nothing_and_every_read_route_keeps_the_partition(api: Api, db: Database,
                                                                              world: World) -> None:
    before = _partitions(db)
    pending = _pending_enrichment(api)
    assert pending and all(n > 0 for n in pending.values()), pending
    errors = _run_every_job(api)
    assert not {k: v for k, v in errors.items() if v}, errors
    after = _partitions(db)
    # The enrichment job did every owner's episodes (first, so the co-occurrence inference below saw their mentions).
    assert not any(_pending_enrichment(api).values()), _pending_enrichment(api)
    # The jobs did their work on this world: cycles, lessons, reflections, a merge within one partition.
    assert _cycles(world) and len(after) > len(before)
    twins = {r["id"]: r for r in after.values() if r["id"] and "twin" in r["id"]}
    assert twins["ep-a-twin-private2-z"]["parent_id"] == "ep-a-twin-private-z" or \
        twins["ep-a-twin-private-z"]["parent_id"] == "ep-a-twin-private2-z", twins
    assert not _widened(before, after)
    _inferred_facts_keep_their_partition(world, db)
    # The decay system recorded each owner's memory going fading in that owner's trail, and only there.
    for o in OWNERS:
        mine = [i.id for i in world.items if i.kind == "memory" and i.owner == o]
        r = api.client.get(f"/agents/{agent(o)}/audit", headers=world.headers[o], params={"actor": "system:decay"})
        assert r.status_code == 200, r.text
        assert [(x["target_ids"], x["verb"], x["summary"].split(":")[0]) for x in r.json()] == [
            (mine, "DECAY", "active→fading")], r.json()
    # ExpeL distilled each owner's strategy into an Insight of its own, private (its sources are partly shared).
    expel = [r for r in after.values() if "expel" in (r["tags"] or [])]
    assert sorted(r["agent_id"] for r in expel) == sorted(agent(o) for o in OWNERS), expel
    assert all(r["scope"] == "private" and r["sources"] for r in expel), expel
    answered: dict[str, int] = {}
    for viewer in (*OWNERS, SUB):
        assert not (leaks := walk(world, viewer, answered)), (viewer, leaks)
    # Each route walked answered some agent: the walk reached what it reads (not only 403s and 404s).
    assert not [r for r, n in answered.items() if n == 0], answered


def test_every_read_route_is_walked() -> None:
    missing = sorted(set(READ_ROUTES) - NO_AGENT_DATA - NOT_WALKED - set(REQUESTS)
                     - {r for r in READ_ROUTES if not re.search(r"{(\w+)}", r) or
                        all(n in PLACEHOLDERS for n in re.findall(r"{(\w+)}", r))})
    assert not missing, f"read routes the background isolation test cannot call: {missing}"
    assert not NOT_WALKED - set(READ_ROUTES), "NOT_WALKED names routes that are gone"


# ------------------------------------------------------------------ merges: the Admission Gate and the statement

OTHERS_WARNING = "The Aave USDC borrow rate spikes during Chainlink oracle updates"
NEAR_COPY = "USDC borrow rates on Aave jump whenever the Chainlink oracle updates"  # cosine 0.94, no contradiction


def test_a_near_duplicate_is_never_merged_into_another_owners_entry(api: Api, db: Database, embedder) -> None:
    import numpy as np

    v = embedder.embed([OTHERS_WARNING, NEAR_COPY])
    v = v / np.linalg.norm(v, axis=1, keepdims=True)
    assert 0.9 < float(v[0] @ v[1]) <= 0.95  # the Admission Gate's merge band
    a, b, mate = api.headers("gm-a", "gm-x"), api.headers("gm-b", "gm-y"), api.headers("gm-a2", "gm-x")
    _post(api, a, "/entries", {"id": "gm-public", "scope": "public", "category": "Warning",
                               "content": OTHERS_WARNING, "tags": ["a-tag"]})
    _post(api, b, "/episodes", {"id": "gm-b-episode", "scope": "private", "type": "observation",
                                "text": "B saw the USDC borrow rate jump during the oracle update"})
    d = _post(api, b, "/entries", {"id": "gm-b-private", "scope": "private", "category": "Warning",
                                   "content": NEAR_COPY, "tags": ["b-private-tag"],
                                   "parent_episode_ids": ["gm-b-episode"]})
    # B's entry is its own, private; A's public entry gained nothing of it.
    assert d["outcome"] != "merged" and d["entry_id"] == "gm-b-private", d
    public = api.client.get("/entries/gm-public", headers=mate).json()
    assert public["validated_count"] == 0 and "b-private-tag" not in public["tags"], public
    assert "gm-b-episode" not in public.get("parent_episode_ids", []), public
    assert api.client.get("/entries/gm-b-private", headers=mate).status_code == 404
    # The same near-duplicate by A itself, of the same scope, still merges as further evidence.
    same = _post(api, a, "/entries", {"id": "gm-a-again", "scope": "public", "category": "Warning",
                                      "content": NEAR_COPY})
    assert same["outcome"] == "merged" and same["target_id"] == "gm-public", same


def test_the_merge_statement_refuses_crystals_of_another_partition(api: Api, db: Database) -> None:
    a, mate, c = api.headers("ms-a", "ms-x"), api.headers("ms-m", "ms-x"), api.headers("ms-c", "ms-y")
    for h, eid, scope in ((a, "ms-a-public", "public"), (a, "ms-a-private", "private"),
                          (a, "ms-a-private2", "private"), (mate, "ms-m-private", "private"),
                          (c, "ms-c-public", "public")):
        _post(api, h, "/episodes", {"id": eid, "scope": scope, "type": "observation", "text": TWIN})
    db.run("testing/set_crystal_props", rows=[{"id": i, "props": {"lifecycle": "activated"}} for i in (
        "ms-a-public", "ms-a-private", "ms-a-private2", "ms-m-private", "ms-c-public")])
    rows = [{"winner": "ms-a-public", "losers": ["ms-a-private", "ms-m-private", "ms-c-public"], "cosine": 1.0},
            {"winner": "ms-a-private", "losers": ["ms-a-private2"], "cosine": 1.0}]
    made = db.write(lambda tx: provenance.merge_in(tx, rows, label="Episode", actor="test", now=now_ms(),
                                                   reason="test"))
    assert made == {"ms-a-private": ["ms-a-private2"]}, made  # only within one owner, scope and clade
    got = {r["id"]: r for r in _partitions(db).values()}
    assert got["ms-a-public"]["parent_id"] is None and got["ms-c-public"]["parent_id"] is None
    assert got["ms-m-private"]["parent_id"] is None and got["ms-a-private2"]["parent_id"] == "ms-a-private"
    # By hand too: an owner (or the admin) cannot merge another partition's crystal into its own.
    r = api.client.post("/crystals/merge", headers=api.admin,
                        json={"winner_id": "ms-a-public", "loser_ids": ["ms-c-public"]})
    assert r.status_code in (400, 422), r.text
