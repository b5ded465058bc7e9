"""Overview: is this agent's memory healthy? The cognitive metrics as daily series with their healthy range
shaded and the unhealthy days marked, today's alarms, counts by kind and status, and the recent events, kept
live from the event stream."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse

from api.console.gateway import path, together
from api.console.pages.common import Reading
from api.presentation import present
from graph import events
from graph.events import EventType
from graph.ids import now_ms

router = APIRouter()

SERIES_DAYS = 30
RECENT_EVENTS = 25
STREAM_SECONDS = 300.0
EVENT_ID = re.compile(r"[0-9a-fA-F-]{1,36}")  # an EventSource reconnects (with Last-Event-ID) when a stream ends


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


@router.get("/console/agents/{agent_id}", include_in_schema=False)
async def overview(agent_id: str, console: Reading) -> Any:
    a = console.agent(agent_id)
    since = (datetime.now(UTC).date() - timedelta(days=SERIES_DAYS)).isoformat()
    day_ago = datetime.fromtimestamp(now_ms() / 1000 - 86_400, UTC).isoformat()
    now, series, stats, recent, alerts = await together(
        console.gw.get("/metrics", {"agent_id": a}),
        console.gw.get("/metrics/series", {"agent_id": a, "since": since}),
        console.gw.get("/stats", {"agent_id": a}),
        console.gw.get("/events", {"agent_id": a, "since": day_ago, "limit": 1000}),
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
    resume = request.headers.get("last-event-id") or after
    if resume and not EVENT_ID.fullmatch(resume):
        resume = None
    services = request.app.state.services
    frames = events.subscribe(services.db, console.session.principal.visibility(), agent_id=a,
                              after_id=resume.lower() if resume else None, max_seconds=STREAM_SECONDS,
                              render=present)
    return StreamingResponse(frames, media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
