"""What the limits routes answer (api/routes/limits.py)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class LimitsOut(BaseModel):
    """An agent's limits per key on each replica: its own (null: the service's setting) and what applies."""

    agent_id: str
    concurrency: int | None = Field(description="the agent's own; null: GRIMOIRE_KEY_CONCURRENCY")
    rate_per_s: float | None = Field(description="the agent's own; null: GRIMOIRE_KEY_RATE")
    burst: int | None = Field(description="the agent's own; null: GRIMOIRE_KEY_BURST, else a second's worth")
    effective_concurrency: int = Field(description="what applies to each of its keys on a replica (0: no limit)")
    effective_rate_per_s: float = Field(description="what applies to each of its keys on a replica (0: no limit)")
    effective_burst: int
    per_replica: bool = Field(default=True, description="each replica counts on its own: N replicas admit N×")
