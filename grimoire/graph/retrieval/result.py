"""What a retrieval answers: the results in order within the token budget, each with its score
(and, asked for, the explanation of it), and, with the explanation, what was cut and why.

Optional fields are set only when they apply (a rank for a result, `contrarian` for an injected
entry, `explain` when asked, `cut` and `beyond_k` with the explanation, the budget and timings
unless the adaptive decision retrieved nothing, `decision_id` for a retrieval for a decision);
POST /retrieve leaves unset ones out."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from grimoire.graph.retrieval.decision import RetrievalDecision


class Explanation(BaseModel):
    backends: dict[str, dict[str, Any]] = Field(
        description="per backend that found the item: its rank and score there (the graph's also how: via, "
                    "entity, distance, centrality)")
    rrf: float | None = Field(description="the fused score (reciprocal rank fusion), for the modes that fuse")
    factors: dict[str, float] | None = Field(description="the factors of the mode's score")
    bloodstain_boost: bool
    weights: dict[str, float] | None = Field(
        default=None, description="the weights of the factors (generative_agents: the agent's learned ones)")
    mode_score: float | None = Field(default=None, description="the mode's own score, before the final stages")
    term_overlap: float | None = Field(
        default=None, description="the IDF-weighted share of the query's terms it holds, blended in as "
                                  "0.7 x score + 0.3 x overlap (when the term-overlap rerank runs)")
    source: Literal["own", "core", "clade", "lethe"] | None = Field(
        default=None, description="the knowledge weighting hierarchy: the caller's own, Grimoire's core mental "
                                  "models, another agent of its clade, or from outside it (none for the admin key)")
    source_weight: float | None = Field(
        default=None, description="x1.0 own and core, x0.8 clade, x0.5 outside the clade")
    zeigarnik: float | None = Field(default=None, description="the Zeigarnik boost: x1.2 for an interrupted episode")
    governance: float | None = Field(
        default=None, description="the crystal's epistemic layer, priority and bounty: x1.02 for a directive, "
                                  "x(1 + 0.02 x priority / 100), x(1 + 0.02 x (its matched bounty's reward "
                                  "multiplier - 1))")
    mmr: float | None = Field(description="the maximal marginal relevance value it was picked with")
    cut: str | None = Field(description="why it was cut, for a cut item")


class RetrievedItem(BaseModel):
    id: str
    kind: Literal["episode", "entry"]
    text: str | None
    category: str | None
    score: float | None = Field(description="the mode's score; none for an item cut before scoring")
    tokens: int | None = Field(description="its length in the embedding model's tokens, once counted")
    valid_from: int | None
    level: int = Field(default=0, description="RAPTOR level: 0 a leaf (an episode, an ordinary entry), 1 a summary")
    rank: int | None = Field(default=None, description="1 for the first result; cut items have none")
    contrarian: bool = Field(default=False, description="injected against the mood (anti-rumination)")
    explain: Explanation | None = None


class RetrievalResult(BaseModel):
    decision: RetrievalDecision | None = Field(description="the adaptive decision, when asked for")
    mode: str
    results: list[RetrievedItem]
    tokens: int = Field(description="the results' tokens in all")
    budget: int | None = Field(default=None, description="the token budget applied; none without one")
    timings_ms: dict[str, float] | None = Field(default=None, description="milliseconds spent in each stage")
    cut: list[RetrievedItem] | None = Field(default=None, description="what was cut, and why (with explain)")
    decision_id: str | None = Field(
        default=None, description="for a retrieval for a decision: its access record's id. Put it on the episode "
                                  "that records the decision's outcome (EpisodeIn.decision_id), and send "
                                  "POST /retrieve/feedback with it to teach the agent's Generative Agents weights")
    beyond_k: int | None = Field(default=None, description="candidates ranked beyond k (with explain)")
