"""What the episode routes answer (api/routes/episodes.py); an episode as stored is declared beside the episode
model (graph/model/episode.py)."""

from __future__ import annotations

from pydantic import BaseModel

from grimoire.graph.learning.reflexion import ReflectionOut, ReflexionDelta
from grimoire.graph.model.episode import EpisodeOut, MentionOut

__all__ = ["EpisodeOut", "IngestOut", "MentionOut", "ReflectionOut", "ReflexionDelta"]


class IngestOut(BaseModel):
    ids: list[str]
    created: list[str]
    existing: list[str]
    audit_ids: list[str]
