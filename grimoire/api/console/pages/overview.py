"""Overview: is this agent's memory healthy? The cognitive metrics as daily series with their healthy range
shaded and the unhealthy days marked, today's alarms, counts by kind and status, and the recent events, kept
live from the event stream."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

from fastapi import APIRouter, Request

from grimoire.api.console.errors import Refused
from grimoire.api.console.gateway import Gateway, path, together
from grimoire.api.console.pages.common import Reading
from grimoire.api.routes.events import EVENT_ID, sse
from grimoire.graph import console_sessions, events
from grimoire.graph.events import EventType
from grimoire.graph.ids import now_ms
from grimoire.graph.model.enums import KeyScope

router = APIRouter()

SERIES_DAYS = 30
RECENT_EVENTS = 25
EVENT_PAGE, MAX_EVENT_PAGES = 1_000, 20
STREAM_SECONDS = 120.0  # an EventSource reconnects (Last-Event-ID) when a stream ends: its key is checked again


def _epoch(day: str) -> int:
    return int(datetime.combine(date.fromisoformat(day), datetime.min.time(), UTC).timestamp())


def charts(now: dict[str, Any], series: dict[str, Any]) -> list[dict[str, Any]]:
    """One chart per metric with samples: x in epoch seconds (uPlot's), its range and today's verdict."""
    by_name: dict[str, list[dict[str, Any]]] = {}
    for s in series["samples"]:
        by_name.setdefault(s["name"], []).append(s)
    out = []
    for m in now["metrics"]:
        samples = sorted(by_name.get(m["name"], []), key=lambda s: s["day"])
        if not samples:
            continue
        low, high = m["healthy_range"].get("low"), m["healthy_range"].get("high")
        values = [s["value"] for s in samples]
        out.append({
            "name": m["name"], "title": m["title"], "unit": m["unit"], "range": m["healthy_range"]["text"],
            "low": low, "high": high, "alarm": m["alarm"], "alarm_rule": m["alarm_rule"], "healthy": m["healthy"],
            "value": m["value"], "x": [_epoch(s["day"]) for s in samples], "y": values,
            "unhealthy": [v is not None and ((low is not None and v < low) or (high is not None and v > high))
                          for v in values],
        })
    return out


async def newest_events(gw: Gateway, agent_id: str) -> list[dict[str, Any]]:
    """The agent's newest events, oldest first: the route lists oldest first, so the last hour's (paged on to
    its end), widened to the last day and week while there are fewer than the page shows."""
    found: list[dict[str, Any]] = []
    for hours in (1, 24, 24 * 7):
        since = datetime.fromtimestamp(now_ms() / 1000 - hours * 3600, UTC).isoformat()
        found = await gw.get("/events", {"agent_id": agent_id, "since": since, "limit": EVENT_PAGE})
        for _ in range(MAX_EVENT_PAGES):
            if len(found) % EVENT_PAGE or not found:
                break
            more = await gw.get("/events", {"agent_id": agent_id, "after": found[-1]["id"], "limit": EVENT_PAGE})
            found = (found + more)[-EVENT_PAGE:]
            if len(more) < EVENT_PAGE:
                break
        if len(found) >= RECENT_EVENTS:
            break
    return found


@router.get("/console/agents/{agent_id}", include_in_schema=False)
async def overview(agent_id: str, console: Reading) -> Any:
    a = console.agent(agent_id)
    since = (datetime.now(UTC).date() - timedelta(days=SERIES_DAYS)).isoformat()
    now, series, stats, recent, alerts = await together(
        console.gw.get("/metrics", {"agent_id": a}),
        console.gw.get("/metrics/series", {"agent_id": a, "since": since}),
        console.gw.get("/stats", {"agent_id": a}),
        newest_events(console.gw, a),
        console.gw.get(path("/agents/{}/alerts", a)),
    )
    latest = list(reversed(recent[-RECENT_EVENTS:]))
    return console.page("overview.html", a, "overview", metrics=now, charts=charts(now, series), stats=stats,
                        events=latest, last_event=recent[-1]["id"] if recent else "", alerts=alerts,
                        event_types=[t.value for t in EventType])


@router.get("/console/agents/{agent_id}/events/stream", include_in_schema=False)
async def live_events(agent_id: str, request: Request, console: Reading, after: str | None = None) -> Any:
    """The event stream (graph/events/stream.py) with the session's visibility: the REST stream's frames."""
    a = console.agent(agent_id)
    services = request.app.state.services
    # The stream reads graph/events directly, not through a route: the session's principal (read from the
    # database for this request) must read, as GET /events/stream requires, and while the stream runs it asks
    # whether the session is still open and its key holds (a sign-out or a revocation on any replica ends it).
    still = console.session.principal
    if not still.may(KeyScope.read):
        raise Refused(403, "this key lacks the 'read' scope")
    resume = request.headers.get("last-event-id") or after
    if resume and not re.fullmatch(EVENT_ID, resume):
        resume = None
    frames = events.subscribe(services.db, still.visibility(), agent_id=a,
                              after_id=resume.lower() if resume else None, max_seconds=STREAM_SECONDS,
                              still=lambda: console_sessions.holds(services.db, console.session.hash, now_ms()))
    return sse(frames)
