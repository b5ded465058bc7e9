"""Every weight and constant of retrieval, with the spec's defaults (the fusion, the rerank, MMR and its
near-duplicate cosine, the adaptive decision's thresholds and its coverage cosine, the importance map, the
modes' weights, the reach); GRIMOIRE_RETRIEVAL (JSON) overrides any of them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class RerankWeights(BaseModel):
    rrf: float = 0.30
    effective_confidence: float = 0.25
    quality: float = 0.20
    recency: float = 0.15
    regime_match: float = 0.10


class FourFactorWeights(BaseModel):
    semantic: float = 0.40
    temporal: float = 0.20
    importance: float = 0.25
    emotional: float = 0.15


class GenerativeAgentsWeights(BaseModel):
    recency: float = 0.3      # alpha
    importance: float = 0.3   # beta
    relevance: float = 0.4    # gamma
    decay_per_block: float = 0.001
    decay_per_hour: float = 0.005  # for items without blocks (Park et al. use 0.995 per hour)


class HedgeConfig(BaseModel):
    """The Generative Agents weights learned per agent by exponential weights (graph/retrieval/hedge.py)."""

    enabled: bool = True           # the generative_agents mode scores with the agent's learned weights
    learning_rate: float = 0.5     # eta: w <- w * exp(-eta * loss), then normalised
    floor: float = 0.05            # no factor's weight falls below it (the ablations: each one matters)


class TermOverlapConfig(BaseModel):
    """The term-overlap rerank (graph/retrieval/term_overlap.py): score = (1 - weight) x score + weight x
    the IDF-weighted share of the query's terms the item contains, in the final score of the modes
    listed. On by default where it helped LoCoMo recall on the tuning conversations (1-3) and the
    check conversations (4-5) alike: four_factor and generative_agents recall@10 0.505 -> 0.654 and
    0.511 -> 0.624; hybrid, whose rerank already holds BM25, lost recall@10 with it on the check
    conversations (0.700 -> 0.674 at weight 0.3, and at 0.1), so it is off there."""

    modes: list[str] = Field(default_factory=lambda: ["four_factor", "generative_agents"])
    weight: float = 0.3
    idf_cap: int = 1_000           # documents counted per term (a term in more is common: its IDF is small)


class QueryUnderstandingConfig(BaseModel):
    """Lists the full pipeline fuses by RRF beside its backends from what the query says (issue 22 point 2;
    graph/retrieval/query_understanding.py, graph/retrieval/understood.py). Each candidate was measured on
    LoCoMo conversations 1-3 (tune), its parameters chosen there, and kept on only if it raised recall@10 on
    conversations 4-5 (check) too (bench/results/locomo_tune.json): the time windows (0.698 -> 0.715 tune,
    0.700 -> 0.728 check), the time telling (-> 0.719, 0.711) and the short-turn context (-> 0.708, 0.707);
    together 0.749 and 0.746. The entity lists, the entity focus and the possessive names did not, and are off."""

    time_windows: bool = True        # the times the query names: the items valid then, by similarity
    slack_days: float = 1.0          # a time's window stretches this far forward (turns tell what was done)
    time_telling: bool = True        # a question asking when: its candidates that tell a time, in fused order
    short_context: bool = True       # the vector ranking reads a short turn with the turn before (small reach)
    short_chars: int = 80            # ... a turn of at most this many characters
    context_weight: float = 1.0      # ... the turn before's weight beside the turn's own
    entity_lists: bool = False       # per entity the query names: the items mentioning it, by similarity
    entity_min: int = 1              # ... when the query names at least this many (2: "did X and Y both ...")
    entity_max: int = 3              # at most this many entities get a list
    entity_max_mentions: int = 5_000  # an entity mentioned more often gets none (its cost follows its mentions)
    entity_focus: bool = False       # the candidates mentioning an entity the query names, in fused order
    focus_among: int = 60            # ... among the first this many fused candidates
    possessives: bool = False        # "Caroline's" names Caroline in the entity lookup
    # BM25 again with the words its first hits share (retrieval/feedback_terms.py). Off: leave-one-conversation-out
    # on LoCoMo, held-out recall@10 -0.037 ± 0.023, open-domain and single-hop losing (bench/results/
    # locomo_feedback.json).
    feedback: bool = False
    feedback_docs: int = 5           # ... read from this many first hits
    feedback_pool: int = 30          # ... the candidate words weighed by IDF (one document-frequency query)
    feedback_terms: int = 10         # ... this many added to the query
    feedback_weight: float = 0.3     # ... the best one's boost (the query's own words weigh 1)
    top: int = 20                    # each list's length


class NeighbourhoodConfig(BaseModel):
    """What lies around the fused candidates, as lists the full pipeline fuses by RRF beside the others (issue 41,
    multi-hop and open-domain; graph/retrieval/neighbourhood.py). Hierarchical: each candidate scored by its thread
    first (the max or sum of the fused scores of the candidates at most `thread_hops` FOLLOWS steps from it, itself
    counted: with 64, a LoCoMo session), then by its own, so a turn of the best thread rises over an equally scored
    turn elsewhere. Expansion: the items around the first fused candidates (their turns before and after, the items
    mentioning an entity they mention, hubs skipped), the caller's visible ones only, at a lower RRF weight. Both
    off: on LoCoMo, leave-one-conversation-out, every variant lost held-out recall@10 on every conversation (threads
    -0.007 ± 0.003 to -0.041 ± 0.012, expansion -0.016 ± 0.006 and -0.018 ± 0.005; bench/results/locomo_h4.json,
    locomo_h4_low.json)."""

    threads: bool = False                             # hierarchical: the thread's score first
    thread_hops: int = Field(default=64, ge=1, le=64)  # ... a thread: the candidates this many steps either way
    thread_score: Literal["max", "sum"] = "max"       # ... from its candidates' fused scores
    thread_weight: float = Field(default=1.0, ge=0)   # ... the list's RRF weight
    expand: bool = False                              # expansion around the first fused candidates
    expand_from: int = Field(default=5, ge=1)         # ... around this many
    expand_hops: int = Field(default=1, ge=1, le=8)   # ... their turns this many FOLLOWS steps either way
    expand_entities: bool = True                      # ... and the items mentioning an entity they mention
    expand_weight: float = Field(default=0.5, ge=0)   # ... the list's RRF weight (a backend's is 1)
    top: int = 20                                     # each list's length


class SourceWeights(BaseModel):
    """The knowledge weighting hierarchy, in every mode's final score (graph/retrieval/weighting.py)."""

    own: float = 1.0     # the caller's own items (its vault)
    core: float = 1.0    # Grimoire's core mental models, given to every agent (part of its vault)
    clade: float = 0.8   # another agent of the caller's clade
    lethe: float = 0.5   # from outside the clade (public)


class HormonalModulation(BaseModel):
    """The caller's hormones on retrieval (knowledge-crystals.md, getRetrievalModulation): importance_boost = 1 +
    0.2 · dopamine weighs importance up, recency_bias = 1 + 0.3 · cortisol weighs recency up, in every mode's
    score (RetrievalConfig.modulated)."""

    importance_boost: float = 1.0
    recency_bias: float = 1.0


class AdaptiveDecisionConfig(BaseModel):
    """The adaptive decision's thresholds (graph/retrieval/decision.py: the spec's heuristic, in its order) and
    how the coverage it reads is measured (graph/retrieval/pipeline.py)."""

    full_curiosity: float = 0.8     # more curious than this: full retrieval
    covered: int = 5                # more entries than this near the query: the topic is well covered
    covered_curiosity: float = 0.4  # ... and less curious than this: semantic only (or none, below)
    routine_curiosity: float = 0.1  # ... none when curiosity is at most this
    routine_arousal: float = 0.3    # ... and arousal at most this: routine and calm
    full_arousal: float = 0.7       # more aroused than this: full retrieval (else light)
    coverage_cosine: float = 0.6    # an entry at least this similar to the query counts toward coverage
    coverage_k: int = 20            # the nearest entries looked at for coverage


class RetrievalConfig(BaseModel):
    rrf_k: int = 60
    backend_weights: dict[str, float] = Field(default_factory=lambda: {"vector": 1.0, "bm25": 1.0, "graph": 1.0})
    per_backend: int = 20                 # top-N candidates each backend contributes
    candidates_factor: int = 1            # first ask each index for factor x top; more if filters bite
    exact_below: int = 3_000              # a caller seeing at most this many items is ranked exactly
    exact_fallback_below: int = 20_000    # when the index finds too few, rank exactly up to this many
    visible_count_cap: int = 20_000       # visible items are counted up to this many (graph/retrieval/reach.py)
    reach_reuse_seconds: float = 30.0     # a count past exact_below is reused this long (reach.ReachCache)
    small_reach_reuse_seconds: float = 5.0  # ... and one of 1 to exact_below this long (its ranking reads the set)
    # Vectors a replica holds for exact rankings (graph/retrieval/exact.py), ~2 KiB each with their keys: 120,000 is
    # ~250 MiB, a hundred agents of ~1,100 items each (the load benchmark's fleet); the blocks they are scored from
    # share them, at most as many rows again. Fewer and each agent's vectors are read again as others push them out
    # (~55 ms of the database's CPU per 1,100).
    exact_vectors_held: int = 120_000
    exact_vectors_max_age: float = 600.0  # seconds a held vector is trusted at most (the graph's counter aside)
    graph_seed_hits: int = 5              # the strongest fused hits whose neighbours are candidates
    graph_named_entities: bool = True     # entities named in the query seed the graph backend
    graph_entity_max_mentions: int = 100  # seeds mentioned more often are hubs and are skipped
    graph_focus_threads: bool = True      # thread neighbours must mention an entity the query is about
    rerank: RerankWeights = Field(default_factory=RerankWeights)
    # The hybrid final score (rerank.score): `additive`, the Hybrid Retrieval Pipeline's weighted sum of the rerank
    # factors (grimoire.md line 1135); `product`, effective_confidence x quality x relevance (line 325), relevance
    # being the fused (RRF) score over its ceiling. Both x bloodstain_boost.
    rerank_form: Literal["additive", "product"] = "additive"
    recency_half_life_days: float = 7.0   # recency boost: exp(-ln2 * age / half-life)
    bloodstain_boost: float = 1.2
    # An entry under this effective confidence leaves retrieval at once (grimoire.md: "excluded from active
    # retrieval"; the Curator archives it after three cycles); a structural entry, which never decays, excepted.
    retrievable_confidence: float = Field(default=0.1, ge=0.0, le=1.0)
    mmr_lambda: float = 0.7
    mmr_top: int = 10                     # MMR reorders the first mmr_top results
    duplicate_cosine: float = 0.95        # the hybrid MMR cuts a result this similar to one above it
    # How MMR reads relevance (rerank.relevance). min_max, chosen on LoCoMo conversations 1-3 and checked on 4-5
    # (issue 22): full-pipeline recall@5 0.501 -> 0.536 (tune) and 0.462 -> 0.531 (check), recall@10 unchanged.
    mmr_relevance: Literal["ratio", "min_max"] = "min_max"
    budget_tokens: int = 500
    four_factor: FourFactorWeights = Field(default_factory=FourFactorWeights)
    generative_agents: GenerativeAgentsWeights = Field(default_factory=GenerativeAgentsWeights)
    contrarian_every: int = 100           # every Nth retrieval of an agent injects contrarian entries
    contrarian_count: int = 2
    light_k: int = 3                      # the adaptive decision's "light" retrieval
    adaptive: AdaptiveDecisionConfig = Field(default_factory=AdaptiveDecisionConfig)
    # An item's quality when it has no quality score: its importance (episodes' routine ... emergency), else
    # importance_default; also the importance factor of four_factor and generative_agents.
    importance: dict[str, float] = Field(default_factory=lambda: {"routine": 0.25, "notable": 0.5, "critical": 0.75,
                                                                  "emergency": 1.0})
    importance_default: float = 0.25
    source_weights: SourceWeights = Field(default_factory=SourceWeights)
    zeigarnik_boost: float = 1.2          # interrupted episodes come more readily (graph/retrieval/zeigarnik.py)
    # A crystal's epistemic layer and priority (knowledge-crystals.md lines 64, 118), tie-breakers the document gives
    # no number for (graph/retrieval/governance.py): x(1 + 0.02) for a directive, x(1 + 0.02 x priority / 100).
    directive_boost: float = Field(default=0.02, ge=0, le=1)
    priority_boost: float = Field(default=0.02, ge=0, le=1)
    # A skill that fulfilled a bounty (knowledge-crystals.md line 70, graph/crystals/bounties.py): x(1 + 0.02 x (the
    # bounty's reward multiplier - 1)), the project's own number; 0 turns it off.
    bounty_boost: float = Field(default=0.02, ge=0, le=1)
    term_overlap: TermOverlapConfig = Field(default_factory=TermOverlapConfig)
    query: QueryUnderstandingConfig = Field(default_factory=QueryUnderstandingConfig)
    neighbourhood: NeighbourhoodConfig = Field(default_factory=NeighbourhoodConfig)
    hedge: HedgeConfig = Field(default_factory=HedgeConfig)
    hormones: HormonalModulation = Field(default_factory=HormonalModulation)  # set per request by modulated()

    def modulated(self, importance_boost: float, recency_bias: float) -> RetrievalConfig:
        """This configuration under a caller's hormones: the hybrid rerank's quality and recency weights and the
        four-factor importance and temporal weights scaled; the Generative Agents mode scales its (learned)
        weights by `hormones` itself."""
        r, f = self.rerank, self.four_factor
        return self.model_copy(update={
            "hormones": HormonalModulation(importance_boost=importance_boost, recency_bias=recency_bias),
            "rerank": r.model_copy(update={"quality": r.quality * importance_boost,
                                           "recency": r.recency * recency_bias}),
            "four_factor": f.model_copy(update={"importance": f.importance * importance_boost,
                                                "temporal": f.temporal * recency_bias})})
