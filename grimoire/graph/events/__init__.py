"""Events: what happened to an agent's memory (writes, decay, Curator cycles, ingests), stored as
(:Event) nodes in the transaction of the mutation they report, listed by type, agent and time, and
streamed to subscribers as Server-Sent Events (stream.py) with resume from the last event id."""

from grimoire.graph.events.model import (
    Event,
    EventType,
    entry_written,
    episodes_written,
    event_id,
    id_ms,
    ingest_result,
    lowest_id,
)
from grimoire.graph.events.store import list_events, write
from grimoire.graph.events.stream import format_comment, format_event, subscribe

__all__ = ["Event", "EventType", "entry_written", "episodes_written", "event_id", "format_comment", "format_event",
           "id_ms", "ingest_result", "list_events", "lowest_id", "subscribe", "write"]
