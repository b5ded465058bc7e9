"""The full pipeline: vector + BM25 + graph candidates, and the lists of what the query says
(graph/retrieval/understood.py: the times it names, a "when" question's time-telling candidates; the vector
ranking reading short turns with the turn before) and, when configured, what lies around the candidates
(graph/retrieval/neighbourhood.py: their threads, their neighbours), fused by RRF, the multi-factor rerank with
the bloodstain boost, the final stages (term overlap, source weight, Zeigarnik:
graph/retrieval/stages.py), and MMR diversity (near-duplicates cut)."""

from __future__ import annotations

from typing import Any

from grimoire.graph.retrieval import backends, items, neighbourhood, rerank, stages, understood
from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.retrieval.context import Context
from grimoire.graph.retrieval.fusion import rrf, rrf_ceiling
from grimoire.graph.retrieval.modes.base import Needs
from grimoire.graph.retrieval.modes.recipe import INDEXES, fuse, search
from grimoire.graph.topology import signals

BACKENDS = ("vector", "bm25", "graph")


class Hybrid:
    name = "hybrid"
    needs = Needs.query

    def candidates(self, ctx: Context) -> list[Candidate]:
        cfg, req = ctx.config, ctx.req
        stages.prefetch(ctx)
        wants_named = cfg.graph_named_entities or cfg.query.entity_lists or cfg.query.entity_focus
        named_f = (ctx.submit(backends.named_entities, ctx.db, req.text, ctx.visibility, 5, cfg.query.possessives)
                   if req.text and wants_named else None)
        # The caller's reach is counted (in the pool) while the query is embedded here, and so are what needs no
        # vector: BM25 and, for a reach ranked exactly, who sees what (the members). The vector ranking waits
        # for them, and no longer for one after the other.
        ctx.reach()
        ctx.start_unembedded()
        ctx.embedding()
        # Short turns read with the turn before, when the caller's reach is ranked exactly: that ranking replaces
        # the vector backend's.
        in_context = understood.reads_context(ctx)
        lists = search(ctx, ("bm25",) if in_context else INDEXES)
        lists |= understood.feedback(ctx, lists.get("bm25", []))
        if in_context:
            lists = {"vector": understood.context_vector(ctx), **lists}
            ctx.clock.lap("vector")
        # The exact ranking's rows carry no properties: its candidates are fetched while the graph searches.
        ctx.prefetch_items(lists.get("vector", []))
        # The graph backend: the entities the query is about, the agent's positions and the entities the
        # text names seed it, beside the neighbours of the strongest hits of the two index backends.
        named = named_f.result() if named_f else []
        in_graph = named if cfg.graph_named_entities else []
        seeds = [*req.entities, *req.positions, *in_graph]
        focus = [*req.entities, *in_graph] if cfg.graph_focus_threads else []
        hits = list(rrf(lists, cfg.rrf_k, cfg.backend_weights))[:cfg.graph_seed_hits]
        rows = backends.graph(ctx.db, ctx.embedding.required(), seeds=seeds, hits=hits, block=req.block,
                              top=cfg.per_backend, max_mentions=cfg.graph_entity_max_mentions, params=ctx.params,
                              focus=focus)
        graph_ids = ctx.note("graph", rows)
        if req.explain and req.block is not None:
            _topology_signals(ctx, rows, req.block)
        # What the query says (graph/retrieval/understood.py): lists fused beside the backends'.
        fused = {**lists, "graph": graph_ids, **understood.entity_lists(ctx, named), **understood.time_list(ctx)}
        ranked = fuse(ctx, fused)
        if boosts := {**understood.telling(ctx, ranked), **understood.time_boost(ctx, ranked),
                      **understood.focus(ctx, ranked, [*req.entities, *named])}:
            fused |= boosts
            ranked = fuse(ctx, fused)
        # What lies around the candidates (graph/retrieval/neighbourhood.py): their threads, their neighbours.
        weights = neighbourhood.weights(ctx)
        if around := {**neighbourhood.threads(ctx, ranked), **neighbourhood.expansion(ctx, ranked)}:
            fused |= around
            ranked = fuse(ctx, fused, weights)
        ctx.clock.lap("graph")
        found = ctx.load(ranked)
        ceiling = rrf_ceiling([*BACKENDS, *(name for name in fused if name not in BACKENDS)], cfg.rrf_k, weights)
        rerank_weights = cfg.rerank.model_dump()
        for c in found:
            c.factors = rerank.factors(c, c.trace["rrf"] / ceiling, now=ctx.at, regime=req.regime, config=cfg,
                                       decay=ctx.decay)
            c.score = rerank.score(c.factors, c, cfg)
            c.bloodstain_boost = c.is_bloodstain
            c.weights = rerank_weights
        found = stages.finish(ctx, found)
        items.with_embeddings(ctx.db, found[:cfg.mmr_top])
        found, dupes = rerank.mmr(found, lam=cfg.mmr_lambda, top=cfg.mmr_top, duplicate_threshold=cfg.duplicate_cosine,
                                  normalise=cfg.mmr_relevance)
        for d in dupes:
            d.cut = f"diversity: a near-duplicate of {d.similar_to}"
        ctx.cut += dupes
        ctx.clock.lap("rerank")
        return found


def _topology_signals(ctx: Context, rows: list[dict[str, Any]], block: int) -> None:
    """For the explanation: the systemic importance (written PageRank at the block) of the
    entity each graph candidate came through, beside its distance from the seeds."""
    found = signals.centralities(ctx.db, sorted({r["entity"] for r in rows if r.get("entity")}), block,
                                 ctx.visibility.viewer)
    for r in rows:
        if r.get("entity") in found:
            ctx.traces[r["id"]]["graph"]["centrality"] = found[r["entity"]].percentile
