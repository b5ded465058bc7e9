"""Events over REST: listed by type, agent and time, and streamed live as Server-Sent Events with
resume from the last event id. An agent sees its own events; the admin sees all."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial
from typing import Annotated

from fastapi import APIRouter, Header, Query
from fastapi.responses import StreamingResponse

from grimoire.api.auth import Reader
from grimoire.api.deps import DbDep
from grimoire.api.schemas.events import EventOut
from grimoire.graph import agents, events
from grimoire.graph.events import EventType
from grimoire.graph.model.common import Instant, to_ms

router = APIRouter(prefix="/events", tags=["events"])

EVENT_ID = r"^[0-9a-fA-F-]{1,36}$"
TypeFilter = Annotated[list[EventType] | None, Query(description="event types (repeat the parameter for several)")]
Since = Annotated[Instant | None, Query(description="events at or after this time (ISO 8601 or epoch ms)")]
Until = Annotated[Instant | None, Query(description="events before this time (ISO 8601 or epoch ms)")]
After = Annotated[str | None, Query(pattern=EVENT_ID, description="only events after this event id")]
SSE = {200: {"content": {"text/event-stream": {"schema": {"type": "string"}}},
             "description": "frames `id:` / `event:` (the event type) / `data:` (an EventOut as JSON); comment "
                            "lines keep the connection open"}}


@router.get("", response_model=list[EventOut], summary="Events by type, agent and time, oldest first (page on "
            "with after=<the last id>)")
def list_events(
    db: DbDep,
    who: Reader,
    type: TypeFilter = None,  # noqa: A002
    agent_id: str | None = None,
    since: Since = None,
    until: Until = None,
    after: After = None,
    limit: Annotated[int, Query(ge=1, le=1_000)] = 100,
) -> list[EventOut]:
    return events.list_events(db, who.visibility(), types=type, agent_id=agent_id, since=to_ms(since),
                              until=to_ms(until), after_id=after.lower() if after else None, limit=limit)


@router.get("/stream", response_class=StreamingResponse, responses=SSE,
            summary="Events as they happen (Server-Sent Events); resumes after Last-Event-ID or after=")
async def stream_events(
    db: DbDep,
    who: Reader,
    type: TypeFilter = None,  # noqa: A002
    agent_id: str | None = None,
    since: Since = None,
    until: Until = None,
    after: After = None,
    max_seconds: Annotated[float | None, Query(gt=0, le=3_600, description="end the stream after this long")] = None,
    last_event_id: Annotated[str | None, Header(pattern=EVENT_ID, description="the last id received; "
                                                "sent by an EventSource when it reconnects")] = None,
) -> StreamingResponse:
    resume = last_event_id or after
    frames = events.subscribe(db, who.visibility(), types=type, agent_id=agent_id, since=to_ms(since),
                           until=to_ms(until), after_id=resume.lower() if resume else None, max_seconds=max_seconds,
                           still=partial(agents.key_holds, db, who.key_id))
    return sse(frames)


def sse(frames: AsyncIterator[str]) -> StreamingResponse:
    """Server-Sent Events frames as a response no cache or proxy holds back (the console's stream too)."""
    return StreamingResponse(frames, media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
