"""A backup's property values as JSON and back (graph/backup/values.py): each of Neo4j's value types returns as
the same type and value; embeddings (lists of 32-bit floats) go apart, to be stored as vectors again."""

from __future__ import annotations

import json
import math

import numpy as np
import pytz
from neo4j.spatial import CartesianPoint, WGS84Point
from neo4j.time import Date, DateTime, Duration, Time

from grimoire.graph.backup import values


def _round_trip(value: object) -> object:
    return values.decode(json.loads(json.dumps(values.encode(value), allow_nan=False)))


def test_every_value_type_returns_as_itself() -> None:
    berlin = pytz.timezone("Europe/Berlin").localize(DateTime(2024, 1, 1, 10, 0, 0, 123456789))
    cases = [None, True, 7, 2.0, "text", ["a", "b"], [1, 2], [0.1, 0.2], [], b"\x00\xffbytes",
             berlin, DateTime(2024, 1, 1, 1, 2, 3), Date(2024, 2, 3), Time(12, 0, 1, 500000000),
             Time(10, 0, 0, 0, tzinfo=pytz.FixedOffset(120)), Duration(months=14, days=3, seconds=14405,
                                                                          nanoseconds=500000000),
             CartesianPoint((1.5, 2.0)), WGS84Point((8.0, 50.0, 3.0)), [Date(2024, 1, 1), Date(2024, 1, 2)]]
    for value in cases:
        back = _round_trip(value)
        assert back == value and type(back) is type(value), (value, back)
    zoned = _round_trip(berlin)
    assert isinstance(zoned, DateTime) and zoned.tzinfo is not None and zoned.tzinfo.zone == "Europe/Berlin"


def test_a_duration_is_not_taken_for_a_list() -> None:
    """Duration and Point are tuples: tagged as themselves, not written as lists of numbers."""
    assert values.encode(Duration(days=1)) == {"$duration": [0, 1, 0, 0]}
    assert values.encode(CartesianPoint((1.0, 2.0)))["$point"] == 7203


def test_non_finite_floats_survive_strict_json() -> None:
    for x in (math.inf, -math.inf):
        assert _round_trip(x) == x
    assert math.isnan(_round_trip(math.nan))  # type: ignore[arg-type]


def test_vectors_go_apart_and_other_lists_stay() -> None:
    vector = np.random.default_rng(1).normal(size=8).astype(np.float32).tolist()
    plain, vectors = values.split({"embedding": vector, "weights": [0.1, 0.2], "ids": [1, 2], "n": 1.5})
    assert vectors == {"embedding": vector}
    assert plain == {"weights": [0.1, 0.2], "ids": [1, 2], "n": 1.5}
    assert not values.is_vector([]) and not values.is_vector([1, 2]) and not values.is_vector([True])
