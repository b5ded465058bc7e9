"""How fresh a fact is: its confidence decays unless it is reinforced, and how late it was learned
(the information lag), which feeds the curiosity composite.

Confidence at read time (stored confidence stays as asserted; the decay is computed, never written):

    effective_confidence = max(floor, confidence * exp(-(now - last_reinforced) / half_life))

with last_reinforced the fact's recorded time until it is re-asserted: asserting a fact Grimoire
already believes moves it (cypher/topology/reinforce_facts.cypher), unless the last reinforcement is
less than `reinforce_gap_minutes` old. As for entries (graph/knowledge/decay.py), the "half-life" is
the time constant of the exponential (the spec's formula); the default, 30 days, is the spec's
slowest non-structural class (warnings): a fact is a structural statement about the world, but one
nobody has seen again in months deserves less trust than a fresh one.

Information lag (spec: Bi-Temporal Knowledge Graph, "Information lag detection"): per fact, as first
recorded, recorded_at - the time its valid_from block happened (cypher/topology/fact_lag.cypher says
where that time comes from), and in blocks from the block of the episode where it was seen. Per
entity: the mean over its facts with a known lag whose valid time is not approximate (an estimated
valid time makes an estimated lag). It enters curiosity as an additive, capped term that grows with
the lag:

    lag_term = lag_cap * (1 - exp(-mean_lag / lag_scale))       (0 without a known, positive lag)
    curiosity = topology modifier + lag_term

so an entity Grimoire learns about late gets attention even far from the agent's positions, and the
term never subtracts (the spec's "the modifier only adds"). Defaults: cap 0.5 (half of a direct
hop's modifier), scale 15 minutes (a lag of 15 min gives 63% of the cap, an hour 98%).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from grimoire.graph.db.connection import Database
from grimoire.graph.model.enums import MULTI_VALUED_BY_DEFAULT, REL_TYPES, Predicate
from grimoire.graph.model.rows import Record
from grimoire.graph.topology.answers import EntityLag, FactLag, LagSummary
from grimoire.graph.topology.cooccurrence import CoOccurrenceConfig
from grimoire.graph.visibility import Visibility

DAY_MS = 86_400_000
MINUTE_MS = 60_000


class FactConfig(BaseModel):
    half_life_days: float = Field(default=30.0, gt=0, description="the decay's time constant, in days")
    floor: float = Field(default=0.05, ge=0, le=1, description="effective confidence never goes below it")
    reinforce_gap_minutes: float = Field(
        default=60.0, ge=0, description="a re-assertion sooner than this after the last one does not reinforce")
    lag_cap: float = Field(default=0.5, ge=0, le=1, description="the largest lag term of the curiosity composite")
    lag_scale_minutes: float = Field(default=15.0, gt=0, description="the lag at which the term reaches 63% of its cap")
    multi_valued: list[Predicate] = Field(
        default_factory=lambda: list(MULTI_VALUED_BY_DEFAULT), max_length=len(Predicate),
        description="predicates whose subject holds many objects at once: asserting another object closes nothing. "
                    "Every other predicate closes the subject's active fact with another object (grimoire.md)")
    co_occurrence: CoOccurrenceConfig = Field(
        default_factory=CoOccurrenceConfig, description="relations inferred from episodes that co-occur in blocks")

    @property
    def half_life_ms(self) -> float:
        return self.half_life_days * DAY_MS

    @property
    def reinforce_gap_ms(self) -> int:
        return int(self.reinforce_gap_minutes * MINUTE_MS)


def effective_confidence(confidence: float | None, last_reinforced: int | None, now: int,
                         config: FactConfig) -> float | None:
    """None when the fact has no confidence or no time to decay from."""
    if confidence is None or last_reinforced is None:
        return None
    elapsed = max(0, now - last_reinforced)
    return max(config.floor, confidence * math.exp(-elapsed / config.half_life_ms))


def with_effective_confidence(fact: dict[str, Any], now: int, config: FactConfig) -> Record:  # a row read
    """The fact with `last_reinforced` (its recorded time until reinforced) and `effective_confidence`."""
    last = fact.get("last_reinforced")
    if last is None:
        last = fact.get("recorded_at")
    return {**fact, "last_reinforced": last,
            "effective_confidence": effective_confidence(fact.get("confidence"), last, now, config)}


def lag_term(mean_lag_ms: float | None, config: FactConfig) -> float:
    if mean_lag_ms is None or mean_lag_ms <= 0:
        return 0.0
    return config.lag_cap * (1.0 - math.exp(-mean_lag_ms / (config.lag_scale_minutes * MINUTE_MS)))


def fact_lags(db: Database, entity_id: str, *, visibility: Visibility, predicates: Sequence[Predicate] = (),
              since_block: int | None = None, until_block: int | None = None, known_at: int | None = None,
              agent_id: str | None = None) -> list[FactLag]:
    """Each fact about the entity the viewer may see, as first recorded, with its lag (null when the
    time of its valid_from block is unknown)."""
    types = [REL_TYPES[p] for p in predicates] or [REL_TYPES[p] for p in Predicate]
    return [FactLag.model_validate(r) for r in db.rows(
        "topology/fact_lag", id=entity_id, types=types, since_block=since_block, until_block=until_block,
        known_at=known_at, agent_id=agent_id, **visibility.params())]


def summary(rows: Sequence[FactLag]) -> LagSummary:
    """The entity's lag over its facts with a known lag and an exact valid time (not approximate)."""
    ms = [float(r.lag_ms) for r in rows if r.lag_ms is not None and not r.approximate]
    blocks = [float(r.lag_blocks) for r in rows if r.lag_blocks is not None and not r.approximate]
    return LagSummary(
        count=len(rows), with_lag=len(ms),
        mean_lag_ms=statistics.fmean(ms) if ms else None,
        median_lag_ms=statistics.median(ms) if ms else None,
        min_lag_ms=min(ms) if ms else None, max_lag_ms=max(ms) if ms else None,
        with_lag_blocks=len(blocks), mean_lag_blocks=statistics.fmean(blocks) if blocks else None,
    )


def entity_lag(db: Database, entity_id: str, *, visibility: Visibility, config: FactConfig,
               **filters: Any) -> EntityLag:
    """The entity's facts with their lag, the summary, and the lag term it adds to curiosity."""
    rows = fact_lags(db, entity_id, visibility=visibility, **filters)
    total = summary(rows)
    return EntityLag(entity=entity_id, summary=total, lag_term=lag_term(total.mean_lag_ms, config), facts=rows)
