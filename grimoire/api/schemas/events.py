"""What the event routes answer (api/routes/events.py): an event as read, declared beside the event vocabulary
(graph/events/model.py)."""

from __future__ import annotations

from grimoire.graph.events.model import EventOut

__all__ = ["EventOut"]
