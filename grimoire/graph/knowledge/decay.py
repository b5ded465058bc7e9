"""Confidence and decay (../shared/spec/grimoire.md, "Confidence and Decay").

    retention(t)            = exp(-(t - last_accessed) / (half_life * strength))
    effective_confidence(t) = max(floor, confidence * retention(t))

The half-life is resolved once per entry and stored on the node (half_life_ms), so the
Cypher side needs only the line above; see cypher/entries/*.cypher. Resolution:
- structural entries never decay (half_life_ms is null);
- an entry's explicit decay class is the most specific statement of how fast it goes stale,
  so its half-life wins; without one, the entry type's half-life applies;
- dream-validated entries (and Dream provenance) and live-confirmed ones (upvoted, or used in a decision that went
  well) decay at half the rate (half-life x2), once: class D is a modifier, not a class of its own;
- bloodstain entries (DeathReflection + is_bloodstain) decay three times slower (x3);
- quality below 0.3 decays twice as fast (x0.5).
The spec's two tables disagree. The regime-conditional half-life is ~14 days in "Four Decay Classes" and 21 in
"Demurrage" (B): 21 is the default, 14 a setting (GRIMOIRE_DECAY). Structural knowledge never decays in the first
table and in the Curator's (the 13 mental models are structural and always available); Demurrage's C, 90 days for
structural facts that an upgrade can still change, is the class `cyclical`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field, field_validator

from grimoire.graph.model.enums import DecayClass, EntryCategory, Provenance
from grimoire.graph.model.rows import Properties

DAY_MS = 86_400_000


def retention_expression(var: str) -> str:
    """An entry's retention now, as every statement that decays confidence writes it, word for word (the formula of
    `retention` below; tests/unit/test_cypher_contract.py holds the copies in cypher/ to it)."""
    return (f"CASE WHEN {var}.half_life_ms IS NULL THEN 1.0 ELSE exp(-toFloat(CASE WHEN $now > {var}.last_accessed_at "
            f"THEN $now - {var}.last_accessed_at ELSE 0 END) / ({var}.half_life_ms * CASE WHEN {var}.strength > 1.0 "
            f"THEN {var}.strength ELSE 1.0 END)) END")

HOUR_MS = 3_600_000
EPISODE = "Episode"


CLASS_HALF_LIFE_DAYS: dict[DecayClass, float] = {
    DecayClass.cyclical: 90.0,
    DecayClass.regime_conditional: 21.0,
    DecayClass.tactical: 7.0,
    DecayClass.ephemeral: 1.0,
}
TYPE_HALF_LIFE_DAYS: dict[str, float] = {
    EPISODE: 2.0,                         # 48 hours
    EntryCategory.Insight: 7.0,
    EntryCategory.Heuristic: 14.0,
    EntryCategory.Warning: 30.0,
    # Not in the spec's table: causal links are regime-conditional knowledge,
    # fragments and dream journals speculative (tactical).
    EntryCategory.CausalLink: 14.0,
    EntryCategory.StrategyFragment: 7.0,
    EntryCategory.DreamJournal: 7.0,
}


class DecayConfig(BaseModel):
    # A setting names the half-lives it changes; the others keep their defaults.
    class_half_life_days: dict[DecayClass, float] = Field(default_factory=lambda: dict(CLASS_HALF_LIFE_DAYS))
    type_half_life_days: dict[str, float] = Field(default_factory=lambda: dict(TYPE_HALF_LIFE_DAYS))

    floor: float = 0.05
    dream_factor: float = 2.0
    bloodstain_factor: float = 3.0
    low_quality_threshold: float = 0.3
    low_quality_factor: float = 0.5
    # Votes are asymmetric: negative evidence weighs 1.5x positive evidence.
    upvote_step: float = 0.1
    downvote_step: float = 0.15
    # Strength: +1 per use in a decision with a positive outcome, +0.5 per dream validation.
    dream_strength_step: float = 0.5

    @field_validator("class_half_life_days")
    @classmethod
    def _classes_over_defaults(cls, given: dict[DecayClass, float]) -> dict[DecayClass, float]:
        return {**CLASS_HALF_LIFE_DAYS, **given}

    @field_validator("type_half_life_days")
    @classmethod
    def _types_over_defaults(cls, given: dict[str, float]) -> dict[str, float]:
        return {**TYPE_HALF_LIFE_DAYS, **given}


def half_life_ms(
    kind: str,
    decay_class: DecayClass | None = None,
    *,
    provenance: Provenance | None = None,
    dream_validated: bool = False,
    confirmed: bool = False,
    is_bloodstain: bool = False,
    quality: float | None = None,
    config: DecayConfig | None = None,
) -> float | None:
    """The half-life in milliseconds, or None for knowledge that never decays."""
    cfg = config or DecayConfig()
    if decay_class == DecayClass.structural:
        return None
    days = cfg.class_half_life_days[decay_class] if decay_class else cfg.type_half_life_days[str(kind)]
    value = days * DAY_MS
    if dream_validated or confirmed or provenance == Provenance.Dream:
        value *= cfg.dream_factor
    if is_bloodstain and provenance == Provenance.DeathReflection:
        value *= cfg.bloodstain_factor
    if quality is not None and quality < cfg.low_quality_threshold:
        value *= cfg.low_quality_factor
    return value


def confirmed(entry: Mapping[str, Any], config: DecayConfig) -> Properties:
    """The changes that mark an entry confirmed live (class D: half the decay rate from then on), once: nothing for
    one confirmed before, and no slower half-life for one a dream validated already (the modifier does not stack)."""
    if entry.get("live_confirmed"):
        return {}
    out: Properties = {"live_confirmed": True}
    halved = entry.get("dream_validated") or entry.get("provenance") == Provenance.Dream.value
    if entry.get("half_life_ms") is not None and not halved:
        out["half_life_ms"] = float(entry["half_life_ms"]) * config.dream_factor
    return out


def retention(now_ms: int, last_accessed_ms: int, half_life: float | None, strength: float) -> float:
    if half_life is None:
        return 1.0
    elapsed = max(0, now_ms - last_accessed_ms)
    return math.exp(-elapsed / (half_life * max(strength, 1.0)))


def effective_confidence(confidence: float, now_ms: int, last_accessed_ms: int, half_life: float | None,
                         strength: float, floor: float = 0.05) -> float:
    return max(floor, confidence * retention(now_ms, last_accessed_ms, half_life, strength))


class Stretch(BaseModel):
    """One stretch of an entry's life with the same stored confidence, decay clock and half-life: a version
    (from when it was written until the next replaced it) or the entry as it is now (until `until` is None)."""

    start: int
    until: int | None
    confidence: float
    last_accessed: int
    half_life: float | None
    strength: float = 1.0


MAX_HORIZON_MS = 365 * DAY_MS


def _usable(half_life: float | None) -> float | None:
    """A stored half-life the formula can use: a missing, zero, negative or non-finite one never decays."""
    return half_life if half_life is not None and math.isfinite(half_life) and half_life > 0 else None


def curve(stretches: list[Stretch], now: int, *, horizon: int | None = None, points: int = 48,
          floor: float = 0.05) -> dict[str, list[tuple[int, float]]]:
    """Effective confidence over time: `past` across the stretches up to `now`, then `projected` from `now`
    for `horizon` ms (default two half-lives of the current stretch, at most a year; a day when it never
    decays); each a list of (ms, value), `points` samples per stretch."""
    stretches = [s.model_copy(update={"half_life": _usable(s.half_life)}) for s in stretches]
    past: list[tuple[int, float]] = []
    for s in sorted(stretches, key=lambda s: s.start):
        end = min(s.until if s.until is not None else now, now)
        if end < s.start:
            continue
        step = max(1, (end - s.start) // points)
        for t in [*range(s.start, end, step), end]:
            past.append((t, effective_confidence(s.confidence, t, s.last_accessed, s.half_life, s.strength, floor)))
    projected: list[tuple[int, float]] = []
    if stretches:
        current = [s for s in stretches if s.until is None]
        last = current[-1] if current else max(stretches, key=lambda s: s.start)
        span = horizon or (int(min(2 * last.half_life * max(last.strength, 1.0), MAX_HORIZON_MS))
                           if last.half_life else DAY_MS)
        step = max(1, span // points)
        projected = [(t, effective_confidence(last.confidence, t, last.last_accessed, last.half_life,
                                              last.strength, floor)) for t in range(now, now + span + 1, step)]
    return {"past": past, "projected": projected}
