"""A task's retrieval strategy (context-governor.md S3.1, ContextStrategyMap.task_strategies): which of the
Grimoire's collections it draws, at most how many entries from each, its relevance threshold, whether it reads the
causal graph, and how its candidates' attention parts are weighed. It stands behind S3.1's five steps: Retrieve
(the collections, maxima, threshold and traversal), Score (the weights), then Filter, Reorder and Inject as for any
task. A task without a strategy draws everything by the policy's retrieval settings. The map is part of the agent's
policy (graph/context/policy.py task_strategies), changed like its overrides."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, Field, field_validator

from grimoire.graph.context.attention import EFE_PARTS, WEIGHTED_PARTS
from grimoire.graph.context.categories import ContextCategory
from grimoire.graph.context.items import Item

C = ContextCategory
# what the Grimoire fills: a strategy names these (the caller's categories are the caller's to give)
COLLECTIONS = frozenset({C.episodes, C.insights, C.playbook, C.causal_edges, C.contrarian, C.dream_hypotheses,
                         C.invariants, C.strategy})


class RetrievalStrategy(BaseModel):
    collections: list[ContextCategory] | None = Field(
        default=None, description="the Grimoire's collections drawn (none: all of them)")
    relevance_threshold: float | None = Field(default=None, ge=-1, le=1, description="a candidate's least cosine "
                                              "to the query (none: the policy's similarity_threshold)")
    max_entries: dict[ContextCategory, int] = Field(default_factory=dict, description="at most this many "
                                                    "candidates per collection, the best ranked")
    traverse_causal_graph: bool = Field(default=True, description="read the causal edges around the strongest "
                                        "entries")
    ranking_weights: dict[str, float] = Field(default_factory=dict, description="weights of the attention "
                                              "score's parts (pragmatic, epistemic, affective, mortality; under the "
                                              "weighted ranking relevance, recency, confidence); a part not named "
                                              "keeps its default")

    @field_validator("collections", "max_entries")
    @classmethod
    def _grimoires(cls, v: object) -> object:
        named = list(v) if isinstance(v, list | dict) else []
        wrong = sorted(c.value for c in named if c not in COLLECTIONS)
        if wrong:
            raise ValueError(f"not filled from the Grimoire: {', '.join(wrong)}")
        return v

    @field_validator("max_entries")
    @classmethod
    def _counts(cls, v: dict[ContextCategory, int]) -> dict[ContextCategory, int]:
        if any(n < 0 or n > 1_000 for n in v.values()):
            raise ValueError("a collection's maximum is 0 to 1,000")
        return v

    @field_validator("ranking_weights")
    @classmethod
    def _weights(cls, v: dict[str, float]) -> dict[str, float]:
        wrong = sorted(set(v) - set(EFE_PARTS) - set(WEIGHTED_PARTS))
        if wrong:
            raise ValueError(f"no such part of the score: {', '.join(wrong)}")
        if any(w < 0 or w > 10 for w in v.values()):
            raise ValueError("a weight is 0 to 10")
        return v


# The document gives the map's shape but no per-task values: every task starts at the policy's retrieval settings.
DEFAULT_TASK_STRATEGIES: dict[str, RetrievalStrategy] = {}


def apply(strategy: RetrievalStrategy | None, found: Mapping[ContextCategory, Sequence[Item]]
          ) -> tuple[dict[ContextCategory, list[Item]], dict[ContextCategory, str]]:
    """The candidates the strategy keeps (ranked, so the best stay under a maximum) and, per collection it left
    out or cut, why."""
    out = {c: list(items) for c, items in found.items()}
    why: dict[ContextCategory, str] = {}
    if strategy is None:
        return out, why
    drawn = set(strategy.collections) if strategy.collections is not None else COLLECTIONS
    for c in COLLECTIONS - drawn:
        out[c] = [i for i in out.get(c, []) if i.source != "grimoire"]
        why[c] = "not drawn by the task's strategy"
    for c, n in strategy.max_entries.items():
        items = out.get(c, [])
        mine = sorted((i for i in items if i.source == "grimoire"), key=lambda i: -i.score)
        if len(mine) > n:
            keep = {i.id for i in mine[:n]}
            out[c] = [i for i in items if i.source != "grimoire" or i.id in keep]
            why[c] = f"the task's strategy takes at most {n}"
    return out, why
