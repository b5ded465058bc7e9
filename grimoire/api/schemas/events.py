"""What the event routes answer (api/routes/events.py)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from grimoire.graph.events import EventType


class EventOut(BaseModel):
    """One event (graph/events/): what happened to an agent's memory, times in ISO 8601. The stream
    (GET /events/stream) sends the same object as each frame's `data:`."""

    id: str = Field(description="a time-ordered UUIDv7: page on, or resume a stream, after it")
    type: EventType
    agent_id: str | None = None
    clade: str | None = None
    at: str = Field(description="when it happened")
    recorded_at: str | None = Field(default=None, description="when it was stored")
    payload: dict[str, Any] = Field(default_factory=dict, description=(
        "GrimoireWrite: entry_type (entry|episode), category, confidence, source, entry_id or count; "
        "GrimoireDecay: counts and average confidence before and after; CuratorCycleComplete: pruned, "
        "promoted and proposed counts; IngestResult: source, stage, outcome"))
