"""Relevance decay (../shared/spec/moltbot-memory.md, section 9): every memory's score, its status, and what
reinforces it.

    relevance = base_relevance × e^(−λ × days since last access) × log2(access count + 1) × type weight

base relevance by how the memory arrived (1.0 an explicit "remember", 0.7 detected by the agent, 0.5
inferred by reflection); λ = 0.03 (half-life about 23 days); the type weights of 9.1; vault memories and
pinned ones never decay (score 1.0). A memory's arrival counts as its first access (log2(2) = 1), so a new
explicit semantic memory scores 1.2 → capped at 1.0: the status table (9.2) runs from 1.0 down.

Statuses (9.2): active ≥ 0.5, fading ≥ 0.2, dormant ≥ 0.05, archived below (and every memory a person
archived). Archived memories are hidden from search; dormant ones come back only when searched for
explicitly. Reinforcement (9.4) adds one access and moves the last access to now."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from grimoire.graph.memory.routing import Store

DAY_MS = 86_400_000
LAMBDA = 0.03


class Arrival(StrEnum):
    explicit = "explicit"    # "remember that …"
    detected = "detected"    # memorable content the agent noticed
    inferred = "inferred"    # proposed by reflection


class Status(StrEnum):
    active = "active"
    fading = "fading"
    dormant = "dormant"
    archived = "archived"


class Reinforcement(StrEnum):
    used = "used"                  # returned in a search and used in a response
    referenced = "referenced"      # the user referenced it (asked about it)
    confirmed = "confirmed"        # reflection found it still relevant
    linked = "linked"              # a new memory connects to it


BASE_RELEVANCE = {Arrival.explicit: 1.0, Arrival.detected: 0.7, Arrival.inferred: 0.5}
TYPE_WEIGHT = {Store.core: 1.5, Store.episodic: 0.8, Store.semantic: 1.2, Store.procedural: 1.0}
NEVER_DECAYS = frozenset({Store.vault})
ACTIVE_FROM = 0.5    # 9.2: 1.0 - 0.5 active
FADING_FROM = 0.2    # 0.5 - 0.2 fading
DORMANT_FROM = 0.05  # 0.2 - 0.05 dormant; below it archived (section 16's "Decay archive threshold")
THRESHOLDS = ((ACTIVE_FROM, Status.active), (FADING_FROM, Status.fading), (DORMANT_FROM, Status.dormant))
SEARCHABLE = frozenset({Status.active, Status.fading})
EXPLICIT = frozenset({Status.active, Status.fading, Status.dormant})


class RelevanceOut(BaseModel):
    """Section 9's relevance now, as answered."""

    score: float
    status: str = Field(description="active, fading, dormant or archived")
    raw: float = Field(description="before the cap at 1.0")
    days_since_access: float


@dataclass(frozen=True)
class Relevance:
    score: float
    status: Status
    raw: float           # before the cap at 1.0
    days: float          # since the last access

    def out(self) -> RelevanceOut:
        return RelevanceOut(score=round(self.score, 4), status=self.status.value, raw=round(self.raw, 4),
                            days_since_access=round(self.days, 2))


def status_of(score: float) -> Status:
    return next((status for floor, status in THRESHOLDS if score >= floor), Status.archived)


def relevance(*, store: Store, base: float, access_count: int, last_accessed: int, now: int,
              pinned: bool = False, archived: bool = False, lam: float = LAMBDA) -> Relevance:
    days = max(0.0, (now - last_accessed) / DAY_MS)
    if archived:
        return Relevance(0.0, Status.archived, 0.0, days)
    if pinned or store in NEVER_DECAYS:
        return Relevance(1.0, Status.active, 1.0, days)
    raw = base * math.exp(-lam * days) * math.log2(access_count + 1) * TYPE_WEIGHT[store]
    score = min(1.0, raw)
    return Relevance(score, status_of(score), raw, days)


def of(memory: dict[str, Any], now: int) -> Relevance:
    """The score of a memory as the graph keeps it (graph/memory/stores.py's properties)."""
    return relevance(store=Store(memory["store"]), base=float(memory["base_relevance"]),
                     access_count=int(memory.get("access_count") or 0),
                     last_accessed=int(memory.get("last_accessed_at") or memory.get("recorded_at") or now), now=now,
                     pinned=bool(memory.get("pinned")), archived=memory.get("archived_at") is not None)
