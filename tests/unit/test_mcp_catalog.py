"""The MCP catalog against the service's routes, without a database: every route has a tool or a reason it has
none, every tool has what a client needs to call it well, and the default profile stays small."""

from __future__ import annotations

import pytest

from grimoire.api.mcp.catalog import EXCLUDED, TOOLS, Profile, tools
from grimoire.api.mcp.routes_index import routes
from grimoire.api.mcp.tools import built

PEERS = {  # the tools the issue names, at least as complete as the richest peers
    "whoami", "retrieve_memory", "search_memory", "assemble_context", "get_core_memory", "edit_core_memory",
    "record_episodes", "list_episodes", "get_episode", "add_entries", "list_entries", "get_entry",
    "admission_dry_run", "give_feedback", "link_cause", "confirm_link", "walk_causal", "resolve_entity",
    "upsert_entities", "assert_facts", "invalidate_fact", "get_facts", "get_fact_history", "k_hop", "shortest_path",
    "curiosity", "run_analysis", "cascade", "list_analysis_runs", "forget", "reflect", "list_reflections",
    "list_proposals", "memory_stats", "list_audit", "rollback", "decide_reflection", "decide_proposal",
}


def test_every_route_has_a_tool_or_a_reason() -> None:
    covered = {route for spec in TOOLS for route in spec.covers}
    missing = sorted(set(routes()) - covered - set(EXCLUDED))
    assert not missing, f"REST capabilities with no MCP tool (add one to api/mcp/catalog.py, or a reason): {missing}"
    assert not (covered | set(EXCLUDED)) - set(routes()), "tools or reasons for routes that are gone"
    assert not covered & set(EXCLUDED), "a route both has a tool and is excluded"


def test_the_issues_tools_are_there_and_names_are_unique() -> None:
    names = [t.name for t in TOOLS]
    assert len(names) == len(set(names))
    assert set(names) >= PEERS, PEERS - set(names)
    assert not [n for n in names if "cypher" in n or "query_graph" in n]  # no raw Cypher: visibility can't hold


def test_people_only_tools() -> None:
    assert {t.name for t in TOOLS if t.person} == {"list_audit", "rollback", "decide_reflection", "decide_proposal",
                                                  "acknowledge_alert", "set_review_mode"}


@pytest.mark.parametrize("name", [t.name for t in TOOLS])
def test_each_tool_is_described_typed_and_annotated(name: str) -> None:
    tool, spec = built()[name], next(t for t in TOOLS if t.name == name)
    assert len(tool.description) > 40 and "REST:" in tool.description
    assert tool.parameters["type"] == "object" and "ctx" not in tool.parameters.get("properties", {})
    assert tool.output_schema is not None and tool.output_schema.get("type") == "object", "a pydantic result"
    ann = tool.annotations
    assert ann is not None and ann.read_only_hint == (spec.kind == "read")
    assert ann.destructive_hint == (spec.kind == "destructive") and ann.idempotent_hint is not None
    props = tool.parameters.get("properties", {})
    if "next_offset" in (tool.output_schema.get("properties") or {}):  # a list: paged and capped
        limit = props["limit"]
        limit = next((a for a in limit.get("anyOf", [limit]) if "maximum" in a), limit)
        assert limit["maximum"] <= 100 and ("offset" in props or name == "k_hop")  # k-hop: one page, its limit


def test_profiles() -> None:
    default = tools(Profile.default)
    assert 8 <= len(default) <= 12 and len(tools(Profile.full)) == len(TOOLS) > 100
    assert {"whoami", "retrieve_memory", "assemble_context", "get_core_memory", "record_episodes"} <= {
        t.name for t in default}
    assert not any(t.person for t in default)


def test_routes_that_page_themselves_page_past_the_tools_cap() -> None:
    """A tool asks its route for a page and one more item (to know if more follow): the route must allow it."""
    from annotated_types import Le

    from grimoire.api.mcp.results import LIST_CAP

    for spec in TOOLS:
        info = routes()[spec.route] if spec.route else None
        if info and info.list_item is not None and info.query_param("offset") and info.query_param("limit"):
            limit = info.query_param("limit")
            assert limit is not None
            cap = next(int(m.le) for m in limit.info.metadata if isinstance(m, Le))
            assert cap > LIST_CAP, spec.name
