"""The Governor: one budgeted, explained workspace per decision (context-governor.md S2.1, S5.1, S5.3).

An assembly reads the agent's state (its policy, last workspace, Beta beliefs in the regime and staged mutations)
while the query is embedded; resolves the allocations (base → task → phase → regime, normalised, then the mood);
fetches the Grimoire's categories in parallel (graph/context/sources.py) and the caller's; composes the workspace
within the budget (graph/context/assembly.py); and records it — what went in, for Loop 1 to learn from — with its
access record and events, in one transaction. The answer carries the rendered prompt text, the entries, the
reasons per category and the delta from the agent's previous workspace.

The common case answers from the agent's kept workspace (graph/context/preassembly.py) and reads nothing but
whether it is still fresh."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Mapping, Sequence
from contextvars import copy_context
from dataclasses import dataclass, field, replace
from typing import Any, TypedDict

from pydantic import BaseModel, Field

from grimoire.graph import observe
from grimoire.graph.audit import Access
from grimoire.graph.context import (
    affect,
    attention,
    citations,
    compaction,
    delta,
    feedback,
    mutations,
    recalibration,
    scaffold,
    sources,
    strategy,
)
from grimoire.graph.context import events as context_events
from grimoire.graph.context import guidelines as context_guidelines
from grimoire.graph.context.assembly import Composed, Plan, compose
from grimoire.graph.context.categories import ContextCategory, TaskComplexity, TaskType, TurnPhase
from grimoire.graph.context.config import GovernorConfig
from grimoire.graph.context.disclosure import Disclosure
from grimoire.graph.context.policy import Layer, Policy, Resolved, Situation, policy_id, resolve
from grimoire.graph.context.preassembly import Keeper, Kept
from grimoire.graph.context.replay import Replayer
from grimoire.graph.context.tokens import Tokens
from grimoire.graph.context.workspace import AssemblyReason, ContextEntry, Workspace
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.embeddings import Embedder
from grimoire.graph.errors import GrimoireError
from grimoire.graph.events.model import Event
from grimoire.graph.events.store import write as write_events
from grimoire.graph.ids import now_ms, uuid7
from grimoire.graph.knowledge import mental_models
from grimoire.graph.knowledge.causal import half_life_ms as causal_half_life_ms
from grimoire.graph.model.enums import BehavioralPhase, MarketRegime
from grimoire.graph.model.rows import Row
from grimoire.graph.observe import Stopwatch
from grimoire.graph.retrieval import POOL, Retriever
from grimoire.graph.visibility import Visibility

log = logging.getLogger(__name__)
C = ContextCategory
ANY_REGIME = "any"   # the Beta beliefs of decisions made with no regime given
EXPLORE_EVERY = 10   # one second in ten, the Beta filter leaves nothing out


@dataclass(frozen=True)
class Request(Situation):
    """One decision's situation (its task, phase, regime and mood), and what its workspace is assembled from."""

    query: str | None = None
    budget: int | None = None
    supplied: Mapping[ContextCategory, tuple[sources.Supplied, ...]] = field(default_factory=dict)
    context_tokens: int | None = None
    max_context_tokens: int | None = None
    tick: int | None = None
    vitality: float | None = None    # the agent's composite vitality in [0, 1] (none: healthy, 1)

    def key(self) -> str:
        """The request less its mood and tick: what a kept workspace must match."""
        body = {"task": self.task, "phase": self.phase, "regime": self.regime, "query": self.query,
                "turn_phase": self.turn_phase, "complexity": self.complexity,
                "vitality": self.vitality, "budget": self.budget,
                "context_tokens": self.context_tokens, "max": self.max_context_tokens,
                "supplied": {c.value: [[s.id, s.text, s.summary] for s in items]
                             for c, items in sorted(self.supplied.items())}}
        return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()


class SituationOut(BaseModel):
    """The situation a workspace was assembled for, with the affect states its mood is in."""

    task: TaskType | None
    phase: BehavioralPhase | None
    regime: MarketRegime | None
    turn_phase: TurnPhase | None
    complexity: TaskComplexity | None
    tick: int | None
    pad: affect.Pad
    affect: list[str]
    vitality: float | None

    @classmethod
    def of(cls, r: Request) -> SituationOut:
        return cls(task=r.task, phase=r.phase, regime=r.regime, turn_phase=r.turn_phase, complexity=r.complexity,
                   tick=r.tick, pad=r.pad, affect=affect.states(r.pad), vitality=r.vitality)


class ContextEntryOut(BaseModel):
    """An entry of the workspace, as disclosed (its full text or its one line)."""

    id: str
    ref: str
    category: ContextCategory
    text: str
    tokens: int
    disclosure: Disclosure
    score: float
    dominant: str | None = Field(description="the part of its attention score that weighed most: pragmatic, "
                                 "epistemic, affective or mortality (relevance, recency or confidence under the "
                                 "weighted ranking); none when every part is 0")
    source: str

    @classmethod
    def of(cls, e: ContextEntry) -> ContextEntryOut:
        return cls(id=e.id, ref=e.ref, category=e.category, text=e.text, tokens=e.tokens, disclosure=e.disclosure,
                   score=round(e.score, 4), dominant=e.dominant, source=e.source)


class Excluded(BaseModel):
    id: str
    why: str


class ReasonOut(BaseModel):
    """Why a category holds what it holds (S2.1 AssemblyReason)."""

    category: ContextCategory
    tokens_allocated: int
    tokens_used: int
    items_included: int
    items_excluded: int
    reason: str
    excluded: list[Excluded]

    @classmethod
    def of(cls, x: AssemblyReason) -> ReasonOut:
        return cls(category=x.category, tokens_allocated=x.tokens_allocated, tokens_used=x.tokens_used,
                   items_included=x.items_included, items_excluded=x.items_excluded, reason=x.reason,
                   excluded=[Excluded(id=i, why=w) for i, w in x.excluded])


class DeltaOut(BaseModel):
    """What changed from the agent's previous workspace (S2.2)."""

    changed_categories: list[ContextCategory]
    added: dict[str, list[ContextEntryOut]]
    removed: dict[str, list[str]]
    token_delta: int

    @classmethod
    def of(cls, d: delta.WorkspaceDelta) -> DeltaOut:
        return cls(changed_categories=d.changed_categories,
                   added={c.value: [ContextEntryOut.of(e) for e in es] for c, es in d.added.items()},
                   removed={c.value: ids for c, ids in d.removed.items()}, token_delta=d.token_delta)


class Compaction(BaseModel):
    """The workspace compacted under context pressure (S3.5)."""

    original_tokens: int
    compacted_tokens: int
    categories_compressed: list[str]
    pressure: float


class Assembly(BaseModel):
    """The agent's workspace for one decision: the rendered prompt text, its entries per category, the reasons per
    category and the delta from its previous workspace."""

    assembly_id: str
    agent_id: str
    at: int                            # ms
    source: str                        # cold | preassembly | preassembled
    policy_revision: int
    mutation_id: str | None
    situation: SituationOut
    budget: int
    total_tokens: int
    route: str
    compaction: Compaction | None
    mental_models: scaffold.ScaffoldOut
    allocations: dict[str, float]
    layers: list[Layer]
    budgets: dict[str, int]
    categories: dict[str, list[ContextEntryOut]]
    reasons: list[ReasonOut]
    guidelines: list[str]
    delta: DeltaOut
    text: str
    search_results: list[citations.SearchResultBlock]
    timings_ms: dict[str, float]


class Preassembled(BaseModel):
    """A workspace built ahead of the agent's next decision, and kept."""

    assembly_id: str
    agent_id: str
    total_tokens: int
    policy_revision: int
    timings_ms: dict[str, float]


@dataclass
class Assembled:
    id: str
    agent_id: str
    at: int
    source: str                      # cold | preassembly (built ahead) | preassembled (served from the kept one)
    revision: int
    mutation_id: str | None
    request: Request
    budget: int
    mental_models: scaffold.Scaffold
    allocations: dict[str, float]
    layers: list[Layer]
    composed: Composed
    delta: delta.WorkspaceDelta
    guidelines: list[str]
    timings_ms: dict[str, float]

    def answer(self) -> Assembly:
        ws, c = self.composed.workspace, self.composed
        return Assembly(
            assembly_id=self.id, agent_id=self.agent_id, at=self.at, source=self.source,
            policy_revision=self.revision, mutation_id=self.mutation_id, situation=SituationOut.of(self.request),
            budget=self.budget, total_tokens=c.tokens, route=c.route.value,
            compaction=Compaction.model_validate(c.compaction) if c.compaction else None,
            mental_models=self.mental_models.out(), allocations=self.allocations, layers=self.layers,
            budgets={k.value: b for k, b in c.budgets.items()},
            categories={k.value: [ContextEntryOut.of(e) for e in es] for k, es in ws.entries.items()},
            reasons=[ReasonOut.of(x) for x in ws.reasons], guidelines=self.guidelines, delta=DeltaOut.of(self.delta),
            text=c.text, search_results=citations.blocks(self.agent_id, ws.all()), timings_ms=self.timings_ms)

    def kept(self) -> Preassembled:
        return Preassembled(assembly_id=self.id, agent_id=self.agent_id, total_tokens=self.composed.tokens,
                            policy_revision=self.revision, timings_ms=self.timings_ms)


class Injected(TypedDict):
    """An entry that went in, as the assembly record keeps it (JSON, its keys short: one per entry)."""

    c: str      # category
    id: str
    ref: str
    t: int      # tokens
    d: str      # disclosure
    s: str      # source
    x: str      # text, as disclosed
    a: str | None   # the part of its attention score that dominated (Loop 1 may correlate it with quality)


def injected(ws: Workspace) -> list[Injected]:
    """What went in, as the assembly record keeps it (Loop 1 reads it back)."""
    return [Injected(c=e.category.value, id=e.id, ref=e.ref, t=e.tokens, d=e.disclosure.value, s=e.source, x=e.text,
                     a=e.dominant) for e in ws.all()]


def workspace_of(rows: Sequence[Mapping[str, Any]], total: int | None = None) -> Workspace:
    """A recorded workspace back (enough for a delta: ids, disclosure, tokens)."""
    ws = Workspace()
    for r in rows:
        ws.entries.setdefault(C(r["c"]), []).append(ContextEntry(
            id=r["id"], category=C(r["c"]), text=r.get("x", ""), tokens=int(r["t"]), disclosure=Disclosure(r["d"]),
            ref=r.get("ref", ""), source=r.get("s", "grimoire"), dominant=r.get("a")))
    if total is not None:
        ws.overhead = max(0, total - ws.total_tokens)
    return ws


def left_out(beliefs: Mapping[str, tuple[float, float]], regime: str, supplied: set[ContextCategory], at: int,
             threshold: float) -> dict[ContextCategory, str]:
    """S3.1's filter: a soft category whose Beta value in this regime fell under the threshold is left out — not
    one the caller supplied (it asked for it), and not at all one second in ten (exploration: a category left out
    for good could never show that it helps again)."""
    if (at // 1000) % EXPLORE_EVERY == 0:
        return {}
    out = {}
    for c, (a, b) in beliefs.items():
        value = a / (a + b) if a + b > 0 else 0.5
        if C(c) not in compaction.HARD and C(c) not in supplied and value < threshold:
            out[C(c)] = (f"its Beta value in the {regime} regime is {value:.2f}, under {threshold}: decisions "
                         f"with it went badly")
    return out


class PreviousAssembly(BaseModel):
    """The agent's last recorded workspace: what it injected (JSON), its tokens and the regime it was for."""

    id: str | None
    regime: str | None
    injected: str | None
    total_tokens: int | None


class BeliefState(BaseModel):
    category: str
    alpha: float
    beta: float


class StagedMutation(BaseModel):
    id: str
    proposed: str                      # the allocations it proposes (JSON)
    offered: int | None                # cold assemblies since it was staged
    regime: str | None


class AgentState(Row):
    """What an assembly reads of the agent before it fetches."""

    query = "context/agent_state"
    policy: str | None                 # JSON; none before the policy's first revision
    previous: PreviousAssembly | None
    beliefs: list[BeliefState]
    mutations: list[StagedMutation]


@dataclass
class _State:
    policy: Policy
    previous: PreviousAssembly | None
    beliefs: dict[str, tuple[float, float]]
    mutations: list[StagedMutation]


class Governor:
    def __init__(self, db: Database, embedder: Embedder, retriever: Retriever, config: GovernorConfig,
                 replayer: Replayer | None = None) -> None:
        self.db, self.embedder, self.retriever, self.config = db, embedder, retriever, config
        self.replayer = replayer   # Loop 3's replay when a language model is configured (graph/context/replay.py)
        self.kept: Keeper[Assembled] = Keeper(db, config.preassembly_max_age_seconds, config.pad_shift)
        self._given: dict[str, Workspace] = {}   # the workspace each agent was last given, for the delta
        self.tokens = Tokens(embedder.count_tokens)

    # ------------------------------------------------------------------------------------------ serving

    def assemble(self, agent_id: str, clade: str | None, request: Request, *, prefer_kept: bool = True) -> Assembled:
        """The agent's workspace for `request`: the kept one while it is fresh, else built now (and kept)."""
        watch = Stopwatch("context")
        kept = self.kept.get(agent_id) if prefer_kept else None
        if kept is not None and self.kept.stale(kept, request.key(), request.pad) is None:
            self.kept.served(kept)
            built = kept.built
            given = self._given.get(agent_id)
            self._given[agent_id] = built.composed.workspace
            self._read(built)
            return replace(built, source="preassembled", request=request,
                           delta=delta.compute(given, built.composed.workspace) if given is not None else built.delta,
                           timings_ms={"total": watch.total_ms()})
        built = self.build(agent_id, clade, request, "cold")
        self._given[agent_id] = built.composed.workspace
        self._read(built)
        return built

    def _read(self, built: Assembled) -> None:
        """A workspace given to the agent is a read of what it holds: access for each crystal's relevance
        (knowledge-crystals.md accessCount; graph/audit/access.py), noted here and written in batches off the path.
        Only what the service found: an id the caller supplied names nothing it was given. Not a decision's access:
        the decay clocks stay where they are."""
        self.retriever.reads.note([e.id for e in built.composed.workspace.all() if e.source == "grimoire"])

    def preassemble(self, agent_id: str, clade: str | None, request: Request) -> Assembled:
        """Build the agent's workspace ahead of its next request (kept, not given)."""
        return self.build(agent_id, clade, request, "preassembly")

    def refresh(self, cancelled: Any = lambda: False) -> int:
        """Rebuild every kept workspace that went stale (the scheduler's context.preassembly job); one nobody
        asked for in ten times the maximum age is let go instead."""
        rebuilt = 0
        for kept in self.kept.all():
            if cancelled():
                break
            if self.kept.idle(kept, 10 * self.config.preassembly_max_age_seconds):
                self.kept.drop(kept.agent_id)
                self._given.pop(kept.agent_id, None)
                continue
            if self.kept.stale(kept) is not None:
                assert isinstance(kept.request, Request)
                self.build(kept.agent_id, kept.clade, kept.request, "preassembly")
                rebuilt += 1
        return rebuilt

    def forget_items(self, agent_id: str, ids: set[str]) -> int:
        """An erasure (graph/audit/erasure.py): the agent's kept workspace and the one it was last given go, with
        every other kept workspace holding an erased item; how many went."""
        gone = [k.agent_id for k in self.kept.all() if k.agent_id == agent_id or ids.intersection(k.ids)]
        for who in gone:
            self.kept.drop(who)
            self._given.pop(who, None)
        self._given.pop(agent_id, None)
        return len(gone)

    def count_one(self, text: str) -> int:
        """One text's tokens by the model's tokenizer."""
        return self.embedder.count_tokens([text])[0]

    # ------------------------------------------------------------------------------------------ learning

    def feedback(self, agent_id: str, clade: str | None, outcome: feedback.Outcome, *, actor: str) -> feedback.Recorded:
        """Loop 1 for one decision (graph/context/feedback.py). A Beta belief that crossed the filter's threshold
        changes what a workspace leaves out: the agent's kept one goes."""
        out = feedback.record(self.db, agent_id, clade, outcome, actor=actor, config=self.config,
                              embed=self.embedder.embed)
        if out.crossed:
            self.kept.drop(agent_id)
        return out

    def recalibrate(self, agent_id: str, clade: str | None, *, trigger: str,
                    actor: str) -> recalibration.Recalibrated | None:
        return recalibration.recalibrate(self.db, agent_id, clade, self.config, trigger=trigger, actor=actor)

    def loops(self, cancelled: Any = lambda: False, keep_days: float = 30.0) -> str:
        """The scheduler's context.loops job: Loop 2 for every agent with new decisions, then Loop 3's staging;
        and the workspace records older than `keep_days` pruned (a decision keeps what it needs of its own)."""
        pruned = 0
        while not cancelled():
            rows = self.db.run("context/prune_assemblies", before=now_ms() - int(keep_days * 86_400_000), batch=1_000)
            count = int(rows[0]["deleted"]) if rows else 0
            pruned += count
            if count < 1_000:
                break
        revised = staged = failed = 0
        for row in recalibration.due_agents(self.db):
            if cancelled():
                break
            try:   # one agent's refusal (its policy revised at the same moment) does not stop the others'
                if recalibration.recalibrate(self.db, row.agent_id, row.clade, self.config,
                                             trigger="periodic") is not None:
                    revised += 1
                staged += len(mutations.stage(self.db, row.agent_id, row.clade, self.config,
                                              replayer=self.replayer))
            except GrimoireError as e:
                failed += 1
                log.warning("context loops for %s: %s", row.agent_id, e)
        return (f"{revised} policies recalibrated, {staged} mutations staged, {pruned} workspace records pruned"
                + (f", {failed} agents failed" if failed else ""))

    # ------------------------------------------------------------------------------------------ building

    def _state(self, agent_id: str, regime: str) -> _State:
        row = self.db.typed(AgentState, agent_id=agent_id, policy_id=policy_id(agent_id), regime=regime)[0]
        return _State(policy=Policy.from_json(row.policy) if row.policy else Policy(),
                      previous=row.previous if row.previous and row.previous.id else None,
                      beliefs={b.category: (b.alpha, b.beta) for b in row.beliefs}, mutations=row.mutations)

    def build(self, agent_id: str, clade: str | None, request: Request, source: str) -> Assembled:
        with observe.span("assemble", source):  # a trace's parent of the stages and their statements
            return self._build(agent_id, clade, request, source)

    def _build(self, agent_id: str, clade: str | None, request: Request, source: str) -> Assembled:
        watch = Stopwatch("context")
        lap, laps = watch.lap, watch.laps
        since = now_ms()
        regime = request.regime.value if request.regime else ANY_REGIME
        state_f = POOL.submit(copy_context().run, self._state, agent_id, regime)  # its spans in the trace
        embedding = self.embedder.embed_one(request.query) if request.query else None
        state = state_f.result()
        lap("state_and_embedding")
        policy, mutation, offered = self._policy_for(state, request)
        resolved = resolve(policy, request)
        allocations = {C(c): float(v) for c, v in resolved.allocations.items()}
        visibility = Visibility.of(agent_id, clade)
        r = policy.retrieval
        plan_for = policy.task_strategies.get(request.task) if request.task else None
        q = sources.Query(embedding=embedding, visibility=visibility, now=since, pleasure=request.pad.pleasure,
                          similarity=r.similarity_threshold if plan_for is None or plan_for.relevance_threshold is None
                          else plan_for.relevance_threshold, max_episodes=r.max_episode_count,
                          min_insight_confidence=r.min_insight_confidence, causal_depth=r.max_causal_depth)
        episodes_f = POOL.submit(copy_context().run, sources.episodes, self.db, self.retriever, q)
        found = sources.entries(self.db, self.retriever, q, self.config)
        found[C.episodes] = episodes_f.result()
        lap("fetch")
        if plan_for is None or plan_for.traverse_causal_graph:
            found[C.causal_edges] = found[C.causal_edges] + sources.causal(
                self.db, q, sources.seeds(found, self.config.causal_seeds), self.config.causal_edges,
                causal_half_life_ms(self.retriever.decay))
        lap("causal")
        for c, given in request.supplied.items():
            found[c] = sources.supplied(c, given) + found.get(c, [])
        found[C.affect] = [sources.affect_item(request.pad), *found.get(C.affect, [])]
        found = attention.Scorer(ranking=self.config.attention_ranking, pad=request.pad,
                                 vitality=1.0 if request.vitality is None else request.vitality,
                                 weights=plan_for.ranking_weights if plan_for else None).rank(found)
        found, strategy_why = strategy.apply(plan_for, found)
        budget = request.budget or self.config.soft_budget_tokens
        head = (scaffold.fit(budget, self.config.mental_models_max_share, self.tokens)
                if self.config.mental_models_in_context else scaffold.NONE)
        if head.text:   # in their block, not again among the insights
            found = {c: [i for i in items if i.id not in mental_models.IDS] for c, items in found.items()}
        task = request.task.value if request.task else None
        protected = context_guidelines.protected(policy.guidelines, task, request.regime.value if request.regime
                                                 else None)
        plan = Plan(
            budget=budget - head.tokens, allocations=allocations, head=head.text, head_tokens=head.tokens,
            masking=(r.full_episode_slots, r.summary_episode_slots),
            thresholds={C.episodes: policy.compression.episode_summary_threshold,
                        C.insights: policy.compression.insight_summary_threshold},
            protected=protected,
            left_out=left_out(state.beliefs, regime, set(request.supplied), since, self.config.beta_filter),
            floors={C.contrarian: self.config.min_contrarian_tokens}
            if self.config.enable_contrarian_injection and request.pad.pleasure < 0 else {},
            empty=self._empty(request, embedding is not None) | strategy_why,
            pressure=compaction.pressure(request.context_tokens, request.max_context_tokens),
            complexity=request.complexity,
            block_attrs={"invariants": {"phase": request.phase.value}} if request.phase else {})
        composed = compose(found, plan, self.tokens)
        lap("compose")
        previous = self._given.get(agent_id)
        if previous is None and state.previous is not None:
            previous = workspace_of(json.loads(state.previous.injected or "[]"), state.previous.total_tokens)
        built = Assembled(
            id=uuid7(), agent_id=agent_id, at=since, source=source, revision=policy.revision,
            mutation_id=mutation, request=request, budget=budget, mental_models=head,
            allocations={c.value: round(v, 6) for c, v in allocations.items()}, layers=resolved.layers,
            composed=composed, delta=delta.compute(previous, composed.workspace),
            guidelines=[g.text for g in policy.guidelines
                        if context_guidelines.applies(g, task, request.regime.value if request.regime else None)],
            timings_ms=laps)
        self._record(built, clade, state, resolved, offered)
        lap("record")
        laps["total"] = watch.total_ms()
        self.kept.keep(Kept(agent_id=agent_id, clade=clade, key=request.key(), pad=request.pad, request=request,
                            built=built, ids=[e.id for e in composed.workspace.all()], since=since,
                            built_at=time.monotonic()))
        return built

    def _policy_for(self, state: _State, request: Request) -> tuple[Policy, str | None, str | None]:
        """The policy to assemble with, the mutation it tries and the mutation whose turn this assembly counts:
        the first staged mutation for the regime is offered every cold assembly, and every Nth is its trial —
        built with its allocations, so the later outcomes can judge it (Loop 3)."""
        regime = request.regime.value if request.regime else None
        for m in state.mutations:
            if m.regime not in (None, regime):
                continue
            if ((m.offered or 0) + 1) % self.config.mutation_trial_every == 0:
                trial = state.policy.copy_as()
                trial.allocations = {C(c): float(v) for c, v in json.loads(m.proposed).items()}
                return trial, m.id, m.id
            return state.policy, None, m.id
        return state.policy, None, None

    @staticmethod
    def _empty(request: Request, has_query: bool) -> dict[ContextCategory, str]:
        out = {c: "nothing supplied" for c in sources.SUPPLIED if c not in request.supplied}
        out |= {c: "nothing relevant found" if has_query else "no query to search by" for c in sources.FROM_GRIMOIRE}
        out[C.contrarian] = ("nothing of the opposite valence to the mood" if request.pad.pleasure
                             else "the mood is neutral (pleasure 0): nothing to counter")
        return out

    def _record(self, built: Assembled, clade: str | None, state: _State, resolved: Resolved,
                offered: str | None) -> None:
        ws, r = built.composed.workspace, built.request
        record = {"id": built.id, "agent_id": built.agent_id, "at": built.at, "recorded_at": now_ms(),
                  "source": built.source, "task": r.task.value if r.task else None,
                  "phase": r.phase.value if r.phase else None, "regime": r.regime.value if r.regime else None,
                  "turn_phase": r.turn_phase.value if r.turn_phase else None,
                  "pad": [r.pad.pleasure, r.pad.arousal, r.pad.dominance], "tick": r.tick, "query": r.query,
                  "budget": built.budget, "total_tokens": built.composed.tokens, "route": built.composed.route.value,
                  "policy_revision": built.revision, "mutation_id": built.mutation_id,
                  "allocations": json.dumps(built.allocations), "injected": json.dumps(injected(ws)),
                  "budgets": json.dumps({c.value: b for c, b in built.composed.budgets.items()}),
                  "compacted": json.dumps(built.composed.compaction) if built.composed.compaction else None,
                  # the categories the budget cut short: a guideline may be learned for them (S3.8)
                  "squeezed": json.dumps(sorted(x.category.value for x in ws.reasons
                                                if any("budget" in why for _, why in x.excluded)))}
        events: list[Event] = [context_events.assembled(
            built.agent_id, clade, assembly_id=built.id, tick=r.tick, category_count=len(ws.entries),
            total_tokens=built.composed.tokens, route=built.composed.route.value, source=built.source,
            revision=built.revision)]
        if built.composed.compaction:
            events.append(context_events.compacted(built.agent_id, clade, assembly_id=built.id,
                                                   report=built.composed.compaction))
        was = state.previous.regime if state.previous else None
        now_regime = r.regime.value if r.regime else None
        if state.previous is not None and was != now_regime:
            applied = next((x.set for x in resolved.layers if x.layer.startswith("regime:")), {})
            events.append(context_events.regime_override(built.agent_id, clade, previous=was, new=now_regime,
                                                         applied=applied))
        access = Access(action="context.assemble", agent_id=built.agent_id, id=built.id, at=built.at)

        def work(tx: Tx) -> None:
            tx.run(cypher.query("context/record_assembly"), assembly=record, mutation_id=offered).consume()
            access.write(tx, [e.id for e in ws.all()], touched=0)
            write_events(tx, events)

        self.db.write(work)
