"""Entities and facts at the API's edge."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Collection
from typing import Annotated

from pydantic import Field, model_validator

from grimoire.graph.model.common import MAX_LIST, ClientId, EntityMention, Instant, ShortText, StrictModel, Unit
from grimoire.graph.model.enums import REL_TYPES, Direction, Predicate, Scope, ValueType

MAX_FACTS = 5_000
Block = Annotated[int, Field(ge=0, le=10**12)]
EntityId = Annotated[str, Field(min_length=3, max_length=260, pattern=r"^[A-Za-z0-9][^\x00-\x1f]*$")]


class EntityIn(EntityMention):
    """An entity with its canonical id: `<chain id>:<lower-cased address>` on chain, else `<kind>:<name>`."""

    symbol: ShortText | None = None
    aliases: Annotated[list[ShortText], Field(max_length=MAX_LIST)] = Field(default_factory=list)


class FactIn(StrictModel):
    """Subject, predicate, object (an entity or a scalar), valid time in blocks, confidence."""

    id: ClientId | None = Field(default=None, description="idempotency key; derived from the content when absent")
    subject: EntityId
    predicate: Predicate
    name: ShortText | None = Field(default=None, description="the Custom predicate's name")
    object: EntityId | None = Field(default=None, description="an entity id ...")
    value: str | float | bool | None = Field(default=None, description="... or a scalar")
    value_type: ValueType | None = None
    valid_from: Block
    valid_to: Block | None = None
    exclusive: bool | None = Field(
        default=None, description="one object at a time: asserting it closes the active fact of the same subject and "
                                  "predicate with another object. Default: true, except for the multi-valued "
                                  "predicates (GRIMOIRE_FACTS `multi_valued`)")
    source_episode: ClientId | None = None
    confidence: Unit = 1.0
    approximate: bool = Field(default=False, description="valid time estimated (e.g. from a commit time)")
    valid_from_source: ShortText | None = None
    valid_from_time: Instant | None = Field(
        default=None, description="when the valid_from block happened, if known: the fact's information lag is "
                                  "its recorded time minus this")
    scope: Scope = Scope.private

    @model_validator(mode="after")
    def _shape(self) -> FactIn:
        if (self.object is None) == (self.value is None):
            raise ValueError("give either object (an entity id) or value (a scalar)")
        if self.predicate == Predicate.Custom and not self.name:
            raise ValueError("a Custom predicate needs a name")
        if self.predicate != Predicate.Custom and self.name:
            raise ValueError("only Custom predicates have a name")
        if self.valid_to is not None and self.valid_to <= self.valid_from:
            raise ValueError("valid_to must be after valid_from")
        if isinstance(self.value, float) and not math.isfinite(self.value):
            raise ValueError("value must be a finite number")
        return self

    @property
    def rel_type(self) -> str:
        return REL_TYPES[self.predicate]

    def closes_others(self, multi_valued: Collection[Predicate]) -> bool:
        """Whether asserting it closes the subject's active fact of this predicate with another object: its own
        `exclusive` when given, else every predicate but the multi-valued ones (grimoire.md's assert_fact)."""
        return self.predicate not in multi_valued if self.exclusive is None else self.exclusive

    def extra_properties(self) -> dict[str, str | int | float | bool]:
        """Properties beyond the API's fields that the fact keeps (an inference's provenance): none here."""
        return {}

    def scalar(self) -> tuple[str, str | float | bool] | None:
        """The Value node's id and value for a scalar object."""
        if self.value is None:
            return None
        kind = self.value_type or (ValueType.boolean if isinstance(self.value, bool) else
                                   ValueType.number if isinstance(self.value, int | float) else ValueType.string)
        return f"{kind.value}:{self.value}", self.value

    def derived_id(self, owner: str | None = None) -> str:
        """From the content, and the owner when given (an agent's own statement; the world's have none)."""
        parts = (self.subject, self.predicate.value, self.name, self.object, self.value, self.valid_from,
                 self.valid_to)
        key = "|".join(str(x) for x in (parts if owner is None else (*parts, f"owner={owner}")))
        return "fact-" + hashlib.sha1(key.encode()).hexdigest()[:24]


class FactsIn(StrictModel):
    facts: Annotated[list[FactIn], Field(min_length=1, max_length=MAX_FACTS)]


class InvalidateIn(StrictModel):
    at_block: Block


class KHopIn(StrictModel):
    entity: EntityId
    block: Block
    hops: Annotated[int, Field(ge=1, le=3, description="at most 3, as the spec's traversal")] = 3
    direction: Direction = Direction.both
    predicates: Annotated[list[Predicate], Field(max_length=len(Predicate))] = Field(default_factory=list)
    known_at: int | None = Field(default=None, ge=0, description="recorded time (ms) to look back to")
    limit: Annotated[int, Field(ge=1, le=10_000)] = 1_000


class CuriosityIn(StrictModel):
    event_entity: EntityId
    positions: Annotated[list[EntityId], Field(min_length=1, max_length=MAX_LIST)]
    block: Block
