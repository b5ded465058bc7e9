"""EDIT: an entry's content and conditions refined, the earlier version kept (../shared/spec/grimoire.md,
ExpeL's EDIT operation: reconsolidation). The earlier state is an EntryVersion (graph/audit/versions.py) whose
valid and recorded times close when the refinement begins; the entry keeps its id, its evidence and its counts."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from grimoire.graph.audit import Audit, NodeLabel, RevertOp, SetProperties
from grimoire.graph.audit.versions import Step, Versioned, keep
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.db.vector_epoch import vectors_changed
from grimoire.graph.embeddings import Embedder
from grimoire.graph.errors import Conflict, Invalid
from grimoire.graph.ids import now_ms
from grimoire.graph.knowledge.answers import EditOut, EntryOut, EntryVersionOut, VersionRow
from grimoire.graph.model.common import MAX_TEXT, StrictModel
from grimoire.graph.model.crystal.payload import content_hash
from grimoire.graph.model.crystal.privacy import MemoryScope, category_type, refuse_share
from grimoire.graph.model.crystal.sensitivity import Sensitivity, tag
from grimoire.graph.model.enums import MarketRegime, Scope

EDITABLE = ("content", "market_regime")


class EditIn(StrictModel):
    content: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
    market_regime: MarketRegime | None = Field(default=None, description="the condition it holds under; unset: "
                                                                         "unchanged")
    reason: Annotated[str, Field(min_length=1, max_length=500)] = "refined"


class ScopeIn(StrictModel):
    scope: Scope = Field(description="who may see the entry from now on: its owner, its clade, or everyone")
    reason: Annotated[str, Field(min_length=1, max_length=500)] = "scope set by its owner"


class ConfidentialShare(Invalid):
    """A confidential entry is never shared, not even by its owner (422): its text must change first."""


class StaleEdit(Conflict):
    """The entry was edited since its revision was read (409)."""


class FrozenEntry(Conflict):
    """A frozen crystal is immutable: its change is a new version (POST /crystals/{id}/versions), never an EDIT."""


def edit_in_tx(tx: Tx, entry: dict[str, Any], changes: dict[str, Any], embedding: list[float],
               reason: str, audit: Audit) -> list[Step] | None:
    """Refines `entry` (its properties as read) and returns its move from one version to the next, or None when
    its revision moved on since it was read (someone else changed it first). The earlier state is kept as an
    EntryVersion (graph/audit/versions.py). The caller audits."""
    locked = tx.run(cypher.query("entries/lock"), id=entry["id"], viewer=None, clade=None, admin=True).single()
    if locked is None or (locked["entry"].get("revision") or 1) != (entry.get("revision") or 1):
        return None
    if locked["entry"].get("lifecycle") == "frozen":  # immutable (knowledge crystals): the Curator leaves it
        return None
    retag(locked["entry"], changes)
    steps = keep(tx, Versioned.Entry, [entry["id"]], now=audit.at, actor=audit.actor, reason=reason,
                 audit_id=audit.id)
    tx.run(cypher.query("entries/edit"), id=entry["id"], changes=changes, embedding=embedding).consume()
    vectors_changed(tx)
    return steps


def retag(entry: dict[str, Any], changes: dict[str, Any]) -> None:
    """New content is tagged afresh (knowledge crystals): a confidential text makes the entry private, whatever
    scope it had (the scope it had is kept as requested_scope). Adds to `changes` in place."""
    if "content" not in changes:
        return
    changes["content_hash"] = content_hash(changes["content"])  # dedup by hash reads what it says now
    sensitivity = tag(changes["content"])
    changes["sensitivity"] = sensitivity.value
    if sensitivity is Sensitivity.confidential and entry.get("scope") != "private":
        changes.update(scope="private", requested_scope=entry.get("scope"))


def revert_ops(entry: dict[str, Any], changes: dict[str, Any]) -> list[RevertOp]:
    """The entry's changed properties as they were (the version counter is the chain's, never moved back)."""
    return [SetProperties(label=NodeLabel.Entry, id=entry["id"], before={k: entry.get(k) for k in changes})]


def edit(db: Database, embedder: Embedder, found: EntryOut, body: EditIn, *, actor: str) -> EditOut:
    """An owner's EDIT through the API: `found` as the caller may see it (graph/knowledge/entries.get)."""
    entry = found.model_dump(mode="json")  # what is kept as the before of a change: no time among them
    if entry.get("lifecycle") == "frozen":
        raise FrozenEntry(f"entry {entry['id']} is frozen (immutable): a change is a new version, "
                          f"POST /crystals/{entry['id']}/versions")
    changes: dict[str, Any] = {"content": body.content}
    if body.market_regime is not None:
        changes["market_regime"] = body.market_regime.value
    vector = embedder.embed([body.content])[0].tolist()  # before the transaction opens
    now = now_ms()
    audit = Audit(action="entry.edit", actor=actor, agent_id=entry.get("agent_id"), at=now)

    def work(tx: Tx) -> str:
        steps = edit_in_tx(tx, entry, changes, vector, body.reason, audit)
        if steps is None:  # frozen in the meantime counts as moved on
            raise StaleEdit(f"entry {entry['id']} was edited since it was read; read it again")
        audit.write(tx, [entry["id"]], f"edited {entry['id']}: {body.reason}", revert_ops(entry, changes), steps)
        return str(steps[0].before)

    version_id: str = db.write(work)
    return EditOut(entry_id=entry["id"], version_id=version_id, revision=(entry.get("revision") or 1) + 1)


def rescope(db: Database, found: EntryOut, body: ScopeIn, *, actor: str,
            memory_scope: MemoryScope = MemoryScope.private) -> EditOut:
    """The one way an entry's scope changes: its owner (or a person acting for it) says so, explicitly. The scope
    it had is kept as a version, so a read as known before then sees it as it was; audited with its revert."""
    entry = found.model_dump(mode="json")
    if entry.get("sensitivity") == Sensitivity.confidential and body.scope is not Scope.private:
        raise ConfidentialShare(f"entry {entry['id']} is confidential and stays private; edit its text first")
    # a warning or a causal link is a fact, a memory crystal: private under the document's rule
    refuse_share(entry["id"], entry.get("semantic_type") or category_type(entry.get("category")), body.scope.value,
                 memory_scope, "shared")
    if entry.get("lifecycle") == "frozen":
        raise FrozenEntry(f"entry {entry['id']} is frozen (immutable): a change is a new version, "
                          f"POST /crystals/{entry['id']}/versions")
    changes: dict[str, Any] = {"scope": body.scope.value}
    audit = Audit(action="entry.scope", actor=actor, agent_id=entry.get("agent_id"), at=now_ms())

    def work(tx: Tx) -> str:
        locked = tx.run(cypher.query("entries/lock"), id=entry["id"], viewer=None, clade=None, admin=True).single()
        if locked is None or (locked["entry"].get("revision") or 1) != (entry.get("revision") or 1):
            raise StaleEdit(f"entry {entry['id']} was edited since it was read; read it again")
        steps = keep(tx, Versioned.Entry, [entry["id"]], now=audit.at, actor=actor, reason=body.reason,
                     audit_id=audit.id)
        tx.run(cypher.query("entries/rescope"), id=entry["id"], scope=body.scope.value).consume()
        audit.write(tx, [entry["id"]], f"scope of {entry['id']}: {entry.get('scope')} -> {body.scope.value}: "
                    f"{body.reason}", revert_ops(entry, changes), steps)
        return str(steps[0].before)

    version_id: str = db.write(work)
    return EditOut(entry_id=entry["id"], version_id=version_id, revision=(entry.get("revision") or 1) + 1)


def versions(db: Database, entry_id: str, params: dict[str, Any]) -> list[EntryVersionOut]:
    return [r.version for r in db.typed(VersionRow, id=entry_id, **params)]
