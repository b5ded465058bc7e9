"""An agent's memory as one object, and what a user's message does to it (../shared/spec/moltbot-memory.md,
section 8): the agent passes each user message; a remember phrase (or memorable content) classifies it
(graph/memory/routing.py) and writes it to its store (and to core memory when it changes identity, active
context, persona or critical facts); a recall question searches instead of writing; a forget phrase
previews what it would take (nothing changes before the person confirms); a reflect phrase is reported
for the reflection engine."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel, Field

from grimoire.graph.agents import AgentOut
from grimoire.graph.audit import Access
from grimoire.graph.audit.vocabulary import one_line
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.embeddings import Embedder
from grimoire.graph.errors import Conflict, Invalid, NotFound
from grimoire.graph.ids import now_ms
from grimoire.graph.memory import stores
from grimoire.graph.memory.approval import Approvals
from grimoire.graph.memory.blocks import Append, Block, person_name
from grimoire.graph.memory.core import CoreMemory
from grimoire.graph.memory.forgetting import (
    APPLY,
    Archived,
    CoreLine,
    ErasureReceipt,
    ForgetPreview,
    Forgetting,
    FoundMemory,
)
from grimoire.graph.memory.proposals import Proposals
from grimoire.graph.memory.recall import RESULTS, Recall, RecallAnswer, terms
from grimoire.graph.memory.reflection import Reflections
from grimoire.graph.memory.reflection import Trigger as ReflectionTrigger
from grimoire.graph.memory.relevance import Arrival, Reinforcement
from grimoire.graph.memory.routing import USER, Classification, Router, Store
from grimoire.graph.memory.triggers import Intent, QueryType, Trigger, clauses, detect
from grimoire.graph.model.rows import Row

Defer = Callable[[Callable[[], object]], None]  # runs work after the answer is sent (FastAPI's background tasks)
AGENT_TTL = 5.0  # seconds an agent and its person's name are kept between messages
REFERENCED = 3  # an explicit recall question references its best few memories (section 9.4)


class Reinforced(Row):
    """A memory reinforced (section 9.4): its accesses now."""

    query = "memory/reinforce"
    id: str
    access_count: int


class MessageOut(BaseModel):
    intent: str = Field(description="remember, auto (memorable, no phrase), forget, delete, reflect, recall, none")
    phrase: str | None = Field(description="the trigger phrase that fired (section 8.1)")
    content: str = Field(description="the message without the phrase")
    classification: dict[str, Any] | None = Field(default=None, description="section 8.2's structured output")
    memory_id: str | None = None
    store: str | None = None
    core: dict[str, Any] | None = Field(default=None, description="the line added to core memory, or why not")
    linked: list[str] | None = Field(default=None, description="earlier memories this one reinforced (9.4)")
    audit_id: str | None = None
    memories: list[dict[str, Any]] | None = Field(
        default=None, description="every memory the message wrote: one per statement (a compound one is split), "
                                  "each with its classification, id, store, core line and audit id")
    recall: dict[str, Any] | None = Field(default=None, description="a recall question's results (section 11)")
    forget: dict[str, Any] | None = Field(default=None, description="what a forget would take; nothing changed")
    reflect: dict[str, Any] | None = Field(default=None, description="a reflection asked for (section 10)")


@dataclass
class AgentMemory:
    db: Database
    embedder: Embedder
    core: CoreMemory
    router: Router
    recall: Recall
    forgetting: Forgetting
    reflections: Reflections
    approvals: Approvals
    proposals: Proposals      # sub-agents' proposals to this memory (section 13)
    _agents: dict[str, tuple[float, AgentOut, str]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.core.listeners.append(self._core_written)

    def _core_written(self, agent_id: str, block: Block) -> None:
        if block is Block.identity:  # the person's name may have changed
            self._agents.pop(agent_id, None)

    # ------------------------------------------------------------------ messages

    def message(self, agent_id: str, text: str, *, actor: str, at: int | None = None,
                session_id: str | None = None, defer: Defer | None = None) -> MessageOut:
        """What the message does, with the trigger that fired and its outcome. `defer` runs bookkeeping (the
        reinforcement of what a recall returned) after the answer is sent; without it, before."""
        trigger = detect(text)
        said = at if at is not None else now_ms()
        out: dict[str, Any] = {"intent": trigger.intent.value, "phrase": trigger.phrase, "content": trigger.content}
        if trigger.intent in (Intent.remember, Intent.auto):
            out.update(self.remember(agent_id, trigger, text, actor=actor, at=said, session_id=session_id))
        elif trigger.intent is Intent.recall:
            out["recall"] = self.recall_for(agent_id, trigger.content, trigger.query_type or QueryType.general,
                                            explicit=trigger.explicit, actor=actor, defer=defer).model_dump(
                by_alias=True, exclude_unset=True)  # as GET .../recall answers it (MessageOut's nulls kept)
        elif trigger.intent in (Intent.forget, Intent.delete):
            out["forget"] = self._forget_preview(agent_id, trigger, session_id).model_dump(exclude_unset=True)
        elif trigger.intent is Intent.reflect:
            out["reflect"] = self._reflect(agent_id, trigger.content or None, actor)
        return MessageOut.model_validate(out)

    def remember(self, agent_id: str, trigger: Trigger, said: str, *, actor: str, at: int,
                 session_id: str | None) -> dict[str, Any]:  # open: MessageOut's nested maps keep their nulls
        """One memory per statement: a compound one ("my wallet is X and I prefer low-risk pools") is split into
        its clauses (triggers.clauses), each classified and written on its own, so that forgetting one leaves the
        others; a procedure's steps or a vault item stay whole. The answer is the first memory's, with every
        memory written in `memories`."""
        _, user = self._agent_and_user(agent_id)
        explicit = trigger.intent is Intent.remember
        content = trigger.content or said
        whole = self.router.classify(content, explicit=explicit, user=user)
        parts = [content] if whole.store in (Store.procedural, Store.vault) else clauses(content)
        written = [self._remember_one(agent_id, part, said, explicit, user, actor=actor, at=at + i,
                                      session_id=session_id, classification=whole if len(parts) == 1 else None)
                   for i, part in enumerate(parts)]
        return {**written[0], "memories": written}

    def _remember_one(self, agent_id: str, content: str, said: str, explicit: bool, user: str, *, actor: str,
                      at: int, session_id: str | None, classification: Classification | None
                      ) -> dict[str, Any]:  # open: one of MessageOut.memories, its nulls kept on the wire
        agent, _ = self._agent_and_user(agent_id)
        clade = agent.clade
        tag = "bot:trigger-remember" if explicit else "bot:auto-detect"  # the actor's role in the trail (12.3)
        because = f"user said {_quoted(said)}"
        if classification is None:
            classification = self.router.classify(content, explicit=explicit, user=user)
        core_out: dict[str, Any] | None = None
        if classification.core_update and classification.core_block is not None:
            try:  # the line goes into its block under the cap first; refused, the memory stays semantic
                self.core.edit(agent_id, classification.core_block, Append(f"- {classification.summary}"),
                               actor=actor, reason="remembered from a message", tag=tag, trigger=because,
                               session_id=session_id)
                core_out = {"block": classification.core_block.value, "line": f"- {classification.summary}"}
            except Conflict as e:
                core_out = {"block": classification.core_block.value, "refused": str(e)}
                classification = replace(classification, store=Store.semantic if classification.store is Store.core
                                         else classification.store, core_update=False)
        learned_from: tuple[str, ...] = ()
        if classification.store is Store.procedural and session_id:
            learned_from = tuple(stores.session_memories(self.db, agent_id, session_id))
        memory = stores.NewMemory(agent_id=agent_id, classification=classification, said=said, at=at,
                                  arrival=Arrival.explicit if explicit else Arrival.detected, clade=clade,
                                  session_id=session_id, user=user, learned_from=learned_from)
        written = stores.write(self.db, self.embedder, [memory], actor=actor, tag=tag, trigger=because)
        return {"classification": classification.out(), "memory_id": memory.id, "store": classification.store.value,
                "core": core_out, "linked": written.linked.get(memory.id, []),
                "audit_id": written.audit_ids[0] if written.audit_ids else None}

    # ------------------------------------------------------------------ recall and reinforcement

    def recall_for(self, agent_id: str, query: str, query_type: QueryType, *, explicit: bool, actor: str,
                   k: int = RESULTS, defer: Defer | None = None) -> RecallAnswer:
        self._require_agent(agent_id)
        result = self.recall.recall(agent_id, query, query_type, explicit=explicit, k=k, now=now_ms())
        if explicit and result.results:  # the user referenced them by asking
            top = [m.id for m in result.results[:REFERENCED]]
            work = functools.partial(self.reinforce, agent_id, top, Reinforcement.referenced, actor=actor)
            if defer is not None:
                defer(work)
            else:
                work()
        return result

    def reinforce(self, agent_id: str, ids: list[str], reason: Reinforcement, *, actor: str) -> list[Reinforced]:
        """Section 9.4: one more access, the last access now; an access record, not an audit record."""
        access = Access(action=f"memory.reinforce.{reason.value}", agent_id=agent_id)

        def work(tx: Tx) -> list[Reinforced]:
            rows = [Reinforced.model_validate(dict(r)) for r in tx.run(cypher.query(Reinforced.query),
                                                                       agent_id=agent_id, ids=ids, now=access.at)]
            access.write(tx, ids, len(rows))
            return rows

        return self.db.write(work)

    # ------------------------------------------------------------------ forgetting

    def _forget_preview(self, agent_id: str, trigger: Trigger, session_id: str | None) -> ForgetPreview:
        self._require_agent(agent_id)
        permanent = trigger.intent is Intent.delete
        if terms(trigger.content):
            return self.forgetting.preview(agent_id, trigger.content, permanent=permanent, now=now_ms())
        # "scratch that", "forget it", "that's no longer relevant": the last thing remembered in this session
        last = stores.session_memories(self.db, agent_id, session_id, 1) if session_id else []
        memories = [FoundMemory.model_validate(m.model_dump(exclude_unset=True))
                    for m in stores.get(self.db, agent_id, last)]
        return ForgetPreview(target=None, terms=[], permanent=permanent, memories=memories, derived=[],
                             core_lines=[], count=len(memories),
                             message=("Should I archive what I just remembered?" if memories else
                                      "I have nothing from this conversation to forget."))

    def forget(self, agent_id: str, *, actor: str, target: str | None = None, ids: list[str] | None = None,
               core_lines: list[CoreLine] | None = None, permanent: bool = False) -> Archived | ErasureReceipt:
        """Apply a confirmed forget: the memories named (or all a target's preview found) archived, or
        deleted when `permanent`."""
        self._require_agent(agent_id)
        if ids is not None and core_lines is None and not target:
            core_lines = []  # the memories named, and no line of core memory
        if ids is None or core_lines is None:
            if not target:
                raise Invalid("give the memories (ids) or the target to forget")
            preview = self.forgetting.preview(agent_id, target, permanent=permanent, now=now_ms(), limit=APPLY)
            if ids is None:
                ids = [m.id for m in preview.memories]
            if core_lines is None:
                core_lines = self.forgetting.core_lines(agent_id, target)
        tag = "bot:trigger-forget"
        because = (f"user asked to forget {_quoted(target)}" if target
                   else f"user confirmed forgetting {len(ids)} memories")
        if permanent:
            return self.forgetting.delete(agent_id, ids, core_lines=core_lines, actor=actor, tag=tag, trigger=because)
        return self.forgetting.archive(agent_id, ids, core_lines=core_lines, actor=actor, now=now_ms(), tag=tag,
                                       trigger=because)

    def _reflect(self, agent_id: str, about: str | None,
                 actor: str) -> dict[str, Any]:  # open: MessageOut.reflect, proposed or already waiting
        """A reflection asked for by phrase: proposed now, pending until the person decides; the one pending
        already when there is one."""
        try:
            made = self.reflections.reflect(agent_id, trigger=ReflectionTrigger.phrase, actor=actor, about=about)
            return {"about": about, "reflection_id": made.id, "number": made.number, "status": "pending",
                    "proposals": len(made.items), "tokens_used": made.tokens_used}
        except Conflict:
            pending = self.reflections.pending(agent_id)
            return {"about": about, "reflection_id": pending.id if pending else None,
                    "number": pending.number if pending else None, "status": "pending",
                    "message": "a reflection is already waiting for your approval"}

    # ------------------------------------------------------------------ helpers

    def _agent_and_user(self, agent_id: str) -> tuple[AgentOut, str]:
        """The agent (NotFound when there is none) and the person's name, read from the identity block
        ("- Name: Alex", "My name is Alex"), else "user": one round trip, kept for AGENT_TTL seconds (a new
        name counts from the next read; an agent is never deleted)."""
        hit = self._agents.get(agent_id)
        if hit is not None and hit[0] > time.monotonic():
            return hit[1], hit[2]
        rows = self.db.fetch("memory/agent_and_name", agent_id=agent_id, identity_id=f"{agent_id}:core:identity")
        if not rows or rows[0]["agent"] is None:
            raise NotFound(f"no agent {agent_id!r}")
        found = AgentOut.model_validate(dict(rows[0]["agent"])), person_name(rows[0]["identity"] or "", USER)
        self._agents[agent_id] = (time.monotonic() + AGENT_TTL, *found)
        return found

    def _require_agent(self, agent_id: str) -> AgentOut:
        return self._agent_and_user(agent_id)[0]


def _quoted(text: str) -> str:
    """A user's words in an audit record's trigger."""
    return f'"{one_line(text)}"'
