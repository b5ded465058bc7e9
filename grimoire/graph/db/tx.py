"""What a unit of work is given to run its statements on: the driver's managed transaction (`Database.write`,
`Database.read`) or a transaction shared with neomodel (graph/db/ogm.py). Functions that write beside their
callers' other statements (audit records, versions, the stores' `*_in` helpers) take a `Tx`, so they run the
same in either."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from neo4j import Record


class Rows(Protocol):
    """A statement's result as the project reads it: its records in order, the first alone, or drained."""

    def __iter__(self) -> Iterator[Record]: ...

    def single(self) -> Record | None: ...

    def consume(self) -> object: ...


class Tx(Protocol):
    def run(self, query: str, parameters: dict[str, Any] | None = None, **kwparameters: Any) -> Rows: ...


def one(rows: Rows) -> Record:
    """The one record a statement always returns (an aggregate, a counter)."""
    record = rows.single()
    if record is None:
        raise LookupError("the statement returned no record")
    return record
