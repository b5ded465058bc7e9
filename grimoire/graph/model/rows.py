"""Rows typed at the database's edge (issue 38 §1): a statement's row is validated into a `Row` model declared
beside the subsystem that reads it (`Database.typed(Model, **params)`), and travels from there as that model —
through the service, the route's declared response model, the client and the MCP tool — instead of as a dict
whose keys nothing checks. A `Row` names its statement (`query`), and tests/unit/test_cypher_contract.py checks
that the statement's RETURN keys are the model's fields, so a key renamed on one side fails there."""

from __future__ import annotations

from typing import Any, ClassVar, TypeAlias

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


# Open maps that say why they are open. A function in graph/ returns `dict[str, Any]` only while its answer is still
# to be typed (tests/unit/test_typed_edges.py counts them down); these four are open by nature, and no route's answer
# is one (a free-form map may be a field of an answer model).
Properties: TypeAlias = dict[str, Any]
"""A node's or relationship's properties on their way into Neo4j (a write's parameter map, SET as given), or the
earlier values of some of them kept to undo a change."""
Params: TypeAlias = dict[str, Any]
"""The parameters of a Cypher statement, by name, or one row of a list parameter (an UNWIND's)."""
Record: TypeAlias = dict[str, Any]
"""What the database holds for a record or a node as read, before it is typed (`Database.run`, `fetch`, `rows`, a
neomodel node's properties; `Database.typed` types a record into a Row, a caller the rest into its model)."""
FreeForm: TypeAlias = dict[str, Any]
"""A map whose keys its writer chose (a provenance link's metadata, an algorithm's parameters): kept and answered
as given."""
