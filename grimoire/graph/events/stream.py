"""Server-Sent Events: a subscriber's live view of the events it may see.

The stream polls the database (a read session, in a worker thread so the event loop never waits on
it) every `poll_seconds` for events after the subscriber's place, and sends each as an `id:` /
`event:` / `data:` frame; a comment line keeps an idle connection open. A subscriber resumes after
the last id it saw (the `Last-Event-ID` header its client sends on reconnecting, or `after`); a new
one starts at the moment it subscribes (or at `since`).

Event ids are time-ordered (graph/events/model.py), but transactions commit in their own order: an
event made just before another may become visible just after it. Each poll therefore reads again
the last `grace_ms` of ids (never before where the subscriber started) and skips the ids it sent
already, so a late commit is still delivered. A frame's `id:` is the greatest event id sent so far
(the event's own id but for such a late one), so a resume repeats nothing it sent."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence

from grimoire.graph.db.connection import Database
from grimoire.graph.errors import Unavailable
from grimoire.graph.events.model import EventOut, EventType, lowest_id
from grimoire.graph.events.store import list_events
from grimoire.graph.ids import now_ms
from grimoire.graph.visibility import Visibility

POLL_SECONDS = 0.5
KEEPALIVE_SECONDS = 15.0
GRACE_MS = 5_000  # how late a transaction may commit after making its event and still be streamed
BATCH = 500
RETRY_MS = 2_000   # what a client waits before reconnecting (the `retry:` field)
CHECK_SECONDS = 2.0  # how often a stream asks whether its key still holds (`still`)

log = logging.getLogger(__name__)


def format_event(event: EventOut, last_id: str | None = None) -> str:
    """One event as an SSE frame: `last_id` (the event's id when not given) as the id to resume after,
    the event's type as the event name, the event as one line of JSON (as GET /events answers it)."""
    data = json.dumps(event.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return f"id: {_line(last_id or event.id)}\nevent: {_line(event.type.value)}\ndata: {data}\n\n"


def format_comment(text: str) -> str:
    """A comment frame (clients ignore it): keeps a quiet connection from timing out."""
    return "".join(f": {line}\n" for line in (text.splitlines() or [""])) + "\n"


def _line(value: str) -> str:
    return value.replace("\r", " ").replace("\n", " ")


async def subscribe(db: Database, visibility: Visibility, *, types: Sequence[EventType | str] | None = None,
                    agent_id: str | None = None, since: int | None = None, until: int | None = None,
                    after_id: str | None = None, max_seconds: float | None = None,
                    poll_seconds: float = POLL_SECONDS, keepalive_seconds: float = KEEPALIVE_SECONDS,
                    grace_ms: int = GRACE_MS, batch: int = BATCH,
                    still: Callable[[], bool] | None = None,
                    check_seconds: float = CHECK_SECONDS) -> AsyncIterator[str]:
    """SSE frames of the events `visibility` may see that pass the filters, oldest first: those after
    `after_id` when given, else those from `since` when given, else those made from now on. Ends
    after `max_seconds` (when given), or once `until` is `grace_ms` past; otherwise when the client
    goes (the server cancels the generator), or when `still` (asked every `check_seconds`, in a worker
    thread) says the subscriber's key no longer holds."""
    started = time.monotonic()
    checked = started
    deadline = None if max_seconds is None else started + max_seconds
    # Every event at or below `lower` has been sent (or came before the subscriber's start), and none
    # will commit there any more; `seen` holds the ids sent above it, which a poll reads again.
    lower = after_id if after_id else "" if since is not None else lowest_id(now_ms())
    last_sent = lower
    seen: set[str] = set()
    yield f"retry: {RETRY_MS}\n" + format_comment("subscribed")
    quiet_since = time.monotonic()
    while True:
        if still is not None and time.monotonic() - checked >= check_seconds:
            if not await asyncio.to_thread(still):
                yield format_comment("the key was revoked; the stream ends")
                return
            checked = time.monotonic()
        polled_at = now_ms()
        page_after = lower
        try:
            while True:
                page = await asyncio.to_thread(list_events, db, visibility, types=types, agent_id=agent_id,
                                               since=since, until=until, after_id=page_after, limit=batch)
                for event in page:
                    if event.id in seen:
                        continue
                    seen.add(event.id)
                    last_sent = max(last_sent, event.id)
                    yield format_event(event, last_sent)
                    quiet_since = time.monotonic()
                if len(page) < batch:
                    break
                page_after = page[-1].id
            # Read to the end: what commits from now on was made after polled_at - grace_ms.
            lower = max(lower, lowest_id(polled_at - grace_ms))
            seen = {i for i in seen if i > lower}
        except Unavailable as exc:  # the database went away: say so, and try again at the next poll
            log.warning("event stream: %s", exc)
            yield format_comment("database unavailable; retrying")
            quiet_since = time.monotonic()
        if until is not None and polled_at >= until + grace_ms:
            return
        now = time.monotonic()
        if now - quiet_since >= keepalive_seconds:
            yield format_comment("keep-alive")
            quiet_since = now
        if deadline is not None and now >= deadline:
            return
        await asyncio.sleep(poll_seconds if deadline is None else max(0.0, min(poll_seconds, deadline - now)))
