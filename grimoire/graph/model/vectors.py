"""Vectors from clients (query vectors and supplied embeddings): the rules Neo4j's vector index and
functions need, checked at the edge so that a bad vector is a 422 that names the rule, never a
500 from the database.

Neo4j stores and compares vectors as float32 and refuses a vector whose l2-norm is not positive
and finite, so both checks are made after conversion to float32: 1e308 is finite as a float64
but infinite as a float32, and 1e-30 squared underflows to a zero norm.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Annotated

import numpy as np
from pydantic import AfterValidator, Field

from grimoire.graph.errors import Invalid

MAX_DIMENSIONS = 4_096


class InvalidVector(Invalid):
    """A vector breaks one of the rules below; the message says which."""


def vector_problem(values: Sequence[float], dimension: int | None = None) -> str | None:
    """The first rule the vector breaks, or None: dimension, finite values, float32 range, norm."""
    if dimension is not None and len(values) != dimension:
        return f"dimension: the vector has {len(values)} dimensions; the index has {dimension}"
    if not all(math.isfinite(x) for x in values):
        return "finite: every value must be a finite number (no NaN or Infinity)"
    with np.errstate(over="ignore", under="ignore"):
        as32 = np.asarray(values, dtype=np.float32)
        if not np.all(np.isfinite(as32)):
            return "float32: a value is too large for a float32 (|x| > 3.4e38)"
        norm = float(np.sqrt(np.dot(as32, as32)))
    if not (norm > 0.0 and math.isfinite(norm)):
        return f"norm: the l2-norm must be positive and finite as float32, and is {norm}"
    return None


def check_vector(values: Sequence[float], dimension: int | None = None, what: str = "vector") -> None:
    problem = vector_problem(values, dimension)
    if problem is not None:
        raise InvalidVector(f"{what}: {problem}")


def _valid(values: list[float]) -> list[float]:
    problem = vector_problem(values)
    if problem is not None:
        raise ValueError(problem)
    return values


# Every request field that carries a vector uses this type; the dimension, known only once the
# embedding model is loaded, is checked where the vector is used (check_vector with a dimension).
# The schema extension lets the property test find every such field.
Vector = Annotated[list[float], Field(min_length=1, max_length=MAX_DIMENSIONS, json_schema_extra={"x-vector": True}),
                   AfterValidator(_valid)]
