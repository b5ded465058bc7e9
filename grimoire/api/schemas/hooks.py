"""What the Pi hook routes answer (api/routes/hooks.py); the requests are graph/hooks.py's TurnIn and CompactIn."""

from __future__ import annotations

from pydantic import BaseModel

from grimoire.graph.hooks import CompactState as CompactState  # declared beside what reads it
from grimoire.graph.hooks import PreservedEntry as PreservedEntry
from grimoire.graph.hooks import PreservedEpisode as PreservedEpisode
from grimoire.graph.hooks import PreservedMentalModel as PreservedMentalModel


class TurnWritten(BaseModel):
    turn_id: str
    agent_id: str
    ids: list[str]  # one episode per item, in order (deterministic: re-sending the turn gives the same ids)
    created: list[str]
    existing: list[str]  # already stored: the turn was sent before
    audit_ids: list[str]
    last_id: str  # what the next turn `follows`
