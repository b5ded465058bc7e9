"""Reflexion's deterministic steps on an episode's snapshots (../shared/spec/grimoire.md, "Reflexion with On-Chain
Grounding"): step 1 compares the state after the action with the state before it (each value's deviation, as the
document's `Deviations.balance_change_bps`), step 2 checks the invariants the episode declared (graph/model/state.py)
against the state after and the change. Pure: no database, no clock; reflexion.py stores what they find and records
a safety_incident episode for any violation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum

from pydantic import BaseModel, Field

from grimoire.graph.model.state import InvariantIn, InvariantOut

BPS = 10_000


class InvariantCategory(StrEnum):
    """The document's invariant categories that a snapshot of numbers can express."""

    token_amount_bound = "token_amount_bound"        # min, max on the value after
    balance_change_limit = "balance_change_limit"    # max_change, max_change_bps on after - before


class StateDeviation(BaseModel):
    """One value of the snapshots: before, after, the change and the change relative to before in basis points
    (unset when before is zero or either side lacks the value)."""

    key: str
    pre: float | None = None
    post: float | None = None
    change: float | None = None
    change_bps: float | None = None


class InvariantViolation(BaseModel):
    """An invariant that did not hold: which bound, its limit and the value that broke it (unset: the value is
    missing after, or a change from zero, which no relative limit admits)."""

    key: str
    category: InvariantCategory
    bound: str = Field(description="min, max, max_change, max_change_bps, or present (the value is missing after)")
    limit: float | None = None
    actual: float | None = None


def compare(pre: Mapping[str, float] | None, post: Mapping[str, float] | None) -> list[StateDeviation]:
    """Step 1: each value either snapshot names, by key, with its change where both have it."""
    before, after = dict(pre or {}), dict(post or {})
    out = []
    for key in sorted(before.keys() | after.keys()):
        a, b = before.get(key), after.get(key)
        change = b - a if a is not None and b is not None else None
        bps = change / abs(a) * BPS if change is not None and a else None
        out.append(StateDeviation(key=key, pre=a, post=b, change=change, change_bps=bps))
    return out


def check(invariants: Sequence[InvariantIn | InvariantOut], pre: Mapping[str, float] | None,
          post: Mapping[str, float] | None) -> list[InvariantViolation]:
    """Step 2: every bound of every invariant that does not hold, in the order declared. A value missing after is a
    violation (an invariant the episode cannot show to hold does not hold); a change limit on a value missing before
    is one too."""
    before, after = dict(pre or {}), dict(post or {})
    out: list[InvariantViolation] = []
    for inv in invariants:
        value = after.get(inv.key)
        amount, change = InvariantCategory.token_amount_bound, InvariantCategory.balance_change_limit
        if value is None:
            out.append(InvariantViolation(key=inv.key, category=amount, bound="present"))
            continue
        if inv.min is not None and value < inv.min:
            out.append(InvariantViolation(key=inv.key, category=amount, bound="min", limit=inv.min, actual=value))
        if inv.max is not None and value > inv.max:
            out.append(InvariantViolation(key=inv.key, category=amount, bound="max", limit=inv.max, actual=value))
        if inv.max_change is None and inv.max_change_bps is None:
            continue
        start = before.get(inv.key)
        if start is None:
            out.append(InvariantViolation(key=inv.key, category=change, bound="present"))
            continue
        moved = abs(value - start)
        if inv.max_change is not None and moved > inv.max_change:
            out.append(InvariantViolation(key=inv.key, category=change, bound="max_change", limit=inv.max_change,
                                          actual=moved))
        if inv.max_change_bps is not None:
            if start == 0:
                if moved > 0:
                    out.append(InvariantViolation(key=inv.key, category=change, bound="max_change_bps",
                                                  limit=inv.max_change_bps))
            elif moved / abs(start) * BPS > inv.max_change_bps:
                out.append(InvariantViolation(key=inv.key, category=change, bound="max_change_bps",
                                              limit=inv.max_change_bps, actual=moved / abs(start) * BPS))
    return out


def describe(violations: Sequence[InvariantViolation]) -> str:
    """The violations in a sentence each, for the safety_incident episode's text (numbers and keys only: nothing of
    the source episode's own text, which may be confidential)."""
    parts = []
    for v in violations:
        if v.bound == "present":
            parts.append(f"{v.key} is missing from the state it must be checked against")
        elif v.bound == "min":
            parts.append(f"{v.key} is {v.actual:g}, below its minimum {v.limit:g}")
        elif v.bound == "max":
            parts.append(f"{v.key} is {v.actual:g}, above its maximum {v.limit:g}")
        elif v.bound == "max_change":
            parts.append(f"{v.key} changed by {v.actual:g}, beyond its limit {v.limit:g}")
        elif v.actual is None:
            parts.append(f"{v.key} changed from zero, beyond any relative limit ({v.limit:g} bps)")
        else:
            parts.append(f"{v.key} changed by {v.actual:g} bps, beyond its limit {v.limit:g} bps")
    return "; ".join(parts)
