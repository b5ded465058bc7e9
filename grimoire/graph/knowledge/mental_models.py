"""The 13 core mental models (../shared/spec/grimoire.md, "Mental Models Library"): always available.

"These 13 models are always loaded in the golem's context. They serve as the default reasoning
scaffolds when no domain-specific mental model scores higher in retrieval." So each is an entry
every agent sees and nothing filters out by default:

- a public, active Insight with `mental_model: true` and the tag `mental-model`, owned by the system
  agent `grimoire` (no agent registers under that id: it only marks Grimoire's own knowledge);
- structural: it never decays (half_life_ms is null), at confidence 0.9 (a scaffold, not an
  observation: high, yet below what a validated heuristic reaches);
- valid from the epoch (valid_from 0): a reasoning frame is not about a moment, so a query "valid at
  T" finds it for any T; its recorded time is when it was seeded, as for every entry;
- under a fixed id (`mental-model:first-principles`), written with MERGE: seeding is idempotent and
  two services starting at once write each model once.

`ensure` seeds what is missing, in one transaction with its audit record; when all 13 are stored it
is one index lookup and writes nothing (it runs on every start-up and `grimoire schema`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.embeddings import Embedder
from grimoire.graph.ids import now_ms
from grimoire.graph.knowledge import quality
from grimoire.graph.knowledge.answers import EntryListRow, EntryOut, MentalModelOut
from grimoire.graph.model.crystal import fields
from grimoire.graph.model.crystal.governance import govern
from grimoire.graph.model.enums import DecayClass, EntryCategory, EntryStatus, Provenance, Scope
from grimoire.graph.model.governance import Lifespan
from grimoire.graph.model.rows import Properties
from grimoire.graph.visibility import Visibility

SYSTEM_AGENT = "grimoire"
TAG = "mental-model"
CONFIDENCE = 0.9

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MentalModel:
    number: int
    slug: str
    name: str
    application: str  # the spec's "DeFi Application"

    @property
    def id(self) -> str:
        return f"mental-model:{self.slug}"

    @property
    def content(self) -> str:
        return f"Mental model {self.name}. DeFi application: {self.application}"


MODELS: tuple[MentalModel, ...] = (
    MentalModel(1, "first-principles", "First Principles", "Is this yield real or unsustainable incentives?"),
    MentalModel(2, "inversion", "Inversion", "Pre-mortem before entering positions"),
    MentalModel(3, "second-order-thinking", "Second-Order Thinking",
                "Rate compression -> capital flows to risk -> fragility"),
    MentalModel(4, "probabilistic-thinking", "Probabilistic Thinking", "Scenario-weighted position sizing"),
    MentalModel(5, "margin-of-safety", "Margin of Safety", "Only enter with sufficient safety buffer"),
    MentalModel(6, "circle-of-competence", "Circle of Competence", "LP golem should not attempt options strategies"),
    MentalModel(7, "occams-razor", "Occam's Razor", "When indicators conflict, prefer simplest signal"),
    MentalModel(8, "compounding", "Compounding", "Reinvested fees compound; Grimoire insights compound"),
    MentalModel(9, "hanlons-razor", "Hanlon's Razor", "Depeg: systemic failure or temporary glitch?"),
    MentalModel(10, "regret-minimization", "Regret Minimization",
                "Exit timing: holding too long vs selling too early"),
    MentalModel(11, "antifragility", "Antifragility", "Strategies that profit from disorder"),
    MentalModel(12, "kelly-criterion", "Kelly Criterion", "Optimal position sizing given edge and odds"),
    MentalModel(13, "causal-reasoning", "Causal Reasoning",
                "Distinguishing real yield drivers from spurious patterns"),
)
IDS: tuple[str, ...] = tuple(m.id for m in MODELS)
BY_ID: dict[str, MentalModel] = {m.id: m for m in MODELS}


@dataclass
class SeedResult:
    created: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)
    audit_id: str | None = None


def properties(m: MentalModel, now: int) -> Properties:
    """The entry's properties, in the shape admission writes (graph/knowledge/entries.py)."""
    q = quality.score(m.content, 1.0)
    return {
        "agent_id": SYSTEM_AGENT, "scope": Scope.public.value, "category": EntryCategory.Insight.value,
        "content": m.content, "confidence": CONFIDENCE, "status": EntryStatus.active.value,
        "validated_count": 0, "contradicted_count": 0, "decay_class": DecayClass.structural.value,
        "consecutive_low_confidence": 0, "version": 1, "level": 0, "in_playbook": False,
        "valid_from": 0, "recorded_at": now, "tags": [TAG], "provenance": Provenance.SelfLearned.value,
        "source_golem_id": SYSTEM_AGENT, "is_bloodstain": False, "dream_validated": False,
        "last_accessed_at": now, "strength": 1.0,
        "mental_model": True, "mental_model_number": m.number, "mental_model_name": m.name,
        "mental_model_application": m.application, **q.as_properties(),
        **fields.for_entry(EntryCategory.Insight.value, Provenance.SelfLearned.value, m.content, now,
                           mental_model=True),
        **govern(m.content, Scope.public.value, None, now, default_lifespan=Lifespan.permanent),
    }


def missing(db: Database) -> list[str]:
    """The ids of the models not stored (one lookup by the entry id constraint)."""
    stored = {r["id"] for r in db.fetch("entries/existing", ids=list(IDS))}
    return [i for i in IDS if i not in stored]


def ensure(db: Database, embedder: Embedder, *, actor: str = SYSTEM_AGENT) -> SeedResult:
    """Seed the models that are missing; nothing when all 13 are stored."""
    wanted = missing(db)
    result = SeedResult(existing=[i for i in IDS if i not in wanted])
    if not wanted:
        return result
    models = [BY_ID[i] for i in wanted]
    vectors = embedder.embed([m.content for m in models])  # before the transaction opens
    now = now_ms()
    rows = [{"id": m.id, "category": EntryCategory.Insight.value, "embedding": v.tolist(),
             "props": properties(m, now), "parent_episode_ids": []} for m, v in zip(models, vectors, strict=True)]
    audit = Audit(action="mental_models.seed", actor=actor, agent_id=SYSTEM_AGENT, at=now)

    def work(tx: Tx) -> list[str]:
        created = [r["id"] for r in tx.run(cypher.query("entries/create"), rows=rows, audit_id=audit.id, now=now)]
        if created:  # another service may have seeded them a moment ago: then nothing changed here
            audit.write(tx, created, f"seeded {len(created)} core mental models",
                        [DeleteNodes(label=NodeLabel.Entry, ids=created)])
        return created

    result.created = db.write(work)
    result.existing += [i for i in wanted if i not in result.created]
    if result.created:
        result.audit_id = audit.id
        log.info("seeded %d core mental models", len(result.created))
    return result


class StoredModelRow(EntryListRow):
    query = "entries/mental_models"


def stored(db: Database, visibility: Visibility, *, now: int | None = None, floor: float = 0.05) -> dict[str, EntryOut]:
    """The stored models the caller sees (all: they are public) by id, with their effective confidence."""
    rows = db.typed(StoredModelRow, ids=list(IDS), now=now or now_ms(), floor=floor, **visibility.params())
    return {r.entry.id: r.answer() for r in rows}


def library(db: Database, visibility: Visibility, *, floor: float = 0.05) -> list[MentalModelOut]:
    """All 13, each with the entry that holds it (its fields null when the entry is missing)."""
    found = stored(db, visibility, floor=floor)
    shown = set(MentalModelOut.model_fields) - {"id", "number", "name", "application", "stored"}
    out = []
    for m in MODELS:
        entry = found.get(m.id)
        # The entry's own fields win: its content as edited is what retrieval matches.
        kept = {"content": m.content, **(entry.model_dump(include=shown, exclude_none=True) if entry else {})}
        out.append(MentalModelOut(id=m.id, number=m.number, name=m.name, application=m.application,
                                  stored=entry is not None, **kept))
    return out
