"""Graph: the neighbourhood of an entity (its topology at a block, k hops) or of an entry (its causes and
consequences), or the agent's whole causal graph, drawn with Cytoscape.js, each with a link that opens the
same query in Neo4j Browser; and the context policy's allocations across its revisions as a chart."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter

from grimoire.api.console.errors import Refused
from grimoire.api.console.gateway import path, together
from grimoire.api.console.pages.common import Reading
from grimoire.graph.db.cypher import for_browser
from grimoire.graph.ids import now_ms

router = APIRouter()

LATEST_BLOCK = 10**12  # the highest block the routes take: "now" on the block axis, facts still valid


def browser_link(base: str, name: str, params: dict[str, Any]) -> str:
    return f"{base}?cmd=edit&arg={quote(for_browser(name, params), safe='')}"


def entity_elements(start: str, reached: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cytoscape elements of a k-hop answer: each entity, and each step along each one's path."""
    nodes = {start: {"data": {"id": start, "label": start, "kind": "start"}}}
    edges: dict[str, dict[str, Any]] = {}
    for e in reached:
        nodes[e["id"]] = {"data": {"id": e["id"], "label": e.get("name") or e["id"], "kind": e.get("kind") or ""}}
        hops = e.get("path") or []
        preds = e.get("predicates") or []
        for i in range(len(hops) - 1):
            edge_id = f"{hops[i]}>{hops[i + 1]}"
            edges.setdefault(edge_id, {"data": {"id": edge_id, "source": hops[i], "target": hops[i + 1],
                                                "label": preds[i] if i < len(preds) else ""}})
    return _with_ends(nodes, edges)


def causal_elements(centre: dict[str, Any] | None, causes: list[dict[str, Any]],
                    consequences: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cytoscape elements of an entry's causes and consequences: every entry on their paths, every link."""
    nodes: dict[str, dict[str, Any]] = {}
    edges: dict[str, dict[str, Any]] = {}
    if centre:
        nodes[centre["id"]] = {"data": {"id": centre["id"], "label": _short(centre.get("content")),
                                        "kind": "start", "category": centre.get("category")}}
    for found, forward in ((causes, False), (consequences, True)):
        for r in found:
            nodes.setdefault(r["id"], {"data": {"id": r["id"], "label": _short(r.get("content")),
                                                "kind": r.get("category") or "", "category": r.get("category")}})
            hops = r.get("path") or []
            for i in range(len(hops) - 1):
                a, b = (hops[i], hops[i + 1]) if forward else (hops[i + 1], hops[i])
                edges.setdefault(f"{a}>{b}", {"data": {"id": f"{a}>{b}", "source": a, "target": b,
                                                      "label": "CAUSES"}})
    return _with_ends(nodes, edges)


def _with_ends(nodes: dict[str, dict[str, Any]], edges: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The elements, every edge's ends among the nodes: a path's inner steps are reached nodes too."""
    for e in edges.values():
        for end in (e["data"]["source"], e["data"]["target"]):
            nodes.setdefault(end, {"data": {"id": end, "label": end, "kind": ""}})
    return [*nodes.values(), *edges.values()]


def graph_elements(export: dict[str, Any]) -> list[dict[str, Any]]:
    """The agent's whole causal graph (its export) as Cytoscape elements."""
    nodes = {e["id"]: {"data": {"id": e["id"], "label": _short(e.get("content")), "kind": e.get("category") or "",
                                "category": e.get("category")}} for e in export.get("entries", [])}
    edges = [{"data": {"id": link["id"], "source": link["cause"], "target": link["effect"],
                       "label": f"{link.get('weight', 0):.2f}" if isinstance(link.get("weight"), float) else ""}}
             for link in export.get("links", []) if link.get("cause") in nodes and link.get("effect") in nodes]
    return [*nodes.values(), *edges]


def _short(text: Any, n: int = 48) -> str:
    s = str(text or "")
    return s if len(s) <= n else s[: n - 1] + "…"


def allocations_chart(revisions: list[dict[str, Any]]) -> dict[str, Any]:
    """Chart.js data: one stacked bar per revision (oldest first), one dataset per category."""
    ordered = sorted(revisions, key=lambda r: r["revision"])
    categories = sorted({c for r in ordered for c in (r.get("policy") or {}).get("allocations", {})})
    return {"labels": [f"r{r['revision']}" for r in ordered],
            "datasets": [{"label": c, "data": [(r.get("policy") or {}).get("allocations", {}).get(c, 0.0)
                                               for r in ordered]} for c in categories]}


@router.get("/console/agents/{agent_id}/graph", include_in_schema=False)
async def graph(agent_id: str, console: Reading, entity: str | None = None, entry: str | None = None,
                block: int | None = None, hops: int = 2, q: str | None = None) -> Any:
    a = console.agent(agent_id)
    settings = console.request.app.state.services.settings
    base = settings.neo4j_browser_url or f"http://127.0.0.1:{settings.neo4j_http_port}/browser/"
    seen = console.session.principal.visibility().params()
    hops = max(1, min(hops, 3))
    revisions = console.gw.get(path("/agents/{}/context/policy/revisions", a))
    matches: list[dict[str, Any]] = []
    if entity:
        at = block if block is not None and 0 <= block <= LATEST_BLOCK else LATEST_BLOCK
        reached, revs = await together(
            console.gw.post("/topology/k-hop", {"entity": entity, "block": at, "hops": hops, "limit": 300}),
            revisions)
        elements = entity_elements(entity, reached)
        title = f"{entity}: {hops} hops at block {at if block is not None else 'latest'}"
        link = browser_link(base, "topology/k_hop", {"id": entity, "block": at, "hops": hops, **seen})
    elif entry:
        centre, causes, consequences, revs = await together(
            console.gw.get(path("/entries/{}", entry)),
            console.gw.get(path("/causal/{}/causes", entry)),
            console.gw.get(path("/causal/{}/consequences", entry)),
            revisions)
        if centre.get("agent_id") != a:
            raise Refused(404, f"no entry {entry!r} in agent {a!r}'s memory")
        elements = causal_elements(centre, causes, consequences)
        title = f"causes and consequences of {entry}"
        link = browser_link(base, "causal/traverse", {"id": entry, "direction": "forward", "depth": 3,
                                                      "now": now_ms(), **seen})
    else:
        export, revs = await together(console.gw.get(path("/agents/{}/causal-graph", a)), revisions)
        elements = graph_elements(export)
        title = f"{a}'s causal graph"
        link = browser_link(base, "causal/export", {"agent_id": a})
    if q and q.strip():
        matches = await console.gw.get("/entities/resolve", {"q": q.strip()[:200]})
    return console.page("graph.html", a, "graph", elements=elements, title=title, browser=link,
                        allocations=allocations_chart(revs), revisions=revs, entity=entity or "",
                        entry=entry or "", block="" if block is None else block, hops=hops, q=q or "",
                        matches=matches)
