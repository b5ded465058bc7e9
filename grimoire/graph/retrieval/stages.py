"""The final stages of every mode's score, in order:

1. the term-overlap rerank (graph/retrieval/term_overlap.py), in the modes configured for it
   (RetrievalConfig.term_overlap.modes: four_factor and generative_agents by default), when the
   request has text: 0.7 x score + 0.3 x the IDF-weighted query-term overlap;
2. the knowledge weighting hierarchy (graph/retrieval/weighting.py): x1.0 own, x0.8 clade, x0.5
   from outside the clade, for the caller's agent;
3. the Zeigarnik boost (graph/retrieval/zeigarnik.py): x1.2 for an interrupted episode;
4. the crystal's governance (graph/retrieval/governance.py): x1.02 for a directive, x(1 + 0.02 x priority / 100),
   x(1 + 0.02 x (the matched bounty's reward multiplier - 1)).

final = (blend of the mode's score with the overlap) x source weight x Zeigarnik boost x governance (for a
negative score, a weight under 1 still lowers it: weighting.scaled). Each candidate keeps what each
stage did (mode_score, term_overlap, source, source_weight, zeigarnik, governance) for the explanation. Replay
applies 2 and 3 in its query (cypher/retrieval/replay.cypher), so that its limit is on the final score."""

from __future__ import annotations

from grimoire.graph.retrieval import governance, term_overlap, weighting, zeigarnik
from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.retrieval.context import Context


def blends_terms(ctx: Context) -> bool:
    return ctx.req.mode in ctx.config.term_overlap.modes and bool(ctx.req.text) and bool(ctx.query_terms())


def prefetch(ctx: Context) -> None:
    """Starts counting the query terms' document frequencies, when the stage will need them, so they
    are counted while the mode searches."""
    if blends_terms(ctx):
        ctx.term_df()


def finish(ctx: Context, found: list[Candidate]) -> list[Candidate]:
    """The candidates with their final scores, best first (ties by id)."""
    cfg = ctx.config
    blend = blends_terms(ctx)
    terms = ctx.query_terms() if blend else []
    term_idf = ctx.term_idf() if blend else {}
    who = ctx.perspective
    for c in found:
        score = c.mode_score = c.score or 0.0
        if blend:
            c.term_overlap = term_overlap.overlap(c.text, terms, term_idf)
            score = term_overlap.blend(score, c.term_overlap, cfg.term_overlap.weight)
        if who is not None:
            c.source = weighting.source(c, who)
            c.source_weight = weighting.weight(c.source, cfg.source_weights)
            score = weighting.scaled(score, c.source_weight)
        c.zeigarnik = zeigarnik.boost(c, cfg.zeigarnik_boost)
        score = weighting.scaled(score, c.zeigarnik)
        c.governance = governance.boost(c, cfg.directive_boost, cfg.priority_boost, cfg.bounty_boost)
        c.score = weighting.scaled(score, c.governance)
    found.sort(key=lambda c: (-(c.score or 0.0), c.id))
    ctx.clock.lap("final")
    return found
