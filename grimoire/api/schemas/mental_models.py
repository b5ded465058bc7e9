"""What the mental models route answers (api/routes/mental_models.py)."""

from __future__ import annotations

from pydantic import BaseModel

from grimoire.graph.model.enums import DecayClass, EntryCategory, EntryStatus, Scope


class MentalModelOut(BaseModel):
    """One of the 13 core mental models (the spec's Mental Models Library) and the entry that holds it.
    `stored` is false only when its entry is missing from the graph (it is seeded at start-up and by
    `grimoire schema`); the entry's fields are null then."""

    id: str  # the entry id, e.g. mental-model:first-principles
    number: int
    name: str
    application: str  # the spec's "DeFi Application"
    content: str  # the entry's text, what retrieval matches
    stored: bool
    agent_id: str | None = None
    scope: Scope | None = None
    category: EntryCategory | None = None
    status: EntryStatus | None = None
    decay_class: DecayClass | None = None
    confidence: float | None = None
    effective_confidence: float | None = None
    quality_score: float | None = None
    tags: list[str] | None = None
    recorded_at: str | None = None
