"""Versions, the ground truth of the trail (../shared/spec/moltbot-memory.md 12.2, in a graph): every mutable
item keeps its earlier states as immutable version nodes chained to it, written in the transaction of the
change that replaced them, with who wrote the state, who replaced it, when, why and which audit record.

A state is named `<item>:v<n>` (an entry's `<item>:r<n>`, its revision): the versions before the current one
are nodes (Version; an entry's also EntryVersion, a core block's also CoreBlockVersion), the current one is the
item itself. An audit record names, for each item it touched, the version before and after the change
(`before_versions`, `after_versions`, aligned with `target_ids`; "" where there is none: before a creation,
after a deletion).

A rollback (graph/audit/rollback.py) is a change like any other: it keeps the state it replaces as a version
too, so the counter only moves forward and every state stays reachable."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator

from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.model.rows import Row


class Versioned(StrEnum):
    """The items whose states are kept (an entity's agent-written properties; an agent's configuration and its
    keys; the retrieval weights policy; alerts)."""

    Memory = "Memory"
    Entry = "Entry"
    CoreBlock = "CoreBlock"
    WorkspaceFile = "WorkspaceFile"  # a critical workspace file (SOUL.md, ...: graph/memory/critical_files.py)
    Entity = "Entity"
    Agent = "Agent"
    RetrievalWeights = "RetrievalWeights"
    MemoryReflection = "MemoryReflection"
    MemoryProposal = "MemoryProposal"
    ApiKey = "ApiKey"   # its scopes and revocation: who may act for an agent is part of its configuration
    Alert = "Alert"     # its acknowledgement
    Episode = "Episode"  # a crystal's lifecycle and governance (graph/crystals/): its text never changes
    AgentHormones = "AgentHormones"
    NetworkWeather = "NetworkWeather"
    ManagementNode = "ManagementNode"  # its revocation
    Bounty = "Bounty"  # its closing by a match


# What says which state an item is in, and when that moved: bookkeeping of the chain, not the item's content
# (an export leaves them out; a rollback never moves them back).
COUNTER = {Versioned.Entry: "revision"}
BOOKKEEPING = frozenset({"version", "revision", "revised_at", "changed_at", "changed_by"})


def counter(label: Versioned | str) -> str:
    return COUNTER.get(Versioned(label), "version")


def version_id(label: Versioned | str, item_id: str, n: int) -> str:
    return f"{item_id}:{'r' if str(label) == Versioned.Entry.value else 'v'}{n}"


@dataclass(frozen=True)
class Step:
    """One item's move in one change: from the version before (None: it did not exist) to the one after
    (None: it is gone)."""

    item: str
    before: str | None
    after: str | None


def counted(label: Versioned | str, item_id: str, n: int) -> Step:
    """An item that keeps a counter instead of a chain (a causal link, a day's metric sample) moved to its n-th
    version; from none when n is 1."""
    return Step(item_id, version_id(label, item_id, n - 1) if n > 1 else None, version_id(label, item_id, n))


def created(label: Versioned | str, ids: Iterable[str]) -> list[Step]:
    return [Step(i, None, version_id(label, i, 1)) for i in ids]


def keep(tx: Tx, label: Versioned, ids: Sequence[str], *, now: int, actor: str, reason: str,
         audit_id: str, states: dict[str, dict[str, Any]] | None = None) -> list[Step]:
    """Before changing these items in `tx`: each one's current state kept as a version node, its counter moved
    on. Items that do not exist are left out. `states`: the items' states before a change already made (an
    upsert knows what it changed only after it ran), instead of their current ones."""
    if not ids:
        return []
    given = {i: json.dumps(s, default=str) for i, s in states.items()} if states is not None else None
    rows = tx.run(cypher.query("audit/keep_versions"), label=label.value, ids=list(dict.fromkeys(ids)), now=now,
                  actor=actor, reason=reason, audit_id=audit_id, states=given)
    return [Step(r["id"], r["before"], r["after"]) for r in rows]


def implied(target_ids: Sequence[str], revert: Sequence[Any]) -> list[Step]:
    """The steps a record's revert operations imply for items no keep() versioned: a node the change created is
    at its first version (what undoes it deletes it); a relationship it created is at its first version too,
    unless its id names a version of a fact (`<fact>/v<n>`: the fact moved from v<n-1>, which it closed, to
    v<n>). Items changed in place without a chain of their own (a cycle's status, an analysis run) have no
    version to name ("")."""
    from grimoire.graph.audit import revert as rv  # revert imports nothing of this module; kept local to say so

    targets = set(target_ids)
    out: list[Step] = []
    for op in revert:
        if isinstance(op, rv.DeleteNodes):
            out += [Step(i, None, version_id(op.label.value, i, 1)) for i in op.ids if i in targets]
        elif isinstance(op, rv.DeleteRelationships):
            for rid in op.ids:
                item, _, n = rid.rpartition("/v")
                if item in targets and n.isdigit():
                    out.append(Step(item, f"{item}/v{int(n) - 1}" if int(n) > 1 else None, rid))
                elif rid in targets:
                    out.append(Step(rid, None, version_id("relationship", rid, 1)))
    return out


def columns(target_ids: Sequence[str], steps: Sequence[Step]) -> tuple[list[str], list[str]]:
    """The record's before_versions and after_versions, aligned with its targets ("" where there is none)."""
    by_item = {s.item: s for s in steps}
    before = [(by_item[t].before or "") if t in by_item else "" for t in target_ids]
    after = [(by_item[t].after or "") if t in by_item else "" for t in target_ids]
    return before, after


def _json(value: Any) -> Any:
    if isinstance(value, str):
        return json.loads(value) if value else None
    return value


class ItemVersion(BaseModel):
    """An earlier state of an item (a Version node; an entry's also an EntryVersion, a core block's also a
    CoreBlockVersion, with their fields): who wrote it, who replaced it, when, why and in which audit record.
    None: a property the version does not have (a Memory's version has no `block`)."""

    id: str
    n: int                            # its number in the item's chain
    item_id: str | None = None
    item_label: str | None = None
    labels: list[str] | None = None   # the item's labels when it was kept
    # the item's properties as they were (any versioned label's, so free-form): stored as JSON, read back here
    state: Annotated[dict[str, Any] | None, BeforeValidator(_json)] = None
    agent_id: str | None = None
    valid_from: int | None = None
    valid_until: int | None = None
    recorded_at: int | None = None
    recorded_until: int | None = None
    written_by: str | None = None
    replaced_by: str | None = None
    reason: str | None = None
    audit_id: str | None = None
    entry_id: str | None = None       # an entry's version
    revision: int | None = None
    market_regime: str | None = None
    tags: list[str] | None = None
    confidence: float | None = None
    scope: str | None = None
    clade: str | None = None
    block_id: str | None = None       # a core block's version
    block: str | None = None
    version: int | None = None
    tokens: int | None = None
    pinned: list[str] | None = None
    content: str | None = None        # an entry's or a core block's text


class ItemHistory(BaseModel):
    """An item's earlier states, newest first."""

    item: str
    versions: list[ItemVersion]


class VersionRow(Row):
    query = "audit/versions"
    version: ItemVersion


def history(db: Database, item_id: str, agent_id: str | None) -> list[ItemVersion]:
    """An agent's item's earlier states (None: any owner's), newest first, each with its properties as they were."""
    return [r.version for r in db.typed(VersionRow, item_id=item_id, agent_id=agent_id)]
