"""What the causal graph routes answer (api/routes/causal.py). The exported graph itself is
graph/knowledge/causal.py's CausalGraph, the shape a successor sends back."""

from __future__ import annotations

from pydantic import BaseModel

from grimoire.graph.model.enums import EntryCategory, Provenance, Scope


class LinksMade(BaseModel):
    ids: list[str]
    created: list[str]


class CausalHit(BaseModel):
    """An entry reached from the start, scored by its best path (weight x recency, multiplied along it)."""

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
