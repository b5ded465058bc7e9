"""A crystal's lifecycle (knowledge-crystals.md, "Lifecycle"), exactly the spec's state diagram:

    [*] → generated (ingest)
    generated → activated | consolidated | expired | frozen
    activated → consolidated | archived | frozen
    frozen → frozen (immutable: a change is a new version, a new crystal)
    expired, archived → purged (physical deletion); consolidated has no way out

Skills never expire (they are immune to decay). Any other move is refused with a Conflict (409) naming both
states. Forgetting (moltbot-memory.md 8.3, a person's request, not the consolidation engine's) archives a memory
from whatever live state it is in and restoring puts it back in that state (cypher/memory/archive.cypher,
restore.cypher). An archived item is read by id only when the reader asks for archived items too (`archived`)."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from grimoire.graph.errors import Conflict


class Lifecycle(StrEnum):
    generated = "generated"        # just created or indexed
    activated = "activated"        # frequently accessed, high importance
    consolidated = "consolidated"  # merged with related crystals (the winner)
    archived = "archived"          # low importance or a merge's loser, kept for lineage
    expired = "expired"            # marked for purge
    frozen = "frozen"              # immutable (skills, critical memories)


S = Lifecycle
INITIAL = S.generated
TRANSITIONS: dict[Lifecycle, frozenset[Lifecycle]] = {
    S.generated: frozenset({S.activated, S.consolidated, S.expired, S.frozen}),
    S.activated: frozenset({S.consolidated, S.archived, S.frozen}),
    S.frozen: frozenset({S.frozen}),
    S.consolidated: frozenset(),
    S.archived: frozenset(),
    S.expired: frozenset(),
}
PURGEABLE: frozenset[Lifecycle] = frozenset({S.expired, S.archived})


class IllegalTransition(Conflict):
    """A move the lifecycle does not have (409)."""


def allowed(current: Lifecycle, target: Lifecycle, *, skill: bool = False) -> bool:
    return target in TRANSITIONS[current] and not (skill and target == S.expired)


def check(current: Lifecycle, target: Lifecycle, *, skill: bool = False) -> None:
    """Raise IllegalTransition unless `current` → `target` is a transition of the lifecycle (for this crystal)."""
    if skill and target == S.expired:
        raise IllegalTransition(f"a skill never expires: {current.value} → {target.value} is refused")
    if target not in TRANSITIONS[current]:
        ways = ", ".join(sorted(t.value for t in TRANSITIONS[current])) or "none; only a purge"
        raise IllegalTransition(f"{current.value} → {target.value} is not a transition of the crystal lifecycle "
                                f"(from {current.value}: {ways})")


def mutable(state: Lifecycle) -> bool:
    """A frozen crystal is immutable: a change to it creates a new version."""
    return state != S.frozen


def archived(item: Mapping[str, Any]) -> bool:
    """An item out of the live store: a forgotten memory (archived_at), an archived crystal (a merge's loser, an
    activated crystal of low importance), an entry the Curator archived (status archived)."""
    return (item.get("lifecycle") == S.archived.value or item.get("archived_at") is not None
            or item.get("status") == S.archived.value)
