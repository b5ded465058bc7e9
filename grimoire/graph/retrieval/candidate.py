"""A retrieval candidate: an episode or entry with the properties the scoring reads, and what
retrieval learns of it on the way (each backend's rank and score, the fused score, the factors
of its mode's score, the final stages' term overlap, source weight and Zeigarnik boost, MMR,
tokens, why it was cut). The modes, the rerank and the budget pass
these along; the pipeline presents them as a RetrievalResult (graph/retrieval/result.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["episode", "entry"]
_PROPS = (".id, .text, .content, .category, .status, .agent_id, .valid_from, .recorded_at, .block, .last_accessed_at, "
          ".confidence, .half_life_ms, .strength, .quality_score, .importance, .regime, .market_regime, .pad, "
          ".is_bloodstain, .epistemic_layer, .priority, .bounty_priority_boost, .gain, .scope, .clade, .level, "
          ".interrupted")
ITEM_PROJECTION = f"CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END AS kind, n {{{_PROPS}}} AS item"
"""What every backend statement returns of an item (`from_row` reads it; tests/unit/test_cypher_contract.py holds
the copies in cypher/retrieval/ to it)."""
CONTEXT_ITEM_PROJECTION = ("CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END AS kind, "
                           f"n {{{_PROPS}, .type, .outcome, .tick, .provenance, .dream_validated}} AS item")
"""The vector backend's, read by the Context Governor too (graph/context/sources.py): an episode's type, outcome
and tick, an entry's provenance."""


@dataclass(eq=False)
class Candidate:
    id: str
    kind: Kind
    text: str | None = None
    # The item's properties, as the backend queries return them (no embedding: see items.py).
    category: str | None = None
    status: str | None = None
    agent_id: str | None = None
    scope: str | None = None
    clade: str | None = None
    level: int = 0                  # RAPTOR: 0 an ordinary item (every episode), 1 a summary insight
    interrupted: bool = False       # an episode of an interrupted or incomplete action (Zeigarnik)
    valid_from: int | None = None
    recorded_at: int | None = None
    block: int | None = None
    last_accessed_at: int | None = None
    confidence: float | None = None
    half_life_ms: float | None = None
    strength: float | None = None
    quality_score: float | None = None
    importance: str | None = None
    regime: str | None = None
    pad: list[float] | None = None
    is_bloodstain: bool = False
    gain: float | None = None
    epistemic_layer: str | None = None    # the crystal's: a directive ranks above inferred knowledge
    priority: int | None = None           # its governance priority, 0..100
    bounty_priority_boost: float | None = None  # the reward multiplier of the bounty it fulfilled (1: none)
    embedding: list[float] | None = None  # fetched only for those that need one (items.with_embeddings)
    # What retrieval found: per backend {rank, score, and via/entity/distance/centrality for the
    # graph}, and "rrf", the fused score, for the modes that fuse.
    trace: dict[str, Any] = field(default_factory=dict)
    score: float | None = None
    factors: dict[str, float] | None = None
    weights: dict[str, float] | None = None   # the weights of the factors (generative_agents: the learned ones)
    # The final stages (graph/retrieval/stages.py): the mode's own score, the term overlap blended
    # into it, the source tier and its weight, the Zeigarnik boost.
    mode_score: float | None = None
    term_overlap: float | None = None
    source: str | None = None
    source_weight: float | None = None
    zeigarnik: float | None = None
    governance: float | None = None   # its epistemic layer, priority and bounty boost (graph/retrieval/governance.py)
    bloodstain_boost: bool = False
    mmr: float | None = None
    similar_to: str | None = None
    contrarian: bool = False
    tokens: int | None = None
    cut: str | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Candidate:
        """A backend row (id, kind, item: the node's properties)."""
        p = row["item"]
        return cls(
            id=row["id"], kind=row["kind"], text=p.get("content") or p.get("text"),
            category=p.get("category"), status=p.get("status"), agent_id=p.get("agent_id"),
            scope=p.get("scope"), clade=p.get("clade"), level=int(p.get("level") or 0),
            interrupted=bool(p.get("interrupted")),
            valid_from=p.get("valid_from"), recorded_at=p.get("recorded_at"), block=p.get("block"),
            last_accessed_at=p.get("last_accessed_at"), confidence=p.get("confidence"),
            half_life_ms=p.get("half_life_ms"), strength=p.get("strength"),
            quality_score=p.get("quality_score"), importance=p.get("importance"),
            regime=p.get("regime") or p.get("market_regime"), pad=p.get("pad"),
            is_bloodstain=bool(p.get("is_bloodstain")), gain=p.get("gain"),
            epistemic_layer=p.get("epistemic_layer"), priority=p.get("priority"),
            bounty_priority_boost=p.get("bounty_priority_boost"),
        )
