"""Rollback (../shared/spec/moltbot-memory.md 12.8): one item to an earlier version; everything one reflection,
one actor or one session did; one change; an agent's whole memory to a point in time; a rollback itself.

Every audit record carries the typed operations that undo it (graph/audit/revert.py). A rollback picks records
(a Target: one small strategy per way of choosing), newest first, and runs their operations in that order, in
one transaction. It is a change like any other:

- it is refused with a 409 naming the first later change it would roll over (a record touching the same items,
  written after one it undoes, by anyone, that it does not undo), unless forced;
- before it touches a node it takes the node's image (properties, labels, relationships; graph/audit/revert.py
  RestoreImage), and its own REVERT records carry those images: rolling a rollback back restores them;
- it keeps the states it replaces as versions (graph/audit/versions.py), and the version counters only move on;
- the records it undid are marked (reverted_by), so the same reflection is not rolled back twice;
- what it restores is consistent now: an embedding follows its restored text (computed before the transaction
  opens, so the vector index serves the restored text; the full-text indexes follow the text themselves), a
  memory leaving or rejoining the archive leaves or rejoins every index with its Episode label; relevance and
  effective confidence follow from the restored access and decay fields (each change's undo restores them with
  the half-life they were computed with), and the rollback returns the touched memories' relevance now."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from pydantic import BaseModel

from grimoire.graph.audit import erasure, retention, versions
from grimoire.graph.audit import revert as rv
from grimoire.graph.audit.records import Audit
from grimoire.graph.audit.vocabulary import iso_minute, one_line
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.db.vector_epoch import vectors_changed
from grimoire.graph.embeddings import Embedder
from grimoire.graph.errors import Conflict, Invalid, NotFound
from grimoire.graph.ids import now_ms, uuid7
from grimoire.graph.model.rows import Row

CHUNK = 500          # undone records per REVERT record (its images stay a few MB at most)
MAX_RECORDS = 20_000  # one rollback undoes at most this many records
IMAGE_TYPES = ["MENTIONS", "CUSTOM", "FOLLOWS", "LEARNED_FROM", "DERIVED_FROM", "DECIDED", "CAUSES"]
EMBEDDED = {"Memory": "text", "Episode": "text", "Entry": "content"}  # the property a node's embedding is of
KEEP_OUT = {rv.NodeLabel.EntryVersion, rv.NodeLabel.CoreBlockVersion, rv.NodeLabel.Version,
            rv.NodeLabel.ContextPolicyRevision}  # never deleted
BASE_ORDER = [*rv.NodeLabel]  # a node's base label: its first label in this order (Memory before Episode)


class RollbackConflict(Conflict):
    """A later change the rollback would roll over (409, naming it)."""


# ---------------------------------------------------------------------------------------------- records


class Brief(BaseModel):
    """A record a rollback undoes or rolls over, in brief."""

    id: str
    at: int
    action: str
    actor: str
    tag: str | None
    summary: str | None
    target_ids: list[str] | None


class UndoableRecord(BaseModel):
    """A record a rollback may undo (cypher/rollback/records.cypher): what undoes it is its `revert`, a JSON list
    of typed operations (graph/audit/revert.py)."""

    id: str
    at: int
    actor: str
    action: str
    verb: str | None = None
    tag: str | None = None
    target_ids: list[str] | None = None
    summary: str | None = None
    revert: str | None = None
    reverted_by: str | None = None
    after_versions: list[str] | None = None
    rollback_id: str | None = None

    def brief(self) -> Brief:
        return Brief.model_validate(self.model_dump(include=set(Brief.model_fields)))


class RecordRow(Row):
    query = "rollback/records"
    record: UndoableRecord


# Records a rollback rolls over without a conflict: an alert's acknowledgement, and a memory's decay status
# transition (graph/memory/decay_status.py: the status follows from the relevance inputs the rollback restores,
# and the decay system's next run records it).
ROLLED_OVER = ["alert.acknowledge", "memory.decay"]

# Work the service derives on its own from an ingest's episodes, later and under its own actor: the lazy enrichment's
# mentions and FOLLOWS (graph/enrichment.py ACTOR, ACTION). A rollback that deletes those episodes rolls this work
# back with them, newest first, rather than refusing over it: it is the ingest's own, only deferred. (Named here, not
# imported: the enrichment writes its records through this package.)
DERIVED = [("system:enrichment", "episode.enrich")]


class LaterRow(Row):
    query = "rollback/later_changes"
    record: Brief


def conflict_message(later: Brief, more: int) -> str:
    return (f"a later change would be rolled over: {later.action} by {later.tag or later.actor} at "
            f"{later.at} (record {later.id}: {one_line(str(later.summary or ''), 100)})"
            + (f" and {more} more" if more else "") + "; roll it back first, or force")


# ---------------------------------------------------------------------------------------------- targets


@dataclass
class Chosen:
    records: list[UndoableRecord]        # newest first
    items: set[str] | None = None        # the rollback is limited to these items (one item's rollback)
    rolls_over: bool = True              # False: it undoes everything after its time, nothing is rolled over


class Target(Protocol):
    def choose(self, db: Database, agent_id: str) -> Chosen: ...
    def describe(self) -> str: ...


def _records(db: Database, agent_id: str, **params: Any) -> list[UndoableRecord]:
    base: dict[str, Any] = {"since": None, "tag": None, "actor": None, "items": None, "ids": None,
                            "rollback_id": None, "session_id": None, "include_reverted": False,
                            "limit": MAX_RECORDS + 1}
    rows = [r.record for r in db.typed(RecordRow, agent_id=agent_id, **{**base, **params})]
    if len(rows) > MAX_RECORDS:
        raise Invalid(f"a rollback undoes at most {MAX_RECORDS} changes; choose a later time or fewer changes")
    return rows


@dataclass(frozen=True)
class ItemTo:
    """One item back to an earlier version: every change to it after that version, on it alone."""

    item: str
    version: str

    def choose(self, db: Database, agent_id: str) -> Chosen:
        touching = _records(db, agent_id, items=[self.item], include_reverted=True)
        made = [r for r in touching if self.version in (r.after_versions or [])]
        if not made:
            if not touching:
                raise NotFound(f"no change of {self.item!r} in this agent's trail")
            raise NotFound(f"no version {self.version!r} of {self.item!r} (see its versions)")
        since = made[0]
        # every change after it, undoings included: undone in order, newest first
        later = [r for r in touching if (r.at, r.id) > (since.at, since.id)]
        return Chosen(later, items={self.item}, rolls_over=False)

    def describe(self) -> str:
        return f"{self.item} back to {self.version}"


@dataclass(frozen=True)
class Reflection:
    """What one reflection's approval did, and the decision: the reflection is pending again."""

    reflection_id: str

    def choose(self, db: Database, agent_id: str) -> Chosen:
        tagged = _records(db, agent_id, tag=f"reflection:{self.reflection_id}")
        decided = [r for r in _records(db, agent_id, items=[self.reflection_id])
                   if r.action in ("memory.reflection.decide", "memory.reflection.reject")]
        chosen = {r.id: r for r in tagged + decided if r.action != "memory.reflection.propose"}
        if not chosen:
            raise NotFound(f"nothing of reflection {self.reflection_id!r} to roll back (not decided, or rolled back)")
        return Chosen(_newest_first(chosen.values()))

    def describe(self) -> str:
        return f"reflection {self.reflection_id}"


@dataclass(frozen=True)
class Actor:
    """Everything one actor (a key id, or a tag such as subagent:NAME or bot:trigger-remember) did, from a time on."""

    actor: str
    since: int | None = None

    def choose(self, db: Database, agent_id: str) -> Chosen:
        found = _records(db, agent_id, actor=self.actor, since=self.since)
        if not found:
            raise NotFound(f"no change by {self.actor!r} to roll back")
        return Chosen(found)

    def describe(self) -> str:
        return f"everything {self.actor} did"


@dataclass(frozen=True)
class Session:
    """Everything the agent's memory took in one session (the session_id its messages carried)."""

    session_id: str

    def choose(self, db: Database, agent_id: str) -> Chosen:
        found = _records(db, agent_id, session_id=self.session_id)
        if not found:
            raise NotFound(f"no change in session {self.session_id!r} to roll back (or it was rolled back)")
        return Chosen(found)

    def describe(self) -> str:
        return f"session {self.session_id}"


@dataclass(frozen=True)
class Record:
    """One change (a REVERT record too: that undoes part of a rollback; see Undo for a whole one)."""

    record_id: str

    def choose(self, db: Database, agent_id: str) -> Chosen:
        found = _records(db, agent_id, ids=[self.record_id])
        if not found:
            raise NotFound(f"no change {self.record_id!r} of this agent to roll back (or it was rolled back)")
        return Chosen(found)

    def describe(self) -> str:
        return f"change {self.record_id}"


@dataclass(frozen=True)
class Undo:
    """A whole rollback, undone: its REVERT records."""

    rollback_id: str

    def choose(self, db: Database, agent_id: str) -> Chosen:
        found = _records(db, agent_id, rollback_id=self.rollback_id)
        if not found:
            raise NotFound(f"no rollback {self.rollback_id!r} of this agent to undo (or it was undone)")
        return Chosen(found)

    def describe(self) -> str:
        return f"rollback {self.rollback_id} undone"


@dataclass(frozen=True)
class PointInTime:
    """The agent's whole memory as it was at a time: every change after it undone, newest first."""

    at: int

    def choose(self, db: Database, agent_id: str) -> Chosen:
        folded = retention.folded_until(db, agent_id)
        if folded is not None and self.at < folded:
            raise Invalid(f"the audit log before {iso_minute(folded)} is folded into monthly digests (12.6): a "
                          f"point-in-time rollback reaches back to {iso_minute(folded)} at most; an item can still "
                          f"be read at any of its versions")
        return Chosen(_records(db, agent_id, since=self.at + 1, include_reverted=True), rolls_over=False)

    def describe(self) -> str:
        return f"everything as at {self.at}"


def _newest_first(records: Iterable[UndoableRecord]) -> list[UndoableRecord]:
    return sorted(records, key=lambda r: (r.at, r.id), reverse=True)


def _deleted_episodes(records: Iterable[UndoableRecord]) -> set[str]:
    return {i for r in records for op in rv.parse_revert(r.revert or "[]")
            if isinstance(op, rv.DeleteNodes) and op.label is rv.NodeLabel.Episode for i in op.ids}


def _derived_episodes(record: UndoableRecord) -> set[str]:
    """The episodes a derived record's work starts from (its relationships' start nodes)."""
    return {k.start_id for op in rv.parse_revert(record.revert or "[]") if isinstance(op, rv.DeleteRelationships)
            for k in op.keys if k.start_label is rv.NodeLabel.Episode}


def with_derived(db: Database, agent_id: str, chosen: Chosen) -> tuple[Chosen, list[str]]:
    """The chosen records and, when they delete episodes, the later derived work on those episodes (DERIVED):
    a derived record wholly on them is undone too (listed with the others, newest first); one on others as well
    stays (deleting the episodes takes their links with them), and is only not a conflict. Also: the ids of those
    records that stay."""
    gone = _deleted_episodes(chosen.records) if chosen.rolls_over and chosen.items is None else set()
    if not gone:
        return chosen, []
    since = min(r.at for r in chosen.records)
    have = {r.id for r in chosen.records}
    whole: list[UndoableRecord] = []
    part: list[str] = []
    for actor, action in DERIVED:
        for r in _records(db, agent_id, actor=actor, items=sorted(gone), since=since):
            if r.action != action or r.id in have:
                continue
            if _derived_episodes(r) <= gone:
                whole.append(r)
            else:
                part.append(r.id)
    if not whole:
        return chosen, part
    return Chosen(_newest_first([*chosen.records, *whole]), chosen.items, chosen.rolls_over), part


# ---------------------------------------------------------------------------------------------- answers


class Irreversible(BaseModel):
    """A record whose change cannot be undone (a Noop in its revert), and why."""

    record: str
    action: str
    reason: str


class NotRestored(erasure.Erased):
    """An erased item a rollback leaves erased (graph/audit/erasure.py)."""

    reason: str = "erased: a rollback never brings it back"
    records: list[str] = []   # the undone records that would have brought it back


class RollbackPlan(BaseModel):
    """What a rollback would do (a dry run): the records it undoes, newest first, the items it touches, what it
    cannot undo or restore, and the later changes it would roll over (a 409 unless forced)."""

    target: str
    changes: list[Brief]
    items: list[str]
    irreversible: list[Irreversible]
    conflicts: list[Brief]
    not_restored: list[NotRestored]
    folded_before: str | None  # the trail is folded into digests before this minute: a rollback reaches back to here


class RollbackDone(BaseModel):
    """A rollback made: its id and REVERT records, what it undid and what it rolled over (forced)."""

    rollback_id: str
    records: list[str]
    target: str
    undone: list[Brief]
    items: list[str]
    irreversible: list[Irreversible]
    forced_over: list[Brief]
    not_restored: list[NotRestored]
    folded_before: str | None


# ---------------------------------------------------------------------------------------------- planning


@dataclass
class Undoing:
    record: UndoableRecord
    ops: list[rv.RevertOp]


@dataclass
class Plan:
    steps: list[Undoing]
    irreversible: list[Irreversible] = field(default_factory=list)
    not_restored: dict[str, NotRestored] = field(default_factory=dict)  # erased items it leaves erased

    def items(self) -> list[str]:
        return sorted({i for s in self.steps for op in s.ops for i in op.items()})

    def unrestored(self) -> list[NotRestored]:
        return [v.model_copy(update={"records": sorted(set(v.records))}) for _, v in sorted(self.not_restored.items())]


def plan(chosen: Chosen, erased: dict[str, erasure.Erased] | None = None) -> Plan:
    """The operations undoing the chosen records; an erased item (graph/audit/erasure.py) is never brought back:
    what would restore one is left out, and the plan says so."""
    out = Plan([])
    erased = erased or {}
    for record in chosen.records:
        ops = rv.parse_revert(record.revert or "[]")
        if chosen.items is not None:
            ops = [o for o in (op.restricted(chosen.items) for op in ops) if o is not None]  # type: ignore[misc]
        gone = [op for op in ops if isinstance(op, rv.Noop)]
        if gone:
            out.irreversible.append(Irreversible(record=record.id, action=record.action, reason=gone[0].reason))
        if record.action == erasure.ERASED_ACTION:
            _unrestored(out, record, [i for i in record.target_ids or [] if i in erased], erased)
        kept = []
        for op in ops:
            if isinstance(op, rv.Noop):
                continue
            hit = [i for i in op.items() if i in erased or i.startswith(erasure.MARK_PREFIX)]
            _unrestored(out, record, [i for i in hit if i in erased], erased)
            left = _without(op, set(hit)) if hit else op
            if left is not None:
                kept.append(left)
        out.steps.append(Undoing(record, kept))
    return out


def _unrestored(p: Plan, record: UndoableRecord, ids: Sequence[str], erased: dict[str, erasure.Erased]) -> None:
    for i in ids:
        p.not_restored.setdefault(i, NotRestored(**erased[i].model_dump())).records.append(record.id)


def _without(op: rv.RevertOp, erased: set[str]) -> rv.RevertOp | None:
    """The operation without what would touch an erased item; None when nothing else is left."""
    if isinstance(op, rv.RestoreImage):
        left = op.model_copy(update={
            "nodes": [n for n in op.nodes if n.id not in erased],
            "relationships": [r for r in op.relationships if r.start_id not in erased and r.end_id not in erased]})
        return None if left.changes_nothing() else left
    rest = set(op.items()) - erased
    if not rest:
        return None
    narrowed: rv.RevertOp | None = op.restricted(rest)  # type: ignore[assignment]
    return narrowed


def conflicts(db: Database, agent_id: str, p: Plan, covered: Sequence[str] = ()) -> list[Brief]:
    """Later changes to the plan's items, each after a change the plan undoes to the same item, not undone by it
    (nor `covered`: derived work its deletions take away, with_derived)."""
    if not p.steps:
        return []
    first_touch: dict[str, int] = {}
    for s in p.steps:
        for i in s.record.target_ids or []:
            if i not in p.not_restored:  # erased: nothing will touch it, nothing is rolled over
                first_touch[i] = min(first_touch.get(i, s.record.at), s.record.at)
    if not first_touch:
        return []
    undone = [s.record.id for s in p.steps] + list(covered)
    rows = db.typed(LaterRow, agent_id=agent_id, since=min(first_touch.values()), items=list(first_touch),
                    excluded=undone, verbs=["ALERT"], actions=ROLLED_OVER)
    return [row.record for row in rows
            if any(row.record.at >= first_touch.get(i, row.record.at + 1) for i in row.record.target_ids or [])]


# ---------------------------------------------------------------------------------------------- images


@dataclass
class Images:
    """The first image of every node a rollback touches: what it was before the rollback."""

    taken: dict[tuple[str, str], rv.NodeImage | None] = field(default_factory=dict)
    relationships: dict[str, rv.RelationshipImage] = field(default_factory=dict)

    def take(self, tx: Tx, refs: Iterable[rv.Ref]) -> None:
        todo = [(rv.NodeLabel(label), i) for label, i in dict.fromkeys(refs) if (str(label), i) not in self.taken]
        while todo:
            found = locate(tx, todo)
            for label, i in todo:
                self.taken.setdefault((label.value, i), None)  # absent unless found below
            ref_of = {eid: ref for ref, eid in found.items()}
            rows = list(tx.run(cypher.query("rollback/image"), eids=list(found.values()), types=IMAGE_TYPES))
            more: list[rv.Ref] = []
            for row in rows:
                found_label, i = ref_of[row["eid"]]
                label = rv.NodeLabel(found_label)
                props = {k: v for k, v in dict(row["properties"]).items() if k != "embedding"}
                self.taken[(label.value, i)] = rv.NodeImage(label=label, id=i, labels=list(row["labels"]),
                                                      properties=props, embedding=None)
                for rel in row["relationships"]:
                    if rel is None:
                        continue
                    image = rv.RelationshipImage(
                        type=rv.RelationshipType(rel["type"]), start_label=base(rel["start_labels"]),
                        start_id=rel["start_id"], end_label=base(rel["end_labels"]), end_id=rel["end_id"],
                        properties=dict(rel["properties"]))
                    self.relationships.setdefault(key(image), image)
                more += [(rv.NodeLabel.Entity, e) for e in row["entities"]]
                more += [(rv.NodeLabel.Memory, m) for m in row["memories"]]
            todo = [(label, i) for label, i in dict.fromkeys(more) if (label.value, i) not in self.taken]

    def restore_op(self, refs: set[tuple[str, str]]) -> rv.RestoreImage:
        nodes = [img for ref, img in self.taken.items() if ref in refs and img is not None]
        absent = [(rv.NodeLabel(label), i) for (label, i), img in self.taken.items() if ref_in(label, i, refs)
                  and img is None]
        ids = {n.id for n in nodes}
        rels = [r for r in self.relationships.values() if r.start_id in ids or r.end_id in ids]
        return rv.RestoreImage(nodes=nodes, absent=absent, relationships=rels)


def ref_in(label: str, i: str, refs: set[tuple[str, str]]) -> bool:
    return (label, i) in refs


def base(labels: Sequence[str]) -> rv.NodeLabel:
    present = set(labels)
    found: rv.NodeLabel = next(label for label in BASE_ORDER if label.value in present)
    return found


def key(r: rv.RelationshipImage) -> str:
    return f"{r.type.value}|{r.start_id}|{r.end_id}|{r.properties.get('id') or ''}"


def locate(tx: Tx, refs: Iterable[rv.Ref]) -> dict[tuple[str, str], str]:
    """The element ids of these nodes (locked), by (label, id); missing nodes left out."""
    rows = tx.run(cypher.query("rollback/locate"),
                  refs=[{"label": str(label), "id": i} for label, i in dict.fromkeys(refs)])
    return {(r["label"], r["id"]): r["eid"] for r in rows}


# ---------------------------------------------------------------------------------------------- execution


@dataclass
class Executor:
    """Runs revert operations inside a transaction, by type."""

    tx: Tx
    actor: str
    now: int
    audit_id: str
    vectors: dict[str, list[float]]   # text -> embedding, computed before the transaction opened

    def run(self, op: rv.RevertOp) -> None:
        getattr(self, f"_{op.op}")(op)

    def _eids(self, label: rv.NodeLabel, ids: Sequence[str]) -> list[str]:
        found = locate(self.tx, [(label, i) for i in ids])
        return [found[(label.value, i)] for i in ids if (label.value, i) in found]

    def _set(self, label: rv.NodeLabel, values: dict[str, dict[str, Any]]) -> None:
        found = locate(self.tx, [(label, i) for i in values])
        rows = []
        for i, props in values.items():
            if (label.value, i) not in found:
                continue
            props = {k: v for k, v in props.items() if k not in versions.BOOKKEEPING}
            rows.append({"eid": found[(label.value, i)], "properties": props})
            text = props.get(EMBEDDED.get(label.value, ""))
            if isinstance(text, str) and text in self.vectors:
                self._embed(found[(label.value, i)], self.vectors[text])
        if rows:
            self.tx.run(cypher.query("rollback/set_properties"), rows=rows).consume()

    def _embed(self, eid: str, vector: list[float]) -> None:
        self.tx.run(cypher.query("rollback/set_embedding"), eid=eid, embedding=vector).consume()

    def _delete_nodes(self, op: rv.DeleteNodes) -> None:
        if op.label in KEEP_OUT:
            return  # the version chain keeps everything: a rollback adds a version, it removes none
        self.tx.run(cypher.query("rollback/delete_nodes"), eids=self._eids(op.label, op.ids)).consume()

    def _delete_relationships(self, op: rv.DeleteRelationships) -> None:
        if op.ids:
            self.tx.run(cypher.query("rollback/relationships_by_id"), type=op.type.value, ids=op.ids,
                        properties=None).consume()
        for k in op.keys:
            for eid in self._eids(k.start_label, [k.start_id]):
                self.tx.run(cypher.query("rollback/relationships_by_key"), type=op.type.value, start=eid,
                            ends=k.end_ids).consume()

    def _set_properties(self, op: rv.SetProperties) -> None:
        self._set(op.label, {op.id: dict(op.before)})

    def _set_relationship_properties(self, op: rv.SetRelationshipProperties) -> None:
        self.tx.run(cypher.query("rollback/relationships_by_id"), type=op.type.value, ids=[op.id],
                    properties=dict(op.before)).consume()

    def _remove_properties(self, op: rv.RemoveProperties) -> None:
        self._set(op.label, {i: dict.fromkeys(op.properties) for i in op.ids})

    def _revoke_key(self, op: rv.RevokeKey) -> None:
        self._set(rv.NodeLabel.ApiKey, {op.key_id: {"revoked_at": self.now}})

    def _restore_key(self, op: rv.RestoreKey) -> None:
        self._set(rv.NodeLabel.ApiKey, {op.key_id: {"revoked_at": None}})

    def _revert_admission(self, op: rv.RevertAdmission) -> None:
        self.tx.run(cypher.query("rollback/revert_admission"), decision_ids=op.decision_ids, created=op.created,
                    merged=[m.model_dump() for m in op.merged]).consume()

    def _restore_memories(self, op: rv.RestoreMemories) -> None:
        self.tx.run(cypher.query("memory/restore"), agent_id=op.agent_id, ids=op.ids).consume()

    def _archive_memories(self, op: rv.ArchiveMemories) -> None:
        self.tx.run(cypher.query("memory/archive"), agent_id=op.agent_id, ids=op.ids, now=self.now, actor=self.actor,
                    audit_id=self.audit_id).consume()

    def _undo_remember(self, op: rv.UndoRemember) -> None:
        self.tx.run(cypher.query("rollback/undo_remember"), agent_id=op.agent_id, audit_id=op.audit_id, at=op.at,
                    ids=op.ids, creators_added=op.creators_added, facts=[f.model_dump() for f in op.facts],
                    reinforced=[r.model_dump() for r in op.reinforced]).consume()

    def _restore_image(self, op: rv.RestoreImage) -> None:
        gone = locate(self.tx, op.absent)
        if gone:
            self.tx.run(cypher.query("rollback/delete_nodes"), eids=list(gone.values())).consume()
        found = locate(self.tx, [(n.label, n.id) for n in op.nodes])
        rows = []
        for n in op.nodes:
            text = n.properties.get(EMBEDDED.get(n.label.value, ""))
            rows.append({"eid": found.get((n.label.value, n.id)), "labels": n.labels,
                         "properties": dict(n.properties),
                         "embedding": self.vectors.get(text) if isinstance(text, str) else None})
        placed = {r["id"]: r["eid"] for r in self.tx.run(cypher.query("rollback/put_nodes"), rows=rows)}
        entity_eids = [placed[n.id] for n in op.nodes if n.label is rv.NodeLabel.Entity and n.id in placed]
        self.tx.run(cypher.query("rollback/sync_relationships"), nodes=list(placed.values()), entities=entity_eids,
                    keep=[key(r) for r in op.relationships], types=IMAGE_TYPES).consume()
        ends = locate(self.tx, [(r.start_label, r.start_id) for r in op.relationships]
                      + [(r.end_label, r.end_id) for r in op.relationships])
        links: list[dict[str, Any]] = [{"type": r.type.value, "a": ends[(r.start_label.value, r.start_id)],
                 "b": ends[(r.end_label.value, r.end_id)], "rid": r.properties.get("id"),
                 "properties": dict(r.properties)}
                for r in op.relationships
                if (r.start_label.value, r.start_id) in ends and (r.end_label.value, r.end_id) in ends]
        if links:
            self.tx.run(cypher.query("rollback/put_relationships"), rows=links).consume()


def texts_to_embed(p: Plan) -> list[str]:
    """The texts a rollback restores whose embeddings it needs: computed before its transaction opens."""
    out: list[str] = []
    for s in p.steps:
        for op in s.ops:
            if isinstance(op, rv.SetProperties):
                text = op.before.get(EMBEDDED.get(op.label.value, ""))
                if isinstance(text, str):
                    out.append(text)
            elif isinstance(op, rv.RestoreImage):
                for n in op.nodes:
                    text = n.properties.get(EMBEDDED.get(n.label.value, ""))
                    if isinstance(text, str):
                        out.append(text)
    return list(dict.fromkeys(out))


# ---------------------------------------------------------------------------------------------- the service


@dataclass
class Rollbacks:
    db: Database
    embedder: Embedder

    def preview(self, agent_id: str, target: Target) -> RollbackPlan:
        chosen, covered = with_derived(self.db, agent_id, target.choose(self.db, agent_id))
        p = plan(chosen, erasure.erased(self.db, agent_id))
        later = conflicts(self.db, agent_id, p, covered) if chosen.rolls_over else []
        return RollbackPlan(target=target.describe(), changes=[s.record.brief() for s in p.steps], items=p.items(),
                            irreversible=p.irreversible, conflicts=later,
                            not_restored=p.unrestored(), folded_before=_folded(self.db, agent_id))

    def rollback(self, agent_id: str, target: Target, *, actor: str, force: bool = False) -> RollbackDone:
        chosen, covered = with_derived(self.db, agent_id, target.choose(self.db, agent_id))
        p = plan(chosen, erasure.erased(self.db, agent_id))
        if not p.steps:
            raise Invalid(f"nothing to roll back for {target.describe()}")
        later = conflicts(self.db, agent_id, p, covered) if chosen.rolls_over else []
        if later and not force:
            raise RollbackConflict(conflict_message(later[0], len(later) - 1))
        texts = texts_to_embed(p)
        vectors = dict(zip(texts, (v.tolist() for v in self.embedder.embed(texts)), strict=True)) if texts else {}
        rollback_id = uuid7()
        now = now_ms()

        def work(tx: Tx) -> tuple[str, list[str]]:
            if not tx.run(cypher.query("memory/lock_core"), agent_id=agent_id).single():
                raise NotFound(f"no agent {agent_id!r}")
            images = Images()
            touched: set[tuple[str, str]] = set()
            records: list[str] = []
            for start in range(0, len(p.steps), CHUNK):
                steps = p.steps[start:start + CHUNK]
                audit = Audit(action="audit.rollback", actor=actor, agent_id=agent_id, at=now,
                              trigger=f"rollback of {target.describe()}", rollback_id=rollback_id)
                refs = [ref for s in steps for op in s.ops for ref in op.touches()]
                images.take(tx, refs)
                mine = {(str(label), i) for label, i in images.taken} - touched
                touched |= mine
                kept = _keep_versions(tx, mine, audit)
                run = Executor(tx, actor, now, audit.id, vectors)
                for s in steps:
                    for op in s.ops:
                        run.run(op)
                # ExpeL's per-strategy episode counts follow the episodes deleted or brought back (an ingest's count
                # is an increment no revert of its own can take back once later ingests added to it)
                counted = _strategies(images, [op for s in steps for op in s.ops])
                if counted:
                    tx.run(cypher.query("rollback/recount_strategies"), pairs=counted).consume()
                undone = [s.record.id for s in steps]
                # Vectors, texts, nodes and turns before (rollback/set_embedding, put_nodes, delete_nodes,
                # relationships_by_key, undo_remember) change in place: every replica's held items go. Last, once.
                vectors_changed(tx)
                tx.run(cypher.query("rollback/mark_reverted"), ids=undone, by=audit.id).consume()
                restore = images.restore_op(mine)
                unmark = [rv.SetProperties(label=rv.NodeLabel.AuditRecord, id=i,
                                           before={"reverted_by": s.record.reverted_by})
                          for s in steps for i in [s.record.id]]
                items = sorted({i for s in steps for op in s.ops for i in op.items()})
                audit.write(tx, items, f"rolled back {len(steps)} changes ({target.describe()})",
                            [restore, *unmark], kept)
                records.append(audit.id)
            return rollback_id, records

        done, records = self.db.write(work)
        return RollbackDone(rollback_id=done, records=records, target=target.describe(),
                            undone=[s.record.brief() for s in p.steps], items=p.items(),
                            irreversible=p.irreversible, forced_over=later, not_restored=p.unrestored(),
                            folded_before=_folded(self.db, agent_id))


def _strategies(images: Images, ops: Sequence[rv.RevertOp]) -> list[dict[str, str]]:
    """The (agent, strategy) of every episode the operations delete or restore, as they were before the rollback
    (its images) or as they come back (a restored image)."""
    nodes = [img for img in images.taken.values() if img is not None]
    nodes += [n for op in ops if isinstance(op, rv.RestoreImage) for n in op.nodes]
    pairs = {(str(n.properties.get("agent_id")), str(n.properties.get("strategy"))) for n in nodes
             if "Episode" in n.labels and n.properties.get("agent_id") and n.properties.get("strategy")}
    return [{"agent_id": a, "strategy": st} for a, st in sorted(pairs)]


def _folded(db: Database, agent_id: str) -> str | None:
    """Where the trail is folded into digests (12.6): changes before that time have no records left to undo, so a
    rollback by reflection, actor, session or record says that it reaches back only to there."""
    until = retention.folded_until(db, agent_id)
    return iso_minute(until) if until is not None else None


def _keep_versions(tx: Tx, refs: set[tuple[str, str]], audit: Audit) -> list[versions.Step]:
    """The rollback is versioned: the states it replaces kept, per kind of item."""
    steps: list[versions.Step] = []
    by_label: dict[str, list[str]] = {}
    for label, i in refs:
        if label in versions.Versioned.__members__:
            by_label.setdefault(label, []).append(i)
    for label, ids in sorted(by_label.items()):
        steps += versions.keep(tx, versions.Versioned(label), sorted(ids), now=audit.at, actor=audit.actor,
                               reason=audit.trigger or "rollback", audit_id=audit.id)
    return steps


def parse_time(value: str | int) -> int:
    if isinstance(value, int):
        return value
    try:
        return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        raise Invalid(f"not a time: {value!r} (ISO 8601 or milliseconds)") from None

