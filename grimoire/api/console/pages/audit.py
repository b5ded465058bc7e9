"""Audit: what changed, and can I undo it? The trail filtered by actor, action, item and time; each change's
diff (the item's properties before and after, from its kept versions); rollback of an item to a version, of a
reflection, of one change or of the whole memory to a point in time — always through a confirmation that
shows what the rollback will change (the route's dry run) — and the alerts to acknowledge."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, RedirectResponse

from grimoire.api.console import render
from grimoire.api.console.errors import Refused
from grimoire.api.console.gateway import path, together
from grimoire.api.console.pages.common import Acting, Reading, form
from grimoire.graph.audit.vocabulary import Verb

router = APIRouter()

PAGE = 50
# The rollback targets the console offers, with the route's field for each (api/schemas/rollback.py).
TARGETS = {"item": ("item", "to_version"), "reflection": ("reflection",), "record": ("record",), "at": ("at",)}
QUIET = {"embedding", "state", "version", "revision", "changed_at", "changed_by", "audit_id", "updated_at",
         "revised_at", "recorded_at", "valid_from", "valid_until", "recorded_until", "labels", "n", "item_label",
         "item_id", "entry_id", "id", "written_by", "replaced_by", "reason", "kinds", "effective_confidence"}


def _iso(value: str | None) -> str | None:
    """A datetime-local field (UTC) as ISO 8601, or None."""
    if not value:
        return None
    try:
        at = datetime.fromisoformat(value)
        return (at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)).isoformat()
    except ValueError as e:
        raise Refused(422, f"not a time: {value!r}") from e


@router.get("/console/agents/{agent_id}/audit", include_in_schema=False)
async def audit(agent_id: str, console: Reading, actor: str | None = None, action: str | None = None,
                item: str | None = None, since: str | None = None, until: str | None = None,
                offset: int = 0) -> Any:
    a = console.agent(agent_id)
    action = action if action in {v.value for v in Verb} else None
    offset = max(0, min(offset, 1_000_000))
    records, alerts = await together(
        console.gw.get(path("/agents/{}/audit", a), {
            "actor": (actor or "").strip()[:200] or None, "verb": action, "item": (item or "").strip()[:300] or None,
            "since": _iso(since), "until": _iso(until), "offset": offset, "limit": PAGE}),
        console.gw.get(path("/agents/{}/alerts", a)),
    )
    return console.page("audit.html", a, "audit", records=records, alerts=alerts, verbs=[v.value for v in Verb],
                        actor=actor or "", action=action or "", item=item or "", since=since or "",
                        until=until or "", offset=offset, page=PAGE, done=console.request.query_params.get("done"),
                        filters={"actor": actor or "", "action": action or "", "item": item or "",
                                 "since": since or "", "until": until or ""})


def _comparable(value: Any) -> Any:
    """A time as epoch ms whether stored (ms) or presented (ISO 8601), so the same instant is no change."""
    if isinstance(value, str) and len(value) >= 19 and value[4] == "-" and value[10] == "T":
        ms = render.epoch_ms(value)
        return value if ms is None else ms
    return value


def properties_diff(before: dict[str, Any] | None, after: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The properties that differ between two states of an item (bookkeeping and computed fields left out)."""
    before, after = before or {}, after or {}
    rows = []
    for key in sorted(set(before) | set(after)):
        if key in QUIET or _comparable(before.get(key)) == _comparable(after.get(key)):
            continue
        rows.append({"property": key, "before": before.get(key), "after": after.get(key)})
    return rows


@router.get("/console/agents/{agent_id}/diff", include_in_schema=False)
async def diff(agent_id: str, console: Reading, item: str, before: str = "", after: str = "") -> HTMLResponse:
    """One change to one item: its state before (the version the record replaced) and after (the version it
    made, or the item as it is now)."""
    a = console.agent(agent_id)
    history, current = await together(
        console.gw.maybe(path("/agents/{}/versions/{}", a, item), missing={"versions": []}),
        console.gw.maybe(path("/crystals/{}", item)),
    )
    by_id = {v["id"]: v.get("state") or {} for v in history["versions"]}
    old = by_id.get(before) if before else None
    new = by_id.get(after) if after else None
    if isinstance(current, dict) and current.get("agent_id") not in (None, a):
        raise Refused(404, f"no item {item!r} in agent {a!r}'s memory")
    if new is None and isinstance(current, dict):
        new = current
    rows = properties_diff(old, new)
    html = render.env.get_template("_diff.html").render(item=item, rows=rows, before=before, after=after,
                                                         versions=history["versions"], agent_id=a)
    return HTMLResponse(html, headers=render.SECURITY_HEADERS)


def _target(data: dict[str, Any]) -> dict[str, Any]:
    kind = str(data.get("target") or "")
    if kind not in TARGETS:
        raise Refused(422, f"roll back what? one of: {', '.join(TARGETS)}")
    body: dict[str, Any] = {}
    for name in TARGETS[kind]:
        value = str(data.get(name) or "").strip()
        if not value:
            raise Refused(422, f"rolling back {kind} needs {name}")
        body[name] = _iso(value) if name == "at" else value
    return body


@router.post("/console/agents/{agent_id}/rollback/preview", include_in_schema=False)
async def preview(agent_id: str, console: Acting) -> HTMLResponse:
    a = console.decider(agent_id)
    data = await form(console.request)
    body = _target(data)
    plan = await console.gw.post(path("/agents/{}/rollback", a), {**body, "dry_run": True})
    return console.page("rollback.html", a, "audit", plan=plan, target=str(data["target"]), fields=body)


@router.post("/console/agents/{agent_id}/rollback", include_in_schema=False)
async def rollback(agent_id: str, console: Acting) -> Any:
    a = console.decider(agent_id)
    data = await form(console.request)
    body = _target(data)
    done = await console.gw.post(path("/agents/{}/rollback", a), {**body, "force": data.get("force") == "on"})
    return RedirectResponse(f"/console/agents/{a}/audit?done=rollback-{done.get('rollback_id', '')}",
                            status_code=303)


@router.post("/console/agents/{agent_id}/alerts/{alert_id}/acknowledge", include_in_schema=False)
async def acknowledge(agent_id: str, alert_id: str, console: Acting) -> Any:
    a = console.decider(agent_id)
    await console.gw.post(path("/agents/{}/alerts/{}/acknowledge", a, alert_id))
    return RedirectResponse(f"/console/agents/{a}/audit?done=acknowledged", status_code=303)


