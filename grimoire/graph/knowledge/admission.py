"""The Grimoire Admission Gate (../shared/spec/grimoire.md, "Grimoire Admission Gate").

A-MAC five-factor scoring: future utility 0.25, factual confidence 0.25, semantic novelty 0.20,
temporal recency 0.15, content-type prior 0.15. Composite below 0.45 is rejected, 0.45 to 0.55
admitted at confidence 0.3, above 0.55 admitted at the standard confidence. Cosine above 0.9 to an
existing entry merges into it, above 0.95 skips; factual confidence below 0.3 while contradicting
a high-confidence entry quarantines (the hallucination firewall). A factor at or under its threshold in the
document's table (future utility > 0.4, factual confidence > 0.3, temporal recency > 0.2) rejects the candidate,
naming the factor (per_factor "reject", the default), or only flags it (per_factor "flag"). The firewall is
judged first, so a contradiction of a high-confidence entry is quarantined for review, as the document wants,
rather than rejected for its low factual confidence. Novelty's row (cosine 0.5-0.9) is the merge and skip above
0.9 and the off-topic flag below 0.5 (the document says flag): an agent's first entry, with nothing similar
stored, has novelty 1.0 and is judged on the other factors.

This module is pure: it judges a candidate against the neighbours it is given. Fetching the
neighbours and writing the decision is graph/knowledge/entries.py's job.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from grimoire.graph.knowledge.reasoner import Candidate, Reasoner, judged_utility
from grimoire.graph.model.enums import AdmissionOutcome, DecayClass, EntryCategory, EntryStatus, Provenance

FACTORS = ("future_utility", "factual_confidence", "semantic_novelty", "temporal_recency", "content_type_prior")


class AdmissionConfig(BaseModel):
    weights: dict[str, float] = Field(default_factory=lambda: {
        "future_utility": 0.25, "factual_confidence": 0.25, "semantic_novelty": 0.20,
        "temporal_recency": 0.15, "content_type_prior": 0.15,
    })
    reject_below: float = 0.45
    standard_above: float = 0.55
    low_band_confidence: float = 0.3
    merge_above: float = 0.9
    skip_above: float = 0.95
    off_topic_below: float = 0.5
    firewall_factual_below: float = 0.3
    high_confidence: float = 0.7
    # Per-factor thresholds from the spec's table: a factor must be above its threshold. Failing one adds a low_*
    # flag and, with per_factor "reject" (the document's Threshold column), rejects the candidate; "flag" keeps
    # the candidate to the composite bands alone (the behaviour before issue 39).
    factor_thresholds: dict[str, float] = Field(default_factory=lambda: {
        "future_utility": 0.4, "factual_confidence": 0.3, "temporal_recency": 0.2,
    })
    per_factor: Literal["reject", "flag"] = "reject"
    type_priors: dict[EntryCategory, float] = Field(default_factory=lambda: {
        EntryCategory.Warning: 0.9, EntryCategory.CausalLink: 0.7, EntryCategory.Heuristic: 0.6,
        EntryCategory.Insight: 0.5, EntryCategory.StrategyFragment: 0.4,
        EntryCategory.DreamJournal: 0.4,  # not in the spec's table: as speculative as a fragment
    })
    ephemeral_prior: float = 0.2  # "Observation (ephemeral)"
    # Rule-based factual confidence: a provenance-weighted base, raised by aligned neighbours
    # and lowered by contradicted ones (each weighted by their effective confidence).
    factual_base: float = 0.6
    factual_boost: float = 0.3
    factual_penalty: float = 0.6
    contradiction_similarity: float = 0.6
    alignment_similarity: float = 0.75
    # The knowledge weighting hierarchy: own 1.0, clade 0.8, public (Lethe) 0.5.
    provenance_weight: dict[Provenance, float] = Field(default_factory=lambda: {
        Provenance.SelfLearned: 1.0, Provenance.DeathReflection: 1.0, Provenance.Clade: 0.8,
        Provenance.Replicant: 0.8, Provenance.Predecessor: 0.6, Provenance.StyxQuery: 0.5,
        Provenance.Lethe: 0.5, Provenance.Marketplace: 0.5, Provenance.Dream: 0.5,
    })
    # Standard (initial) confidence: per type (ADD creates insights at 0.5), times the
    # provenance weight; inherited (Predecessor) and dreamt entries start at 0.3.
    standard_confidence: dict[EntryCategory, float] = Field(default_factory=lambda: {
        EntryCategory.Insight: 0.5, EntryCategory.Heuristic: 0.5, EntryCategory.Warning: 0.5,
        EntryCategory.CausalLink: 0.5, EntryCategory.StrategyFragment: 0.4, EntryCategory.DreamJournal: 0.3,
    })
    fixed_confidence: dict[Provenance, float] = Field(default_factory=lambda: {
        Provenance.Predecessor: 0.3, Provenance.Dream: 0.3,
    })


@dataclass(frozen=True)
class Neighbour:
    """An existing entry near the candidate: cosine similarity in [-1, 1]."""

    id: str
    content: str
    similarity: float
    effective_confidence: float
    agent_id: str | None = None   # its owner and scope: a candidate merges only into its own partition's entries
    scope: str | None = None


@dataclass(frozen=True)
class AdmissionResult:
    outcome: AdmissionOutcome
    composite: float
    factors: dict[str, float]
    confidence: float | None          # what a written entry gets
    status: EntryStatus | None        # what a written entry gets
    target_id: str | None             # merged into / duplicate of
    contradicted: tuple[str, ...]
    aligned: tuple[str, ...]
    max_similarity: float
    flags: tuple[str, ...]
    reasoner: str
    explanation: str
    nearest: tuple[Neighbour, ...] = field(default_factory=tuple)

    @property
    def writes_entry(self) -> bool:
        return self.outcome in (AdmissionOutcome.admitted, AdmissionOutcome.admitted_low,
                                AdmissionOutcome.quarantined)


HASH_DUPLICATE = "hash_duplicate"


def hash_duplicate(target_id: str) -> AdmissionResult:
    """The decision for a candidate whose content hash equals an entry's of its own owner and scope (knowledge-
    crystals.md, line 29: dedup by hash before cosine): a duplicate, as a cosine above skip_above is, decided
    without an embedding compared (no factor is scored)."""
    return AdmissionResult(
        outcome=AdmissionOutcome.skipped, composite=0.0, factors={}, confidence=None, status=None,
        target_id=target_id, contradicted=(), aligned=(), max_similarity=1.0, flags=(HASH_DUPLICATE,),
        reasoner="none", explanation=f"content hash equals {target_id}'s (same owner and scope): an exact duplicate, "
                                     f"found before any embedding was compared")


def _clamp(x: float) -> float:
    return max(0.0, min(1.0, x))


def standard_confidence(category: EntryCategory, provenance: Provenance, requested: float | None,
                        cfg: AdmissionConfig) -> float:
    if requested is not None:
        return requested
    if provenance in cfg.fixed_confidence:
        return cfg.fixed_confidence[provenance]
    return round(cfg.standard_confidence[category] * cfg.provenance_weight[provenance], 6)


def temporal_recency(now_ms: int, event_ms: int, half_life_ms: float | None) -> float:
    """Exponential decay from the event described, on the entry's own half-life."""
    if half_life_ms is None:
        return 1.0
    return math.exp(-max(0, now_ms - event_ms) / half_life_ms)


def composite_score(factors: dict[str, float], cfg: AdmissionConfig) -> float:
    # Rounded so that boundary cases (exactly 0.45, exactly 0.55) classify as written.
    return round(sum(cfg.weights[name] * factors[name] for name in FACTORS), 9)


def band(composite: float, cfg: AdmissionConfig) -> AdmissionOutcome:
    if composite < cfg.reject_below:
        return AdmissionOutcome.rejected
    if composite <= cfg.standard_above:
        return AdmissionOutcome.admitted_low
    return AdmissionOutcome.admitted


def evaluate(
    candidate: Candidate,
    neighbours: list[Neighbour],
    *,
    provenance: Provenance,
    requested_confidence: float | None,
    now_ms: int,
    event_ms: int,
    half_life_ms: float | None,
    reasoner: Reasoner,
    config: AdmissionConfig | None = None,
    merge: bool = True,
    source: tuple[str | None, str] | None = None,
) -> AdmissionResult:
    """`merge=False`: the candidate is known to be distinct from its neighbours (a Curator lesson for
    its own cluster key): their similarity still scores novelty, but it is never merged or skipped.
    `source`: the candidate's owner and scope; it merges only into a neighbour of both (never into
    another owner's entry or another partition's: a merge would add its tags, evidence and episodes
    there). Without it, into any neighbour."""
    cfg = config or AdmissionConfig()
    ranked = sorted(neighbours, key=lambda n: n.similarity, reverse=True)
    nearest = ranked[0] if ranked else None
    max_sim = nearest.similarity if nearest else 0.0

    contradicted = [n for n in ranked if n.similarity >= cfg.contradiction_similarity
                    and reasoner.contradicts(candidate.content, n.content)]
    contradicted_ids = {n.id for n in contradicted}
    aligned = [n for n in ranked if n.similarity >= cfg.alignment_similarity and n.id not in contradicted_ids]

    factual = cfg.factual_base * cfg.provenance_weight[provenance]
    if aligned:
        factual += cfg.factual_boost * max(n.similarity * n.effective_confidence for n in aligned)
    if contradicted:
        factual -= cfg.factual_penalty * max(n.effective_confidence for n in contradicted)
    utility, judged = judged_utility(reasoner, candidate)  # who answered: a model, or the rules and why
    prior = (cfg.ephemeral_prior if candidate.decay_class == DecayClass.ephemeral
             else cfg.type_priors[candidate.category])
    factors = {
        "future_utility": _clamp(utility),
        "factual_confidence": _clamp(factual),
        "semantic_novelty": _clamp(1.0 - max_sim),
        "temporal_recency": _clamp(temporal_recency(now_ms, event_ms, half_life_ms)),
        "content_type_prior": prior,
    }
    composite = composite_score(factors, cfg)
    failing = [name for name, threshold in cfg.factor_thresholds.items() if factors[name] <= threshold]
    flags = [f"low_{name}" for name in failing]
    if max_sim < cfg.off_topic_below:
        flags.append("off_topic")
    high_contradicted = [n for n in contradicted if n.effective_confidence >= cfg.high_confidence]
    if high_contradicted:
        flags.append("contradicts_high_confidence")

    standard = standard_confidence(candidate.category, provenance, requested_confidence, cfg)
    target: str | None = None
    nearest_contradicts = nearest is not None and nearest.id in contradicted_ids
    # What it may merge into: the nearest neighbour of its own owner and scope.
    into = next((n for n in ranked if source is None or (n.agent_id, n.scope) == source), None)
    if merge and nearest is not None and max_sim > cfg.skip_above and not nearest_contradicts:
        outcome, confidence, status, target = AdmissionOutcome.skipped, None, None, nearest.id
        why = f"cosine {max_sim:.3f} > {cfg.skip_above} to {nearest.id}: a duplicate"
    elif merge and into is not None and into.similarity > cfg.merge_above and into.id not in contradicted_ids:
        outcome, confidence, status, target = AdmissionOutcome.merged, None, None, into.id
        why = f"cosine {into.similarity:.3f} > {cfg.merge_above} to {into.id}: merged as further evidence"
    elif factors["factual_confidence"] < cfg.firewall_factual_below and high_contradicted:
        outcome, confidence, status = AdmissionOutcome.quarantined, standard, EntryStatus.quarantined
        why = (f"factual confidence {factors['factual_confidence']:.3f} < {cfg.firewall_factual_below} and it "
               f"contradicts high-confidence {', '.join(n.id for n in high_contradicted)}: quarantined for review")
    elif failing and cfg.per_factor == "reject":
        outcome, confidence, status = AdmissionOutcome.rejected, None, None
        why = "; ".join(f"{name.replace('_', ' ')} {factors[name]:.3f} is not above its threshold "
                        f"{cfg.factor_thresholds[name]}" for name in failing) + ": rejected"
    else:
        outcome = band(composite, cfg)
        if outcome == AdmissionOutcome.rejected:
            confidence, status = None, None
            why = f"composite {composite:.3f} < {cfg.reject_below}: rejected"
        elif outcome == AdmissionOutcome.admitted_low:
            confidence, status = cfg.low_band_confidence, EntryStatus.candidate
            why = (f"composite {composite:.3f} in [{cfg.reject_below}, {cfg.standard_above}]: admitted at "
                   f"confidence {cfg.low_band_confidence}")
        else:
            # A candidate: the Curator promotes it when it has earned it (insights at 0.6, heuristics at 0.7).
            confidence, status = standard, EntryStatus.candidate
            why = f"composite {composite:.3f} > {cfg.standard_above}: admitted at confidence {standard} as a candidate"
    return AdmissionResult(
        outcome=outcome, composite=composite, factors=factors, confidence=confidence, status=status,
        target_id=target, contradicted=tuple(n.id for n in contradicted), aligned=tuple(n.id for n in aligned),
        max_similarity=max_sim, flags=tuple(flags), reasoner=judged.label, explanation=why,
        nearest=tuple(ranked[:5]),
    )
