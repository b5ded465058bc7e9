"""The knowledge weighting hierarchy in retrieval's final score: an item the caller owns (its
vault) weighs 1.0, one from another agent of the caller's clade 0.8, one from outside the clade
(a public item: the Lethe) 0.5 (spec: Knowledge weighting hierarchy). Admission applies the same
hierarchy to a new entry's confidence by provenance; here it applies at every retrieval, by who
owns the item relative to who asks, so another agent's knowledge never outranks the caller's own
on equal merit. Grimoire's own knowledge, the core mental models every agent is given
(graph/knowledge/mental_models.py: public entries of the system agent), is part of every agent's
vault, not a stranger's public note: it weighs as the agent's own (its tier is `core`). A
retrieval without a perspective (the environment's admin key, no agent) weighs every item 1.0."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from grimoire.graph.knowledge.mental_models import SYSTEM_AGENT
from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.retrieval.config import SourceWeights

Source = Literal["own", "core", "clade", "lethe"]


@dataclass(frozen=True)
class Perspective:
    """The agent a retrieval is for, and its clade (empty: none)."""

    agent_id: str
    clade: str = ""


def source(item: Candidate, who: Perspective) -> Source:
    if item.agent_id == who.agent_id:
        return "own"
    if item.agent_id == SYSTEM_AGENT:
        return "core"
    if who.clade and item.clade == who.clade:
        return "clade"
    return "lethe"


def weight(tier: Source, weights: SourceWeights) -> float:
    return {"own": weights.own, "core": weights.core, "clade": weights.clade, "lethe": weights.lethe}[tier]


def scaled(score: float, factor: float) -> float:
    """`score` times `factor`, for a score of either sign: score + (factor - 1) |score|. A weight under 1
    always lowers a score (a negative cosine too), a boost over 1 always raises it; on scores of 0 or
    more it is the plain product."""
    return score + (factor - 1.0) * abs(score)
