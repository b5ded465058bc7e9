"""What the episode routes answer (api/routes/episodes.py); an episode as stored is declared beside the episode
model (graph/model/episode.py)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from grimoire.graph.learning.reflexion import ReflectionOut, ReflexionDelta
from grimoire.graph.model.episode import EpisodeOut, MentionOut

__all__ = ["EnrichmentRun", "EpisodeOut", "IngestOut", "MentionOut", "ReflectionOut", "ReflexionDelta"]


class IngestOut(BaseModel):
    ids: list[str]
    created: list[str]
    existing: list[str]
    audit_ids: list[str]


class EnrichmentRun(BaseModel):
    """POST /episodes/enrichment: the lazy enrichment job run to the end (graph/enrichment.py)."""

    enriched: int = Field(description="episodes whose mentions and FOLLOWS were written and that are now done")
    batches: int = Field(description="transactions it took (1,000 episodes each at most)")
    audit_ids: list[str] = Field(description="its audit records, one per owner and transaction")
    pending: int = Field(description="episodes still pending after it (ingested meanwhile)")
