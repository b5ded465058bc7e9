"""A skill's marketplace price (knowledge-crystals.md, "Marketplace Pricing"), computed from its record, never
stored: base × quality × demand × reputation × scarcity, listed only past the quality gates (at least 3 executions
and a 60% success rate).

- quality = success rate × average reward score (the mean execution reward, −1..1, mapped onto 0..1);
- demand = 1 + ln(unique buyers + bounty matches + 1) × 0.1;
- reputation = the publishing agent's peer reputation (1.0 unless set);
- scarcity = 1.5 for a rare category (the only skill of its category the caller sees), 1.2 for an uncommon one (2 to 4),
  1.0 for a common one.

The listing also says whether a management node endorsed the skill (`verified`); the document gives the
endorsement no price effect, so it has none."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from grimoire.graph.model.crystal.privacy import is_knowledge


@dataclass(frozen=True)
class PricingConfig:
    base_usdc: float = 0.01
    min_executions: int = 3
    min_success_rate: float = 0.6
    rare_at_most: int = 1        # skills in the category (newest versions, not deprecated)
    uncommon_at_most: int = 4


class Gates(BaseModel):
    executions: bool
    success_rate: bool


class Listing(BaseModel):
    """A skill's marketplace listing: its gates, its multipliers and its price (none while a gate is not met)."""

    listed: bool
    gates: Gates
    executions: int
    success_rate: float
    avg_reward_score: float
    quality: float
    demand: float
    reputation: float
    scarcity: float
    price_usdc: float | None
    verified: bool = False  # endorsed by a management node (graph/crystals/endorsements.py): shown, not priced


def scarcity(in_category: int, config: PricingConfig = PricingConfig()) -> float:
    if in_category <= config.rare_at_most:
        return 1.5
    if in_category <= config.uncommon_at_most:
        return 1.2
    return 1.0


def price(skill: Mapping[str, Any], *, in_category: int = 1, reputation: float = 1.0,
          config: PricingConfig = PricingConfig()) -> Listing:
    """The skill's listing from its record (its stored properties): its gates, its multipliers and its price."""
    executions = int(skill.get("execution_count") or 0)
    successes = int(skill.get("success_count") or 0)
    rate = successes / executions if executions else 0.0
    reward = float(skill.get("reward_sum") or 0.0) / executions if executions else 0.0
    gates = Gates(executions=executions >= config.min_executions, success_rate=rate >= config.min_success_rate)
    quality = rate * (reward + 1.0) / 2.0
    demand = 1.0 + math.log(int(skill.get("unique_buyers") or 0) + int(skill.get("bounty_matches") or 0) + 1) * 0.1
    scarce = scarcity(in_category, config)
    # only a knowledge crystal is eligible for the marketplace: a memory crystal never leaves the node
    listed = (gates.executions and gates.success_rate and not skill.get("deprecated")
              and is_knowledge(skill.get("semantic_type") or "skill"))
    value = config.base_usdc * quality * demand * reputation * scarce
    return Listing(listed=listed, gates=gates, executions=executions, success_rate=round(rate, 6),
                   avg_reward_score=round((reward + 1.0) / 2.0, 6) if executions else 0.0,
                   quality=round(quality, 6), demand=round(demand, 6), reputation=reputation, scarcity=scarce,
                   price_usdc=round(value, 8) if listed else None, verified=bool(skill.get("is_verified")))
