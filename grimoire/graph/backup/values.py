"""Property values as JSON and back, exactly: Neo4j's temporal, spatial and byte values as tagged objects (a
property is never a map, so an object is always a tag), non-finite floats tagged (JSON has none), and lists
of 32-bit floats apart, so a restore stores them as vectors again (db.create.setNodeVectorProperty)."""

from __future__ import annotations

import base64
import math
from typing import Any

import numpy as np
from neo4j.spatial import CartesianPoint, Point, WGS84Point
from neo4j.time import Date, DateTime, Duration, Time

Json = Any

_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _zone(tz: Any) -> str | None:
    """A named zone's name (pytz's `zone`, zoneinfo's `key`); None for a fixed offset."""
    name = getattr(tz, "zone", None) or getattr(tz, "key", None)
    return str(name) if name else None


def _plain(items: list[Any]) -> bool:
    """A list JSON holds as it is: strings, integers and booleans, or finite floats (their sum is finite)."""
    if all(type(x) is float for x in items):
        return math.isfinite(sum(items))
    return all(type(x) in (str, int, bool) for x in items)


def encode(value: Any) -> Json:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$float": "nan" if math.isnan(value) else
                                                   ("inf" if value > 0 else "-inf")}
    if isinstance(value, bytes | bytearray):
        return {"$bytes": base64.b64encode(bytes(value)).decode()}
    if isinstance(value, DateTime):
        if value.tzinfo is None:
            return {"$localdatetime": value.iso_format()}
        return {"$datetime": value.iso_format(), "zone": _zone(value.tzinfo)}
    if isinstance(value, Date):
        return {"$date": value.iso_format()}
    if isinstance(value, Time):
        if value.tzinfo is None:
            return {"$localtime": value.iso_format()}
        return {"$time": value.iso_format()}
    if isinstance(value, Duration):
        return {"$duration": [value.months, value.days, value.seconds, value.nanoseconds]}
    if isinstance(value, Point):
        return {"$point": value.srid, "coordinates": list(value)}
    if isinstance(value, list | tuple):  # after Duration and Point, which are tuples too
        if isinstance(value, list) and _plain(value):
            return value  # the common case, an embedding of hundreds of floats: no call per element
        return [encode(v) for v in value]
    raise TypeError(f"a property value of type {type(value).__name__} cannot be backed up")


def decode(value: Json) -> Any:
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "$float" in value:
        return _FLOATS[value["$float"]]
    if "$bytes" in value:
        return base64.b64decode(value["$bytes"])
    if "$localdatetime" in value:
        return DateTime.from_iso_format(value["$localdatetime"])
    if "$datetime" in value:
        at = DateTime.from_iso_format(value["$datetime"])
        if value.get("zone"):
            import pytz  # type: ignore[import-untyped]  # the driver's own dependency: its named zones

            at = at.astimezone(pytz.timezone(value["zone"]))
        return at
    if "$date" in value:
        return Date.from_iso_format(value["$date"])
    if "$localtime" in value:
        return Time.from_iso_format(value["$localtime"])
    if "$time" in value:
        return Time.from_iso_format(value["$time"])
    if "$duration" in value:
        months, days, seconds, nanoseconds = value["$duration"]
        return Duration(months=months, days=days, seconds=seconds, nanoseconds=nanoseconds)
    if "$point" in value:
        srid, coords = int(value["$point"]), value["coordinates"]
        cls = WGS84Point if srid in (4326, 4979) else CartesianPoint
        return cls(coords)
    raise ValueError(f"an unknown tagged value {sorted(value)}")


def is_vector(value: Any) -> bool:
    """A non-empty list of floats each exactly a 32-bit float: what setNodeVectorProperty stores (an embedding).
    A list of doubles that happen to be 32-bit exact is stored so too: the same values read back."""
    if not isinstance(value, list) or not value or not all(type(x) is float for x in value):
        return False
    arr = np.asarray(value, dtype=np.float64)
    return bool(np.all(np.isfinite(arr)) and np.array_equal(arr.astype(np.float32).astype(np.float64), arr))


def split(properties: dict[str, Any]) -> tuple[dict[str, Json], dict[str, list[float]]]:
    """A node's or relationship's properties as JSON: the plain ones, and the vectors apart."""
    plain: dict[str, Json] = {}
    vectors: dict[str, list[float]] = {}
    for key, value in properties.items():
        if is_vector(value):
            vectors[key] = value
        else:
            plain[key] = encode(value)
    return plain, vectors
