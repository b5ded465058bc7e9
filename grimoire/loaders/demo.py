"""A demo agent with something in every store, written through the REST routes as an agent, its sub-agent and
its person would: episodes, admitted entries with an edit and causal links, memories from messages, core
memory, a pending reflection, sub-agent proposals (one a conflict), a policy revision, an alert and two weeks
of metric samples. The console's tests, its screenshots and its benchmark read this agent; `grimoire load demo`
writes it into a running service for a person to look around.

Run again on the same service, it writes nothing twice: episodes, entries, links and facts are idempotent by
id, and the messages, edit, core blocks, reflection, proposals and policy revisions are only written when the
agent does not have them yet. Only the keys are new each run (a key is shown once, when it is made)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

log = logging.getLogger(__name__)

AGENT, CLADE, SUB = "scout", "clade-demo", "scout-research"
MENTIONS = [{"kind": "Pool", "name": "Aave v3 Pool"}, {"kind": "Token", "name": "WETH"},
            {"kind": "Token", "name": "USDC"}]

# A small lending market the agent watches: the graph page's entity neighbourhood (topology at a block).
ENTITIES = [{"kind": "Pool", "name": "Aave v3 Pool"}, {"kind": "Reserve", "name": "Aave WETH"},
            {"kind": "Reserve", "name": "Aave USDC"}, {"kind": "Token", "name": "WETH", "symbol": "WETH"},
            {"kind": "Token", "name": "USDC", "symbol": "USDC"}, {"kind": "Oracle", "name": "Chainlink ETH/USD"},
            {"kind": "Oracle", "name": "Chainlink USDC/USD"}]
POOL = "pool:aave v3 pool"
FACTS = [
    ("demo-f1", POOL, "CollateralBacking", "reserve:aave weth"),
    ("demo-f2", POOL, "CollateralBacking", "reserve:aave usdc"),
    ("demo-f3", "reserve:aave weth", "OracleDependency", "oracle:chainlink eth/usd"),
    ("demo-f4", "reserve:aave usdc", "OracleDependency", "oracle:chainlink usdc/usd"),
    ("demo-f5", "reserve:aave weth", "TokenFlow", "token:weth"),
    ("demo-f6", "reserve:aave usdc", "TokenFlow", "token:usdc"),
]

EPISODES = [
    ("observation", "ETH/USDC spread on Aave v3 widened to 0.4% during the volatile hour.", "negative"),
    ("action", "Reduced the WETH collateral position by 20% after the health factor fell below 1.4.", "positive"),
    ("observation", "Gas on mainnet spiked to 180 gwei while liquidations cascaded.", "negative"),
    ("action", "Waited for gas under 40 gwei before rebalancing the USDC pool.", "positive"),
    ("observation", "The Chainlink ETH/USD feed lagged the market by two heartbeats.", "neutral"),
    ("action", "Opened a small USDC supply position at 4.1% APY.", "positive"),
]

ENTRIES = [
    ("demo-gas", "Heuristic", "Rebalance only when gas is under 40 gwei: above it fees eat the spread.", "rebalance"),
    ("demo-hf", "Warning", "A health factor under 1.4 in a volatile regime comes before liquidation within hours.",
     "leverage"),
    ("demo-oracle", "Insight", "Chainlink heartbeats lag fast markets; compare with the DEX price before acting.",
     None),
    ("demo-spread", "Insight", "Spreads on Aave widen when liquidations cascade, then close within the hour.", None),
    ("demo-supply", "StrategyFragment", "Park idle USDC in supply when utilisation is above 80%.", "yield"),
]

MESSAGES = [
    ("My name is Dana and I run the treasury desk at Northwind.", 0.0),
    ("I'm currently working on the Q4 collateral review.", 40.0),
    ("Remember that I prefer conservative leverage.", 0.0),
    ("Note that I avoid conservative leverage in bull markets.", 0.0),
    ("Remember that at yesterday's meeting Lee said the risk engine depends on Chainlink.", 0.0),
    ("Remember that today I checked the oracle feeds before the rebalance.", 0.0),
    ("Remember that today I lowered the leverage before the rebalance.", 0.0),
    ("Remember that today I posted the rebalance summary for the desk.", 0.0),
]

CORE = {
    "identity": "- Name: Dana\n- Role: treasury desk lead at Northwind",
    "context": "- Q4 collateral review in progress\n- Shipping the rebalance bot on Monday",
    "persona": "- Concise, numbers first\n- Flags risk before opportunity",
}

PROPOSALS = [
    {"content": "Dana prefers weekly risk summaries on Mondays.", "store": "semantic", "confidence": "high"},
    {"content": "The Q4 collateral review deadline is December 15", "store": "semantic", "confidence": "medium"},
    {"content": "The Q4 collateral review deadline is December 22", "store": "semantic", "confidence": "medium"},
    {"content": "The risk engine was migrated to Pyth last week.", "store": "semantic", "confidence": "low"},
]


@dataclass
class Demo:
    """What the seed made, for the tests and the benchmark that read it."""

    agent_id: str = AGENT
    keys: dict[str, str] = field(default_factory=dict)  # agent, person, sub
    entries: list[str] = field(default_factory=list)
    reflection_id: str | None = None
    proposals: list[str] = field(default_factory=list)


class Seeder:
    def __init__(self, client: httpx.Client, admin_key: str, progress: Callable[[str], None] = log.info):
        self.client = client
        self.admin = {"X-API-Key": admin_key}
        self.progress = progress

    def call(self, method: str, path: str, key: dict[str, str], ok: tuple[int, ...] = (200, 201),
             **kw: Any) -> Any:
        r = self.client.request(method, path, headers=key, **kw)
        if r.status_code not in ok:
            raise RuntimeError(f"{method} {path}: {r.status_code} {r.text[:300]}")
        return r.json() if r.content and r.headers.get("content-type", "").startswith("application/json") else None

    def register(self, agent_id: str, kind: str, parent: str | None = None) -> None:
        body = {"id": agent_id, "name": agent_id, "kind": kind, "clade": CLADE}
        if parent:
            body["parent_id"] = parent
        self.call("POST", "/agents", self.admin, ok=(201, 409), json=body)

    def key(self, agent_id: str, scopes: list[str]) -> dict[str, str]:
        made = self.call("POST", f"/agents/{agent_id}/keys", self.admin, json={"scopes": scopes})
        return {"X-API-Key": made["key"]}

    def run(self) -> Demo:
        demo = Demo()
        self.register(AGENT, "main")
        self.register(SUB, "sub", parent=AGENT)
        agent, person, sub = (self.key(AGENT, ["read", "write"]), self.key(AGENT, ["read", "person"]),
                              self.key(SUB, ["read", "propose"]))
        demo.keys = {"agent": agent["X-API-Key"], "person": person["X-API-Key"], "sub": sub["X-API-Key"]}
        now = datetime.now(UTC)

        self.progress("episodes")
        episodes = [{"id": f"demo-ep-{i}", "type": t, "text": text, "outcome": outcome, "chain": "1",
                     "mentions": MENTIONS, "valid_from": (now - timedelta(hours=6 * (len(EPISODES) - i))).isoformat()}
                    for i, (t, text, outcome) in enumerate(EPISODES)]
        self.call("POST", "/episodes/batch", agent, json={"episodes": episodes})

        self.progress("entities and facts")
        self.call("POST", "/entities", agent, json={"entities": ENTITIES})
        self.call("POST", "/facts", agent, json={"facts": [
            {"id": i, "subject": a, "predicate": p, "object": b, "valid_from": 19_000_000}
            for i, a, p, b in FACTS]})

        self.progress("entries")
        for entry_id, category, content, strategy in ENTRIES:
            body: dict[str, Any] = {"id": entry_id, "category": category, "content": content,
                                    "parent_episode_ids": ["demo-ep-0", "demo-ep-1"]}
            if strategy:
                body["strategy"] = strategy
            made = self.call("POST", "/entries", agent, json=body)
            if made.get("entry_id"):
                demo.entries.append(made["entry_id"])
        gas = self.call("GET", "/entries/demo-gas", agent, ok=(200, 404))
        if gas and gas.get("revision", 1) <= 1:  # an edit: a version to diff and roll back
            self.call("POST", "/entries/demo-gas/edit", agent, ok=(200, 201, 409), json={
                "content": "Rebalance only when gas is under 35 gwei: above it fees eat the spread.",
                "reason": "tighter after the spike"})
            self.call("POST", "/entries/demo-gas/upvote", agent)
        links = [(a, b, w) for a, b, w in (("demo-oracle", "demo-hf", 0.7), ("demo-spread", "demo-gas", 0.6),
                                           ("demo-hf", "demo-supply", 0.4)) if a in demo.entries and b in demo.entries]
        if links:
            self.call("POST", "/causal/links", agent, json={"links": [
                {"id": f"demo-link-{i}", "cause": a, "effect": b, "weight": w} for i, (a, b, w) in enumerate(links)]})

        self.progress("memories and core memory")
        told = self.call("GET", f"/agents/{AGENT}/memories", agent, params={"limit": 1})
        for text, days_ago in [] if told else MESSAGES:
            at = now - timedelta(days=days_ago, minutes=1)
            self.call("POST", f"/agents/{AGENT}/messages", agent, json={"text": text, "at": at.isoformat()})
        blocks = {b["block"]: b["content"] for b in self.call("GET", f"/agents/{AGENT}/core", agent)["blocks"]}
        for block, text in CORE.items():
            if blocks.get(block, "").strip() == text:
                continue
            self.call("PUT", f"/agents/{AGENT}/core/{block}", person if block != "identity" else agent,
                      json={"content": text})  # the agent's own identity edit: an alert for the person

        self.progress("reflection and proposals")
        reflections = self.call("GET", f"/agents/{AGENT}/reflections", agent)
        pending = [r for r in reflections if r["status"] == "pending"]
        if pending:
            demo.reflection_id = pending[0]["id"]
        elif not reflections:  # one reflection for the person to decide; decided, it stays decided
            demo.reflection_id = self.call("POST", f"/agents/{AGENT}/reflections", agent, json={})["id"]
        made = {p["content"]: p["id"] for p in self.call("GET", f"/agents/{AGENT}/proposals", person,
                                                         params={"limit": 500})}
        for proposal in PROPOSALS:
            found = made.get(proposal["content"])
            if found is None:
                found = self.call("POST", f"/agents/{AGENT}/proposals", sub, json=proposal)["id"]
            demo.proposals.append(found)

        self.progress("context policy")
        revisions = self.call("GET", f"/agents/{AGENT}/context/policy/revisions", agent)
        if len(revisions) < 3:
            self.call("PUT", f"/agents/{AGENT}/context/policy", agent, json={
                "allocations": {"insights": 0.12, "playbook": 0.18}, "reason": "more room for the playbook"})
            self.call("PUT", f"/agents/{AGENT}/context/policy", agent, json={
                "allocations": {"episodes": 0.2}, "reason": "recent episodes mattered in the last decisions"})
        return demo


def seed(client: httpx.Client, admin_key: str, *, db: Any = None, days: int = 14,
         progress: Callable[[str], None] = log.info) -> Demo:
    """The demo agent; with `db`, also `days` of daily metric samples (the routes record today's only)."""
    demo = Seeder(client, admin_key, progress).run()
    if db is not None:
        from grimoire.graph.metrics import series

        progress("metric samples")
        now = datetime.now(UTC)
        for back in range(days, -1, -1):
            at = int((now - timedelta(days=back)).timestamp() * 1000)
            series.record(db, AGENT, at, actor="demo")
    return demo
