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
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from neo4j import ManagedTransaction

from graph.audit import Access, Audit, SetProperties, versions
from graph.audit.revert import NodeLabel
from graph.audit.versions import Versioned
from graph.db import cypher, ogm
from graph.db.connection import Database
from graph.embeddings import Embedder
from graph.errors import Conflict, Invalid, NotFound
from graph.ids import now_ms
from graph.memory import stores
from graph.memory.blocks import Block, Replace
from graph.memory.core import CoreMemory
from graph.memory.forgetting import archive_in
from graph.memory.models import MemoryReflection
from graph.memory.proposals import Proposals, commit_in
from graph.memory.reflection import read_reflection, reflection_out
from graph.memory.reflection_format import Item, ItemKind
from graph.memory.relevance import Arrival
from graph.memory.routing import Classification, Confidence, Entity, MemoryType, Procedure, Relation, Store
from graph.model.enums import EntityKind, MemoryRelation


class Decision(StrEnum):
    approve = "approve"
    approve_with_changes = "approve_with_changes"
    approve_part = "approve_part"
    reject = "reject"


MAX_STEPS, MAX_LINE, MAX_BLOCK = 50, 2_000, 60_000
EDITABLE = {ItemKind.fact: {"summary"}, ItemKind.procedure: {"trigger", "steps", "notes"}, ItemKind.core: {"after"}}


@dataclass
class Verdict:
    decision: Decision
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
    if v.decision is Decision.reject:
        return []
    if v.decision is Decision.approve_part:
        if not v.items:
            raise Invalid("approve_part names the proposals to apply (items)")
        picked = [i for i in items if i.id in set(v.items)]
    elif v.decision is Decision.approve_with_changes:
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


class Approvals:
    def __init__(self, db: Database, embedder: Embedder, core: CoreMemory, proposals: Proposals | None = None) -> None:
        self.db, self.embedder, self.core, self.proposals = db, embedder, core, proposals

    def decide(self, agent_id: str, reflection_id: str, verdict: Verdict, *, actor: str) -> dict[str, Any]:
        agent = self.db.fetch("agents/get", id=agent_id)
        if not agent:
            raise NotFound(f"no agent {agent_id!r}")
        clade = agent[0]["agent"].get("clade")
        current = read_reflection(self.db, agent_id, reflection_id)
        if current["status"] != "pending":
            raise Conflict(f"reflection #{current['number']} was decided already ({current['status']})")
        items = [Item.of(x) for x in current["items_list"]]
        picked = chosen(items, verdict)
        at = now_ms()
        new = [(i, _memory(agent_id, clade, i, at)) for i in picked if i.kind in (ItemKind.fact, ItemKind.procedure)]
        vectors = self.embedder.embed([m.text() for _, m in new]) if new else None  # before the transaction
        rows = stores.rows_for([m for _, m in new], vectors, at) if vectors is not None else []
        committing, closed = self._proposals(agent_id, clade, picked)

        tag = f"reflection:{reflection_id}"  # every change it applies carries the reflection (12.3)
        because = f"reflection decided: {verdict.decision.value}"

        def work(tx: ManagedTransaction) -> dict[str, Any]:
            # one decision at a time: the reflection locked, then read as committed; the agent's core too
            status = tx.run(cypher.query("memory/lock_reflection"), id=reflection_id).single()
            tx.run(cypher.query("memory/lock_core"), agent_id=agent_id).consume()
            node = MemoryReflection.nodes.get(uid=reflection_id)
            if status is None or status["status"] != "pending":  # decided meanwhile
                raise Conflict(f"reflection #{node.number} was decided already ({node.status})")
            applied: list[str] = []
            skipped: dict[str, str] = {}
            if new:
                stores.write_in(tx, [m for _, m in new], rows, Audit("memory.reflection.apply", actor, agent_id,
                                                                             tag=tag, trigger=because))
                applied += [i.id for i, _ in new]
            archive = [i for i in picked if i.kind is ItemKind.archive]
            if archive:
                done = archive_in(tx, agent_id, [i.data["memory_id"] for i in archive], actor=actor, now=at,
                                  why=f"approved in reflection #{node.number}", tag=tag, trigger=because)
                gone = set(done["archived"])
                applied += [i.id for i in archive if i.data["memory_id"] in gone]
                skipped |= {i.id: "already archived or gone" for i in archive if i.data["memory_id"] not in gone}
            skipped |= closed
            for i, memory, memory_rows in committing:  # sub-agents' deferred proposals (13.3)
                try:
                    commit_in(tx, agent_id, i.data["proposal_id"], memory, memory_rows, actor=actor, tag=tag,
                              trigger=because)
                    applied.append(i.id)
                except (Conflict, NotFound):
                    skipped[i.id] = "the proposal was decided meanwhile"
            confirm = [i for i in picked if i.kind is ItemKind.confirm]
            if confirm:
                ids = [i.data["memory_id"] for i in confirm]
                access = Access(action="memory.reinforce.confirmed", agent_id=agent_id)
                touched = {r["id"] for r in tx.run(cypher.query("memory/reinforce"), agent_id=agent_id, ids=ids,
                                                   now=access.at)}
                access.write(tx, ids, len(touched))
                applied += [i.id for i in confirm if i.data["memory_id"] in touched]
                skipped |= {i.id: "archived or gone" for i in confirm if i.data["memory_id"] not in touched}
            for i in picked:
                if i.kind is ItemKind.core:
                    block = Block(i.data["block"])
                    now_text = next(b["content"] for b in self.core.read_in(agent_id)["blocks"]
                                    if b["block"] == block.value)
                    if now_text != i.data["before"]:
                        skipped[i.id] = "the block changed since the reflection read it"
                        continue
                    self.core.edit_in(tx, agent_id, block, Replace(str(i.data["after"])), actor=actor,
                                      reason=f"approved in reflection #{node.number}", tag=tag, trigger=because)
                    applied.append(i.id)
                elif i.kind is ItemKind.contradiction:
                    applied.append(i.id)  # acknowledged: nothing to change
            before = {"status": node.status, "decision": node.decision, "decided_at": node.decided_at,
                      "decided_by": node.decided_by, "applied": list(node.applied or []), "changes": node.changes,
                      "note": node.note}
            decided = Audit("memory.reflection.reject" if verdict.decision is Decision.reject
                            else "memory.reflection.decide", actor, agent_id, trigger=because)
            steps = versions.keep(tx, Versioned.MemoryReflection, [node.uid], now=decided.at, actor=actor,
                                  reason=because, audit_id=decided.id)
            node.status = ("rejected" if verdict.decision is Decision.reject else
                           "approved" if verdict.decision is not Decision.approve_part and not skipped else "partial")
            node.decision, node.decided_at, node.decided_by = verdict.decision.value, at, actor
            node.applied = [i.id for i in picked if i.id in set(applied)]
            node.changes = json.dumps({"exclude": verdict.exclude, "changes": verdict.changes,
                                       "items": verdict.items, "skipped": skipped}) if verdict.changes or \
                verdict.exclude or verdict.items or skipped else None
            node.note = verdict.note
            node.save()
            decided.write(
                tx, [node.uid], f"reflection #{node.number} {verdict.decision.value}: {len(node.applied)} of "
                                f"{len(items)} proposals applied",
                [SetProperties(label=NodeLabel.MemoryReflection, id=node.uid,
                               before=before)], steps)  # None: absent before
            return {**reflection_out(node), "skipped": skipped}

        return ogm.write(self.db, work)

    def _proposals(self, agent_id: str, clade: str | None, picked: list[Item]
                   ) -> tuple[list[tuple[Item, stores.NewMemory, list[dict[str, Any]]]], dict[str, str]]:
        """The deferred proposals an approval commits, each with its memory embedded (before the transaction);
        those decided since the reflection was proposed are skipped, and why."""
        committing: list[tuple[Item, stores.NewMemory, list[dict[str, Any]]]] = []
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
