"""Every MCP tool called through the SDK's client over the real app and database (issue 20).

The mutating tools replay test_audit_routes.py's walk: each case prepares what its route needs over REST, and its
final request is made through the tool that stands for the route instead, with the same key. Each must succeed and
every audit record it writes must note the channel `mcp`. The read tools then run over what the walk made. A tool
the walk leaves uncalled fails the test."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any
from urllib.parse import unquote

from mcp import ClientSession

from grimoire.api.mcp.catalog import EXCLUDED, TOOLS
from grimoire.api.mcp.routes_index import routes
from tests.integration import test_audit_routes as walk
from tests.integration.mcp_live import Live, live_fixture, run, text_of  # noqa: F401  (the fixture)

AGENT, CLADE = walk.AGENT, walk.CLADE
# A tool whose route answers an error here, and why: still a tool error with the route's message, not a crash.
EXPECTED_ERRORS = {"run_scheduler_job": ("409", "the scheduler does not run under the tests (test_scheduler.py)")}


class Recorder:
    """Stands in for the HTTP client while a case's final request is made: the request is kept, not sent."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, dict[str, str], Any]] = []

    def request(self, method: str, url: str, headers: dict[str, str] | None = None, json: Any = None,
                **_: Any) -> Any:
        self.calls.append((method.upper(), url, dict(headers or {}), json))
        return SimpleNamespace(status_code=200, text="", json=lambda: {})

    def post(self, url: str, **kw: Any) -> Any:
        return self.request("POST", url, **kw)

    def put(self, url: str, **kw: Any) -> Any:
        return self.request("PUT", url, **kw)

    def delete(self, url: str, **kw: Any) -> Any:
        return self.request("DELETE", url, **kw)


def _path_params(template: str, path: str) -> dict[str, str]:
    pattern = re.sub(r"{(\w+):path}", r"(?P<\1>.+)", template)
    pattern = re.sub(r"{(\w+)}", r"(?P<\1>[^/]+)", pattern)
    found = re.fullmatch(pattern, path.split("?")[0])
    assert found, (template, path)
    return {k: unquote(v) for k, v in found.groupdict().items()}


def tool_call(route: str, path: str, body: Any) -> tuple[str, dict[str, Any]]:
    """The tool standing for `route`, and its arguments for the request REST would have got."""
    method, template = route.split(" ", 1)
    params = _path_params(template, path)
    body = body or {}
    a = "/agents/{agent_id}"
    if route == f"PUT {a}/core/{{block}}":
        return "edit_core_memory", {**params, "operation": "rewrite", "text": body["content"]}
    if route == f"POST {a}/core/{{block}}/append":
        return "edit_core_memory", {**params, "operation": "append", "text": body["text"]}
    if route == f"POST {a}/core/{{block}}/line":
        op = "replace_line" if body.get("new") else "delete_line"
        return "edit_core_memory", {**params, "operation": op, "text": body.get("new"), "line": body.get("line"),
                                    "old": body.get("old")}
    feedback = {"upvote": "confirm", "downvote": "contradict", "outcome": "outcome"}
    if template.startswith("/entries/{entry_id}/") and template.rsplit("/", 1)[1] in feedback:
        return "give_feedback", {**params, "feedback": feedback[template.rsplit("/", 1)[1]], **body}
    if route == "POST /episodes":
        return "record_episodes", {"episodes": [body]}
    if route == "POST /entries":
        return "add_entries", {"entries": [body]}
    spec = next(t for t in TOOLS if t.route == route)
    info = routes()[route]
    taken = {*info.path_params, *(q.name for q in info.query)}
    names = {b.wire: (f"body_{b.name}" if b.name in taken else b.name) for b in info.body}
    return spec.name, {**params, **{names[k]: v for k, v in body.items()}}


class Sessions:
    """One MCP session per key, opened on first use."""

    def __init__(self, live: Live, stack: Any):
        self.live, self.stack, self.open = live, stack, {}

    async def of(self, headers: dict[str, str]) -> ClientSession:
        key = headers["X-API-Key"]
        if key not in self.open:
            self.open[key] = await self.stack.enter_async_context(self.live.session(headers))
        return self.open[key]


def _records(live: Live) -> dict[str, dict[str, Any]]:
    return {r["id"]: dict(r) for r in live.api.db.run("testing/audit_versions")}


def _reads(w: walk.World, api: Any) -> dict[str, tuple[dict[str, str], dict[str, Any]]]:
    """Each read tool's key and arguments, over what the walk made."""
    h, person, admin = w.h, w.person, api.admin
    get = lambda path, headers=h, **params: w.ok(api.client.get(path, headers=headers, params=params))  # noqa: E731
    entry = get("/entries/walk-gas")
    reflection = get(f"/agents/{AGENT}/reflections")[0]["id"]
    revisions = get(f"/agents/{AGENT}/context/policy/revisions")
    run = get("/analytics/runs", headers=admin)[0]["id"]
    cycle = get("/curator/cycles")[0]["id"]
    fact = "walk-f1"
    w.ok(w.post("/episodes/batch", json={"episodes": [  # a strategy packages after 20 decided episodes
        {"id": f"walk-dca-{i}", "type": "action", "strategy": "walk-dca", "outcome": "positive",
         "text": f"Bought 0.1 WETH on the weekly schedule, week {i}"} for i in range(24)]}))
    w.ok(w.post("/episodes", json={"id": "walk-predicted", "type": "action", "tool": "walk-swap",  # Reflexion judges
                                   "text": "Swapped WETH for USDC, predicted 10 bps",
                                   "prediction": {"metric": "return_bps", "expected": 10, "actual": -50,
                                                  "tolerance": 5}}))
    w.ok(w.post(f"/agents/{AGENT}/messages", json={"text": "Remember that the Walker project uses Redis."}))
    bounty = w.ok(w.post("/bounties", json={"text": "A skill that times gas", "reward_multiplier": 1.2}))["id"]
    return {
        "whoami": (h, {}), "memory_stats": (h, {}), "service_health": (h, {}),
        "recall": (h, {"q": "vault"}), "get_retrieval_weights": (h, {}),
        "get_context_policy": (h, {}), "list_policy_revisions": (h, {}),
        "context_policy_delta": (h, {"from_revision": revisions[-1]["revision"]}),
        "list_context_decisions": (h, {}), "list_beliefs": (h, {}), "list_reasoning_chains": (h, {}),
        "list_context_mutations": (h, {}),
        "get_core_memory": (h, {}), "core_block_versions": (h, {"block": "context"}),
        "list_episodes": (h, {"limit": 2}), "get_episode": (h, {"episode_id": "walk-ep"}),
        "get_episode_reflection": (h, {"episode_id": "walk-predicted"}),
        "get_admission_decision": (h, {"decision_id": entry["decision_ids"][0]}),
        "list_entries": (h, {"limit": 2}), "get_entry": (h, {"entry_id": "walk-gas"}),
        "entry_versions": (h, {"entry_id": "walk-gas"}),
        "list_memories": (h, {}), "get_memory": (h, {"memory_id": w.memory()}),
        "entity_page": (h, {"entity_id": "project--walker"}),
        "list_reflections": (h, {}), "get_reflection": (h, {"reflection_id": reflection}),
        "list_proposals": (h, {}), "get_workspace": (h, {}),
        "list_audit": (person, {"limit": 5}), "list_all_audit": (admin, {"limit": 5}),
        "audit_of_item": (person, {"item_id": f"{AGENT}:core:context"}),
        "audit_of_reflection": (person, {"reflection_id": reflection}),
        "audit_critical": (person, {}), "audit_forgotten": (person, {"about": "cache"}),
        "audit_digests": (person, {}), "all_audit_digests": (admin, {}),
        "item_versions": (person, {"item_id": f"{AGENT}:core:context"}),
        "list_alerts": (h, {"all": True}), "get_causal_graph": (h, {}),
        "resolve_entity": (h, {"q": "walk usdc"}),
        "get_facts": (h, {"entity_id": "reserve:walk usdc 1", "block": 200}),
        "get_fact_history": (h, {"fact_id": fact}),
        "entity_episodes": (h, {"entity_id": "reserve:walk usdc 1"}),
        "entity_lag": (h, {"entity_id": "reserve:walk usdc 1"}),
        "shortest_path": (h, {"source": "reserve:walk usdc 1", "target": "oracle:walk feed 1", "block": 200}),
        "list_analysis_runs": (admin, {}), "get_analysis_run": (admin, {"run_id": run}),
        "list_curator_cycles": (h, {}), "curator_cycle_operations": (h, {"cycle_id": cycle}),
        "get_playbook": (h, {}), "list_strategies": (h, {}), "strategy_package": (h, {"strategy": "walk-dca"}),
        "list_mental_models": (h, {}), "list_events": (h, {"limit": 3}), "get_metrics": (h, {}),
        "metric_series": (h, {}), "list_scheduler_jobs": (admin, {}), "list_agents": (h, {}),
        "list_keys": (h, {}), "get_crystal": (h, {"crystal_id": "walk-life"}),
        "crystal_provenance": (h, {"crystal_id": "walk-frozen"}),
        "crystal_provenance_tree": (h, {"crystal_id": "walk-frozen"}),
        "crystal_attribution": (h, {"crystal_id": "walk-frozen"}),
        "get_hormones": (h, {}), "get_agent_limits": (h, {}), "get_network_weather": (h, {}), "list_skills": (h, {}),
        "search_skills": (h, {"q": "swap"}), "get_skill": (h, {"stable_id": w.ids["skill"]}),
        "walk_causal": (h, {"entry_id": "walk-funding", "direction": "consequences"}),
        "list_bounties": (h, {}), "get_bounty": (h, {"bounty_id": bounty}),
    }


def test_every_tool_is_called_and_answers(live: Live) -> None:
    api = live.api
    w = walk.World(api, api.headers(AGENT, CLADE), api.headers(AGENT, CLADE, scopes=("read", "person")))
    called: dict[str, str] = {}
    problems: list[str] = []

    async def walk_all() -> None:
        from contextlib import AsyncExitStack

        async with AsyncExitStack() as stack:
            sessions = Sessions(live, stack)
            cases = {**walk.MUTATING, **walk.ACCESS, **{k: case for k, (_, case) in walk.READS.items()}}
            for route, case in cases.items():
                if route in EXCLUDED:
                    continue  # no tool (catalog.EXCLUDED says why)
                call = case(w)
                recorder, real = Recorder(), w.api
                w.api = SimpleNamespace(client=recorder, admin=real.admin, headers=real.headers, db=real.db)
                try:
                    call()
                finally:
                    w.api = real
                method, path, headers, body = recorder.calls[-1]
                name, args = tool_call(route, path, body)
                spec = next(t for t in TOOLS if t.name == name)
                if spec.person and headers == w.h:
                    headers = w.person  # REST lets the agent's own key commit its sub-agent's proposal; MCP does not
                before = set(_records(live))
                result = await (await sessions.of(headers or w.h)).call_tool(name, args)
                called[name] = route
                expected = EXPECTED_ERRORS.get(name)
                if result.is_error and not (expected and f": {expected[0]}:" in text_of(result)):
                    problems.append(f"{name} ({route}): {text_of(result)[:300]}")
                    continue
                written = [r for i, r in _records(live).items() if i not in before]
                wrong = [(r["action"], r.get("channel")) for r in written if r.get("channel") != "mcp"]
                if wrong:
                    problems.append(f"{name}: audit records not noted as mcp: {wrong}")
                if route in walk.MUTATING and not written:
                    problems.append(f"{name} ({route}): no audit record")
            for name, (headers, args) in _reads(w, api).items():
                result = await (await sessions.of(headers)).call_tool(name, args)
                called[name] = "read"
                if result.is_error:
                    problems.append(f"{name}: {text_of(result)[:300]}")
                elif result.structured_content is None:
                    problems.append(f"{name}: no structured content")

    run(walk_all)
    uncalled = sorted({t.name for t in TOOLS} - set(called))
    assert not uncalled, f"tools the walk does not call: {uncalled}"
    assert not problems, "\n".join(problems)
