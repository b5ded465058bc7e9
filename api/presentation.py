"""Turning stored properties into API answers: epoch milliseconds become ISO 8601 times."""

from __future__ import annotations

from typing import Any

from graph.model.common import from_ms

TIME_FIELDS = ("valid_from", "valid_until", "recorded_at", "recorded_until", "last_accessed_at", "updated_at", "at")


def present(props: dict[str, Any]) -> dict[str, Any]:
    out = dict(props)
    out.pop("embedding", None)
    for key in TIME_FIELDS:
        if isinstance(out.get(key), int):
            out[key] = from_ms(out[key]).isoformat()  # type: ignore[union-attr]
    return out
