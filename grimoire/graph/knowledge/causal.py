"""The causal graph: CAUSES links between knowledge entries, weighted by evidence and recency.

Traversal goes forward (consequences) or backward (causes) up to three hops; a reached entry's
score is its best path's product of weight x recency. A verified outcome adds evidence and moves
the weight (share of confirmations) and the confidence (asymmetric steps). An agent's causal graph
exports with its entries; a successor inherits copies at confidence 0.3, provenance Predecessor,
to be re-validated by its own observations.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, Field, model_validator

from grimoire.graph.audit import Audit, DeleteRelationships, RelationshipType, SetRelationshipProperties
from grimoire.graph.audit.versions import counted
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import Invalid, NotFound
from grimoire.graph.events import ingest_result
from grimoire.graph.events import write as write_events
from grimoire.graph.ids import now_ms
from grimoire.graph.knowledge.decay import DAY_MS, DecayConfig
from grimoire.graph.knowledge.entries import Knowledge, admit
from grimoire.graph.model.common import MAX_INT, MAX_LIST, MAX_TEXT, ClientId, EpochMs, ShortText, StrictModel, Unit
from grimoire.graph.model.entry import EntryIn
from grimoire.graph.model.enums import DecayClass, EntryCategory, EntryStatus, MarketRegime, Provenance, Scope
from grimoire.graph.model.rows import Properties, Record, Row
from grimoire.graph.model.vectors import Vector
from grimoire.graph.visibility import Visibility

MAX_DEPTH = 3
INHERITED_CONFIDENCE = 0.3  # the knowledge weighting hierarchy's Predecessor weight
MAX_LINKS = 1_000


class LinkIn(StrictModel):
    id: ClientId | None = Field(default=None, description="default: <agent>:<cause>-><effect>")
    cause: ClientId
    effect: ClientId
    weight: Unit = 1.0
    evidence: Annotated[int, Field(ge=1, le=1_000_000)] = 1
    lag_blocks: Annotated[int, Field(ge=0, le=10**9)] | None = None
    lag_ms: Annotated[int, Field(ge=0, le=10**13)] | None = None
    confidence: Unit = 0.6
    scope: Scope = Scope.private


class LinksIn(StrictModel):
    links: Annotated[list[LinkIn], Field(min_length=1, max_length=MAX_LINKS)]


class LinkNotFound(NotFound):
    """An entry or causal link the caller may not see, or that does not exist (404)."""


class InvalidLink(Invalid):
    """A causal link the graph cannot hold, such as an entry causing itself (422)."""


class GraphEntry(StrictModel):
    """An entry at one end of an exported link: what a successor needs to hold its own copy."""

    id: ClientId
    category: EntryCategory
    content: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
    status: EntryStatus = EntryStatus.active
    decay_class: DecayClass | None = None
    market_regime: MarketRegime | None = None
    tags: Annotated[list[ShortText], Field(max_length=MAX_LIST)] = Field(default_factory=list)
    is_bloodstain: bool = False
    dream_validated: bool = False
    half_life_ms: Annotated[float, Field(gt=0, le=1e15)] | None = None
    quality_score: Unit | None = None
    valid_from: EpochMs | None = None
    valid_until: EpochMs | None = None
    embedding: Vector


class GraphLink(StrictModel):
    id: Annotated[str, Field(min_length=1, max_length=200)]
    cause: ClientId
    effect: ClientId
    weight: Unit
    evidence: Annotated[int, Field(ge=1, le=MAX_INT)]
    lag_blocks: Annotated[int, Field(ge=0, le=MAX_INT)] | None = None
    lag_ms: Annotated[int, Field(ge=0, le=MAX_INT)] | None = None
    created_at: Annotated[int, Field(ge=0, le=MAX_INT)] | None = None


class CausalGraph(StrictModel):
    """An agent's causal graph as exported, and as a successor imports it."""

    agent_id: Annotated[str, Field(min_length=1, max_length=128)]
    entries: Annotated[list[GraphEntry], Field(max_length=20_000)]
    links: Annotated[list[GraphLink], Field(max_length=50_000)]

    @model_validator(mode="after")
    def _closed(self) -> CausalGraph:
        ids = {e.id for e in self.entries}
        loose = [lk.id for lk in self.links if lk.cause not in ids or lk.effect not in ids]
        if loose:
            raise ValueError(f"links whose cause or effect is not among the entries: {loose[:10]}")
        return self


def default_link_id(agent_id: str, cause: str, effect: str) -> str:
    name = f"{agent_id}:{cause}.causes.{effect}"
    return name if len(name) <= 128 else f"{agent_id[:40]}:link-{hashlib.sha1(name.encode()).hexdigest()[:32]}"


def half_life_ms(config: DecayConfig) -> float:
    return config.type_half_life_days[EntryCategory.CausalLink] * DAY_MS


# ---------------------------------------------------------------- answers

class LinksMade(BaseModel):
    ids: list[str]
    created: list[str]


class CausalHit(Row):
    """An entry reached from the start, scored by its best path (weight x recency, multiplied along it)."""

    query = "causal/traverse"

    id: str
    category: EntryCategory | None
    content: str | None
    score: float
    depth: int
    path: list[str]
    links: list[str]


class CausalLinkOut(BaseModel):
    """A causal link as stored, after a verified outcome."""

    id: str
    weight: float | None = None
    evidence: int | None = None
    confidence: float | None = None
    lag_blocks: int | None = None
    lag_ms: int | None = None
    provenance: Provenance | None = None
    agent_id: str | None = None
    scope: Scope | None = None
    clade: str | None = None
    created_at: int | None = None
    updated_at: int | None = None
    recorded_at: int | None = None
    confirmed_count: int | None = None
    contradicted_count: int | None = None
    inherited_from: str | None = None
    audit_id: str | None = None


class Inherited(BaseModel):
    entries: list[str]
    links: list[str]


def link(db: Database, links: Sequence[LinkIn], *, agent_id: str, clade: str, actor: str,
         visibility: Visibility, provenance: Provenance = Provenance.SelfLearned) -> LinksMade:
    now = now_ms()
    rows = []
    for lk in links:
        if lk.cause == lk.effect:
            raise InvalidLink(f"an entry cannot cause itself ({lk.cause})")
        rows.append({"id": lk.id or default_link_id(agent_id, lk.cause, lk.effect),
                     "cause": lk.cause, "effect": lk.effect,
                     "props": {"weight": lk.weight, "evidence": lk.evidence, "lag_blocks": lk.lag_blocks,
                               "lag_ms": lk.lag_ms, "confidence": lk.confidence, "provenance": provenance.value,
                               "agent_id": agent_id, "scope": lk.scope.value, "clade": clade,
                               "created_at": now, "updated_at": now, "recorded_at": now}})
    audit = Audit(action="causal.link", actor=actor, agent_id=agent_id, at=now)

    def work(tx: Tx) -> list[Record]:
        out = [r.data() for r in tx.run(cypher.query("causal/link"), rows=rows, audit_id=audit.id,
                                        **visibility.params())]
        if len(out) != len(rows):
            missing = sorted({str(r["cause"]) for r in rows} | {str(r["effect"]) for r in rows})
            raise LinkNotFound(f"every cause and effect must be an entry you can see; among {missing[:20]}")
        created = [r["id"] for r in out if r["created"]]
        audit.write(tx, created, f"{len(created)} causal links",
                    [DeleteRelationships(type=RelationshipType.CAUSES, ids=created)])
        return out

    out = db.write(work)
    return LinksMade(ids=[r["id"] for r in out], created=[r["id"] for r in out if r["created"]])


def traverse(db: Database, entry_id: str, *, direction: str, depth: int = MAX_DEPTH, config: DecayConfig,
             visibility: Visibility, now: int | None = None) -> list[CausalHit]:
    """The walk from a visible entry; an unknown and an invisible one are alike not found."""
    if direction not in ("forward", "backward"):
        raise ValueError("direction is forward (consequences) or backward (causes)")
    if not db.rows("entries/visible_ids", ids=[entry_id], **visibility.params()):
        raise LinkNotFound(f"not found: no entry {entry_id!r}")
    return db.typed(CausalHit, id=entry_id, direction=direction, depth=min(depth, MAX_DEPTH),
                    now=now or now_ms(), half_life_ms=half_life_ms(config), **visibility.params())


def record_outcome(db: Database, link_id: str, confirmed: bool, *, actor: str, agent_id: str | None,
                   config: DecayConfig, visibility: Visibility) -> CausalLinkOut:
    audit = Audit(action="causal.outcome", actor=actor, agent_id=agent_id)

    def work(tx: Tx) -> CausalLinkOut:
        rows = [r.data() for r in tx.run(cypher.query("causal/record_outcome"), id=link_id, confirmed=confirmed,
                                         now=audit.at, up=config.upvote_step, down=config.downvote_step,
                                         floor=config.floor, **visibility.params())]
        if not rows:
            raise LinkNotFound(f"no causal link {link_id!r} you may update")
        audit.write(tx, [link_id], f"{'confirmed' if confirmed else 'contradicted'} {link_id}",
                    [SetRelationshipProperties(type=RelationshipType.CAUSES, id=link_id, before=rows[0]["before"])],
                    [counted("link", link_id, rows[0]["was"] + 1)])
        return CausalLinkOut.model_validate(rows[0]["link"])

    return db.write(work)


def export(db: Database, agent_id: str) -> CausalGraph:
    """The agent's links and the entries at their ends, embeddings included."""
    entry_fields, link_fields = set(GraphEntry.model_fields), set(GraphLink.model_fields)
    entries: dict[str, GraphEntry] = {}
    links = []
    for r in db.fetch("causal/export", agent_id=agent_id):
        for e in (r["cause"], r["effect"]):
            entries[e["id"]] = GraphEntry(**{k: v for k, v in e.items() if k in entry_fields and v is not None})
        links.append(GraphLink(**{k: v for k, v in r["link"].items() if k in link_fields and v is not None}))
    return CausalGraph(agent_id=agent_id, entries=list(entries.values()), links=links)


def inherit(k: Knowledge, graph: CausalGraph, *, successor: str, clade: str, actor: str) -> Inherited:
    """The predecessor's entries as candidates of the successor's, through the Admission Gate at provenance
    Predecessor (its fixed confidence 0.3; each weighed against what the successor sees, never against the
    original it copies), and its links between the copies the gate kept (a copy merged or skipped stands for the
    successor's entry it went into; a rejected one takes its links with it); idempotent (the copies' ids are
    derived from the originals')."""
    now = now_ms()
    predecessor = graph.agent_id
    copy_id = {e.id: f"{successor}:{e.id}"[:128] for e in graph.entries}
    candidates = [EntryIn(id=copy_id[e.id], agent_id=successor, scope=Scope.private, category=e.category,
                          content=e.content, decay_class=e.decay_class, market_regime=e.market_regime, tags=e.tags,
                          provenance=Provenance.Predecessor, dream_validated=e.dream_validated)
                  for e in graph.entries]
    decisions = admit(k, candidates, actor=actor, clade=clade or None,
                      extra={copy_id[e.id]: _inherited_props(e, predecessor) for e in graph.entries},
                      embeddings={copy_id[e.id]: np.asarray(e.embedding, dtype=np.float32) for e in graph.entries},
                      copy_of={copy_id[e.id]: e.id for e in graph.entries})
    held = {d.candidate_id: d.entry_id for d in decisions if d.entry_id is not None}
    made = [d.candidate_id for d in decisions if d.result.writes_entry and not d.existing]
    link_rows = []
    for lk in graph.links:
        cause, effect = held.get(copy_id[lk.cause]), held.get(copy_id[lk.effect])
        if cause is None or effect is None or cause == effect:
            continue
        props = lk.model_dump(exclude={"id", "cause", "effect"}, exclude_none=True)
        props.update(agent_id=successor, clade=clade, scope=Scope.private.value, confidence=INHERITED_CONFIDENCE,
                     provenance=Provenance.Predecessor.value, inherited_from=lk.id, recorded_at=now,
                     updated_at=now, confirmed_count=0, contradicted_count=0)
        props.setdefault("created_at", now)
        link_rows.append({"id": default_link_id(successor, cause, effect), "cause": cause, "effect": effect,
                          "props": props})
    originals = {copy_id[e.id]: e.id for e in graph.entries}
    audit = Audit(action="causal.inherit", actor=actor, agent_id=successor, at=now)

    def work(tx: Tx) -> Inherited:
        tx.run(cypher.query("causal/link_inherited_entries"),
               rows=[{"copy": c, "original": originals[c]} for c in made]).consume()
        links = [r.data() for r in tx.run(cypher.query("causal/inherit_links"), rows=link_rows, audit_id=audit.id)]
        created_links = [r["id"] for r in links if r["created"]]
        audit.write(tx, made + created_links, f"inherited {len(made)} entries (admitted by the gate) and "
                    f"{len(created_links)} causal links from {predecessor}",
                    [DeleteRelationships(type=RelationshipType.CAUSES, ids=created_links)])
        write_events(tx, [ingest_result(successor, clade, source=predecessor, stage="inherit",
                                        outcome={"entries": len(made), "links": len(created_links)})])
        return Inherited(entries=made, links=created_links)

    return k.db.write(work)


def _inherited_props(e: GraphEntry, predecessor: str) -> Properties:
    """What a copy keeps of its original that a candidate does not carry."""
    props: dict[str, Any] = {"inherited_from": e.id, "inherited_from_agent": predecessor,
                             "source_golem_id": predecessor, "valid_from": e.valid_from, "valid_until": e.valid_until,
                             "is_bloodstain": e.is_bloodstain or None}
    return {key: v for key, v in props.items() if v is not None}
