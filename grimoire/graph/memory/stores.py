"""The memory stores in the graph (../shared/spec/moltbot-memory.md, sections 5 to 7), on the graph the
service already has: every memory is an Episode of its agent (type `conversation`, so the vector and
full-text indexes, the thread, the hybrid retrieval and every list see it) that is also a `Memory`, with its
store and what relevance decay needs (section 9).

- episodic: the event itself, logged by day (`day`, YYYY-MM-DD, of when it was said);
- semantic: the memory, the entities it names (MENTIONS; Person, Project, Concept, Tool, Place) and its
  relations, CUSTOM facts named from the 6.3 vocabulary, valid from when it was said;
- procedural: trigger, steps and notes, and the memories it was learned from (LEARNED_FROM);
- core: the memory, and the line it added to its core block (graph/memory/core.py);
- vault: pinned; never decays, never leaves its owner (always private).

A memory is written once (MERGE on its id) with its audit record in the same transaction; its embedding is
computed before the transaction opens. An archived memory leaves the Episode label (hidden from every search
path) and keeps the Memory label."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from grimoire.graph.audit import Audit, UndoRemember, versions
from grimoire.graph.audit.versions import Versioned
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.embeddings import Embedder
from grimoire.graph.events import episodes_written
from grimoire.graph.events import write as write_events
from grimoire.graph.ids import now_ms, uuid7
from grimoire.graph.memory import relevance
from grimoire.graph.memory.relevance import Arrival, RelevanceOut
from grimoire.graph.memory.routing import CONFIDENCE_VALUE, Classification, Confidence, Entity, Store
from grimoire.graph.model.crystal import fields
from grimoire.graph.model.crystal.governance import govern
from grimoire.graph.model.crystal.payload import SourceFile
from grimoire.graph.model.enums import EntityKind
from grimoire.graph.model.governance import Lifespan
from grimoire.graph.model.rows import Properties, Record, Row

CHUNK = 1_000
HUB = 100    # an entity named by this many memories links nothing (section 9.4's "connects to the memory")
LINKED = 10  # a new memory reinforces at most this many (the ones said last) of those it connects to


class Source:
    """Section 5's `source` of an entry."""

    conversation = "conversation"
    reflection = "reflection"
    user_explicit = "user-explicit"


@dataclass(frozen=True)
class NewMemory:
    agent_id: str
    classification: Classification
    said: str                      # the message as the user wrote it
    at: int                        # when it was said (ms): valid time, and the first access
    arrival: Arrival = Arrival.explicit
    clade: str | None = None
    session_id: str | None = None
    user: str = "user"             # the person's name (the first person of a message)
    learned_from: tuple[str, ...] = ()
    id: str = field(default_factory=uuid7)
    file: SourceFile | None = None  # the file and lines it was imported from (a workspace import)

    @property
    def store(self) -> Store:
        return self.classification.store

    def text(self) -> str:
        """What is embedded and searched: the summary; a procedure's trigger and steps."""
        c = self.classification
        if c.procedure is None:
            return c.summary
        steps = " ".join(f"{i}. {s}." for i, s in enumerate(c.procedure.steps, 1))
        return f"{c.procedure.trigger}: {steps}".strip()


def user_entity(name: str) -> Entity:
    return Entity(name, EntityKind.Person)


def day_of(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d")


def _fact_id(agent_id: str, memory_id: str, subject: str, relation: str, obj: str) -> str:
    digest = hashlib.sha1(f"{agent_id}|{memory_id}|{subject}|{relation}|{obj}".encode()).hexdigest()[:20]
    return f"mrel:{digest}"


def properties(memory: NewMemory, recorded_at: int) -> Properties:
    c = memory.classification
    source = (Source.user_explicit if memory.arrival is Arrival.explicit else
              Source.reflection if memory.arrival is Arrival.inferred else Source.conversation)
    props: dict[str, Any] = {
        "agent_id": memory.agent_id, "clade": memory.clade, "scope": "private", "type": "conversation",
        "text": memory.text(), "said": memory.said, "outcome": "neutral",
        "importance": "notable" if c.confidence is Confidence.high else "routine",
        # the Curator's DISTILL learns from tool outcomes; a memory's consolidation is reflection (section 10)
        "consolidated": True,
        "valid_from": memory.at, "recorded_at": recorded_at, "recorded_until": None, "time_axis": "timestamp",
        "last_accessed_at": memory.at, "access_count": 1, "day": day_of(memory.at),
        "store": c.store.value, "memory_type": c.type.value, "confidence_level": c.confidence.value,
        "confidence": CONFIDENCE_VALUE[c.confidence], "tags": list(c.tags), "source": source,
        "arrival": memory.arrival.value, "base_relevance": relevance.BASE_RELEVANCE[memory.arrival],
        "pinned": c.store is Store.vault, "session_id": memory.session_id,
        # its status when written, which the decay system's transitions start from (graph/memory/decay_status.py)
        "decay_status": relevance.relevance(store=c.store, base=relevance.BASE_RELEVANCE[memory.arrival],
                                            access_count=1, last_accessed=memory.at, now=recorded_at,
                                            pinned=c.store is Store.vault).status.value,
        "decay_status_at": recorded_at,
        "core_block": c.core_block.value if c.core_block and c.store is Store.core else None,
        "router": c.router, "provenance_chain": [memory.agent_id],  # its own: a memory never leaves the node
    }
    crystal = {**fields.for_memory(c.type.value, c.store.value, memory.text(), memory.arrival is Arrival.explicit,
                                   recorded_at, memory.file),
               # a memory is forgotten as moltbot-memory.md says (relevance, archive, a person's delete): the more
               # specific document wins, so the consolidation engine scores and merges memories but never expires one
               **govern(memory.text(), "private", None, recorded_at, default_lifespan=Lifespan.permanent)}
    props = {**crystal, **props}
    if c.procedure is not None:
        props.update(trigger=c.procedure.trigger, steps=list(c.procedure.steps), notes=list(c.procedure.notes))
    return {k: v for k, v in props.items() if v is not None}


def _row(memory: NewMemory, vector: list[float], recorded_at: int) -> Properties:
    c = memory.classification
    user = user_entity(memory.user)

    def own(e: Entity) -> Entity:  # "user" in a classification is the person the agent talks to
        return user if e.kind is EntityKind.Person and e.name.lower() in ("user", memory.user.lower()) else e

    entities = list(dict.fromkeys(own(e) for e in c.entities))
    # A semantic memory asserts its relations now; an episode's are extracted by reflection (section 5:
    # "older episodes have their key facts extracted into the semantic graph"), when the person approves.
    relations = ([(own(r.subject), r.relation, own(r.object)) for r in c.relations]
                 if c.store is Store.semantic else [])
    entities += [e for s, _, o in relations for e in (s, o) if e not in entities]
    return {
        "id": memory.id, "props": properties(memory, recorded_at), "embedding": vector,
        "entities": [{"id": e.canonical_id, "kind": e.kind.value,
                      "props": {"kind": e.kind.value, "name": e.name, "slug": e.slug}} for e in entities],
        "relations": [{"subject": s.canonical_id, "object": o.canonical_id, "name": rel.value,
                       "fact_id": _fact_id(memory.agent_id, memory.id, s.canonical_id, rel.value, o.canonical_id),
                       "props": {"predicate": "Custom", "confidence": CONFIDENCE_VALUE[c.confidence],
                                 "confidence_level": c.confidence.value, "scope": "private",
                                 "agent_id": memory.agent_id, "clade": memory.clade or "",
                                 "time_axis": "timestamp", "approximate": False}}
                      for s, rel, o in relations],
        "learned_from": list(memory.learned_from),
        "linked_skip": [user.canonical_id],
    }


def undo_remember(audit: Audit, agent_id: str, rows: list[dict[str, Any]]) -> UndoRemember:
    """What undoes one agent's part of a write, from what remember.cypher says it did beyond the memories."""
    made = sorted(r["id"] for r in rows)
    creators = sorted({e for r in rows for e in r["creators_added"] if e is not None})
    facts: dict[str, float] = {}
    for r in rows:
        for f in r["facts_extended"]:
            facts.setdefault(f["id"], f["confidence"])  # the first: the confidence before this write
    reinforced: dict[str, dict[str, Any]] = {}
    for r in rows:
        for x in r["reinforced"]:
            if x["id"] in made:
                continue  # a memory of this write: deleted with it
            seen = reinforced.setdefault(x["id"], {"id": x["id"], "last_accessed_at": x["last_accessed_at"],
                                                   "times": 0})
            seen["times"] += 1
    return UndoRemember(agent_id=agent_id, audit_id=audit.id, at=audit.at, ids=made, creators_added=creators,
                        facts=[{"id": k, "confidence": v} for k, v in sorted(facts.items())],
                        reinforced=sorted(reinforced.values(), key=lambda x: x["id"]))


@dataclass
class Written:
    ids: list[str]
    linked: dict[str, list[str]]   # memory id -> the earlier memories it reinforced (linked)
    audit_ids: list[str]


def rows_for(memories: Sequence[NewMemory], vectors: np.ndarray, recorded_at: int) -> list[Properties]:
    return [_row(m, v.tolist(), recorded_at) for m, v in zip(memories, vectors, strict=True)]


def write_in(tx: Tx, memories: Sequence[NewMemory], rows: list[dict[str, Any]],
             audit: Audit) -> list[Record]:
    """Memories written inside a transaction another change shares (a reflection's approval), with the
    audit record; the rows' embeddings were computed before it opened."""
    created = [dict(r) for r in tx.run(cypher.query("memory/remember"), rows=rows, audit_id=audit.id,
                                       now=audit.at, hub=HUB, linked=LINKED)]
    made = {r["id"] for r in created}
    owner = {m.id: m.agent_id for m in memories}
    kinds = sorted({m.store.value for m in memories if m.id in made})
    sessions = {m.session_id for m in memories if m.id in made}
    if audit.session_id is None and len(sessions) == 1:
        audit.session_id = sessions.pop()  # what one session said can be rolled back as a whole
    if made:
        audit.write(tx, sorted(made), f"remembered {len(made)} memories ({', '.join(kinds)})",
                    [undo_remember(audit, agent, [r for r in created if owner[r["id"]] == agent])
                     for agent in sorted({owner[i] for i in made})],
                    versions.created(Versioned.Memory, sorted(made)))
    by_owner: dict[tuple[str, str | None], int] = {}
    for m in memories:
        if m.id in made:
            by_owner[(m.agent_id, m.clade)] = by_owner.get((m.agent_id, m.clade), 0) + 1
    write_events(tx, [episodes_written(a, c, n, source="memory") for (a, c), n in by_owner.items()])
    return created


def write(db: Database, embedder: Embedder, memories: Sequence[NewMemory], *, actor: str,
          vectors: np.ndarray | None = None, progress: Callable[[int], None] | None = None,
          tag: str | None = None, trigger: str | None = None) -> Written:
    """Write memories, CHUNK per transaction, each chunk with its audit record; embeddings first (or the
    `vectors` given, one per memory: an import that carries them)."""
    out = Written([], {}, [])
    if vectors is not None and len(vectors) != len(memories):
        raise ValueError("one vector per memory")
    for start in range(0, len(memories), CHUNK):
        chunk = list(memories[start:start + CHUNK])
        chunk_vectors = (vectors[start:start + CHUNK] if vectors is not None
                         else embedder.embed([m.text() for m in chunk]))  # before the transaction opens
        rows = rows_for(chunk, chunk_vectors, now_ms())
        owners = {m.agent_id for m in chunk}
        audit = Audit(action="memory.remember", actor=actor, agent_id=owners.pop() if len(owners) == 1 else None,
                      tag=tag, trigger=trigger)

        def work(tx: Tx, chunk: list[NewMemory] = chunk, rows: list[dict[str, Any]] = rows,
                 audit: Audit = audit) -> list[Record]:
            return write_in(tx, chunk, rows, audit)

        created = db.write(work)
        out.ids += [r["id"] for r in created]
        out.linked.update({r["id"]: list(r["linked"]) for r in created})
        out.audit_ids.append(audit.id)
        if progress is not None:
            progress(len(out.ids))
    return out


def session_memories(db: Database, agent_id: str, session_id: str, limit: int = 5) -> list[str]:
    return [r["id"] for r in db.fetch("memory/session_memories", agent_id=agent_id, session_id=session_id,
                                      limit=limit)]


class MemoryEntity(BaseModel):
    """An entity a memory names (MENTIONS)."""

    id: str
    name: str | None = None
    kind: str | None = None
    slug: str | None = None


class StoredMemory(BaseModel):
    """A memory's properties as the graph keeps them (`properties` above; times in epoch ms, as the answers always
    gave them). The fields a memory is written with are declared; the crystal vocabulary every item carries and
    its engines keep up to date (graph/model/crystal: semantic type, importance, hormones, governance, ...) travels
    as stored, as extra fields: a memory's answer has always shown its item's whole state. Never its embedding."""

    model_config = ConfigDict(extra="allow")

    id: str
    agent_id: str
    store: str
    text: str
    base_relevance: float
    memory_type: str | None = None
    said: str | None = None
    day: str | None = Field(default=None, description="YYYY-MM-DD of when it was said (the episodic log's day)")
    clade: str | None = None
    scope: str | None = None
    type: str | None = None
    session_id: str | None = None
    source: str | None = Field(default=None, description="conversation, reflection or user-explicit")
    arrival: str | None = Field(default=None, description="explicit, detected or inferred")
    confidence_level: str | None = None
    confidence: float | None = None
    tags: list[str] | None = None
    pinned: bool | None = None
    access_count: int | None = None
    valid_from: int | None = Field(default=None, description="when it was said (epoch ms)")
    recorded_at: int | None = Field(default=None, description="when it was written (epoch ms)")
    last_accessed_at: int | None = Field(default=None, description="its last access (epoch ms)")
    core_block: str | None = None
    trigger: str | None = Field(default=None, description="a procedure's trigger")
    steps: list[str] | None = None
    notes: list[str] | None = None
    lifecycle: str | None = None
    sensitivity: str | None = None
    audit_id: str | None = None
    decay_status: str | None = Field(
        default=None, description="the status the decay system last recorded (active, fading, dormant, archived; "
                                  "`relevance.status` is the one now)")
    decay_status_at: int | None = Field(default=None, description="when that status was recorded (epoch ms)")
    archived_at: int | None = Field(default=None, description="when it was forgotten (archived), epoch ms")
    archived_by: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _no_vector(cls, data: Any) -> Any:
        """The statements project `embedding: null`: never part of the memory."""
        return {k: v for k, v in data.items() if k != "embedding"} if isinstance(data, dict) else data


class Memory(StoredMemory):
    """A memory as the API returns it: its properties, its relevance now and, when read with them, the entities
    it names and what (a procedure) was learned from."""

    relevance: RelevanceOut
    entities: list[MemoryEntity] | None = None
    learned_from: list[str] | None = None


class MemoryRow(Row):
    """A memory read by id, with its entities and what it was learned from."""

    query = "memory/get"
    memory: StoredMemory
    entities: list[MemoryEntity]
    learned_from: list[str]


class ListedMemoryRow(MemoryRow):
    query = "memory/list"


def as_memory(stored: StoredMemory | dict[str, Any], now: int, **more: Any) -> Memory:
    """A memory with its relevance now (`more`: what was read beside it: entities, learned_from, ...); only the
    fields it holds are set, so an answer shows what the memory has, as it always did."""
    props = stored.model_dump(exclude_unset=True) if isinstance(stored, StoredMemory) else dict(stored)
    props.pop("embedding", None)
    return Memory.model_validate({**props, "relevance": relevance.of(props, now).out(), **more})


def shape(row: MemoryRow, now: int) -> Memory:
    """A memory as the API returns it: its properties, its relevance now, entities, what it was learned from."""
    return as_memory(row.memory, now, entities=sorted(row.entities, key=lambda e: e.id),
                     learned_from=sorted(row.learned_from))


def get(db: Database, agent_id: str, ids: Sequence[str], now: int | None = None) -> list[Memory]:
    at = now if now is not None else now_ms()
    return [shape(r, at) for r in db.typed(MemoryRow, agent_id=agent_id, ids=list(ids))]


def list_memories(db: Database, agent_id: str, *, store: Store | None = None, day: str | None = None,
                  archived: bool = False, include_archived: bool = False, offset: int = 0, limit: int = 50,
                  now: int | None = None) -> list[Memory]:
    """The live memories, only the archived ones (`archived`), or both (`include_archived`)."""
    at = now if now is not None else now_ms()
    rows = db.typed(ListedMemoryRow, agent_id=agent_id, store=store.value if store else None, day=day,
                    archived=archived, include_archived=include_archived, offset=offset, limit=limit)
    return [shape(r, at) for r in rows]
