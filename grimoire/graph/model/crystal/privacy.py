"""Memory crystals never leave the node (knowledge-crystals.md, "Memory Crystals vs Knowledge Crystals"): an
episode, preference, relationship, fact or goal is private and autobiographical; only knowledge crystals (skill,
task pattern) are eligible for the marketplace. The other types (insight, general) are neither: they keep the
scope they are written with and are never listed.

Under the `private` rule (GRIMOIRE_CRYSTALS memory_scope, the document's default) a memory crystal written with a
wider scope is stored private, the scope asked for kept as `requested_scope` (as a confidential crystal is:
graph/model/crystal/governance.py), and every explicit share of one — a rescope, a fork into a wider scope, a
strategy package, a listing — is refused (422). `as_written` keeps the scope its writer gave (grimoire.md's clade
warnings, line 1426), for a deployment that wants them."""

from __future__ import annotations

from enum import StrEnum

from grimoire.graph.errors import Invalid
from grimoire.graph.model.crystal.fields import ENTRY_TYPES, SemanticType

MEMORY: frozenset[str] = frozenset({SemanticType.episode, SemanticType.preference, SemanticType.relationship,
                                    SemanticType.fact, SemanticType.goal})
KNOWLEDGE: frozenset[str] = frozenset({SemanticType.skill, SemanticType.task_pattern})


class MemoryScope(StrEnum):
    private = "private"        # the document's: a memory crystal is its owner's alone
    as_written = "as_written"  # the scope its writer gave (the clade's warnings of grimoire.md)


class MemoryCrystalShare(Invalid):
    """A memory crystal asked to be shared, listed or packaged (422): it never leaves the node."""


def is_memory(semantic_type: str | None) -> bool:
    return semantic_type in MEMORY


def is_knowledge(semantic_type: str | None) -> bool:
    return semantic_type in KNOWLEDGE


def category_type(category: str | None) -> str:
    """An entry category's semantic type (graph/model/crystal/fields.py ENTRY_TYPES)."""
    found = ENTRY_TYPES.get(str(category))
    return (found[0] if found else SemanticType.general).value


def private_scope(semantic_type: str | None, scope: str, rule: MemoryScope) -> str:
    """The scope a crystal of this type is stored with when its writer asks for `scope`."""
    return "private" if rule is MemoryScope.private and is_memory(semantic_type) else scope


def refuse_share(crystal_id: str, semantic_type: str | None, scope: str, rule: MemoryScope, what: str) -> None:
    """Refuse (422) an explicit share of a memory crystal into a scope wider than private."""
    if scope != "private" and private_scope(semantic_type, scope, rule) == "private":
        raise MemoryCrystalShare(f"{crystal_id} is a memory crystal ({semantic_type}): private, it never leaves "
                                 f"the node; only knowledge crystals (skill, task_pattern) can be {what}")
