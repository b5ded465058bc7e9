"""One retrieval, start to finish. What every mode shares is here: the query's embedding and the
adaptive decision before; contrarian injection, the token budget, bookkeeping (for a decision: the
access record whose id is the decision id, with what the Hedge feedback learns from) and the
explanation of every result (and of every cut) after. Between them the mode, a strategy looked up
by name (graph/retrieval/modes/), gathers and scores the candidates."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from grimoire.graph import observe
from grimoire.graph.audit import Access
from grimoire.graph.audit.access import Reads
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.ids import now_ms
from grimoire.graph.knowledge.decay import DecayConfig
from grimoire.graph.observe import Stopwatch
from grimoire.graph.retrieval import backends, budget, hedge, items, lookup, modes
from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.retrieval.context import Context, QueryVector
from grimoire.graph.retrieval.decision import RetrievalDecision, decide
from grimoire.graph.retrieval.exact import HeldVectors
from grimoire.graph.retrieval.feedback import FeedbackResult, record_factors, reward_of
from grimoire.graph.retrieval.feedback import feedback as learn_from
from grimoire.graph.retrieval.filters import RetrievalFilters, as_known
from grimoire.graph.retrieval.lookup import LexicalHit, Similar
from grimoire.graph.retrieval.modes import generative_agents
from grimoire.graph.retrieval.reach import ReachCache
from grimoire.graph.retrieval.request import RetrievalRequest
from grimoire.graph.retrieval.result import Explanation, RetrievalResult, RetrievedItem
from grimoire.graph.retrieval.weights import Weights, of_agent
from grimoire.graph.visibility import Visibility

__all__ = ["RetrievalRequest", "RetrievalResult", "Retriever", "build"]

log = logging.getLogger(__name__)


Modulation = tuple[float, float]
"""A caller's hormonal (importance_boost, recency_bias): RetrievalConfig.modulated."""
ModulationOf = Callable[[str | None], Modulation | None]
"""The modulation of an agent's retrievals (none for one whose hormones never moved, or no agent): graph/services.py
sets it from the crystals' hormonal state, which retrieval cannot import (crystals sit above it)."""


def unmodulated(agent_id: str | None) -> Modulation | None:
    return None


@dataclass
class Retriever:
    db: Database
    embed: Callable[[str], list[float]]
    count_tokens: budget.Counter
    dimension: int
    config: RetrievalConfig
    decay: DecayConfig
    modulation: ModulationOf = unmodulated
    reaches: ReachCache = field(init=False)
    held: HeldVectors = field(init=False)  # vectors for exact rankings, checked against the graph's counter
    reads: Reads = field(init=False)  # what every retrieval and search returned: access for relevance

    def __post_init__(self) -> None:
        self.reaches = ReachCache(small=self.config.held_below, seconds=self.config.reach_reuse_seconds,
                                  small_seconds=self.config.small_reach_reuse_seconds)
        self.held = HeldVectors(held=self.config.exact_vectors_held, max_age=self.config.exact_vectors_max_age)
        self.reads = Reads(self.db)

    def retrieve(self, req: RetrievalRequest, visibility: Visibility, agent_id: str | None) -> RetrievalResult:
        """One retrieval for the caller, under its hormonal modulation (`modulation`), whoever asks: the
        /retrieve route, MCP, the Governor, recall, crystal pipelines."""
        with observe.span("retrieve", req.mode):  # a trace's parent of the stages and their statements
            return self._retrieve(req, visibility, agent_id)

    def _retrieve(self, req: RetrievalRequest, visibility: Visibility, agent_id: str | None) -> RetrievalResult:
        mode = modes.get(req.mode)
        config = self.configured_for(agent_id)
        embedding = QueryVector(req.vector, req.text, self.embed, self.dimension)
        k, filters, decision = req.k, req.filters, None
        if req.adaptive:
            decision = decide(req.curiosity, req.arousal if req.arousal is not None else (req.mood or [0, 0, 0])[1],
                              req.coverage if req.coverage is not None else self._coverage(embedding(), visibility),
                              self.config.adaptive)
            if decision == RetrievalDecision.none:
                return RetrievalResult(decision=decision, mode=req.mode, results=[], cut=[], tokens=0)
            if decision == RetrievalDecision.light:
                k = min(k, self.config.light_k)
            if decision == RetrievalDecision.semantic_only:
                filters = filters.model_copy(update={"kinds": ["entries"]})
        ctx = Context(db=self.db, config=config, decay=self.decay, req=req, visibility=visibility,
                      filters=filters, k=k, now=now_ms(), embedding=embedding, clock=Stopwatch("retrieval"),
                      agent_id=agent_id, reaches=self.reaches, held=self.held)
        found = mode.candidates(ctx)
        return self._finish(ctx, found, decision, agent_id)

    def configured_for(self, agent_id: str | None) -> RetrievalConfig:
        """The configuration under the agent's hormones, if they ever moved (else as configured)."""
        modulation = self.modulation(agent_id)
        return self.config.modulated(*modulation) if modulation else self.config

    def similar(self, embedding: list[float], k: int, visibility: Visibility, filters: RetrievalFilters, *,
                now: int | None = None) -> list[Similar]:
        """The k items the caller may see nearest the embedding under the filters, best first, by cosine (the
        vector backend alone, sized by the caller's reach), each with its effective confidence at `now`. The
        ranking is the cosine's alone: the agent's hormones (configured_for) weigh the pipeline's rerank."""
        return lookup.similar(self.db, embedding, k, filters.params(visibility), config=self.config,
                              decay=self.decay,
                              reaches=self.reaches, now=now_ms() if now is None else now)

    def lexical(self, text: str, k: int, visibility: Visibility, filters: RetrievalFilters, *,
                memories: bool = False) -> list[LexicalHit]:
        """The k items the caller may see best matching the text's words under the filters, best first (the
        full-text backend alone, sized by the caller's reach). `memories`: the filter's agent's memories only
        (agent-memory recall), with the exact side for a small set (graph/retrieval/lookup.py)."""
        if memories and filters.agent_id is None:
            raise ValueError("a lexical search of memories is of one agent's: set filters.agent_id")
        return lookup.lexical(self.db, text, k, filters.params(visibility), config=self.config,
                              reaches=self.reaches, memories=memories)

    def _coverage(self, embedding: list[float] | None, visibility: Visibility) -> int:
        if embedding is None:
            return 0
        params = RetrievalFilters(kinds=["entries"]).params(visibility)
        t = self.config.adaptive
        rows = backends.vector_measured(self.db, embedding, t.coverage_k, params, self.config, self.reaches)
        return sum(1 for r in rows if r["score"] >= t.coverage_cosine)

    def _finish(self, ctx: Context, found: list[Candidate], decision: RetrievalDecision | None,
                agent_id: str | None) -> RetrievalResult:
        req = ctx.req
        found = as_known(self.db, found, ctx.filters.known_as_of, ctx.visibility)  # as recorded then, if asked
        chosen, beyond = found[:ctx.k], found[ctx.k:]
        if req.for_decision and agent_id and req.mood:
            embedding = ctx.embedding()
            if embedding is not None:
                chosen += self._contrarian(ctx, agent_id, req.mood, embedding, [c.id for c in chosen])
        limit = None if req.no_budget else (req.budget or self.config.budget_tokens)
        kept, over = budget.cut(chosen, limit, self.count_tokens)
        for c in over:
            c.cut = f"budget: {c.tokens} tokens do not fit in what is left of {limit}"
        decision_id = self._touch(ctx, kept, agent_id) if req.for_decision else None
        if not req.for_decision:  # a decision's touch counts it already; any other read, batched off the path
            self.reads.note([c.id for c in kept])
        if req.mode == "replay" and agent_id:  # an agent's dream cycle's replay: each a dream more (the next
            # replay's spaced-repetition order). Like the read count, the crystal's own count, whoever replayed it:
            # a shared episode counted only for its owner would come first in every other agent's replay.
            self.reads.note_replay([c.id for c in kept])
        results = [self._present(c, rank, req.explain) for rank, c in enumerate(kept, start=1)]
        tokens = sum(c.tokens or 0 for c in kept)
        ctx.clock.lap("budget")
        log.debug("retrieval %s: %d results, %d tokens, %s", req.mode, len(results), tokens, ctx.clock.laps)
        extra: dict[str, Any] = {}
        if req.explain:
            extra = {"cut": [self._present(c, None, True) for c in ctx.cut + over], "beyond_k": len(beyond)}
        if decision_id:
            extra["decision_id"] = decision_id
        return RetrievalResult(decision=decision, mode=req.mode, results=results, tokens=tokens, budget=limit,
                               timings_ms=ctx.clock.laps, **extra)

    def _contrarian(self, ctx: Context, agent_id: str, mood: list[float], embedding: list[float],
                    exclude: list[str]) -> list[Candidate]:
        rows = self.db.run("retrieval/count_retrieval", agent_id=agent_id)  # a write: counts this retrieval
        if not rows or rows[0]["retrievals"] % self.config.contrarian_every != 0 or mood[0] == 0:
            return []
        found = self.db.rows(ctx.visibility.variant("retrieval/contrarian"),
                             embedding=embedding, pleasure=mood[0],
                             n=self.config.contrarian_count, exclude=exclude, **ctx.visibility.params())
        injected = ctx.fetch([r["id"] for r in found])  # without any whose scope narrowed meanwhile
        scores = {r["id"]: r["score"] for r in found}
        for c in injected:
            c.score, c.contrarian = scores[c.id], True
        return injected

    def _touch(self, ctx: Context, kept: list[Candidate], agent_id: str | None) -> str:
        """Marks what was returned as accessed and logs the read in the access log (not the audit
        trail), with the Generative Agents factors of each returned item (graph/retrieval/feedback.py);
        returns the access record's id, the decision id. A retrieval for a decision that returned
        nothing is logged too: the decision it informed is still one to learn from."""
        access = Access(action="retrieval.for_decision", agent_id=agent_id)
        ids = [c.id for c in kept]
        factors = self._decision_factors(ctx, kept)

        def work(tx: Tx) -> None:
            row = tx.run(cypher.query("retrieval/touch"), ids=ids, now=access.at).single()
            access.write(tx, ids, touched=row["touched"] if row else 0)
            record_factors(tx, access.id, ctx.req.mode, factors)

        self.db.write(work)
        return access.id

    def _decision_factors(self, ctx: Context, kept: list[Candidate]) -> list[dict[str, float] | None]:
        """Each returned item's Generative Agents factors as this retrieval saw them (those the mode
        computed, else computed here); none without a query vector."""
        query = ctx.embedding()
        if query is None:
            return [None] * len(kept)
        items.with_embeddings(self.db, [c for c in kept if not _has_ga_factors(c)])
        out: list[dict[str, float] | None] = []
        for c in kept:
            f = dict(c.factors) if c.factors and _has_ga_factors(c) else generative_agents.score(
                c, query, now=ctx.at, block=ctx.req.block, config=self.config)
            out.append({name: f[name] for name in hedge.FACTORS})
        return out

    def feedback(self, decision_id: str, *, useful: bool | None, outcome: str | None, visibility: Visibility,
                 actor: str) -> FeedbackResult:
        """One Hedge step on the deciding agent's Generative Agents weights (graph/retrieval/feedback.py)."""
        return learn_from(self.db, decision_id, reward_of(useful, outcome), visibility=visibility, actor=actor,
                          config=self.config)

    def weights(self, agent_id: str | None) -> Weights:
        """The agent's Generative Agents weights: learned, or the configured ones."""
        return of_agent(self.db, agent_id, self.config.generative_agents)

    @staticmethod
    def _present(c: Candidate, rank: int | None, explain: bool) -> RetrievedItem:
        """A result (with its rank) or a cut item (without), as the API shows it: only the fields
        that apply are set."""
        shown: dict[str, Any] = {"id": c.id, "kind": c.kind, "text": c.text, "category": c.category,
                                 "score": c.score, "tokens": c.tokens, "valid_from": c.valid_from, "level": c.level}
        if rank is not None:
            shown["rank"] = rank
        if c.contrarian:
            shown["contrarian"] = True
        if explain:
            shown["explain"] = Explanation(
                backends={b: v for b, v in c.trace.items() if b != "rrf"}, rrf=c.trace.get("rrf"),
                factors=c.factors, bloodstain_boost=c.bloodstain_boost, weights=c.weights, mode_score=c.mode_score,
                term_overlap=c.term_overlap, source=c.source, source_weight=c.source_weight, zeigarnik=c.zeigarnik,
                governance=c.governance, mmr=c.mmr, cut=c.cut)
        return RetrievedItem(**shown)


def _has_ga_factors(c: Candidate) -> bool:
    return bool(c.factors) and all(name in (c.factors or {}) for name in hedge.FACTORS)


def build(db: Database, embedder: Any, config: RetrievalConfig | None = None,
          decay: DecayConfig | None = None, modulation: ModulationOf = unmodulated) -> Retriever:
    """The retriever the API serves (graph/services.py gives it the agents' hormonal modulation) and the
    evaluation uses."""
    return Retriever(db=db, embed=embedder.embed_one, count_tokens=embedder.count_tokens,
                     dimension=embedder.dimension, config=config or RetrievalConfig(), decay=decay or DecayConfig(),
                     modulation=modulation)
