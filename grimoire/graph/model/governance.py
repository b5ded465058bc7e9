"""A crystal's governance as a writer asks for it (knowledge-crystals.md, "Governance Model"): its lifespan policy,
its time to live, its priority. Its access scope is the item's `scope`; its sensitivity is tagged on write, never
sent (graph/model/crystal/governance.py)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field, model_validator

from grimoire.graph.model.common import MAX_INT, StrictModel


class Lifespan(StrEnum):
    permanent = "permanent"  # never expired automatically
    ttl = "ttl"              # expired ttl_ms after it was recorded (the scheduler's crystals.lifespan job)
    decay = "decay"          # subject to the consolidation engine's Ebbinghaus decay


class GovernanceIn(StrictModel):
    lifespan: Lifespan | None = Field(default=None, description="default: decay (permanent for mental models and "
                                                                 "pinned memories)")
    ttl_ms: Annotated[int, Field(ge=1_000, le=MAX_INT)] | None = Field(
        default=None, description="with lifespan ttl: milliseconds from recording to expiry")
    priority: Annotated[int, Field(ge=0, le=100)] = Field(default=0, description="0..100, higher first")

    @model_validator(mode="after")
    def _ttl_with_ttl(self) -> GovernanceIn:
        if (self.lifespan == Lifespan.ttl) != (self.ttl_ms is not None):
            raise ValueError("ttl_ms is required with lifespan 'ttl' and only with it")
        return self
