"""A crystal's lifecycle (knowledge-crystals.md, "Lifecycle"), exactly the spec's state diagram:

    [*] → generated (ingest)
    generated → activated | consolidated | expired | frozen
    activated → consolidated | archived | frozen
    frozen → frozen (immutable: a change is a new version, a new crystal)
    expired, archived → purged (physical deletion); consolidated has no way out

Skills never expire (they are immune to decay). Any other move is refused with a Conflict (409) naming both
states."""

from __future__ import annotations

from enum import StrEnum

from graph.errors import Conflict


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
