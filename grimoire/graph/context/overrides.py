"""Override composition (context-governor.md S3.3, S3.6): base allocations, then the task's overrides, then the
phase's, then the regime's — a later override wins on a category both name. Each layer is applied as the spec's
apply_phase_routing and apply_regime_routing apply theirs: its values replace the category's share, then the
whole is normalised to sum to 1, so a layer's values are shares of the budget as the layers before left it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from grimoire.graph.context.categories import Allocations, ContextCategory


def normalize(allocations: Mapping[ContextCategory, float]) -> Allocations:
    """Fractions that sum to 1 (all zero: left as they are)."""
    total = sum(allocations.values())
    return {c: v / total for c, v in allocations.items()} if total > 0 else dict(allocations)


@dataclass(frozen=True)
class Step:
    """One layer of the composition and what it set."""

    layer: str                  # "task:swap", "phase:conservation", "regime:crisis"
    values: Allocations


def compose(base: Mapping[ContextCategory, float], layers: list[Step]) -> Allocations:
    """Base, then each layer in order (later wins), normalised after each layer (and at the end, with none)."""
    out = dict(base)
    for layer in layers:
        out.update(layer.values)
        out = normalize(out)
    return normalize(out)
