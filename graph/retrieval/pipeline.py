"""One retrieval, start to finish: the adaptive decision, candidates, fusion, rerank, diversity,
budget, bookkeeping and the explanation of every result (and of every cut)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any

from pydantic import Field, model_validator

from graph.analytics import signals
from graph.audit import Audit
from graph.db import cypher
from graph.db.connection import Database
from graph.ids import now_ms
from graph.knowledge.decay import DecayConfig
from graph.model.common import MAX_INT, StrictModel, Unit
from graph.model.enums import MarketRegime
from graph.model.vectors import Vector, check_vector
from graph.retrieval import backends, budget, modes, reach, rerank
from graph.retrieval import items as candidates
from graph.retrieval.config import RetrievalConfig
from graph.retrieval.decision import Decision, decide
from graph.retrieval.filters import RetrievalFilters
from graph.retrieval.fusion import rrf, rrf_ceiling
from graph.visibility import Visibility

log = logging.getLogger(__name__)
DUPLICATE_COSINE = 0.95
# BM25 and the entity lookup run beside the query's embedding: their time is mostly waiting on the
# database, which releases the GIL.
POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="retrieval")


class Mode(StrEnum):
    hybrid = "hybrid"                        # vector + BM25 + graph, RRF, rerank, MMR, budget
    fusion = "fusion"                        # vector + BM25 fused by RRF, nothing else
    vector = "vector"
    bm25 = "bm25"
    four_factor = "four_factor"
    generative_agents = "generative_agents"
    replay = "replay"                        # Mattar-Daw over episodes with a gain


class RetrievalRequest(StrictModel):
    text: Annotated[str, Field(min_length=1, max_length=4_000)] | None = None
    vector: Vector | None = None
    mode: Mode = Mode.hybrid
    k: Annotated[int, Field(ge=1, le=100)] = 10
    budget: Annotated[int, Field(ge=1, le=100_000)] | None = Field(
        default=None, description="tokens; the configured default (500) when absent")
    no_budget: bool = Field(default=False, description="return k results whatever their length")
    filters: RetrievalFilters = Field(default_factory=RetrievalFilters)
    block: Annotated[int, Field(ge=0, le=MAX_INT)] | None = Field(default=None, description="the current block")
    positions: Annotated[list[Annotated[str, Field(max_length=260)]], Field(max_length=100)] = Field(
        default_factory=list, description="entity ids of the agent's positions (graph seeds)")
    entities: Annotated[list[Annotated[str, Field(max_length=260)]], Field(max_length=100)] = Field(
        default_factory=list, description="entity ids the query is about (graph seeds)")
    regime: MarketRegime | None = None
    mood: Annotated[list[Annotated[float, Field(ge=-1, le=1)]], Field(min_length=3, max_length=3)] | None = Field(
        default=None, description="current PAD (pleasure, arousal, dominance)")
    adaptive: bool = Field(default=False, description="decide first whether and how much to retrieve")
    curiosity: Unit = 0.5
    arousal: Unit | None = None
    coverage: Annotated[int, Field(ge=0, le=MAX_INT)] | None = None
    for_decision: bool = Field(default=False, description="marks results accessed; counts toward contrarian")
    explain: bool = False

    @model_validator(mode="after")
    def _query(self) -> RetrievalRequest:
        if self.mode != Mode.replay and self.text is None and self.vector is None:
            raise ValueError("give text or vector")
        if self.mode == Mode.bm25 and self.text is None:
            raise ValueError("bm25 needs text")
        return self


class Clock:
    """Milliseconds spent in each stage, returned with the results."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        t = time.perf_counter()
        self.laps[stage] = round(self.laps.get(stage, 0.0) + (t - self._last) * 1000, 2)
        self._last = t


@dataclass
class Retriever:
    db: Database
    embed: Callable[[str], list[float]]
    count_tokens: budget.Counter
    dimension: int
    config: RetrievalConfig
    decay: DecayConfig

    def retrieve(self, req: RetrievalRequest, visibility: Visibility, agent_id: str | None) -> dict[str, Any]:
        cfg, now, clock = self.config, now_ms(), Clock()
        at = req.filters.valid_at or now
        embedding = req.vector
        if embedding is None and req.text and (req.adaptive or req.mode == Mode.replay):
            embedding = self.embed(req.text)
        if embedding is not None:
            check_vector(embedding, self.dimension)
        k, filters = req.k, req.filters
        decision = None
        if req.adaptive:
            decision = decide(req.curiosity, req.arousal if req.arousal is not None else (req.mood or [0, 0, 0])[1],
                              req.coverage if req.coverage is not None else self._coverage(embedding, visibility))
            if decision == Decision.none:
                return {"decision": decision, "mode": req.mode, "results": [], "cut": [], "tokens": 0}
            if decision == Decision.light:
                k = min(k, cfg.light_k)
            if decision == Decision.semantic_only:
                filters = filters.model_copy(update={"kinds": ["entries"]})
        params = filters.params(visibility)
        traces: dict[str, dict[str, Any]] = {}
        found: dict[str, dict[str, Any]] = {}  # candidates' properties, as the backends returned them

        def note(backend: str, rows: list[dict]) -> list[str]:
            for rank, r in enumerate(rows, start=1):
                extra = {key: r[key] for key in ("via", "entity", "distance") if key in r}
                traces.setdefault(r["id"], {})[backend] = {"rank": rank, "score": r["score"], **extra}
                if "item" in r and r["id"] not in found:
                    found[r["id"]] = candidates.from_row(r)
            return [r["id"] for r in rows]

        if req.mode == Mode.replay:
            rows = self.db.rows("retrieval/replay", now=now, k=k, **{key: params[key] for key in (
                "viewer", "clade", "admin", "agent_id", "regimes", "valid_at", "known_as_of")})
            items = self._items([r["id"] for r in rows], {})
            for it, r in zip(items, rows, strict=True):
                it["score"], it["factors"] = r["utility"], {"gain": r["gain"], "need": r["need"]}
            return self._finish(req, items, [], k, decision, traces, agent_id, embedding, visibility, clock)

        top = cfg.per_backend
        # What the caller can see decides how the backends search (graph/retrieval/reach.py). It,
        # BM25 and the entity lookup need no vector: they run while the query is embedded. Both
        # vector indexes are asked in one query: a round trip costs more than a second index search.
        # Each task runs in a copy of the request's context, so its logs carry the request id.
        reach_f = POOL.submit(copy_context().run, reach.measure, self.db, params, cfg.visible_count_cap)
        bm_f = (POOL.submit(copy_context().run, lambda: backends.bm25(
                    self.db, req.text or "", top, params, cfg.candidates_factor, reach_f.result()))
                if req.text and req.mode != Mode.vector else None)
        named_f = (POOL.submit(copy_context().run, backends.named_entities, self.db, req.text, visibility)
                   if req.text and req.mode == Mode.hybrid and cfg.graph_named_entities else None)
        if embedding is None and req.text:
            embedding = self.embed(req.text)
        clock.lap("embed")
        vec = (backends.vector(self.db, embedding, top, cfg.candidates_factor, params, reach_f.result(),
                               cfg.exact_below, cfg.exact_fallback_below)
               if embedding is not None and req.mode != Mode.bm25 else [])
        clock.lap("vector")
        bm = bm_f.result() if bm_f else []
        clock.lap("bm25")
        ranked: list[str]
        if req.mode == Mode.vector:
            ranked = note("vector", vec)
        elif req.mode == Mode.bm25:
            ranked = note("bm25", bm)
        else:
            lists = {"vector": note("vector", vec), "bm25": note("bm25", bm)}
            fused = rrf(lists, cfg.rrf_k, cfg.backend_weights)
            if req.mode == Mode.hybrid:
                named = named_f.result() if named_f else []
                seeds = [*req.entities, *req.positions, *named]
                focus = [*req.entities, *named] if cfg.graph_focus_threads else []
                hits = list(fused)[:cfg.graph_seed_hits]
                graph_rows = backends.graph(self.db, embedding, seeds=seeds, hits=hits, block=req.block, top=top,
                                            max_mentions=cfg.graph_entity_max_mentions, params=params, focus=focus)
                lists["graph"] = note("graph", graph_rows)
                if req.explain and req.block is not None:
                    self._topology_signals(traces, graph_rows, req.block, visibility)
                fused = rrf(lists, cfg.rrf_k, cfg.backend_weights)
                clock.lap("graph")
            for doc, score in fused.items():
                traces.setdefault(doc, {})["rrf"] = score
            ranked = list(fused)
        items = self._items(ranked, found)
        clock.lap("items")
        cut: list[dict[str, Any]] = []
        if filters.min_confidence is not None:
            keep = []
            for it in items:
                c = rerank.confidence_now(it, now, self.decay)
                if c >= filters.min_confidence:
                    keep.append(it)
                else:
                    it["cut"] = f"effective confidence {c:.3f} below {filters.min_confidence}"
                    cut.append(it)
            items = keep
        if req.mode == Mode.hybrid:
            ceiling = rrf_ceiling(["vector", "bm25", "graph"], cfg.rrf_k, cfg.backend_weights)
            for it in items:
                it["factors"] = rerank.factors(it, traces[it["id"]]["rrf"] / ceiling, now=at, regime=req.regime,
                                               config=cfg, decay=self.decay)
                it["score"] = rerank.score(it["factors"], it, cfg)
                it["bloodstain_boost"] = bool(it.get("is_bloodstain"))
            items.sort(key=lambda it: (-it["score"], it["id"]))
            candidates.with_embeddings(self.db, items[:cfg.mmr_top])
            items, dupes = rerank.mmr(items, lam=cfg.mmr_lambda, top=cfg.mmr_top, duplicate_threshold=DUPLICATE_COSINE)
            for d in dupes:
                d["cut"] = f"diversity: a near-duplicate of {d['similar_to']}"
            cut += dupes
        elif req.mode in (Mode.four_factor, Mode.generative_agents):
            candidates.with_embeddings(self.db, items)
            for it in items:
                f = (modes.four_factor(it, embedding, now=at, mood=req.mood, config=cfg, decay=self.decay)
                     if req.mode == Mode.four_factor else
                     modes.generative_agents(it, embedding, now=at, block=req.block, config=cfg))
                it["score"], it["factors"] = f.pop("score"), f
            items.sort(key=lambda it: (-it["score"], it["id"]))
        else:
            for it in items:
                t = traces[it["id"]]
                it["score"] = t.get("rrf", next(iter(t.values()))["score"] if t else 0.0)
        clock.lap("rerank")
        return self._finish(req, items, cut, k, decision, traces, agent_id, embedding, visibility, clock)

    def _topology_signals(self, traces: dict[str, dict], rows: list[dict], block: int,
                          visibility: Visibility) -> None:
        """For the explanation: the systemic importance (written PageRank at the block) of the
        entity each graph candidate came through, beside its distance from the seeds."""
        found = signals.centralities(self.db, sorted({r["entity"] for r in rows if r.get("entity")}), block,
                                     visibility.viewer)
        for r in rows:
            if r.get("entity") in found:
                traces[r["id"]]["graph"]["centrality"] = found[r["entity"]]["percentile"]

    def _coverage(self, embedding: list[float] | None, visibility: Visibility) -> int:
        if embedding is None:
            return 0
        params = RetrievalFilters(kinds=["entries"]).params(visibility)
        seen = reach.measure(self.db, params, self.config.visible_count_cap)
        rows = backends.vector(self.db, embedding, 20, self.config.candidates_factor, params, seen,
                               self.config.exact_below, self.config.exact_fallback_below)
        return sum(1 for r in rows if r["score"] >= 0.6)

    def _items(self, ids: list[str], found: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
        """The candidates in order: from what the backends returned, fetching only what they did not."""
        by_id = {**found, **candidates.fetch(self.db, [i for i in ids if i not in found])}
        return [dict(by_id[i]) for i in ids if i in by_id]

    def _finish(self, req: RetrievalRequest, items: list[dict], cut: list[dict], k: int, decision: Decision | None,
                traces: dict[str, dict], agent_id: str | None, embedding: list[float] | None,
                visibility: Visibility, clock: Clock) -> dict[str, Any]:
        chosen, beyond = items[:k], items[k:]
        if req.for_decision and agent_id and req.mood and embedding is not None:
            chosen += self._contrarian(agent_id, req.mood, embedding, [it["id"] for it in chosen], visibility)
        limit = None if req.no_budget else (req.budget or self.config.budget_tokens)
        kept, over = budget.cut(chosen, limit, self.count_tokens)
        for it in over:
            it["cut"] = f"budget: {it['tokens']} tokens do not fit in what is left of {limit}"
        if req.for_decision and kept:
            self._touch([it["id"] for it in kept], agent_id)
        results = [self._present(it, rank, traces, req.explain) for rank, it in enumerate(kept, start=1)]
        clock.lap("budget")
        log.debug("retrieval %s: %d results, %d tokens, %s", req.mode.value, len(results),
                  sum(it["tokens"] for it in kept), clock.laps)
        out: dict[str, Any] = {"decision": decision, "mode": req.mode, "results": results,
                               "tokens": sum(it["tokens"] for it in kept), "budget": limit,
                               "timings_ms": clock.laps}
        if req.explain:
            out["cut"] = [self._present(it, None, traces, True) for it in cut + over]
            out["beyond_k"] = len(beyond)
        return out

    def _contrarian(self, agent_id: str, mood: list[float], embedding: list[float], exclude: list[str],
                    visibility: Visibility) -> list[dict]:
        rows = self.db.rows("retrieval/count_retrieval", agent_id=agent_id)
        if not rows or rows[0]["retrievals"] % self.config.contrarian_every != 0 or mood[0] == 0:
            return []
        found = self.db.rows(visibility.variant("retrieval/contrarian"),
                             embedding=embedding, pleasure=mood[0],
                             n=self.config.contrarian_count, exclude=exclude, **visibility.params())
        items = self._items([r["id"] for r in found], {})
        for it, r in zip(items, found, strict=True):
            it["score"], it["contrarian"] = r["score"], True
        return items

    def _touch(self, ids: list[str], agent_id: str | None) -> None:
        audit = Audit(action="retrieval.access", actor=agent_id or "admin", agent_id=agent_id)

        def work(tx) -> None:
            tx.run(cypher.query("retrieval/touch"), ids=ids, now=audit.at).consume()
            audit.write(tx, ids, f"{len(ids)} items retrieved for a decision", {"op": "none"})

        self.db.write(work)

    @staticmethod
    def _present(it: dict[str, Any], rank: int | None, traces: dict[str, dict], explain: bool) -> dict[str, Any]:
        out = {"id": it["id"], "kind": it["kind"], "text": it["text"], "category": it.get("category"),
               "score": it.get("score"), "tokens": it.get("tokens"), "valid_from": it.get("valid_from")}
        if rank is not None:
            out["rank"] = rank
        if it.get("contrarian"):
            out["contrarian"] = True
        if explain:
            t = traces.get(it["id"], {})
            out["explain"] = {"backends": {b: v for b, v in t.items() if b != "rrf"}, "rrf": t.get("rrf"),
                              "factors": it.get("factors"), "bloodstain_boost": it.get("bloodstain_boost", False),
                              "mmr": it.get("mmr"), "cut": it.get("cut")}
        return out


def build(db: Database, embedder: Any, config: RetrievalConfig | None = None,
          decay: DecayConfig | None = None) -> Retriever:
    """The retriever the API serves and the evaluation uses."""
    return Retriever(db=db, embed=embedder.embed_one, count_tokens=embedder.count_tokens,
                     dimension=embedder.dimension, config=config or RetrievalConfig(), decay=decay or DecayConfig())
