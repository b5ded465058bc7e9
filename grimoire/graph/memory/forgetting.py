"""Forgetting (../shared/spec/moltbot-memory.md, section 8.3): find what a "forget about X" names across
every store, show it, archive it on confirmation, and delete it for good only when asked.

- preview: the agent's memories whose text has every key term of X, those naming an entity whose name has
  them, the procedures learned only from those (they go with them on deletion), and the lines of core
  memory that mention X; nothing changes.
- archive: the memories leave every search path (the Episode label goes: vector and full-text indexes,
  lists, counts, the graph backend) and keep everything else; relations every source of which is archived
  are archived too; core lines that mention X are removed from core memory (a new block version); one
  audit record whose revert operation restores them.
- delete: the memories, their embeddings, the relations only they asserted, the procedures learned only
  from them and the entities only they touched are removed; nothing shared with another item is."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from grimoire.graph.audit import ArchiveMemories, Audit, Noop, RestoreMemories, erasure, versions
from grimoire.graph.audit.erasure import RedactedNode
from grimoire.graph.audit.versions import Versioned
from grimoire.graph.audit.vocabulary import iso_minute
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.lucene import matchable, scope_clauses, scoped
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import Conflict, Invalid, NotFound
from grimoire.graph.memory.blocks import Block, EditLine, lines
from grimoire.graph.memory.core import CoreMemory
from grimoire.graph.memory.recall import lucene_all, terms
from grimoire.graph.memory.stores import Memory, StoredMemory, as_memory
from grimoire.graph.model.rows import Row
from grimoire.graph.visibility import EVERYONE

PREVIEW = 50   # matches a preview shows
APPLY = 1_000  # matches a confirmed forget by target takes at most


@dataclass(frozen=True)
class CoreLine:
    block: Block
    line: str

    def out(self) -> CoreLineOut:
        return CoreLineOut(block=self.block.value, line=self.line)


class CoreLineOut(BaseModel):
    block: str
    line: str


class ErasedNode(BaseModel):
    label: str = Field(description="the node's kind (Memory, Entity, Version, …)")
    id: str | None
    what: str = Field(description="what it was")


class DerivedNode(BaseModel):
    label: str
    id: str | None
    outcome: str = Field(description="dropped (derived from the erased items alone) or kept, and how")


class ErasureReceipt(BaseModel):
    """A permanent delete's receipt (graph/audit/erasure.py): every node and record it touched."""

    erasure_id: str = Field(description="the erasure's own audit record (it holds no text)")
    erased_at: str = Field(description="ISO 8601, to the minute")
    erased_by: str = Field(description="the key that asked for it")
    deleted: list[str] = Field(description="the memories deleted (a procedure learned only from them included)")
    relations: int = Field(description="relations deleted (asserted by the deleted memories alone)")
    entities: list[str] = Field(description="entities deleted (only the deleted memories touched them)")
    sha256: dict[str, str] = Field(description="per deleted memory, the SHA-256 of its text: what the trail keeps")
    removed: list[ErasedNode] = Field(description="every node removed: memories, entities, versions")
    redacted: list[RedactedNode] = Field(description="every node that held a copy of the erased text, redacted")
    derived: list[DerivedNode] = Field(description="what was derived from the erased memories: dropped or kept")
    core_lines: list[CoreLineOut] = Field(default_factory=list, description="the lines of core memory removed")
    workspaces: int = Field(default=0, description="kept workspaces (in the service's memory) dropped")


class MatchRow(Row):
    """A memory a forget's target names, and how it was found (keyword, entity, archived)."""

    query = "memory/forget_matches"
    memory: StoredMemory
    via: list[str]


class FoundMemory(Memory):
    found_by: list[str] | None = Field(default=None, description="how the target found it: keyword, entity, archived")


class ForgetPreview(BaseModel):
    """What forgetting a target would take; nothing changed."""

    target: str | None
    terms: list[str]
    permanent: bool
    memories: list[FoundMemory]
    derived: list[str] = Field(description="procedures learned only from these memories (deleted with them)")
    core_lines: list[CoreLineOut]
    count: int
    message: str


class ArchivedRow(Row):
    """The memories archived, and the relations archived with them (every source of theirs archived)."""

    query = "memory/archive"
    archived: list[str]
    relations: list[str]


class Archived(BaseModel):
    """A confirmed forget that archives: what left every search path (kept, restorable)."""

    archived: list[str]
    relations: list[str]
    audit_id: str | None = Field(description="the archive's audit record (its revert restores them); none: nothing")
    core_lines: list[CoreLineOut] = Field(default_factory=list, description="the lines of core memory removed")


class Restored(Row):
    """Archived memories brought back, and the relations they assert made live again."""

    query = "memory/restore"
    restored: list[str]
    relations: int


class Forgetting:
    def __init__(self, db: Database, core: CoreMemory) -> None:
        self.db, self.core = db, core

    def preview(self, agent_id: str, target: str, *, permanent: bool = False, now: int,
                limit: int = PREVIEW) -> ForgetPreview:
        """The newest `limit` matches (a confirmation by target takes up to APPLY of them)."""
        words = terms(target)
        if not words:
            raise Invalid("say what to forget: the target has no word to search for")
        kept = [w for w in words if matchable(w)]  # words the text index holds ("will" is a stop word there)
        query = scoped(lucene_all(kept), scope_clauses(EVERYONE, agent_id)) if kept else None
        rows = self.db.typed(MatchRow, agent_id=agent_id, query=query, names=lucene_all(words), terms=words,
                             include_archived=permanent, limit=limit)
        memories = [FoundMemory.model_validate(as_memory(r.memory, now, found_by=sorted(r.via)).model_dump(
            exclude_unset=True)) for r in rows]
        derived = self._derived(agent_id, [m.id for m in memories]) if permanent else []
        core_lines = self._core_lines(agent_id, words)
        return ForgetPreview(target=target, terms=words, permanent=permanent, memories=memories, derived=derived,
                             core_lines=[c.out() for c in core_lines],
                             count=len(memories) + len(derived) + len(core_lines),
                             message=_message(target, len(memories), len(core_lines), permanent))

    def archive(self, agent_id: str, ids: Sequence[str], *, core_lines: Sequence[CoreLine] = (), actor: str,
                now: int, tag: str | None = None, trigger: str | None = None) -> Archived:
        out = self.db.write(lambda tx: archive_in(tx, agent_id, ids, actor=actor, now=now, tag=tag, trigger=trigger))
        dropped = self._drop_lines(agent_id, core_lines, actor, "archived: forgotten at the user's request", tag,
                                   trigger)
        return out.model_copy(update={"core_lines": dropped})

    def restore(self, agent_id: str, ids: Sequence[str], *, actor: str) -> Restored:
        audit = Audit(action="memory.restore", actor=actor, agent_id=agent_id)

        def work(tx: Tx) -> Restored:
            steps = versions.keep(tx, Versioned.Memory, _in_state(tx, agent_id, ids, archived=True), now=audit.at,
                                  actor=actor, reason="restored from the archive", audit_id=audit.id)
            record = tx.run(cypher.query(Restored.query), agent_id=agent_id, ids=list(ids)).single()
            row = Restored.model_validate(dict(record)) if record else Restored(restored=[], relations=0)
            if row.restored:
                audit.write(tx, row.restored, f"restored {len(row.restored)} archived memories",
                            [ArchiveMemories(agent_id=agent_id, ids=row.restored)], steps)
            return row

        return self.db.write(work)

    def delete(self, agent_id: str, ids: Sequence[str], *, core_lines: Sequence[CoreLine] = (), actor: str,
               tag: str | None = None, trigger: str | None = None) -> ErasureReceipt:
        """An erasure (graph/audit/erasure.py): the memories, what hangs off them alone and every copy of what they
        said go; the lines of core memory go first (each its own edit, skipped when gone already), then the rest
        in one transaction with its audit record. The receipt says what was removed, redacted, dropped or kept."""
        ids = list(dict.fromkeys(ids))
        doomed = ids + [d for d in self._derived(agent_id, ids) if d not in ids]
        if not self.db.fetch("memory/erase_texts", agent_id=agent_id, ids=doomed):
            raise NotFound("none of these memories exists")
        dropped = self._drop_lines(agent_id, core_lines, actor, "deleted at the user's request", tag, trigger)
        # the erasure's own record holds no text: not even the words the user named it by
        audit = Audit(action=erasure.ERASED_ACTION, actor=actor, agent_id=agent_id, tag=tag,
                      trigger=f"user confirmed erasing {len(doomed)} memories" if trigger else None)
        erased_lines = [c.line.strip() for c in dropped] + [c.line.strip() for c in core_lines]
        out = self.db.write(lambda tx: _erase(tx, agent_id, doomed, audit, erased_lines))
        return out.model_copy(update={"core_lines": dropped})

    # ------------------------------------------------------------------ helpers

    def _derived(self, agent_id: str, ids: list[str]) -> list[str]:
        """Procedures learned only from these memories, and from those, until nothing new."""
        found: list[str] = []
        frontier = ids
        while frontier:
            rows = self.db.fetch("memory/derived", agent_id=agent_id, ids=ids + found)
            frontier = [r["id"] for r in rows if r["id"] not in found and r["id"] not in ids]
            found += frontier
        return found

    def _core_lines(self, agent_id: str, words: list[str]) -> list[CoreLine]:
        out = []
        # The blocks' contents in one plain read, not CoreMemory.read: a preview runs on every "forget …"
        # message, and the neomodel read costs a round trip per block for versions a preview never shows.
        for b in sorted(self.db.fetch("memory/core_contents", agent_id=agent_id),
                        key=lambda b: list(Block).index(Block(b["block"]))):
            pinned = {p.strip() for p in b["pinned"] or []}  # a pinned fact is unpinned before it can go
            for line in lines(b["content"] or ""):
                low = line.lower()
                if line.strip() and all(w in low for w in words) and line.strip() not in pinned:
                    out.append(CoreLine(Block(b["block"]), line))
        return out

    def core_lines(self, agent_id: str, target: str) -> list[CoreLine]:
        return self._core_lines(agent_id, terms(target))

    def _drop_lines(self, agent_id: str, core_lines: Sequence[CoreLine], actor: str, reason: str,
                    tag: str | None = None, trigger: str | None = None) -> list[CoreLineOut]:
        dropped = []
        for c in core_lines:
            try:
                self.core.edit(agent_id, c.block, EditLine("", old=c.line), actor=actor, reason=reason, tag=tag,
                               trigger=trigger)
            except (NotFound, Conflict):
                continue  # edited or pinned meanwhile: nothing to remove
            dropped.append(c.out())
        return dropped


def archive_in(tx: Tx, agent_id: str, ids: Sequence[str], *, actor: str, now: int,
               why: str = "forgotten at the user's request", tag: str | None = None,
               trigger: str | None = None) -> Archived:
    """Archive the agent's memories inside a transaction (a forget, or a reflection's approved archival),
    with the audit record whose revert operation restores them."""
    ids = list(dict.fromkeys(ids))
    audit = Audit(action="memory.archive", actor=actor, agent_id=agent_id, at=now, tag=tag, trigger=trigger)
    steps = versions.keep(tx, Versioned.Memory, _in_state(tx, agent_id, ids, archived=False), now=now, actor=actor,
                          reason=why, audit_id=audit.id)
    record = tx.run(cypher.query(ArchivedRow.query), agent_id=agent_id, ids=ids, now=now, actor=actor,
                    audit_id=audit.id).single()
    row = ArchivedRow.model_validate(dict(record)) if record else ArchivedRow(archived=[], relations=[])
    if row.archived:
        audit.write(tx, row.archived, f"archived {len(row.archived)} memories and {len(row.relations)} relations: "
                                      f"{why}", [RestoreMemories(agent_id=agent_id, ids=row.archived)], steps)
    return Archived(archived=row.archived, relations=row.relations, audit_id=audit.id if row.archived else None)


def _erase(tx: Tx, agent_id: str, doomed: list[str], audit: Audit,
           lines: list[str]) -> ErasureReceipt:
    said = [dict(r) for r in tx.run(cypher.query("memory/erase_texts"), agent_id=agent_id, ids=doomed)]
    if not said:
        raise NotFound("none of these memories exists")
    derived = tx.run(cypher.query("memory/erase_derived"), agent_id=agent_id, ids=doomed).single()
    row = tx.run(cypher.query("memory/delete"), agent_id=agent_id, ids=doomed, now=audit.at).single()
    deleted = list(row["deleted"]) if row else []
    entities = list(row["entities"]) if row else []
    gone = {e["id"]: e for m in said for e in m["entities"] if e["id"] in entities}
    e = erasure.Erasure(
        id=audit.id, agent_id=agent_id, actor=audit.actor, at=audit.at, ids=deleted, entities=entities,
        texts=[t for m in said for t in (m["text"], m["said"], *m["proposals"]) if t] + list(gone),
        words=[w for en in gone.values() for w in (en.get("name"), en.get("slug"), *(en.get("aliases") or [])) if w],
        lines=lines, hashes={m["id"]: erasure.sha256(m["text"] or "") for m in said})
    redacted, removed = erasure.redact(tx, e)
    # the record names what went, never what it said; the memories' versions went with them
    gone_versions = [versions.Step(i, versions.version_id(Versioned.Memory, i, int(n)), None)
                     for i, n in (row["versions"] if row else [])]
    audit.write(tx, deleted,
                f"permanently deleted {len(deleted)} memories, {row['relations'] if row else 0} relations and "
                f"{len(entities)} entities at the user's request; redacted {len(redacted)} records",
                [Noop(reason="permanently deleted at the user's request: nothing is kept to restore")], gone_versions)
    return ErasureReceipt(
        erasure_id=audit.id, erased_at=iso_minute(audit.at), erased_by=audit.actor, deleted=deleted,
        relations=int(row["relations"]) if row else 0, entities=entities, sha256=dict(e.hashes),
        removed=[*(ErasedNode(label="Memory", id=i, what="the memory, its embedding and its versions")
                   for i in deleted),
                 *(ErasedNode(label="Entity", id=i, what="an entity only the erased memories touched")
                   for i in entities),
                 *(ErasedNode(label=r.label, id=r.id, what="a version of an erased item") for r in removed)],
        redacted=redacted, derived=[DerivedNode.model_validate(d) for d in (derived["derived"] if derived else [])])


def _in_state(tx: Tx, agent_id: str, ids: Sequence[str], *, archived: bool) -> list[str]:
    return [r["id"] for r in tx.run(cypher.query("memory/in_state"), agent_id=agent_id, ids=list(ids),
                                    archived=archived)]


def _message(target: str, memories: int, core: int, permanent: bool) -> str:
    if not memories and not core:
        return f"I found nothing about {target}."
    what = " and ".join(x for x in (f"{memories} memor{'y' if memories == 1 else 'ies'}" if memories else "",
                                    f"{core} line{'s' if core != 1 else ''} of core memory" if core else "") if x)
    verb = "permanently delete" if permanent else "archive"
    return f"I found {what} about {target}. Should I {verb} {'it' if memories + core == 1 else 'all of them'}?"
