"""Rows typed at the database's edge (issue 38 §1): a statement's row is validated into a `Row` model declared
beside the subsystem that reads it (`Database.typed(name, Model, **params)`), and travels from there as that
model — through the service, the route's declared response model, the client and the MCP tool — instead of as a
dict whose keys nothing checks. A `Row` names its statement (`query`), and tests/unit/test_cypher_contract.py
checks that the statement's RETURN keys are the model's fields, so a key renamed on one side fails there.

`StoredTime`: a time as stored (epoch milliseconds) read as an aware datetime and written back out as ISO 8601
the way the API always has (api/presentation.py `iso`: `+00:00`, a time outside what a datetime holds shown as
the nearest it can)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, PlainSerializer

EARLIEST = datetime(1, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=UTC)


def from_ms(value: Any) -> Any:
    """Epoch milliseconds as an aware datetime (an ISO text or a datetime passes through to pydantic)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    try:
        return datetime.fromtimestamp(value / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return LATEST if value > 0 else EARLIEST


def iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat()


def to_ms(value: datetime) -> int:
    """A time as stored: epoch milliseconds."""
    return int(value.timestamp() * 1000)


StoredTime = Annotated[datetime, BeforeValidator(from_ms), PlainSerializer(iso, return_type=str)]


class Row(BaseModel):
    """One row of the statement `query` names (cypher/<query>.cypher): its fields are the statement's RETURN keys.
    Frozen (a row is what the database said), and a key the model does not declare is an error, not dropped."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    query: ClassVar[str | None] = None

    registry: ClassVar[dict[str, type[Row]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("query"):
            Row.registry[f"{cls.__module__}.{cls.__qualname__}"] = cls
