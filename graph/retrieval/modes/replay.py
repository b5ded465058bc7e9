"""Mattar-Daw replay: the visible episodes with a gain, by utility = gain x need (cypher/retrieval/replay.cypher;
graph/retrieval/decision.py replay_utility is the formula)."""

from __future__ import annotations

from graph.retrieval.candidate import Candidate
from graph.retrieval.context import Context
from graph.retrieval.modes.base import Needs

PARAMS = ("viewer", "clade", "admin", "agent_id", "regimes", "valid_at", "known_as_of")


class Replay:
    name = "replay"
    needs = Needs.nothing

    def candidates(self, ctx: Context) -> list[Candidate]:
        rows = ctx.db.rows("retrieval/replay", now=ctx.now, k=ctx.k, **{key: ctx.params[key] for key in PARAMS})
        found = ctx.items([r["id"] for r in rows])
        for c, r in zip(found, rows, strict=True):
            c.score, c.factors = r["utility"], {"gain": r["gain"], "need": r["need"]}
        return found
