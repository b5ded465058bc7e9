"""What only an item's owner may read, left out of an answer for everyone else. (Times and embeddings are the
answer models' business: `StoredTime` and `StoredNode`, graph/model/common.py.)"""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel

from grimoire.graph.visibility import Visibility

OWNER_ONLY = ("source_owner_address",)
"""Read only by the item's owner (its agent, or a person acting for it) and the admin (seed 000, Lethe)."""

M = TypeVar("M", bound=BaseModel)


def for_viewer(item: M, visibility: Visibility | None, owner: str | None = None) -> M:
    """The item without what only its owner may read, unless the caller owns it (`owner`: the item's agent,
    when the item in hand does not carry it, as a version does not), in a version's kept `state` (JSON) too;
    what the item does not have stays unset."""
    if owns(visibility, owner if owner is not None else getattr(item, "agent_id", None)):
        return item
    kept = item.model_dump(exclude_unset=True)
    state = _state_for_anyone(kept.get("state"))
    if not any(key in kept for key in OWNER_ONLY) and state is None:
        return item
    out = _for_anyone(kept)
    if state is not None:
        out["state"] = state
    return type(item).model_validate(out)


def _state_for_anyone(state: object) -> str | None:
    """A version's kept state (the item's properties as JSON) without the owner-only ones; None when it holds none."""
    if not isinstance(state, str):
        return None
    try:
        props = json.loads(state)
    except ValueError:
        return None
    if not isinstance(props, dict) or not any(key in props for key in OWNER_ONLY):
        return None
    return json.dumps(_for_anyone(props), sort_keys=True)


def _for_anyone(props: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if k not in OWNER_ONLY}


def owns(visibility: Visibility | None, agent_id: str | None) -> bool:
    return visibility is not None and (visibility.admin or bool(visibility.viewer) and agent_id == visibility.viewer)
