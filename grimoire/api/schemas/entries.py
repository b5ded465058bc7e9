"""What the knowledge entry and admission routes answer (api/routes/entries.py).

A stored entry and a stored decision are declared beside the knowledge reads that make them
(graph/knowledge/answers.py) and re-exported here."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from grimoire.graph.knowledge.answers import EditOut, EntryOut, EntryVersionOut, MentalModelOut, StoredDecisionOut
from grimoire.graph.model.enums import (
    AdmissionOutcome,
    EntryStatus,
)

__all__ = ["DecisionOut", "EditOut", "EntryOut", "EntryVersionOut", "MentalModelOut", "NeighbourOut",
           "StoredDecisionOut"]


class NeighbourOut(BaseModel):
    id: str
    similarity: float
    effective_confidence: float


class DecisionOut(BaseModel):
    candidate_id: str
    decision_id: str | None
    outcome: AdmissionOutcome
    entry_id: str | None
    composite: float
    factors: dict[str, float]
    confidence: float | None
    status: EntryStatus | None
    target_id: str | None
    flags: list[str]
    contradicted: list[str]
    aligned: list[str]
    max_similarity: float
    nearest: list[NeighbourOut]
    quality: dict[str, Any] | None
    reasoner: str
    explanation: str
    existing: bool
    dry_run: bool
