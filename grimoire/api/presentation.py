"""What only an item's owner may read, left out of an answer for everyone else. (Times and embeddings are the
answer models' business: `StoredTime` and `StoredNode`, graph/model/common.py.)"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from grimoire.graph.visibility import Visibility

OWNER_ONLY = ("source_owner_address",)
"""Read only by the item's owner (its agent, or a person acting for it) and the admin (seed 000, Lethe)."""

M = TypeVar("M", bound=BaseModel)


def for_viewer(item: M, visibility: Visibility | None, owner: str | None = None) -> M:
    """The item without what only its owner may read, unless the caller owns it (`owner`: the item's agent,
    when the item in hand does not carry it, as a version does not); what the item does not have stays unset."""
    if owns(visibility, owner if owner is not None else getattr(item, "agent_id", None)):
        return item
    kept = item.model_dump(exclude_unset=True)
    if not any(key in kept for key in OWNER_ONLY):
        return item
    return type(item).model_validate({k: v for k, v in kept.items() if k not in OWNER_ONLY})


def owns(visibility: Visibility | None, agent_id: str | None) -> bool:
    return visibility is not None and (visibility.admin or bool(visibility.viewer) and agent_id == visibility.viewer)
