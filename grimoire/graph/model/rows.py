"""Rows typed at the database's edge (issue 38 §1): a statement's row is validated into a `Row` model declared
beside the subsystem that reads it (`Database.typed(Model, **params)`), and travels from there as that model —
through the service, the route's declared response model, the client and the MCP tool — instead of as a dict
whose keys nothing checks. A `Row` names its statement (`query`), and tests/unit/test_cypher_contract.py checks
that the statement's RETURN keys are the model's fields, so a key renamed on one side fails there."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict


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
