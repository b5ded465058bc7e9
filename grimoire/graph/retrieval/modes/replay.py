"""Mattar-Daw replay: the visible episodes with a gain, by utility = gain x need (cypher/retrieval/replay.cypher;
graph/retrieval/decision.py replay_utility is the formula), times the source weight and the
Zeigarnik boost (graph/retrieval/stages.py), which the query applies before its limit. Spaced repetition orders
before that score (knowledge-crystals.md line 62, lastRippleCount): never replayed first, then the fewer ripples at
the last replay (the weaker consolidation) before more; the score orders those alike. The order is the query's (and
its limit's): no later stage re-sorts it."""

from __future__ import annotations

from grimoire.graph.knowledge.mental_models import SYSTEM_AGENT
from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.retrieval.context import Context
from grimoire.graph.retrieval.modes.base import Needs

PARAMS = ("viewer", "clade", "admin", "agent_id", "regimes", "valid_at", "known_as_of", "levels")


class Replay:
    name = "replay"
    needs = Needs.nothing

    def candidates(self, ctx: Context) -> list[Candidate]:
        cfg, who = ctx.config, ctx.perspective
        rows = ctx.db.rows("retrieval/replay", now=ctx.now, k=ctx.k, **{key: ctx.params[key] for key in PARAMS},
                           perspective=who.agent_id if who else None, perspective_clade=who.clade if who else "",
                           system_agent=SYSTEM_AGENT,
                           source_weights=cfg.source_weights.model_dump(), zeigarnik=cfg.zeigarnik_boost)
        found = ctx.items([r["id"] for r in rows])  # without any whose scope narrowed meanwhile
        by_id = {r["id"]: r for r in rows}
        for c in found:
            r = by_id[c.id]
            c.score, c.factors = r["score"], {"gain": r["gain"], "need": r["need"]}
            c.mode_score, c.source, c.zeigarnik = r["utility"], r["source"], r["zeigarnik"]
            c.source_weight = r["source_weight"] if r["source"] else None
        return found
