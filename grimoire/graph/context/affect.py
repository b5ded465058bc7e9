"""Affect modulation (context-governor.md S3.7): the PAD vector shifts allocations by small amounts. Stressed
(pleasure < -0.3, arousal > 0.3): contrarian +0.02, episodes and playbook -0.01 each. Uncertain (dominance < -0.2):
playbook +0.02, dream hypotheses and contrarian -0.01 each. Complacent (pleasure > 0.5, arousal < -0.2):
contrarian +0.015, affect -0.015. Then every category is clamped to at least 0.01 and the whole normalised."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from grimoire.graph.context.categories import DEFAULT_ALLOCATIONS, Allocations, ContextCategory
from grimoire.graph.context.overrides import normalize

C = ContextCategory
FLOOR = 0.01


@dataclass(frozen=True)
class Pad:
    """Pleasure, arousal, dominance, each in [-1, 1]."""

    pleasure: float = 0.0
    arousal: float = 0.0
    dominance: float = 0.0


def states(pad: Pad) -> list[str]:
    """Which of the spec's three affect states the vector is in (more than one can hold)."""
    out = []
    if pad.pleasure < -0.3 and pad.arousal > 0.3:
        out.append("stressed")
    if pad.dominance < -0.2:
        out.append("uncertain")
    if pad.pleasure > 0.5 and pad.arousal < -0.2:
        out.append("complacent")
    return out


SHIFTS: dict[str, dict[ContextCategory, float]] = {
    "stressed": {C.contrarian: 0.02, C.episodes: -0.01, C.playbook: -0.01},
    "uncertain": {C.playbook: 0.02, C.dream_hypotheses: -0.01, C.contrarian: -0.01},
    "complacent": {C.contrarian: 0.015, C.affect: -0.015},
}


def modulate(pad: Pad, allocations: Mapping[ContextCategory, float]) -> Allocations:
    """The spec's apply_affect_modulation: shifts for each state the vector is in (a category the allocations
    lack starts from its default), every value clamped to at least 0.01, then normalised."""
    out = dict(allocations)
    for state in states(pad):
        for category, shift in SHIFTS[state].items():
            out[category] = out.get(category, DEFAULT_ALLOCATIONS[category]) + shift
    return normalize({c: max(v, FLOOR) for c, v in out.items()})
