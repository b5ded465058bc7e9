"""When the vector-index upkeep rebuilds an index (GRIMOIRE_VECTOR_UPKEEP, JSON)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class UpkeepConfig(BaseModel):
    enabled: bool = Field(default=True, description="run the upkeep job on the service's scheduler")
    interval_seconds: float = Field(default=60.0, gt=0, description="how often the job looks at the indexes")
    min_vectors: int = Field(
        default=5_000, ge=0, description="an index with fewer vectors is never rebuilt: its search is fast anyway")
    written_ratio: float = Field(
        default=0.25, gt=0,
        description="rebuild once the vectors written since the index was built reach this share of its size")
    quiet_seconds: float = Field(
        default=60.0, ge=0, description="and no vector has been written for this long: the bulk write is over")
