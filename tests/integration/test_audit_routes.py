"""Every mutating route leaves an audit record (issue 17): the test walks the OpenAPI spec, calls each POST, PUT,
PATCH and DELETE route with a request that changes something, and checks that the call wrote at least one audit
record naming its actor and action (one of the spec's verbs), with each item's version before and after aligned
with the items it touched, and at least one item moved from one version to another. A route that reads (a search,
a preview) is listed in READS with why, and must write no record. A route added later without an entry here fails
the walk."""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx

from grimoire.graph.audit.vocabulary import Verb
from tests.conftest import Api

AGENT, CLADE = "walker", "clade-walk"
GAS = "Gas on Ethereum mainnet drops below 10 gwei between 2 and 4 AM UTC"
FUNDING = "Perpetual funding turned negative on every major venue after the liquidation cascade"
MUTATING_METHODS = {"post", "put", "patch", "delete"}


@dataclass
class World:
    """What the cases share: the agent, its person, a sub-agent and the ids made along the way."""

    api: Api
    h: dict[str, str]
    person: dict[str, str]
    ids: dict[str, Any] = field(default_factory=dict)

    def post(self, path: str, headers: dict[str, str] | None = None, **kw: Any) -> httpx.Response:
        return self.api.client.post(path, headers=headers or self.h, **kw)

    def ok(self, r: httpx.Response) -> Any:
        assert r.status_code < 300, f"{r.request.method} {r.request.url.path}: {r.status_code} {r.text}"
        return r.json()

    def entry(self, entry_id: str, content: str) -> str:
        if entry_id not in self.ids:
            self.ok(self.post("/entries", json={"id": entry_id, "category": "Insight", "content": content}))
            self.ids[entry_id] = entry_id
        return entry_id

    def memory(self) -> str:
        if "memory" not in self.ids:
            made = self.ok(self.post(f"/agents/{AGENT}/messages",
                                     json={"text": "Remember that the deploy key lives in the vault."}))
            self.ids["memory"] = made["memory_id"]
        return str(self.ids["memory"])

    def sub(self) -> dict[str, str]:
        if "sub" not in self.ids:
            r = self.api.client.post("/agents", headers=self.api.admin, json={
                "id": "walker-sub", "name": "scout", "kind": "sub", "parent_id": AGENT, "clade": CLADE})
            assert r.status_code in (201, 409), r.text
            self.ids["sub"] = self.api.headers("walker-sub", CLADE, scopes=("read", "propose"))
        sub: dict[str, str] = self.ids["sub"]
        return sub

    def proposal(self) -> str:
        made = self.ok(self.post(f"/agents/{AGENT}/proposals", headers=self.sub(),
                                 json={"content": "User prefers academic sources for technical topics",
                                       "store": "semantic", "confidence": "medium"}))
        return str(made["id"])


Call = Callable[[], httpx.Response]
Case = Callable[[World], Call]  # prepares what the route needs, and returns the route's call


def _decision(w: World) -> Call:
    w.entry("walk-gas", GAS)
    found = w.ok(w.post("/retrieve", json={"text": "when is gas cheap", "k": 2, "for_decision": True,
                                           "no_budget": True}))
    return lambda: w.post("/retrieve/feedback", json={"decision_id": found["decision_id"], "useful": True})


def _entries(w: World) -> None:
    w.entry("walk-funding", FUNDING)
    w.entry("walk-gas", GAS)


def _link(w: World) -> Call:
    _entries(w)
    return lambda: w.post("/causal/links", json={"links": [{"cause": "walk-funding", "effect": "walk-gas"}]})


def _link_outcome(w: World) -> Call:
    w.entry("walk-unlock", "Token unlocks of more than 2% of supply precede a week of selling pressure")
    w.entry("walk-gas", GAS)
    link = w.ok(w.post("/causal/links", json={"links": [{"cause": "walk-unlock", "effect": "walk-gas"}]}))["created"][0]
    return lambda: w.post(f"/causal/links/{quote(link)}/outcome", json={"confirmed": True})


def _inherit(w: World) -> Call:
    w.ok(_link(w)())
    graph = w.ok(w.api.client.get(f"/agents/{AGENT}/causal-graph", headers=w.h))
    heir = w.api.headers("walker-heir", CLADE)
    return lambda: w.post("/agents/walker-heir/inherit-causal-graph", headers=heir, json=graph)


def _import(w: World) -> Call:
    porter = w.api.headers("walker-porter", CLADE)
    w.ok(w.post("/episodes", headers=porter, json={"id": "port-ep", "type": "observation", "text": "Swapped 2 WETH"}))
    exported = w.api.client.get("/agents/walker-porter/export", headers=porter).text
    renamed = exported.replace('"port-ep"', '"port-ep-2"')  # the same agent, with an episode it does not have yet
    return lambda: w.api.client.post("/agents/import", content=renamed,
                                     headers={**w.api.admin, "content-type": "application/x-ndjson"})


def _strategy_import(w: World) -> Call:
    """A clade mate's package: 20 decided episodes of a strategy and an active warning of it (what its Curator
    would have validated), imported by another agent of the clade."""
    owner, mate = w.api.headers("walker-dca", CLADE), w.api.headers("walker-mate", CLADE)
    w.ok(w.post("/episodes/batch", headers=owner, json={"episodes": [
        {"id": f"walk-dca-ep-{i}", "type": "action", "strategy": "walk-dca", "outcome": "positive",
         "text": f"Bought 0.1 WETH on the weekly schedule, week {i}"} for i in range(20)]}))
    w.ok(w.post("/entries", headers=owner, json={
        "id": "walk-dca-warning", "category": "Warning", "strategy": "walk-dca",
        "content": "Skip the weekly WETH buy when mainnet gas is above 80 gwei"}))
    w.api.db.run("testing/set_entry_props", id="walk-dca-warning", props={"status": "active", "confidence": 0.6})
    package = w.ok(w.api.client.get("/strategies/walk-dca/package", headers=owner))
    return lambda: w.post("/agents/walker-mate/strategies/import", headers=mate, json={"package": package})


def _key_revoke(w: World) -> Call:
    made = w.ok(w.api.client.post(f"/agents/{AGENT}/keys", headers=w.api.admin, json={"scopes": ["read"]}))
    return lambda: w.api.client.delete(f"/keys/{made['id']}", headers=w.api.admin)


def _fold(w: World) -> Call:
    """An agent's month of records aged past the window, then folded into a digest (an AuditDigest created)."""
    h = w.api.headers("walker-folds", CLADE)
    w.ok(w.api.client.put("/agents/walker-folds/core/context", headers=h, json={"content": "- one"}))
    w.api.db.run("testing/age_audit", agent_id="walker-folds", to=1768471200000)  # 2026-01-15
    return lambda: w.api.client.post("/audit/fold", headers=w.api.admin)


def _decide_reflection(w: World) -> Call:
    agent = "walker-reflects"  # the walk's agent has a reflection pending already (POST …/reflections)
    h = w.api.headers(agent, CLADE)
    for text in ("Remember that I prefer tabs.", "Remember that today we decided to ship on Friday."):
        w.ok(w.post(f"/agents/{agent}/messages", headers=h, json={"text": text}))
    rid = w.ok(w.post(f"/agents/{agent}/reflections", headers=h, json={}))["id"]
    person = w.api.headers(agent, CLADE, scopes=("read", "person"))
    return lambda: w.post(f"/agents/{agent}/reflections/{rid}/decision", headers=person, json={"decision": "approve"})


def _propose_reflection(w: World) -> Call:
    for text in ("Remember that I prefer spaces.", "Remember that today we decided to ship on Monday."):
        w.ok(w.post(f"/agents/{AGENT}/messages", json={"text": text}))
    return lambda: w.post(f"/agents/{AGENT}/reflections", json={})


def _end_session(w: World) -> Call:
    agent = "walker-ends"  # an agent of its own: the walk's agent has a reflection pending already
    h = w.api.headers(agent, CLADE)
    w.ok(w.post(f"/agents/{agent}/messages", headers=h, json={"text": "Remember that the session ends at noon."}))
    return lambda: w.post(f"/agents/{agent}/sessions/end", headers=h)


def _acknowledge(w: World) -> Call:
    w.ok(w.api.client.put(f"/agents/{AGENT}/core/identity", headers=w.h, json={"content": "- Name: Sam"}))
    alert = w.ok(w.post(f"/agents/{AGENT}/sessions"))["alerts"][0]["id"]
    return lambda: w.post(f"/agents/{AGENT}/alerts/{alert}/acknowledge", headers=w.person)


def _facts(w: World, n: int) -> dict[str, Any]:
    ents = [{"kind": "Reserve", "name": f"walk USDC {n}"}, {"kind": "Oracle", "name": f"walk feed {n}"}]
    w.ok(w.post("/entities", json={"entities": ents}))
    return {"facts": [{"id": f"walk-f{n}", "subject": f"reserve:walk usdc {n}", "predicate": "OracleDependency",
                       "object": f"oracle:walk feed {n}", "valid_from": 100, "scope": "public"}]}


def _invalidate(w: World) -> Call:
    w.ok(w.post("/facts", json=_facts(w, 2)))
    return lambda: w.post("/facts/walk-f2/invalidate", json={"at_block": 300})


def _analysis(w: World) -> Call:
    w.ok(w.post("/facts", json=_facts(w, 3)))
    return lambda: w.api.client.post("/analytics/pagerank", headers=w.api.admin,
                                     json={"block": 200, "write": True, "limit": 5})


def _workspace(w: World) -> Call:
    files = {"MEMORY.md": "# MEMORY.md\n\n## Identity\n- Name: Walker\n"}
    return lambda: w.post("/agents/walker-files/workspace", headers=w.api.headers("walker-files", CLADE),
                          json={"files": files})


def _turn(w: World) -> Call:
    items = [{"kind": "message", "role": "user", "text": "rebalance the LP?"},
             {"kind": "observation", "text": "gas spiked to 80 gwei"}]
    return lambda: w.post("/hooks/after_turn", json={"turn_id": "walk-t1", "tick": 1, "items": items})


def _cycle(w: World) -> Call:
    w.ok(w.post("/episodes", json={"id": "walk-cyc", "type": "observation", "text": "Gas at 3 gwei"}))
    return lambda: w.post("/curator/cycles", json={})


def _line(w: World) -> Call:
    w.ok(w.api.client.put(f"/agents/{AGENT}/core/persona", headers=w.h, json={"content": "- Be brief"}))
    return lambda: w.post(f"/agents/{AGENT}/core/persona/line", json={"line": 1, "new": "- Be very brief"})


def _unpin(w: World) -> Call:
    w.ok(w.post(f"/agents/{AGENT}/core/critical/pin", json={"fact": "- Allergic to penicillin"}))
    return lambda: w.post(f"/agents/{AGENT}/core/critical/unpin", json={"fact": "- Allergic to penicillin"})


def _restore(w: World) -> Call:
    memory = w.memory()
    w.ok(w.post(f"/agents/{AGENT}/forget", json={"ids": [memory]}))
    return lambda: w.post(f"/agents/{AGENT}/memories/restore", json={"ids": [memory]})


def _forget(w: World) -> Call:
    memory = w.ok(w.post(f"/agents/{AGENT}/messages", json={"text": "Remember that the cache lives in Redis."}))
    return lambda: w.post(f"/agents/{AGENT}/forget", json={"ids": [memory["memory_id"]]})


def _workspace_id(w: World) -> str:
    return str(w.ok(w.post(f"/agents/{AGENT}/context/assemble", json={"query": "gas", "regime": "bull"}))[
        "assembly_id"])


def _context_feedback(w: World) -> Call:
    ws = _workspace_id(w)
    return lambda: w.post(f"/agents/{AGENT}/context/feedback", json={"assembly_id": ws, "quality": 0.8})


def _recalibrate(w: World) -> Call:
    w.ok(w.post(f"/agents/{AGENT}/context/feedback", json={"assembly_id": _workspace_id(w), "quality": 0.8}))
    return lambda: w.post(f"/agents/{AGENT}/context/recalibrate")


def _stage(w: World) -> Call:
    w.ok(w.post(f"/agents/{AGENT}/context/feedback", json={"assembly_id": _workspace_id(w), "quality": 0.1,
                                                           "missing": ["the pool price"]}))
    return lambda: w.post(f"/agents/{AGENT}/context/mutations/stage")


def _commit(w: World) -> Call:
    pid = w.proposal()
    return lambda: w.post(f"/agents/{AGENT}/proposals/{pid}/decision", headers=w.person, json={"decision": "commit"})


def _trust(w: World) -> Call:
    w.sub()
    return lambda: w.api.client.put(f"/agents/{AGENT}/subagents/walker-sub/trust", headers=w.h,
                                    json={"auto_commit_at": "high"})


def _rollback(w: World) -> Call:
    agent = "walker-rewinds"
    h = w.api.headers(agent, CLADE)
    for text in ("- Ship it", "- Ship it twice"):
        w.ok(w.api.client.put(f"/agents/{agent}/core/context", headers=h, json={"content": text}))
    person = w.api.headers(agent, CLADE, scopes=("read", "person"))
    return lambda: w.post(f"/agents/{agent}/rollback", headers=person,
                          json={"item": f"{agent}:core:context", "to_version": f"{agent}:core:context:v1"})


def _crystal(w: World, eid: str, *moves: str) -> str:
    w.ok(w.post("/episodes", json={"id": eid, "type": "observation", "text": f"walk crystal {eid}"}))
    for to in moves:
        w.ok(w.post(f"/crystals/{eid}/lifecycle", json={"to": to}))
    return eid


def _merge(w: World) -> Call:
    winner, loser = _crystal(w, "walk-win"), _crystal(w, "walk-lose", "activated")
    return lambda: w.post("/crystals/merge", json={"winner_id": winner, "loser_ids": [loser]})


def _version(w: World) -> Call:
    frozen = _crystal(w, "walk-frozen", "frozen")
    return lambda: w.post(f"/crystals/{frozen}/versions", json={"text": "walk crystal, changed"})


def _consolidate(w: World) -> Call:
    old = _crystal(w, "walk-old", "activated")  # not accessed for 400 days: the pass archives it
    w.api.db.run("testing/set_crystal_props", rows=[{"id": old, "props": {"last_accessed_at": 0}}])
    return lambda: w.api.client.post("/crystals/consolidate", headers=w.api.admin)


def _skill(w: World) -> str:
    if "skill" not in w.ids:
        entry = w.entry("walk-skill", "Split large swaps across two routers to cut price impact")
        w.ids["skill"] = w.ok(w.post("/skills", json={"crystal_id": entry, "category": "walking"}))["stable_skill_id"]
    return str(w.ids["skill"])


def _skill_call(path: str, body: dict[str, Any]) -> Case:
    def case(w: World) -> Call:
        sid = _skill(w)
        return lambda: w.post(path.format(skill=quote(sid)), json=body)
    return case


def _deprecate(w: World) -> Call:
    sid = _skill(w)
    entry = w.entry("walk-skill-2", "Route swaps through the aggregator with the lowest quoted gas")
    other = w.ok(w.post("/skills", json={"crystal_id": entry}))["stable_skill_id"]
    return lambda: w.post(f"/skills/{quote(sid)}/deprecate", json={"replaced_by": other})


def _node_key() -> tuple[Any, str]:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    key = Ed25519PrivateKey.generate()
    return key, base64.b64encode(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)).decode("ascii")


def _node_revoke(w: World) -> Call:
    _, public = _node_key()
    node = w.ok(w.api.client.post("/management-nodes", headers=w.api.admin, json={"public_key": public}))
    return lambda: w.api.client.delete(f"/management-nodes/{node['id']}", headers=w.api.admin)


def _verify(w: World) -> Call:
    """A knowledge crystal of the walker's, endorsed by a management node the admin registered."""
    key, public = _node_key()
    node = w.ok(w.api.client.post("/management-nodes", headers=w.api.admin, json={"public_key": public}))
    entry = w.entry("walk-endorsed", "Before a governance vote, snapshot delegated balances at the proposal block")
    w.ok(w.post("/skills", json={"crystal_id": entry}))
    digest = w.ok(w.api.client.get(f"/crystals/{entry}", headers=w.h))["content_hash"]
    signature = base64.b64encode(key.sign(digest.encode("ascii"))).decode("ascii")
    return lambda: w.post(f"/crystals/{entry}/verify", json={"key_id": node["id"], "signature": signature})


def _bounty_match(w: World) -> Call:
    """A clade mate's shared bounty, fulfilled by a skill of the walker's (a new bounty at each call)."""
    if "bounty_skill" not in w.ids:  # shared with the clade: the poster may see the skill that fulfils its bounty
        w.ok(w.post("/entries", json={"id": "walk-bounty-skill", "category": "Insight", "scope": "shared",
                                      "content": "Hedge a large LP position with a short perp sized to its delta"}))
        w.ids["bounty_skill"] = w.ok(w.post("/skills", json={"crystal_id": "walk-bounty-skill"}))["stable_skill_id"]
    poster = w.api.headers("walker-poster", CLADE)
    bounty = w.ok(w.post("/bounties", headers=poster, json={"text": "A delta hedge for LP positions",
                                                            "reward_multiplier": 2.0, "scope": "shared"}))
    return lambda: w.post(f"/bounties/{bounty['id']}/match", json={"stable_skill_id": w.ids["bounty_skill"]})


def _weather(w: World) -> Call:  # a second long: the ingestion of the walk's sub-agent is not halted for long
    return lambda: w.api.client.put("/hormones/network", headers=w.api.admin,
                                    json={"level": 0.4, "duration_ms": 1_000, "reason": "walking"})


def _end_weather(w: World) -> Call:
    w.ok(w.api.client.put("/hormones/network", headers=w.api.admin,
                          json={"level": 0.4, "duration_ms": 60_000, "reason": "walking"}))
    return lambda: w.api.client.delete("/hormones/network", headers=w.api.admin)


def _entry_call(path: str, body: dict[str, Any] | None = None) -> Case:
    def case(w: World) -> Call:
        entry = w.entry("walk-gas", GAS)
        return lambda: w.post(path.format(entry=entry), json=body)
    return case


def _call(method: str, path: str, body: Any = None, *, who: str = "agent") -> Case:
    def case(w: World) -> Call:
        headers = {"agent": w.h, "admin": w.api.admin, "sub": w.sub() if who == "sub" else w.h}[who]
        return lambda: w.api.client.request(method, path, headers=headers, json=body)
    return case


def _enrichment(w: World) -> Call:
    """An episode left pending (the walk's drain off for its ingest), enriched by the admin's run of the job."""
    w.api.drain = False
    w.ok(w.post("/episodes", json={"id": "walk-lazy", "type": "observation", "text": "WETH gas spiked",
                                   "mentions": [{"kind": "Token", "name": "WETH walk"}]}))

    def call() -> httpx.Response:
        w.api.drain = True
        return w.api.client.post("/episodes/enrichment", headers=w.api.admin)
    return call


MUTATING: dict[str, Case] = {
    "POST /agents": _call("POST", "/agents", {"id": "walker-new", "name": "new", "clade": CLADE}, who="admin"),
    "POST /agents/{agent_id}/keys": _call("POST", f"/agents/{AGENT}/keys", {"scopes": ["read"]}, who="admin"),
    "DELETE /keys/{key_id}": _key_revoke,
    "POST /audit/fold": _fold,
    "POST /agents/import": _import,
    "POST /episodes": _call("POST", "/episodes", {"id": "walk-ep", "type": "observation",
                                                  "text": "Gas at 4 gwei at 03:30 UTC"}),
    "POST /episodes/batch": _call("POST", "/episodes/batch", {"episodes": [
        {"id": f"walk-ep-{i}", "type": "observation", "text": f"Gas at {5 + i} gwei"} for i in range(2)]}),
    "POST /hooks/after_turn": _turn,
    "POST /episodes/enrichment": _enrichment,
    "POST /entries": _call("POST", "/entries", {"id": "walk-e1", "category": "Insight",
                                                  "content": "Aave's USDC borrow rate rose above 9% after the unlock"}),
    "POST /entries/batch": _call("POST", "/entries/batch", {"entries": [
        {"id": "walk-e2", "category": "Warning",
         "content": "Curve's stETH pool depegged to 0.94 during the withdrawal queue"}]}),
    "POST /entries/{entry_id}/upvote": _entry_call("/entries/{entry}/upvote"),
    "POST /entries/{entry_id}/downvote": _entry_call("/entries/{entry}/downvote"),
    "POST /entries/{entry_id}/outcome": _entry_call("/entries/{entry}/outcome",
                                                    {"used_in_decision": True, "outcome": "positive"}),
    "POST /entries/{entry_id}/edit": _entry_call("/entries/{entry}/edit", {
        "content": "Gas on Ethereum mainnet drops below 8 gwei between 2 and 4 AM UTC", "reason": "newer data"}),
    "POST /entries/{entry_id}/scope": _entry_call("/entries/{entry}/scope", {"scope": "shared",
                                                                           "reason": "for the clade"}),
    "POST /causal/links": _link,
    "POST /causal/links/{link_id}/outcome": _link_outcome,
    "POST /agents/{agent_id}/inherit-causal-graph": _inherit,
    "POST /agents/{agent_id}/strategies/import": _strategy_import,
    "POST /entities": _call("POST", "/entities", {"entities": [{"kind": "Token", "name": "WALK"}]}),
    "POST /facts": lambda w: (lambda body: lambda: w.post("/facts", json=body))(_facts(w, 1)),
    "POST /facts/{fact_id}/invalidate": _invalidate,
    "POST /retrieve/feedback": _decision,
    "POST /metrics/samples": _call("POST", "/metrics/samples", {}),
    "POST /curator/cycles": _cycle,
    "POST /analytics/{algorithm}": _analysis,
    "PUT /agents/{agent_id}/core/{block}": _call("PUT", f"/agents/{AGENT}/core/context",
                                                 {"content": "- Walking every route"}),
    "POST /agents/{agent_id}/core/{block}/append": _call("POST", f"/agents/{AGENT}/core/context/append",
                                                         {"text": "- Then the next one"}),
    "POST /agents/{agent_id}/core/{block}/line": _line,
    "POST /agents/{agent_id}/core/critical/pin": _call("POST", f"/agents/{AGENT}/core/critical/pin",
                                                       {"fact": "- Never deploy on Fridays"}),
    "POST /agents/{agent_id}/core/critical/unpin": _unpin,
    "POST /agents/{agent_id}/messages": _call("POST", f"/agents/{AGENT}/messages",
                                              {"text": "Remember that Priya owns the pipeline."}),
    "POST /agents/{agent_id}/forget": _forget,
    "POST /agents/{agent_id}/memories/restore": _restore,
    "POST /agents/{agent_id}/reflections": _propose_reflection,
    "POST /agents/{agent_id}/sessions/end": _end_session,
    "POST /agents/{agent_id}/reflections/{reflection_id}/decision": _decide_reflection,
    "POST /agents/{agent_id}/workspace": _workspace,
    "POST /agents/{agent_id}/proposals": _call("POST", f"/agents/{AGENT}/proposals", {
        "content": "When refactoring, the user wants tests first", "store": "procedural"}, who="sub"),
    "POST /agents/{agent_id}/proposals/{proposal_id}/decision": _commit,
    "PUT /agents/{agent_id}/subagents/{sub_id}/trust": _trust,
    "PUT /agents/{agent_id}/review-mode": lambda w: lambda: w.api.client.put(
        f"/agents/{AGENT}/review-mode", headers=w.person, json={"mode": "auto"}),
    "POST /agents/{agent_id}/alerts/{alert_id}/acknowledge": _acknowledge,
    "POST /agents/{agent_id}/rollback": _rollback,
    "PUT /agents/{agent_id}/context/policy": _call("PUT", f"/agents/{AGENT}/context/policy", {
        "allocations": {"contrarian": 0.05}, "reason": "walking"}),
    "POST /agents/{agent_id}/context/feedback": _context_feedback,
    "POST /agents/{agent_id}/context/recalibrate": _recalibrate,
    "POST /agents/{agent_id}/context/mutations/stage": _stage,
    "POST /crystals/{crystal_id}/lifecycle": lambda w: (lambda c: lambda: w.post(
        f"/crystals/{c}/lifecycle", json={"to": "activated"}))(_crystal(w, "walk-life")),
    "POST /crystals/{crystal_id}/fork": lambda w: (lambda c: lambda: w.post(
        f"/crystals/{c}/fork", json={}))(_crystal(w, "walk-fork")),
    "POST /crystals/merge": _merge,
    "POST /crystals/{crystal_id}/versions": _version,
    "POST /crystals/consolidate": _consolidate,
    "POST /skills": lambda w: (lambda e: lambda: w.post("/skills", json={"crystal_id": e}))(
        w.entry("walk-skill-0", "Repay the loan before the health factor falls under 1.2")),
    "POST /skills/{stable_id}/versions": _skill_call("/skills/{skill}/versions", {"text": "Split large swaps"}),
    "POST /skills/{stable_id}/executions": _skill_call("/skills/{skill}/executions", {"success": True,
                                                                                       "reward": 0.5}),
    "POST /skills/{stable_id}/deprecate": _deprecate,
    "POST /management-nodes": lambda w: lambda: w.api.client.post(
        "/management-nodes", headers=w.api.admin, json={"public_key": _node_key()[1], "name": "walk hub"}),
    "DELETE /management-nodes/{node_id}": _node_revoke,
    "POST /crystals/{crystal_id}/verify": _verify,
    "POST /bounties": _call("POST", "/bounties", {"text": "A gas-timing skill", "reward_multiplier": 1.5}),
    "POST /bounties/{bounty_id}/match": _bounty_match,
    "POST /agents/{agent_id}/hormones/events": _call("POST", f"/agents/{AGENT}/hormones/events",
                                                     {"event": "reward"}),
    "PUT /hormones/network": _weather,
    "DELETE /hormones/network": _end_weather,
    "PUT /agents/{agent_id}/trust-level": _call("PUT", f"/agents/{AGENT}/trust-level", {"level": "provisional"},
                                                who="admin"),
    # generous: the walk goes on with this agent's key (and its MCP replay, test_mcp_tools.py)
    "PUT /agents/{agent_id}/limits": _call("PUT", f"/agents/{AGENT}/limits", {"concurrency": 64, "rate_per_s": 1000},
                                           who="admin"),
}

# Routes whose only change is access bookkeeping (an access count, a last access), which goes to the access log
# (graph/audit/access.py) as a retrieval's touches do, not to the trail: each must write an access record and no
# audit record.
ACCESS: dict[str, Case] = {
    "POST /agents/{agent_id}/memories/reinforce": lambda w: (lambda m: lambda: w.post(
        f"/agents/{AGENT}/memories/reinforce", json={"ids": [m], "reason": "used"}))(w.memory()),
    # a workspace assembled (or built ahead) is recorded for Loop 1 with an access record, as a retrieval for a
    # decision is; what it changes is nothing the trail keeps
    "POST /agents/{agent_id}/context/assemble": _call("POST", f"/agents/{AGENT}/context/assemble", {
        "query": "gas", "preassembled": False}),
    "POST /agents/{agent_id}/context/preassemble": _call("POST", f"/agents/{AGENT}/context/preassemble", {
        "query": "gas", "regime": "bear"}),
}

# Routes that take a body but change nothing: each is called and must write no audit record.
READS: dict[str, tuple[str, Case]] = {
    "POST /retrieve": ("a search (a retrieval for a decision writes the access log, not the trail)",
                       _call("POST", "/retrieve", {"text": "gas", "k": 2, "no_budget": True})),
    "POST /search": ("a search", _call("POST", "/search", {"text": "gas", "k": 2})),
    "POST /admission/dry-run": ("what the gate would decide; nothing written", _call(
        "POST", "/admission/dry-run", {"id": "walk-dry", "category": "Insight", "content": FUNDING})),
    "POST /agents/{agent_id}/forget/preview": ("what a forget would archive; nothing archived", _call(
        "POST", f"/agents/{AGENT}/forget/preview", {"target": "vault"})),
    "POST /topology/k-hop": ("a traversal", _call("POST", "/topology/k-hop", {
        "entity": "reserve:walk usdc 1", "hops": 2, "block": 200})),
    "POST /topology/curiosity": ("a read of how surprising an event is to the positions", _call(
        "POST", "/topology/curiosity", {"event_entity": "oracle:walk feed 1", "positions": ["reserve:walk usdc 1"],
                                        "block": 200}, who="admin")),
    "POST /analytics/cascade": ("a read: what an entity's failure reaches", _call(
        "POST", "/analytics/cascade", {"entity": "oracle:walk feed 1", "block": 200}, who="admin")),
    "POST /hooks/before_compact": ("the state a compaction keeps, read", _call("POST", "/hooks/before_compact", {})),
    "POST /agents/{agent_id}/context/policy/resolve": ("the allocations a situation resolves to, computed", _call(
        "POST", f"/agents/{AGENT}/context/policy/resolve", {"task": "swap", "regime": "crisis"})),
    "POST /agents/{agent_id}/sessions": ("a session start reads the alerts; it writes an ALERT record only when a "
                                         "critical block fails its checksum (test_audit_alerts.py)",
                                         _call("POST", f"/agents/{AGENT}/sessions")),
    "POST /scheduler/jobs/{name}/run": ("starts a job on the scheduler's thread, which does not run under these "
                                        "tests; what a job changes is audited by the job (test_scheduler.py)",
                                        _call("POST", "/scheduler/jobs/access_log.prune/run", who="admin")),
}


# Routes that start work elsewhere: the tests run without the scheduler, so its trigger answers 409 (tested with
# the scheduler on in test_scheduler.py); it must still write nothing itself.
TRIGGERS = {"POST /scheduler/jobs/{name}/run"}


def _routes(api: Api) -> set[str]:
    paths = api.client.get("/openapi.json").json()["paths"]
    return {f"{m.upper()} {p}" for p, ops in paths.items() for m in ops if m in MUTATING_METHODS}


def _records(api: Api) -> dict[str, dict[str, Any]]:
    return {r["id"]: dict(r) for r in api.db.run("testing/audit_versions")}


def _problems(route: str, new: list[dict[str, Any]]) -> list[str]:
    if not new:
        return [f"{route}: no audit record"]
    out = []
    verbs = {v.value for v in Verb}
    for r in new:
        where = f"{route}: record {r['action']} ({r['id']})"
        if not r["actor"] or not r["action"]:
            out.append(f"{where}: no actor or action")
        if r["verb"] not in verbs:
            out.append(f"{where}: verb {r['verb']!r} is not one of the spec's")
        targets = r["target_ids"] or []
        before, after = r["before_versions"], r["after_versions"]
        if before is None or after is None or len(before) != len(targets) or len(after) != len(targets):
            out.append(f"{where}: versions before {before} and after {after} do not align with {targets}")
    if not any(b != a for r in new for b, a in zip(r["before_versions"] or [], r["after_versions"] or [],
                                                    strict=False)):
        out.append(f"{route}: no record names an item's version before and after ({[r['action'] for r in new]})")
    return out


def test_every_mutating_route_leaves_an_audit_record_with_versions(api: Api) -> None:
    routes = _routes(api)
    unlisted = sorted(routes - set(MUTATING) - set(ACCESS) - set(READS))
    assert not unlisted, f"mutating routes the walk does not know (add a case to MUTATING or READS): {unlisted}"
    assert not (set(MUTATING) | set(ACCESS) | set(READS)) - routes, "cases for routes that are gone"
    w = World(api, api.headers(AGENT, CLADE), api.headers(AGENT, CLADE, scopes=("read", "person")))
    problems: list[str] = []
    for route, case in MUTATING.items():
        call = case(w)
        before = set(_records(api))
        r = call()
        if r.status_code >= 300:
            problems.append(f"{route}: {r.status_code} {r.text[:300]}")
            continue
        records = _records(api)
        problems += _problems(route, [rec for i, rec in records.items() if i not in before])
    for route, case in ACCESS.items():
        call = case(w)
        before, accesses = set(_records(api)), len(api.db.run("testing/access_records"))
        r = call()
        written = [rec["action"] for i, rec in _records(api).items() if i not in before]
        if r.status_code >= 300 or written or len(api.db.run("testing/access_records")) <= accesses:
            problems.append(f"{route}: {r.status_code}, audit records {written}, no access record")
    for route, (_, case) in READS.items():
        call = case(w)
        before = set(_records(api))
        r = call()
        # a read that answers 4xx shows nothing about what it writes; the scheduler's trigger answers 409 here
        if r.status_code >= 300 and not (route in TRIGGERS and r.status_code == 409):
            problems.append(f"{route}: {r.status_code} {r.text[:300]}")
        written = [rec["action"] for i, rec in _records(api).items() if i not in before]
        if written:
            problems.append(f"{route} is listed as a read but wrote {written}")
    assert not problems, "\n".join(problems)
