"""Shapes shared by episodes and entries: ids, times, the PAD emotional tag, entity mentions."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    WithJsonSchema,
    model_validator,
)

from grimoire.graph.model.enums import BehavioralPhase, EntityKind, PlutchikEmotion

MAX_TEXT = 20_000
MAX_LIST = 100
MAX_INT = 2**63 - 1  # Neo4j integers are 64-bit
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9:._\-]{0,127}$"

ClientId = Annotated[str, Field(pattern=ID_PATTERN, description="Client-supplied id; a UUIDv7 is made when absent")]
AgentId = Annotated[str, Field(pattern=ID_PATTERN, description="The agent (namespace) that owns the item")]
ShortText = Annotated[str, Field(min_length=1, max_length=200)]


def _finite(x: float | None) -> float | None:
    if x is not None and not math.isfinite(x):
        raise ValueError("must be a finite number")
    return x


FiniteFloat = Annotated[float, AfterValidator(_finite)]

EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=UTC)


def _instant(value: datetime) -> datetime:
    """A time in UTC within EARLIEST..LATEST (a naive time is read as UTC); anything else is refused (422)."""
    try:
        utc = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except OverflowError:
        utc = None
    if utc is None or not EARLIEST <= utc <= LATEST:
        raise ValueError(f"a time must lie between {EARLIEST.isoformat()} and {LATEST.isoformat()} once in UTC")
    return utc


Instant = Annotated[datetime, AfterValidator(_instant)]
"""Every time a request carries (bodies and queries): ISO 8601, normalised to UTC, years 1970 to 9999."""
LATEST_MS = int(LATEST.timestamp() * 1000)
EpochMs = Annotated[int, Field(ge=0, le=LATEST_MS, description="epoch milliseconds, years 1970 to 9999")]
"""A time a request carries as epoch milliseconds that is stored (the same range as Instant)."""
Unit = Annotated[float, Field(ge=0.0, le=1.0), AfterValidator(_finite)]
Signed = Annotated[float, Field(ge=-1.0, le=1.0), AfterValidator(_finite)]


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, use_enum_values=False)


def to_ms(value: datetime | None) -> int | None:
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return int(value.timestamp() * 1000)


def from_ms(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC)


_FIRST = datetime(1, 1, 1, tzinfo=UTC)


def stored_time(value: object) -> object:
    """A stored time (epoch milliseconds) as an aware UTC datetime; one outside what a datetime holds (stored
    before inputs were bounded) as the nearest time it can hold, never an error. Anything else is left to
    pydantic (an ISO 8601 string, a datetime)."""
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return from_ms(value)
        except (OverflowError, OSError, ValueError):
            return LATEST if value > 0 else _FIRST
    return value


def _iso(value: datetime) -> str:
    return value.isoformat()


StoredTime = Annotated[datetime, BeforeValidator(stored_time), PlainSerializer(_iso, return_type=str, when_used="json"),
                       WithJsonSchema({"type": "string", "format": "date-time"})]
"""Every stored time an answer carries as ISO 8601: the node holds epoch milliseconds, the model an aware
datetime, the wire `datetime.isoformat()` (UTC, `+00:00`)."""


def is_vector(key: str) -> bool:
    """An embedding (`embedding`, a skill's `embedding_semantic`, ...): an answer never carries one — three of them
    on each skill's episode would outgrow a list, and MCP's event size with it."""
    return key == "embedding" or key.startswith("embedding_")


class StoredNode(BaseModel):
    """A node's properties as an answer: open (an import restores an item's properties as exported, which may be
    more than a model declares), never with an embedding; declared times are `StoredTime`s."""

    model_config = ConfigDict(extra="allow")

    @model_validator(mode="before")
    @classmethod
    def _without_vectors(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if not is_vector(k)}
        return data


class EmotionalTag(StrictModel):
    """Emotional context at encoding: Plutchik primary, PAD vector, behavioural phase, intensity."""

    primary: PlutchikEmotion | None = None
    pleasure: Signed = 0.0
    arousal: Signed = 0.0
    dominance: Signed = 0.0
    phase: BehavioralPhase | None = None
    intensity: Unit | None = Field(default=None, description="0..1, intensity at the time of encoding")
    label: Annotated[str, Field(max_length=200)] | None = Field(default=None, description="free-form, e.g. 'anxious'")

    def as_properties(self) -> dict[str, object]:
        return {
            "emotion_primary": self.primary.value if self.primary else None,
            "pad": [self.pleasure, self.arousal, self.dominance],
            "emotion_phase": self.phase.value if self.phase else None,
            "emotion_intensity": self.intensity,
            "emotion_label": self.label,
        }


_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")


class EntityMention(StrictModel):
    """An entity an episode mentions: on-chain by chain id and address, otherwise by kind and name."""

    kind: EntityKind
    name: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    chain_id: Annotated[int, Field(ge=0, le=MAX_INT)] | None = None
    address: str | None = None

    @model_validator(mode="after")
    def _identifiable(self) -> EntityMention:
        if self.address is not None and not _ADDRESS.match(self.address):
            raise ValueError("address must be 0x followed by 40 hex digits")
        if self.address is None and not self.name:
            raise ValueError("an entity needs an address (with chain_id) or a name")
        if self.address is not None and self.chain_id is None:
            raise ValueError("an on-chain address needs its chain_id")
        return self

    @property
    def canonical_id(self) -> str:
        if self.address is not None:
            return f"{self.chain_id}:{self.address.lower()}"
        return f"{self.kind.value.lower()}:{' '.join((self.name or '').lower().split())}"
