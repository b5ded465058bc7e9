"""A GrimoireEntry: the union of Insight, Heuristic, Warning, CausalLink, StrategyFragment, DreamJournal."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from grimoire.graph.model.common import (
    MAX_INT,
    MAX_LIST,
    MAX_TEXT,
    AgentId,
    ClientId,
    EmotionalTag,
    Instant,
    ShortText,
    StrictModel,
    Unit,
)
from grimoire.graph.model.crystal.payload import SourceFile
from grimoire.graph.model.enums import DecayClass, EntryCategory, MarketRegime, Outcome, Provenance, Scope
from grimoire.graph.model.governance import GovernanceIn

MAX_BATCH = 1_000


class EntrySource(StrictModel):
    golem_id: ShortText | None = Field(default=None, description="default: the owning agent")
    generation_number: Annotated[int, Field(ge=0, le=MAX_INT)] | None = None
    owner_address: Annotated[str, Field(pattern=r"^0x[0-9a-fA-F]{40}$")] | None = None


class EntryIn(StrictModel):
    id: ClientId | None = None
    agent_id: AgentId | None = Field(default=None, description="the owner; default: the key's agent")
    scope: Scope = Scope.private
    category: EntryCategory
    content: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
    decay_class: DecayClass | None = Field(default=None, description="default: the entry type's half-life")
    market_regime: MarketRegime | None = None
    strategy: ShortText | None = Field(default=None, description="the strategy it belongs to (its PLAYBOOK.md "
                                                                  "section); unset: Global")
    valid_from: Instant | None = Field(default=None, description="when the phenomenon began; default: now")
    valid_until: Instant | None = None
    parent_episode_ids: Annotated[list[ClientId], Field(max_length=MAX_LIST)] = Field(default_factory=list)
    tags: Annotated[list[ShortText], Field(max_length=MAX_LIST)] = Field(default_factory=list)
    provenance: Provenance = Provenance.SelfLearned
    source: EntrySource = Field(default_factory=EntrySource)
    emotional_tag: EmotionalTag | None = None
    confidence: Unit | None = Field(default=None, description="standard confidence; default per type/provenance")
    is_bloodstain: bool = False
    dream_validated: bool = False
    governance: GovernanceIn | None = Field(default=None, description="the crystal's lifespan and priority")
    source_file: SourceFile | None = Field(default=None, description="the file and lines it was imported from "
                                                                     "(a writer that imports from files)")

    @model_validator(mode="after")
    def _consistent(self) -> EntryIn:
        if self.valid_from and self.valid_until and self.valid_until < self.valid_from:
            raise ValueError("valid_until is before valid_from")
        if self.is_bloodstain and self.provenance != Provenance.DeathReflection:
            raise ValueError("is_bloodstain applies only to provenance DeathReflection")
        return self


class EntryBatch(StrictModel):
    entries: Annotated[list[EntryIn], Field(min_length=1, max_length=MAX_BATCH)]


class EntryOutcomeIn(StrictModel):
    """What happened after an entry was retrieved: strength grows only on use + positive outcome."""

    used_in_decision: bool
    outcome: Outcome
    dream_validated: bool = False
    episode_id: ClientId | None = Field(default=None, description="the episode that recorded the outcome")
