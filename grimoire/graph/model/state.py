"""What an episode may carry for Reflexion's deterministic steps (../shared/spec/grimoire.md, "Reflexion with
On-Chain Grounding", steps 1-2): the state it acted on, snapshotted before and after (token balances, pool reserves,
position sizes: named numbers), and the invariants that must hold afterwards.

An invariant follows the document's categories where a snapshot of numbers can express them: a token amount
bound (`min`, `max` on the value after) and a balance change limit (`max_change` on |after - before|,
`max_change_bps` on the same change relative to before, in basis points, as the document's
`balance_change_bps`). Its third category, no unexpected contract interactions, needs the transaction's logs,
which an episode does not carry.

Stored on the episode as JSON strings (a Neo4j property cannot be a map) under the same names; the answer
models read them back."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field, model_validator

from grimoire.graph.model.common import FiniteFloat, StrictModel

MAX_STATE_KEYS = 64   # a snapshot names the few values the action touched, not the chain's state
MAX_INVARIANTS = 64

StateKey = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^\S(?:.*\S)?$",
                                description="what the value is, e.g. balance:WETH, pool:WETH/USDC:reserve0")]
StateSnapshot = Annotated[dict[StateKey, FiniteFloat], Field(max_length=MAX_STATE_KEYS)]
"""Named numeric values at one moment (at most MAX_STATE_KEYS)."""
NonNegative = Annotated[float, Field(ge=0, le=1e300)]


class InvariantIn(StrictModel):
    """A bound the value of `key` must respect after the action: a token amount bound (min, max) or a balance change
    limit (max_change, max_change_bps against pre_state). At least one bound."""

    key: StateKey
    min: FiniteFloat | None = Field(default=None, description="the value after must not be below it")
    max: FiniteFloat | None = Field(default=None, description="the value after must not be above it")
    max_change: NonNegative | None = Field(default=None, description="|after - before| must not exceed it")
    max_change_bps: NonNegative | None = Field(
        default=None, description="|after - before| / |before| in basis points must not exceed it (any change from "
                                  "zero exceeds it)")

    @model_validator(mode="after")
    def _bounded(self) -> InvariantIn:
        if self.min is None and self.max is None and self.max_change is None and self.max_change_bps is None:
            raise ValueError(f"invariant on {self.key!r} declares no bound (min, max, max_change or max_change_bps)")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"invariant on {self.key!r}: min is above max")
        return self

    @property
    def limits_change(self) -> bool:
        return self.max_change is not None or self.max_change_bps is not None


def _from_json(value: Any) -> Any:
    """A snapshot or invariant list as stored (a JSON string) or as given."""
    return json.loads(value) if isinstance(value, str) else value


StoredSnapshot = Annotated[dict[str, float] | None, BeforeValidator(_from_json)]


class InvariantOut(BaseModel):
    """An invariant as the episode declared it."""

    key: str
    min: float | None = None
    max: float | None = None
    max_change: float | None = None
    max_change_bps: float | None = None


StoredInvariants = Annotated[list[InvariantOut] | None, BeforeValidator(_from_json)]


def check_declared(pre: dict[str, float] | None, post: dict[str, float] | None,
                   invariants: list[InvariantIn]) -> None:
    """An episode's invariants can be checked against its snapshots: each names a value of post_state, and a change
    limit a value of pre_state too; none repeats a key (two bounds on one value are one invariant). ValueError
    (a 422 at the edge) otherwise: an episode is written once, so a bound it cannot check would never be checked."""
    if invariants and post is None:
        raise ValueError("invariants need a post_state to be checked against")
    seen: set[str] = set()
    for inv in invariants:
        if inv.key in seen:
            raise ValueError(f"two invariants on {inv.key!r}: declare its bounds in one")
        seen.add(inv.key)
        if post is not None and inv.key not in post:
            raise ValueError(f"invariant on {inv.key!r}: post_state has no such value")
        if inv.limits_change and (pre is None or inv.key not in pre):
            raise ValueError(f"invariant on {inv.key!r} limits its change: pre_state has no such value")
