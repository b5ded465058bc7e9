"""Knowledge: what did the agent learn? Search with the retrieval's explanation per result (rank and score per
backend, the fused score, the factors and their weights), the entries filtered by category, status and
confidence, and one item's page: its versions, provenance tree, causal links, decay curve (effective
confidence over time, past and projected) and audit history."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter
from fastapi.responses import RedirectResponse

from grimoire.api.console.errors import Refused
from grimoire.api.console.gateway import path, together
from grimoire.api.console.pages.common import Reading
from grimoire.api.console.render import epoch_ms
from grimoire.graph.ids import now_ms
from grimoire.graph.knowledge.decay import Stretch, curve
from grimoire.graph.model.enums import EntryCategory, EntryStatus

router = APIRouter()

PAGE = 50
HIDDEN = {"embedding", "state"}  # a version's properties shown in its table, not these


def _float(value: str | None) -> float | None:
    try:
        return None if value in (None, "") else min(1.0, max(0.0, float(value)))  # type: ignore[arg-type]
    except ValueError:
        return None


@router.get("/console/agents/{agent_id}/knowledge", include_in_schema=False)
async def knowledge(agent_id: str, console: Reading, q: str | None = None, category: str | None = None,
                    status: str | None = None, min_confidence: str | None = None, offset: int = 0) -> Any:
    a = console.agent(agent_id)
    category = category if category in EntryCategory.__members__ else None
    status = status if status in EntryStatus.__members__ else None
    floor = _float(min_confidence)
    offset = max(0, min(offset, 1_000_000))
    listing = console.gw.get("/entries", {"agent_id": a, "category": category, "status": status,
                                          "min_confidence": floor, "offset": offset, "limit": PAGE})
    results: dict[str, Any] | None = None
    if q and q.strip():
        search = console.gw.post("/retrieve", {"text": q.strip()[:4_000], "k": 10, "explain": True,
                                               "filters": {"agent_id": a}})  # this agent's memory
        entries, results = await together(listing, search)
    else:
        entries = await listing
    return console.page("knowledge.html", a, "knowledge", q=q or "", results=results, entries=entries,
                        categories=list(EntryCategory), statuses=list(EntryStatus), category=category or "",
                        entry_status=status or "", min_confidence=min_confidence or "", offset=offset, page=PAGE,
                        filters={"q": q or "", "category": category or "", "status": status or "",
                                 "min_confidence": min_confidence or ""})


def decay_stretches(entry: dict[str, Any], versions: list[dict[str, Any]]) -> list[Stretch]:
    """The entry's stretches: each earlier version while it held, then the entry as it is now."""
    out = []
    for v in versions:
        state = v.get("state") or {}
        start, until = epoch_ms(v.get("valid_from")), epoch_ms(v.get("valid_until"))
        if start is None or state.get("confidence") is None:
            continue
        out.append(Stretch(start=start, until=until, confidence=float(state["confidence"]),
                           last_accessed=epoch_ms(state.get("last_accessed_at")) or start,
                           half_life=state.get("half_life_ms"), strength=float(state.get("strength") or 1.0)))
    began = max((s.until or s.start for s in out), default=epoch_ms(entry.get("recorded_at")) or now_ms())
    out.append(Stretch(start=began, until=None, confidence=float(entry.get("confidence") or 0.0),
                       last_accessed=epoch_ms(entry.get("last_accessed_at")) or began,
                       half_life=entry.get("half_life_ms"), strength=float(entry.get("strength") or 1.0)))
    return out


@router.get("/console/agents/{agent_id}/items/{item_id}", include_in_schema=False)
async def item(agent_id: str, item_id: str, console: Reading) -> Any:
    a = console.agent(agent_id)
    found = await console.gw.maybe(path("/entries/{}", item_id))
    kind = "entry"
    if found is None:
        found = await console.gw.get(path("/episodes/{}", item_id))  # a 404 here is the page's
        kind = "episode"
    owner = str(found.get("agent_id") or "")
    if owner != a:  # shown under its owner's pages, where the key may open them
        if owner and console.session.sees(owner):
            return RedirectResponse(f"/console/agents/{owner}/items/{quote(item_id, safe='')}", status_code=303)
        raise Refused(404, f"no item {item_id!r} in agent {a!r}'s memory")
    versions, tree, history, causes, consequences = await together(
        console.gw.maybe(path("/agents/{}/versions/{}", a, item_id), missing={"versions": []}),
        console.gw.maybe(path("/crystals/{}/provenance/tree", item_id)),
        console.gw.maybe(path("/agents/{}/audit/items/{}", a, item_id), missing={"records": [], "actors": []}),
        console.gw.maybe(path("/causal/{}/causes", item_id), missing=[]) if kind == "entry" else _none(),
        console.gw.maybe(path("/causal/{}/consequences", item_id), missing=[]) if kind == "entry" else _none(),
    )
    now = now_ms()
    decay = None
    if kind == "entry":
        points = curve(decay_stretches(found, versions["versions"]), now)
        decay = {"past": points["past"], "projected": points["projected"], "now": now,
                 "half_life_ms": found.get("half_life_ms")}
    shown = [{k: v for k, v in ver.items() if k not in HIDDEN} for ver in versions["versions"]]
    return console.page("item.html", a, "knowledge", item=found, kind=kind, versions=shown, tree=tree,
                        history=history, causes=causes or [], consequences=consequences or [], decay=decay)


async def _none() -> list[Any]:
    return []
