"""Approvals: what is waiting for a person. The pending reflection (section 10.5's summary) with each proposal
to tick, untick or edit — approve, approve with changes, approve part, reject — and the sub-agents' proposals
(13.2) to commit, reject or defer, conflicting ones (13.6) side by side. The decisions are the routes'
(api/routes/memory.py, proposals.py): a person's key or the admin's, audited as the console's."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import RedirectResponse

from grimoire.api.console.errors import Refused
from grimoire.api.console.gateway import path, together
from grimoire.api.console.pages.common import Acting, Reading, form, listed

router = APIRouter()

OPEN = ("pending", "conflict", "deferred")
# What a person may change in a reflection's proposal before approving it (approval.py): field per kind.
EDITABLE = {"fact": "summary", "procedure": "trigger", "core": "after"}
DECISIONS = ("approve", "approve_with_changes", "approve_part", "reject")


def conflict_pairs(proposals: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each conflicting pair of open proposals once, the earlier on the left."""
    by_id = {p["id"]: p for p in proposals}
    pairs = []
    for p in proposals:
        for other in p.get("conflicts_with") or []:
            q = by_id.get(other)
            if q is not None and p["number"] < q["number"]:
                pairs.append((p, q))
    return pairs


@router.get("/console/agents/{agent_id}/approvals", include_in_schema=False)
async def approvals(agent_id: str, console: Reading) -> Any:
    a = console.agent(agent_id)
    reflections, proposals = await together(
        console.gw.get(path("/agents/{}/reflections", a)),
        console.gw.get(path("/agents/{}/proposals", a), {"status": list(OPEN), "limit": 500}))
    pending = [r for r in reflections if r["status"] == "pending"]
    open_ = [p for p in proposals if p["status"] in OPEN]
    decided = [r for r in reflections if r["status"] != "pending"][:10]
    return console.page("approvals.html", a, "approvals", pending=pending, decided=decided, proposals=open_,
                        pairs=conflict_pairs(open_), editable=EDITABLE,
                        done=console.request.query_params.get("done"))


def verdict(reflection: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """The route's decision body from the form: the ticked items, and the edits that differ from the proposal."""
    decision = str(data.get("decision") or "")
    if decision not in DECISIONS:
        raise Refused(422, f"decision must be one of {', '.join(DECISIONS)}")
    ids = [i["id"] for i in reflection["items"]]
    ticked = [i for i in listed(data.get("items")) if i in ids]
    unticked = [i for i in ids if i not in ticked]
    changes = edits(reflection, data)
    note = str(data.get("note") or "").strip()[:2_000] or None
    body: dict[str, Any] = {"decision": decision, "note": note}
    if decision == "approve" and (unticked or changes):
        raise Refused(422, "you unticked or edited proposals: “Approve all” applies every proposal as it is; use "
                           "“Approve ticked” or “Approve with my changes”")
    if decision == "approve_part":
        if not ticked:
            raise Refused(422, "approve part: tick the proposals to apply")
        if changes:
            raise Refused(422, f"you edited {', '.join(sorted(changes))}: “Approve ticked” applies the proposals as "
                               "they are; use “Approve with my changes”")
        body["items"] = ticked
    elif decision == "approve_with_changes":
        body["changes"] = changes
        body["exclude"] = unticked
    return body


def edits(reflection: dict[str, Any], data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The proposals whose editable text the person changed in the form, with the new text."""
    out: dict[str, dict[str, Any]] = {}
    for item in reflection["items"]:
        field = EDITABLE.get(item["kind"])
        typed = data.get(f"change:{item['id']}")
        if field and isinstance(typed, str):
            typed = typed.replace("\r\n", "\n")
            if typed.strip() != str(item["data"].get(field) or "").strip():
                out[item["id"]] = {field: typed}
    return out


@router.post("/console/agents/{agent_id}/reflections/{reflection_id}", include_in_schema=False)
async def decide_reflection(agent_id: str, reflection_id: str, console: Acting) -> Any:
    a = console.decider(agent_id)
    reflection = await console.gw.get(path("/agents/{}/reflections/{}", a, reflection_id))
    body = verdict(reflection, await form(console.request))
    done = await console.gw.post(path("/agents/{}/reflections/{}/decision", a, reflection_id), body)
    return RedirectResponse(f"/console/agents/{a}/approvals?done=reflection-{done['number']}-{done['status']}",
                            status_code=303)


@router.post("/console/agents/{agent_id}/proposals/{proposal_id}", include_in_schema=False)
async def decide_proposal(agent_id: str, proposal_id: str, console: Acting) -> Any:
    a = console.decider(agent_id)
    data = await form(console.request)
    decision = str(data.get("decision") or "")
    if decision not in ("commit", "reject", "defer"):
        raise Refused(422, "decision must be commit, reject or defer")
    body: dict[str, Any] = {"decision": decision, "reason": str(data.get("reason") or "").strip()[:1_000] or None}
    if data.get("store"):
        body["store"] = data["store"]
    done = await console.gw.post(path("/agents/{}/proposals/{}/decision", a, proposal_id), body)
    return RedirectResponse(f"/console/agents/{a}/approvals?done=proposal-{done.get('number', '')}-"
                            f"{done.get('status', decision)}", status_code=303)
