"""Turning stored properties into API answers: epoch milliseconds become ISO 8601 times, and what only an
item's owner may read is left out for everyone else."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from grimoire.graph.visibility import Visibility

TIME_FIELDS = ("valid_from", "valid_until", "recorded_at", "recorded_until", "last_accessed_at", "updated_at", "at")
OWNER_ONLY = ("source_owner_address",)
"""Read only by the item's owner (its agent, or a person acting for it) and the admin (seed 000, Lethe)."""

EARLIEST = datetime(1, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=UTC)


def iso(ms: int) -> str:
    """A stored time as ISO 8601; one outside what a datetime holds (stored before inputs were bounded) is
    shown as the nearest time it can hold, never an error."""
    try:
        return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat()
    except (OverflowError, OSError, ValueError):
        return (LATEST if ms > 0 else EARLIEST).isoformat()


def present(props: dict[str, Any], visibility: Visibility | None = None) -> dict[str, Any]:
    """The item as `visibility`'s caller may read it; with no caller, as anyone but its owner may."""
    out = {k: v for k, v in for_viewer(props, visibility).items() if not is_vector(k)}
    for key in TIME_FIELDS:
        if isinstance(out.get(key), int):
            out[key] = iso(out[key])
    return out


def is_vector(key: str) -> bool:
    """An embedding (`embedding`, a skill's `embedding_semantic`, ...): an answer never carries one — three of them
    on each skill's episode would outgrow a list, and MCP's event size with it."""
    return key == "embedding" or key.startswith("embedding_")


def for_viewer(props: dict[str, Any], visibility: Visibility | None, owner: str | None = None) -> dict[str, Any]:
    """The item without what only its owner may read, unless the caller owns it (`owner`: the item's agent,
    when the item in hand does not carry it, as a version does not)."""
    out = dict(props)
    if not owns(visibility, out if owner is None else {"agent_id": owner}):
        for key in OWNER_ONLY:
            out.pop(key, None)
    return out


def owns(visibility: Visibility | None, item: dict[str, Any]) -> bool:
    return visibility is not None and (visibility.admin or bool(visibility.viewer)
                                       and item.get("agent_id") == visibility.viewer)
