"""Who may see what: the one visibility rule, as a type.

An item (episode, entry, fact, link) is visible to a viewer when the viewer is an admin, owns it,
it is public, or it is shared within the viewer's clade. Every Cypher file that reads for a caller
writes this rule in one of the canonical forms below, word for word (tests/unit/test_cypher_contract.py
checks it); `Visibility.sees` is the same rule for items already in hand."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from grimoire.graph.model.rows import Params

PARAMS = ("viewer", "clade", "admin")


def item_predicate(var: str) -> str:
    """The rule over the item bound to `var`, as the Cypher files write it."""
    return (f"$admin OR {var}.agent_id = $viewer OR {var}.scope = 'public' "
            f"OR ({var}.scope = 'shared' AND {var}.clade = $clade)")


def owner_predicate(var: str) -> str:
    """Records that are never shared (admission decisions): the owner or an admin."""
    return f"$admin OR {var}.agent_id = $viewer"


def writer_predicate(var: str) -> str:
    """Who may record an outcome on a causal link: its owner, or its clade when shared (not the
    public: a public link is read by all and changed by its own)."""
    return f"$admin OR {var}.agent_id = $viewer OR ({var}.scope = 'shared' AND {var}.clade = $clade)"


def run_predicate(var: str) -> str:
    """Analysis runs: those of no agent (the admin's, the loaders') and the viewer's own."""
    return f"{var}.owner IS NULL OR {var}.owner = $viewer"


# Entities are seen through what mentions them or states facts about them, or by being public, or
# by having been created by the viewer (graph/topology/entities.py). Archived items (forgotten memories,
# archived crystals) and archived facts make nothing visible (expired items have no relationships left),
# and a creator whose own memories that mention the entity were forgotten no longer sees it through them.
ENTITY_PREDICATE = (
    "$admin OR en.public OR ($viewer IN en.creators AND NOT EXISTS { (en)<-[:MENTIONS]-(m:Memory) WHERE "
    "m.agent_id = $viewer AND m.archived_at IS NOT NULL }) OR EXISTS { (en)<-[:MENTIONS]-(m) WHERE "
    "m.archived_at IS NULL AND coalesce(m.lifecycle, '') <> 'archived' AND (m.agent_id = $viewer "
    "OR m.scope = 'public' OR (m.scope = 'shared' AND m.clade = $clade)) } OR EXISTS { (en)-[f]-() WHERE "
    "f.fact_id IS NOT NULL AND f.archived_at IS NULL AND (f.agent_id = $viewer OR f.scope = 'public' "
    "OR (f.scope = 'shared' AND f.clade = $clade)) }"
)


def seek_branches(var: str) -> tuple[str, ...]:
    """The seek form (retrieval's exact ranking, counts and contrarian picks): one index seek per
    clause of the item rule, their union being the visible set; each seek value is null unless its
    branch applies. With retrieval's filters ($labels, $agent_id) the own-items guard also checks
    the agent filter."""
    return ("AND NOT $admin AND ($agent_id IS NULL OR $agent_id = $viewer) THEN $viewer END",
            "WHEN NOT $admin THEN $viewer END",
            f"THEN 'shared' END AND {var}.clade = $clade")


@dataclass(frozen=True)
class Visibility:
    """The caller's side of the rule: its agent (empty for the admin key), its clade, admin or not."""

    viewer: str
    clade: str
    admin: bool = False

    @classmethod
    def of(cls, agent_id: str | None, clade: str | None, admin: bool = False) -> Visibility:
        return cls(viewer=agent_id or "", clade=clade or "", admin=admin)

    @classmethod
    def everything(cls) -> Visibility:
        """The admin's view (maintenance, the scheduler): every item."""
        return cls(viewer="", clade="", admin=True)

    def params(self) -> Params:
        """The Cypher parameters of the rule: $viewer, $clade, $admin."""
        return {"viewer": self.viewer, "clade": self.clade, "admin": self.admin}

    def sees(self, item: Mapping[str, Any]) -> bool:
        """The rule for an item already in hand (its agent_id, scope and clade)."""
        return bool(self.admin or item.get("agent_id") == self.viewer or item.get("scope") == "public"
                    or (item.get("scope") == "shared" and self.clade and item.get("clade") == self.clade))

    def sees_everything(self, agent_id: str | None = None) -> bool:
        """True for the admin with no agent filter: queries then take their _all variant, which
        filters nothing and so can use a plain index search."""
        return self.admin and agent_id is None

    def variant(self, query: str, agent_id: str | None = None) -> str:
        """`query`, or its `_all` variant when this caller sees everything."""
        return f"{query}_all" if self.sees_everything(agent_id) else query


# The admin's view: everything. For trusted callers (loaders, benchmarks, the CLI, analyses no key narrows).
EVERYONE = Visibility.everything()
