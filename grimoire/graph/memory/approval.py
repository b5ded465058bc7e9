"""A person decides a pending reflection (../shared/spec/moltbot-memory.md, 10.6), with a person's key or
the admin's — never the agent's own:

- approve: every proposal applied;
- approve with changes: every proposal but those excluded, with the person's edits (a fact's summary, a
  procedure's trigger, steps or notes, a core block's new text);
- approve part: only the proposals named;
- reject: nothing applied; the reflection log keeps the rejection, and the next reflection learns from it.

What is approved is applied atomically — one transaction for the new memories (their embeddings computed
before it opens), the archivals, the reinforcements, the core rewrites (only where the block is still as the
reflection read it) and the decision — each with its audit record. A reflection left undecided stays
pending: it is never applied by itself."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from grimoire.graph.audit import Access, Audit, SetProperties, versions
from grimoire.graph.audit.revert import NodeLabel
from grimoire.graph.audit.versions import Versioned
from grimoire.graph.db import cypher, ogm
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.embeddings import Embedder
from grimoire.graph.errors import Conflict, Invalid, NotFound
from grimoire.graph.ids import now_ms
from grimoire.graph.memory import stores
from grimoire.graph.memory.blocks import Block, Replace
from grimoire.graph.memory.core import CoreMemory
from grimoire.graph.memory.forgetting import archive_in
from grimoire.graph.memory.models import MemoryReflection
from grimoire.graph.memory.proposals import Proposals, commit_in
from grimoire.graph.memory.reflection import read_reflection, reflection_out
from grimoire.graph.memory.reflection_format import Item, ItemKind, Reflection
from grimoire.graph.memory.relevance import Arrival
from grimoire.graph.memory.routing import Classification, Confidence, Entity, MemoryType, Procedure, Relation, Store
from grimoire.graph.model.enums import EntityKind, MemoryRelation
from grimoire.graph.model.rows import Properties


class ApprovalDecision(StrEnum):
    approve = "approve"
    approve_with_changes = "approve_with_changes"
    approve_part = "approve_part"
    reject = "reject"


MAX_STEPS, MAX_LINE, MAX_BLOCK = 50, 2_000, 60_000
EDITABLE = {ItemKind.fact: {"summary"}, ItemKind.procedure: {"trigger", "steps", "notes"}, ItemKind.core: {"after"}}


@dataclass
class Verdict:
    decision: ApprovalDecision
    items: list[str] | None = None                  # approve_part: the ones applied
    exclude: list[str] = field(default_factory=list)  # approve_with_changes: the ones left out
    changes: dict[str, dict[str, Any]] = field(default_factory=dict)
    note: str | None = None


def chosen(items: Sequence[Item], v: Verdict) -> list[Item]:
    """The proposals the verdict applies, with the person's changes; Invalid for an unknown id or change."""
    ids = {i.id for i in items}
    named = set(v.items or []) | set(v.exclude) | set(v.changes)
    unknown = sorted(named - ids)
    if unknown:
        raise Invalid(f"no such proposal in this reflection: {', '.join(unknown[:5])}")
    if v.decision is ApprovalDecision.reject:
        return []
    if v.decision is ApprovalDecision.approve_part:
        if not v.items:
            raise Invalid("approve_part names the proposals to apply (items)")
        picked = [i for i in items if i.id in set(v.items)]
    elif v.decision is ApprovalDecision.approve_with_changes:
        if not v.exclude and not v.changes:
            raise Invalid("approve_with_changes needs changes or exclusions; plain approval is `approve`")
        picked = [i for i in items if i.id not in set(v.exclude)]
    else:
        if v.exclude or v.changes or v.items:
            raise Invalid("`approve` applies everything as proposed: use approve_part or approve_with_changes")
        picked = list(items)
    out = []
    for item in picked:
        edit = v.changes.get(item.id)
        if edit:
            bad = sorted(set(edit) - EDITABLE.get(item.kind, set()))
            if bad:
                raise Invalid(f"{item.id} ({item.kind.value}) cannot change {', '.join(bad)}")
            for key, value in edit.items():
                _check(item.id, key, value)
            item = Item(item.id, item.kind, item.line, {**item.data, **edit})
        out.append(item)
    return out


def _check(item_id: str, key: str, value: Any) -> None:
    """A person's change has the proposal's own shape: text, or a list of short texts."""
    if key in ("steps", "notes"):
        if not (isinstance(value, list) and len(value) <= MAX_STEPS
                and all(isinstance(x, str) and x.strip() and len(x) <= MAX_LINE for x in value)
                and (value or key == "notes")):
            raise Invalid(f"{item_id}: {key} is a list of at most {MAX_STEPS} non-empty texts of at most "
                          f"{MAX_LINE} characters")
    elif key == "after":
        if not isinstance(value, str) or len(value) > MAX_BLOCK:
            raise Invalid(f"{item_id}: after is the block's new text (at most {MAX_BLOCK} characters)")
    elif not isinstance(value, str) or not value.strip() or len(value) > MAX_LINE:
        raise Invalid(f"{item_id}: {key} is a non-empty text of at most {MAX_LINE} characters")


def _entity(name: str, kind: str) -> Entity:
    return Entity(name, EntityKind(kind))


def _memory(agent_id: str, clade: str | None, item: Item, at: int) -> stores.NewMemory:
    d = item.data
    if item.kind is ItemKind.fact:
        relations = tuple(Relation(_entity(r["from_name"], r["from_kind"]), MemoryRelation(r["relation"]),
                                   _entity(r["to_name"], r["to_kind"])) for r in d["relations"])
        entities = tuple(dict.fromkeys(e for r in relations for e in (r.subject, r.object)))
        c = Classification(store=Store.semantic, type=MemoryType.fact, summary=str(d["summary"]),
                           tags=tuple(d.get("tags") or ["reflection"])[:5], confidence=Confidence.medium,
                           entities=entities, relations=relations, router="reflection")
    else:
        steps = tuple(str(s) for s in d["steps"])
        c = Classification(store=Store.procedural, type=MemoryType.fact, summary=str(d["trigger"]),
                           tags=tuple(d.get("tags") or ["procedure"])[:5], confidence=Confidence.medium,
                           procedure=Procedure(str(d["trigger"]), steps, tuple(str(n) for n in d.get("notes") or ())),
                           router="reflection")
    return stores.NewMemory(agent_id=agent_id, classification=c, said=c.summary, at=at, arrival=Arrival.inferred,
                            clade=clade, learned_from=tuple(d.get("learned_from") or ()))


@dataclass
class Applying:
    """One decision's transaction as its appliers share it: what was prepared before it opened (the new
    memories with their embeddings, the deferred proposals to commit) and what they report back."""

    tx: Tx
    agent_id: str
    actor: str
    at: int
    number: int
    core: CoreMemory
    new: list[tuple[Item, stores.NewMemory]]
    rows: list[dict[str, Any]]
    committing: list[tuple[Item, stores.NewMemory, list[dict[str, Any]]]]
    tag: str = ""  # every change it applies carries the reflection (12.3)
    because: str = ""
    applied: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def why(self) -> str:
        return f"approved in reflection #{self.number}"


def _apply_memories(run: Applying, items: list[Item]) -> None:
    """Facts and procedures: new memories, embedded before the transaction."""
    if run.new:
        stores.write_in(run.tx, [m for _, m in run.new], run.rows,
                        Audit("memory.reflection.apply", run.actor, run.agent_id, tag=run.tag, trigger=run.because))
        run.applied += [i.id for i, _ in run.new]


def _apply_archivals(run: Applying, items: list[Item]) -> None:
    done = archive_in(run.tx, run.agent_id, [i.data["memory_id"] for i in items], actor=run.actor, now=run.at,
                      why=run.why, tag=run.tag, trigger=run.because)
    gone = set(done.archived)
    run.applied += [i.id for i in items if i.data["memory_id"] in gone]
    run.skipped |= {i.id: "already archived or gone" for i in items if i.data["memory_id"] not in gone}


def _apply_proposals(run: Applying, items: list[Item]) -> None:
    """Sub-agents' deferred proposals (13.3), those still open when the decision was read."""
    for i, memory, memory_rows in run.committing:
        try:
            commit_in(run.tx, run.agent_id, i.data["proposal_id"], memory, memory_rows, actor=run.actor, tag=run.tag,
                      trigger=run.because)
            run.applied.append(i.id)
        except (Conflict, NotFound):
            run.skipped[i.id] = "the proposal was decided meanwhile"


def _apply_confirmations(run: Applying, items: list[Item]) -> None:
    ids = [i.data["memory_id"] for i in items]
    access = Access(action="memory.reinforce.confirmed", agent_id=run.agent_id)
    touched = {r["id"] for r in run.tx.run(cypher.query("memory/reinforce"), agent_id=run.agent_id, ids=ids,
                                           now=access.at)}
    access.write(run.tx, ids, len(touched))
    run.applied += [i.id for i in items if i.data["memory_id"] in touched]
    run.skipped |= {i.id: "archived or gone" for i in items if i.data["memory_id"] not in touched}


def _apply_core_edits(run: Applying, items: list[Item]) -> None:
    """A core block rewritten only where it is still as the reflection read it."""
    for i in items:
        block = Block(i.data["block"])
        now_text = next(b.content for b in run.core.read_in(run.agent_id).blocks if b.block == block.value)
        if now_text != i.data["before"]:
            run.skipped[i.id] = "the block changed since the reflection read it"
            continue
        run.core.edit_in(run.tx, run.agent_id, block, Replace(str(i.data["after"])), actor=run.actor, reason=run.why,
                         tag=run.tag, trigger=run.because)
        run.applied.append(i.id)


def _acknowledge(run: Applying, items: list[Item]) -> None:
    run.applied += [i.id for i in items]  # a contradiction noted: nothing to change


Applier = Callable[[Applying, list[Item]], None]
APPLIERS: tuple[tuple[frozenset[ItemKind], Applier], ...] = (  # in this order, each given its kinds' items
    (frozenset({ItemKind.fact, ItemKind.procedure}), _apply_memories),
    (frozenset({ItemKind.archive}), _apply_archivals),
    (frozenset({ItemKind.proposal}), _apply_proposals),
    (frozenset({ItemKind.confirm}), _apply_confirmations),
    (frozenset({ItemKind.core}), _apply_core_edits),
    (frozenset({ItemKind.contradiction}), _acknowledge),
)


def _status(verdict: Verdict, skipped: dict[str, str]) -> str:
    if verdict.decision is ApprovalDecision.reject:
        return "rejected"
    return "approved" if verdict.decision is not ApprovalDecision.approve_part and not skipped else "partial"


def _record_decision(run: Applying, node: MemoryReflection, verdict: Verdict, picked: list[Item],
                     proposed: int) -> None:
    """The reflection marked decided, versioned, with the decision's audit record."""
    before = {"status": node.status, "decision": node.decision, "decided_at": node.decided_at,
              "decided_by": node.decided_by, "applied": list(node.applied or []), "changes": node.changes,
              "note": node.note}
    decided = Audit("memory.reflection.reject" if verdict.decision is ApprovalDecision.reject
                    else "memory.reflection.decide", run.actor, run.agent_id, trigger=run.because)
    steps = versions.keep(run.tx, Versioned.MemoryReflection, [node.uid], now=decided.at, actor=run.actor,
                          reason=run.because, audit_id=decided.id)
    node.status = _status(verdict, run.skipped)
    node.decision, node.decided_at, node.decided_by = verdict.decision.value, run.at, run.actor
    node.applied = [i.id for i in picked if i.id in set(run.applied)]
    node.changes = json.dumps({"exclude": verdict.exclude, "changes": verdict.changes, "items": verdict.items,
                               "skipped": run.skipped}) \
        if verdict.changes or verdict.exclude or verdict.items or run.skipped else None
    node.note = verdict.note
    node.save()
    decided.write(run.tx, [node.uid], f"reflection #{node.number} {verdict.decision.value}: {len(node.applied)} of "
                                      f"{proposed} proposals applied",
                  [SetProperties(label=NodeLabel.MemoryReflection, id=node.uid, before=before)], steps)


class Approvals:
    def __init__(self, db: Database, embedder: Embedder, core: CoreMemory, proposals: Proposals | None = None) -> None:
        self.db, self.embedder, self.core, self.proposals = db, embedder, core, proposals

    def decide(self, agent_id: str, reflection_id: str, verdict: Verdict, *, actor: str) -> Reflection:
        agent = self.db.fetch("agents/get", id=agent_id)
        if not agent:
            raise NotFound(f"no agent {agent_id!r}")
        clade = agent[0]["agent"].get("clade")
        current = read_reflection(self.db, agent_id, reflection_id)
        if current.status != "pending":
            raise Conflict(f"reflection #{current.number} was decided already ({current.status})")
        items = [Item.of(x.model_dump()) for x in current.items]
        picked = chosen(items, verdict)
        at = now_ms()
        new = [(i, _memory(agent_id, clade, i, at)) for i in picked if i.kind in (ItemKind.fact, ItemKind.procedure)]
        vectors = self.embedder.embed([m.text() for _, m in new]) if new else None  # before the transaction
        rows = stores.rows_for([m for _, m in new], vectors, at) if vectors is not None else []
        committing, closed = self._proposals(agent_id, clade, picked)

        def work(tx: Tx) -> Reflection:
            # one decision at a time: the reflection locked, then read as committed; the agent's core too
            status = tx.run(cypher.query("memory/lock_reflection"), id=reflection_id).single()
            tx.run(cypher.query("memory/lock_core"), agent_id=agent_id).consume()
            node = MemoryReflection.nodes.get(uid=reflection_id)
            if status is None or status["status"] != "pending":  # decided meanwhile
                raise Conflict(f"reflection #{node.number} was decided already ({node.status})")
            run = Applying(tx, agent_id, actor, at, node.number, self.core, new, rows, committing,
                           tag=f"reflection:{reflection_id}", because=f"reflection decided: {verdict.decision.value}",
                           skipped=dict(closed))
            for kinds, apply in APPLIERS:
                mine = [i for i in picked if i.kind in kinds]
                if mine:
                    apply(run, mine)
            _record_decision(run, node, verdict, picked, len(items))
            return reflection_out(node).model_copy(update={"skipped": run.skipped})

        return ogm.write(self.db, work)

    def _proposals(self, agent_id: str, clade: str | None, picked: list[Item]
                   ) -> tuple[list[tuple[Item, stores.NewMemory, list[Properties]]], dict[str, str]]:
        """The deferred proposals an approval commits, each with its memory embedded (before the transaction);
        those decided since the reflection was proposed are skipped, and why."""
        committing: list[tuple[Item, stores.NewMemory, list[Properties]]] = []
        closed: dict[str, str] = {}
        for i in picked:
            if i.kind is not ItemKind.proposal or self.proposals is None:
                continue
            try:
                node = self.proposals.open_proposal(agent_id, i.data["proposal_id"])
            except (Conflict, NotFound):
                closed[i.id] = "the proposal was decided or is gone"
                continue
            memory = self.proposals.memory_for(node, clade)
            committing.append((i, memory, stores.rows_for([memory], self.embedder.embed([memory.text()]), now_ms())))
        return committing, closed
