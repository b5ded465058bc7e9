"""Sub-agents propose, the main agent commits (../shared/spec/moltbot-memory.md, section 13).

Every agent reads the stores as the visibility rules allow; only a main agent writes its own. A sub-agent
(registered with its main agent as parent) proposes instead: a MemoryProposal with the fields of 13.2 (from,
timestamp, trigger, suggested store, content, entities, confidence, core-worthy, status), classified by the
memory router where the sub-agent left a field out. A proposal whose subject another pending one shares,
with a negation or a value the other contradicts, and close in meaning (embedding similarity), is flagged as
a conflict and linked to it (13.6). The main agent commits a proposal to the suggested store or another,
rejects it with a reason, or defers it (13.3); each is audited (PROPOSE as `subagent:NAME`, COMMIT as
`bot:commit-from:NAME`, REJECT). pending-memories.md renders the queue in 13.2's format.

13.4's review modes, the main agent's setting: `auto` commits a trusted sub-agent's proposal at once at or above
the confidence it is trusted from; `batch` (the default, "recommended") holds every proposal for the review at a
session's start and end, which list them; `manual` holds them for the person, and the sessions list none. In every
mode the decision itself takes a person's key or the admin's (one rule, issue 36)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from grimoire.graph import agents
from grimoire.graph.agents import AgentOut
from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel, SetProperties, versions
from grimoire.graph.audit.versions import Versioned
from grimoire.graph.audit.vocabulary import Approval, one_line
from grimoire.graph.db import cypher, ogm
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx, one
from grimoire.graph.embeddings import Embedder
from grimoire.graph.errors import Conflict, Invalid, NotFound
from grimoire.graph.ids import now_ms, uuid7
from grimoire.graph.memory import stores
from grimoire.graph.memory.models import MemoryProposal
from grimoire.graph.memory.recall import terms
from grimoire.graph.memory.relevance import Arrival
from grimoire.graph.memory.routing import Confidence, Router, Store
from grimoire.graph.model.enums import AgentKind
from grimoire.graph.model.rows import Properties

SIMILAR = 0.6        # cosine above which two proposals are about the same thing
RANK = {Confidence.low: 0, Confidence.medium: 1, Confidence.high: 2}
_NEGATION = re.compile(r"\b(not|no|never|don't|doesn't|didn't|isn't|aren't|wasn't|won't|can't|cannot|avoid|avoids)\b",
                       re.I)
_VALUE = re.compile(r"\b(\d[\d.,:/-]*|jan\w*|feb\w*|mar\w*|apr\w*|may|jun\w*|jul\w*|aug\w*|sep\w*|oct\w*|nov\w*|"
                    r"dec\w*|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.I)


class Status(StrEnum):
    pending = "pending"
    conflict = "conflict"
    deferred = "deferred"
    committed = "committed"
    rejected = "rejected"


class ReviewMode(StrEnum):
    auto = "auto"        # trusted sub-agents' proposals committed at once from their confidence
    batch = "batch"      # held for the review at a session's start and end (the default)
    manual = "manual"    # held for the person; the sessions do not list them


DEFAULT_REVIEW = ReviewMode.batch


def review_mode(agent: AgentOut | None) -> ReviewMode:
    return ReviewMode(agent.review_mode) if agent is not None and agent.review_mode else DEFAULT_REVIEW


class ProposalDecision(StrEnum):
    commit = "commit"
    reject = "reject"
    defer = "defer"


OPEN = (Status.pending, Status.conflict, Status.deferred)


@dataclass(frozen=True)
class ProposalIn:
    content: str
    trigger: str = "auto-detect"
    store: Store | None = None          # the suggested store; else the router's
    entities: tuple[str, ...] | None = None
    confidence: Confidence | None = None
    core_worthy: bool | None = None


def values(text: str) -> set[str]:
    return {v.lower().strip(".,") for v in _VALUE.findall(text)}


def contradicts(a: str, b: str, entities_a: set[str], entities_b: set[str], similarity: float) -> bool:
    """13.6's contradiction: the same subject (an entity in common, or two content words beyond the values),
    one negated and the other not or a value of one the other does not hold, and close in meaning."""
    if similarity < SIMILAR:
        return False
    words_a, words_b = set(terms(a)) - values(a), set(terms(b)) - values(b)
    if not (entities_a & entities_b or len(words_a & words_b) >= 2):
        return False
    negated = bool(_NEGATION.search(a)) != bool(_NEGATION.search(b))
    va, vb = values(a), values(b)
    return negated or bool(va and vb and va != vb)


def _cosine(a: list[float], b: list[float]) -> float:
    return float(np.dot(np.asarray(a), np.asarray(b)))  # the embeddings are normalised


class Proposal(BaseModel):
    """A sub-agent's proposal as the API returns it (13.2; times in epoch ms, as stored): never its embedding."""

    id: str
    agent_id: str = Field(description="the main agent whose memory it would join")
    number: int
    from_agent: str = Field(description="the sub-agent that proposed it")
    at: int
    trigger: str
    store: str = Field(description="the suggested store")
    content: str
    entities: list[str] = Field(default_factory=list)
    confidence: str
    core_worthy: bool = False
    status: Status
    conflicts_with: list[str] = Field(default_factory=list, description="the open proposals it contradicts (13.6)")
    decided_at: int | None = None
    decided_by: str | None = None
    reason: str | None = None
    memory_id: str | None = Field(default=None, description="the memory a commit wrote")
    committed_store: str | None = None


class ReviewModeSet(BaseModel):
    """A main agent's review mode (13.4) and the one it replaced."""

    agent_id: str
    mode: ReviewMode
    before: ReviewMode


class Trust(BaseModel):
    """A sub-agent's auto-commit threshold (13.4)."""

    main: str
    sub_agent: str
    auto_commit_at: str | None = Field(description="from this confidence up its proposals are committed at once; "
                                                   "none: each is reviewed")


def out(node: MemoryProposal) -> Proposal:
    d = ogm.properties(node)
    d.pop("embedding", None)
    return Proposal.model_validate(d)


@dataclass
class Proposals:
    db: Database
    embedder: Embedder
    router: Router

    def main_of(self, sub_agent: AgentOut) -> str:
        parent = sub_agent.parent_id
        if sub_agent.kind != AgentKind.sub or not parent:
            raise Invalid(f"agent {sub_agent.id!r} is not a sub-agent: a main agent writes its own memory")
        return parent

    def propose(self, main_id: str, sub: AgentOut, p: ProposalIn, *, actor: str) -> Proposal:
        """A sub-agent's proposal to its main agent's memory: stored pending (or flagged as a conflict), or
        committed at once when the main agent trusts this sub-agent at its confidence."""
        if self.main_of(sub) != main_id:
            raise Invalid(f"{sub.id!r} works for {sub.parent_id!r}, not {main_id!r}")
        c = self.router.classify(p.content, explicit=p.trigger != "auto-detect")
        store = _storable(p.store or c.store)
        entities = list(p.entities) if p.entities is not None else [e.canonical_id for e in c.entities]
        confidence = p.confidence or c.confidence
        core_worthy = p.core_worthy if p.core_worthy is not None else c.core_update
        vector = self.embedder.embed([p.content])[0].tolist()  # before the transaction opens
        at = now_ms()
        uid = uuid7()
        name = sub.id

        def work(tx: Tx) -> Proposal:
            tx.run(cypher.query("memory/lock_core"), agent_id=main_id).consume()  # numbers in order
            number = int(one(tx.run(cypher.query("proposals/next_number"), agent_id=main_id))["number"])
            rivals = [o for o in MemoryProposal.nodes.filter(agent_id=main_id, status__in=[s.value for s in OPEN])
                      if contradicts(p.content, o.content, set(entities), set(o.entities or []),
                                     _cosine(vector, list(o.embedding or [])))]
            node = MemoryProposal(
                uid=uid, agent_id=main_id, number=number, from_agent=name, at=at, trigger=p.trigger,
                store=store.value, content=p.content, entities=entities, confidence=confidence.value,
                core_worthy=core_worthy, status=(Status.conflict if rivals else Status.pending).value,
                conflicts_with=[o.uid for o in rivals], embedding=vector).save()
            own = {o.uid for o in rivals if o.from_agent == name}
            for o in rivals:
                before = {"status": o.status, "conflicts_with": list(o.conflicts_with or [])}
                o.status, o.conflicts_with = Status.conflict.value, [*(o.conflicts_with or []), uid]
                o.save()
                tx.run(cypher.query("proposals/link_conflict"), a=uid, b=o.uid).consume()
                Audit(action="memory.proposal.conflict", actor=actor, agent_id=main_id, tag=f"subagent:{name}").write(
                    tx, [o.uid, uid], f"proposal #{o.number} conflicts with #{number}",
                    [SetProperties(label=NodeLabel.MemoryProposal, id=o.uid, before=before)])
            Audit(action="memory.proposal.propose", actor=actor, agent_id=main_id, tag=f"subagent:{name}",
                  trigger=p.trigger, approval=Approval.pending).write(
                tx, [uid], f"proposal #{number} from {name} ({store.value}): {one_line(p.content)}",
                [DeleteNodes(label=NodeLabel.MemoryProposal, ids=[uid])])
            return seen_by_sub(out(node), own)

        made = ogm.write(self.db, work)
        trusted_at = sub.auto_commit_at
        if (made.status is Status.pending and trusted_at and self.mode(main_id) is ReviewMode.auto
                and RANK[confidence] >= RANK[Confidence(trusted_at)]):
            return self.decide(main_id, uid, ProposalDecision.commit, actor=actor, auto=True)
        return made

    def memory_for(self, node: MemoryProposal, clade: str | None, store: Store | None = None) -> stores.NewMemory:
        """What committing a proposal writes: a memory of the main agent, classified again, in its store."""
        c = self.router.classify(node.content, explicit=True)
        c = replace(c, store=_storable(store or Store(node.store)), confidence=Confidence(node.confidence),
                    core_update=False, core_block=None)
        return stores.NewMemory(agent_id=node.agent_id, classification=c, said=node.content, at=now_ms(),
                                arrival=Arrival.explicit if node.trigger != "auto-detect" else Arrival.detected,
                                clade=clade)

    def open_proposal(self, main_id: str, proposal_id: str) -> MemoryProposal:
        node: MemoryProposal | None = ogm.read(
            self.db, lambda tx: MemoryProposal.nodes.get_or_none(uid=proposal_id, agent_id=main_id))
        return _still_open(node, main_id, proposal_id)

    def decide(self, main_id: str, proposal_id: str, decision: ProposalDecision, *, actor: str,
               store: Store | None = None, reason: str | None = None, auto: bool = False) -> Proposal:
        """13.3: commit (to the suggested store or `store`), reject (with a reason) or defer a proposal."""
        node = self.open_proposal(main_id, proposal_id)
        memory = None
        rows: list[dict[str, Any]] = []
        if decision is ProposalDecision.commit:
            agent = self.db.fetch("agents/get", id=main_id)[0]["agent"]
            memory = self.memory_for(node, agent.get("clade"), store)
            rows = stores.rows_for([memory], self.embedder.embed([memory.text()]), now_ms())  # before the tx
        how = "auto-commit" if auto else decision.value

        def work(tx: Tx) -> Proposal:
            if decision is ProposalDecision.commit and memory is not None:
                return commit_in(tx, main_id, proposal_id, memory, rows, actor=actor,
                                 tag=f"bot:commit-from:{node.from_agent}" if auto else None,
                                 trigger=f"proposal #{node.number} ({how})", reason=reason)
            fresh = _locked(tx, main_id, proposal_id)
            before = _before(fresh)
            fresh.decided_at, fresh.decided_by, fresh.reason = now_ms(), actor, reason
            if decision is ProposalDecision.reject:
                fresh.status, action = Status.rejected.value, "memory.proposal.reject"
                summary = f"rejected proposal #{fresh.number}" + (f" — {reason}" if reason else "")
            else:
                fresh.status, action = Status.deferred.value, "memory.proposal.defer"
                summary = f"deferred proposal #{fresh.number} to reflection"
            audit = Audit(action, actor, main_id, trigger=f"proposal #{fresh.number} ({how})")
            steps = versions.keep(tx, Versioned.MemoryProposal, [fresh.uid], now=audit.at, actor=actor,
                                  reason=summary, audit_id=audit.id)
            fresh.save()
            audit.write(tx, [fresh.uid], summary,
                        [SetProperties(label=NodeLabel.MemoryProposal, id=fresh.uid, before=before)], steps)
            return out(fresh)

        return ogm.write(self.db, work)

    def list(self, main_id: str, *, status: list[Status] | None = None, from_agent: str | None = None,
             limit: int = 100) -> list[Proposal]:
        def work(tx: Tx) -> list[Proposal]:
            found = MemoryProposal.nodes.filter(agent_id=main_id)
            if status:
                found = found.filter(status__in=[s.value for s in status])
            if not from_agent:
                return [out(n) for n in found.order_by("number")[:limit]]
            own = {n.uid for n in MemoryProposal.nodes.filter(agent_id=main_id, from_agent=from_agent)}
            return [seen_by_sub(out(n), own) for n in found.filter(from_agent=from_agent).order_by("number")[:limit]]

        return ogm.read(self.db, work)

    def mode(self, main_id: str) -> ReviewMode:
        return review_mode(agents.get(self.db, main_id))

    def set_mode(self, main_id: str, mode: ReviewMode, *, actor: str) -> ReviewModeSet:
        """13.4: how the main agent's proposals are reviewed from now on (versioned and audited)."""
        def work(tx: Tx) -> ReviewModeSet:
            audit = Audit("agent.review_mode", actor, main_id)
            steps = versions.keep(tx, Versioned.Agent, [main_id], now=audit.at, actor=actor,
                                  reason="review mode changed", audit_id=audit.id)
            row = tx.run(cypher.query("proposals/review_mode"), main=main_id, mode=mode.value).single()
            if row is None:
                raise Invalid(f"{main_id!r} is a sub-agent: only a main agent reviews proposals")
            audit.write(tx, [main_id], f"{main_id}'s proposals reviewed in {mode.value} mode",
                        [SetProperties(label=NodeLabel.Agent, id=main_id, before={"review_mode": row["before"]})],
                        steps)
            return ReviewModeSet(agent_id=main_id, mode=mode,
                                 before=ReviewMode(row["before"]) if row["before"] else DEFAULT_REVIEW)

        return self.db.write(work)

    def trust(self, main_id: str, sub_id: str, at: Confidence | None, *, actor: str) -> Trust:
        """13.4: commit this sub-agent's proposals at once from this confidence up (None: review them all)."""
        def work(tx: Tx) -> Trust:
            audit = Audit("agent.trust", actor, main_id)
            steps = versions.keep(tx, Versioned.Agent, [sub_id], now=audit.at, actor=actor, reason="trust changed",
                                  audit_id=audit.id)
            row = tx.run(cypher.query("proposals/trust"), main=main_id, sub=sub_id,
                         at=at.value if at else None).single()
            if row is None:
                raise NotFound(f"no sub-agent {sub_id!r} of {main_id!r}")
            audit.write(
                tx, [sub_id], f"{sub_id}'s proposals " + (f"auto-committed from confidence {at.value}" if at
                                                           else "reviewed one by one"),
                [SetProperties(label=NodeLabel.Agent, id=sub_id, before={"auto_commit_at": row["before"]})], steps)
            return Trust(main=main_id, sub_agent=sub_id, auto_commit_at=at.value if at else None)

        return self.db.write(work)


def seen_by_sub(proposal: Proposal, own: set[str]) -> Proposal:
    """A proposal as the sub-agent that made it reads it: the conflicts it is flagged with name only that
    sub-agent's own proposals (13.6's flag stays; another sub-agent's proposal is not its to see)."""
    return proposal.model_copy(update={"conflicts_with": [c for c in proposal.conflicts_with if c in own]})


def _locked(tx: Tx, agent_id: str, proposal_id: str) -> MemoryProposal:
    """The proposal locked and read as committed, still open (else a 409: decided meanwhile). The main agent
    is locked first, as a new proposal locks it: a proposal flagging this one as a conflict and a decision
    on it take turns."""
    tx.run(cypher.query("memory/lock_core"), agent_id=agent_id).consume()
    tx.run(cypher.query("proposals/lock"), id=proposal_id).consume()
    return _still_open(MemoryProposal.nodes.get_or_none(uid=proposal_id, agent_id=agent_id), agent_id, proposal_id)


def _still_open(node: MemoryProposal | None, agent_id: str, proposal_id: str) -> MemoryProposal:
    """The proposal, when it exists (else a 404) and is not decided (else a 409)."""
    if node is None:
        raise NotFound(f"no proposal {proposal_id!r} for agent {agent_id!r}")
    if node.status not in {s.value for s in OPEN}:
        raise Conflict(f"proposal #{node.number} was decided already ({node.status})")
    return node


def _storable(store: Store) -> Store:
    """A line of core memory is the main agent's own to write (as messages do): a proposal for core is kept
    as semantic."""
    return Store.semantic if store is Store.core else store


def _before(node: MemoryProposal) -> Properties:
    return {"status": node.status, "decided_at": node.decided_at, "decided_by": node.decided_by,
            "reason": node.reason, "memory_id": node.memory_id, "committed_store": node.committed_store}


def commit_in(tx: Tx, agent_id: str, proposal_id: str, memory: stores.NewMemory,
              rows: list[dict[str, Any]], *,
              actor: str, tag: str | None, trigger: str, reason: str | None = None) -> Proposal:
    """Commit a proposal inside a transaction (the main agent's decision, or a reflection's approval): its
    memory written to the main agent's store with a COMMIT record (13.7: bot:commit-from:NAME, or the
    reflection), the proposal closed with its own record."""
    fresh = _locked(tx, agent_id, proposal_id)
    before = _before(fresh)
    stores.write_in(tx, [memory], rows, Audit("memory.proposal.commit", actor, fresh.agent_id,
                                              tag=tag or f"bot:commit-from:{fresh.from_agent}", trigger=trigger,
                                              approval=Approval.approved if (tag or "").startswith("reflection:")
                                              else Approval.auto))
    fresh.status, fresh.memory_id, fresh.committed_store = Status.committed.value, memory.id, memory.store.value
    fresh.decided_at, fresh.decided_by, fresh.reason = now_ms(), actor, reason
    audit = Audit("memory.proposal.decide", actor, fresh.agent_id, tag=tag, trigger=trigger)
    steps = versions.keep(tx, Versioned.MemoryProposal, [fresh.uid], now=audit.at, actor=actor, reason="committed",
                          audit_id=audit.id)
    fresh.save()
    audit.write(tx, [fresh.uid, memory.id],
                f"committed proposal #{fresh.number} from {fresh.from_agent} to {memory.store.value}",
                [SetProperties(label=NodeLabel.MemoryProposal, id=fresh.uid, before=before)], steps)
    return out(fresh)


def pending_md(proposals: list[Proposal]) -> str:
    """memory/meta/pending-memories.md (13.2), conflicts flagged as in 13.6."""
    by_id = {p.id: p.number for p in proposals}
    parts = ["# Pending Memory Proposals", "<!-- Sub-agents append proposals here. Main agent reviews and commits. -->"]
    for p in proposals:
        rivals = [by_id[c] for c in p.conflicts_with if c in by_id]
        flag = " ⚠️ CONFLICT with " + ", ".join(f"#{n}" for n in rivals) if rivals else ""
        status = (f"conflict — see {', '.join(f'#{n}' for n in rivals)}" if p.status is Status.conflict and rivals
                  else p.status.value)
        when = datetime.fromtimestamp(p.at / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        entities = ", ".join(p.entities)
        parts += ["---", f"## Proposal #{p.number}{flag}", f"- **From**: {p.from_agent}",
                  f"- **Timestamp**: {when}", f"- **Trigger**: {p.trigger}", f"- **Suggested store**: {p.store}",
                  f"- **Content**: {p.content}", f"- **Entities**: [{entities}]",
                  f"- **Confidence**: {p.confidence}", f"- **Core-worthy**: {'yes' if p.core_worthy else 'no'}",
                  f"- **Status**: {status}"]
    return "\n".join(parts) + "\n"
