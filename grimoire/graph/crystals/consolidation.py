"""The consolidation engine (knowledge-crystals.md, "Consolidation Engine"): on the scheduler (every 30 minutes by
default) and on demand, over every episode, memory and entry.

1. Score: each generated or activated crystal's importance recalculated from scratch (importance.py's formula,
   in Cypher, page by page in id order), its owner's hormonal decay resistance slowing the decay.
2. Forget: below the forget threshold a generated crystal expires (out of every read path) and an activated one
   is archived — lifespan `decay` only, never a skill. A generated crystal that was accessed and scores above
   the promote threshold is activated.
3. Merge: promoted crystals (above 0.7) of one source — owner, kind and semantic type — are merged: exact
   twins (the same content hash, knowledge-crystals.md line 29) first, found by the hash index with no
   embedding compared; then those whose cosine reaches the owner's hormone-modulated merge threshold
   (0.92 + 0.03·cortisol), the neighbours from the vector index, never from an all-pairs scan. The more
   important one is consolidated, the other archived under it (parent_id, a PROVENANCE merged relationship).
4. Apply: each page's scores and moves, and each batch of merges, in one transaction with its audit records.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from grimoire.graph.audit import Audit, Noop
from grimoire.graph.crystals import hormonal_state, provenance, store
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database, IndexOffline
from grimoire.graph.db.tx import Tx
from grimoire.graph.ids import now_ms
from grimoire.graph.model.crystal.importance import ConsolidationConfig
from grimoire.graph.model.crystal.lifecycle import Lifecycle
from grimoire.graph.model.rows import Params, Record
from grimoire.graph.observe import Stopwatch

log = logging.getLogger(__name__)

ACTOR = "consolidation"


@dataclass(frozen=True)
class Kind:
    label: str
    score: str        # the page's statement
    candidates: str   # the merge candidates' statement (cosine)
    twins: str        # the exact twins' statement (content hash)


KINDS = (Kind("Episode", "crystals/score_episodes", "crystals/merge_candidates_episodes",
              "crystals/hash_twins_episodes"),
         Kind("Entry", "crystals/score_entries", "crystals/merge_candidates_entries", "crystals/hash_twins_entries"))


@dataclass
class PassReport:
    scored: int = 0
    activated: int = 0
    expired: int = 0
    archived: int = 0
    promoted: int = 0
    merged: int = 0
    transactions: int = 0
    seconds: float = 0.0
    merges: list[dict[str, Any]] = field(default_factory=list)
    phase_seconds: dict[str, float] = field(default_factory=dict)

    def __str__(self) -> str:
        return (f"{self.scored} scored, {self.activated} activated, {self.expired} expired, {self.archived} archived, "
                f"{self.merged} merged in {self.transactions} transactions ({self.seconds:.1f} s)")


class MergeMade(BaseModel):
    """A merge of the pass: the winner (the more important crystal) and its loser, at their cosine."""

    winner: str
    losers: list[str]
    cosine: float | None
    agent_id: str | None
    by_hash: bool = False  # exact twins by content hash (no cosine compared)


class PassSummary(BaseModel):
    """A consolidation pass as POST /crystals/consolidate answers it: its counts, merges and phases' seconds."""

    scored: int
    activated: int
    expired: int
    archived: int
    promoted: int
    merged: int
    transactions: int
    seconds: float
    merges: list[MergeMade]
    phase_seconds: dict[str, float]

    @classmethod
    def of(cls, report: PassReport) -> PassSummary:
        return cls.model_validate(vars(report))


def pick_merges(pairs: list[dict[str, Any]]) -> list[Params]:
    """Greedy, exact twins (by content hash) first, then the closest pairs: each crystal is merged at most once per
    pass, as winner (the more important one; the smaller id on a tie) or as loser."""
    used: set[str] = set()
    out: list[dict[str, Any]] = []

    def order(p: dict[str, Any]) -> tuple[bool, float, str, str]:
        by_hash = bool(p.get("by_hash"))
        return not by_hash, 0.0 if by_hash else -float(p["cosine"]), min(p["a"], p["b"]), max(p["a"], p["b"])

    for p in sorted(pairs, key=order):
        if p["a"] in used or p["b"] in used:
            continue
        a_first = p["a_score"] > p["b_score"] or (p["a_score"] == p["b_score"] and p["a"] < p["b"])
        winner, loser = (p["a"], p["b"]) if a_first else (p["b"], p["a"])
        used |= {winner, loser}
        by_hash = bool(p.get("by_hash"))
        out.append({"winner": winner, "losers": [loser], "agent_id": p["agent_id"], "by_hash": by_hash,
                    "cosine": None if by_hash or p["cosine"] is None else round(float(p["cosine"]), 6)})
    return out


class ConsolidationEngine:
    def __init__(self, db: Database, config: ConsolidationConfig | None = None, *, batch: int = 1_000,
                 neighbours: int = 10) -> None:
        self.db = db
        self.config = config or ConsolidationConfig()
        self.batch = batch
        self.neighbours = neighbours

    def run(self, now: int | None = None, cancelled: Callable[[], bool] = lambda: False) -> PassReport:
        at = now if now is not None else now_ms()
        watch = Stopwatch("consolidation")
        report = PassReport()
        moods, usual = hormonal_state.every_agent(self.db, at)
        resistance = {a: float(s.consolidation()["decay_resistance"]) for a, s in moods.items()}
        thresholds = {a: self._threshold(float(s.effective_cortisol)) for a, s in moods.items()}
        params = {"now": at, "batch": self.batch, "rate": self.config.decay_rate,
                  "emotion": self.config.emotion_decay_resistance, "forget": self.config.forget_threshold,
                  "promote": self.config.promote_threshold, "resistance": resistance,
                  "default_resistance": float(usual.consolidation()["decay_resistance"])}
        watch.lap("moods")
        for kind in KINDS:
            score, merge = f"{kind.label.lower()}_score", f"{kind.label.lower()}_merge"
            promoted = self._score(kind, params, report, cancelled)
            watch.lap(score)
            if not cancelled():
                self._merge(kind, promoted, thresholds, self._threshold(usual.effective_cortisol), at, report,
                            cancelled)
            watch.lap(merge)
            report.phase_seconds[score], report.phase_seconds[merge] = watch.seconds(score), watch.seconds(merge)
        report.seconds = watch.total_ms() / 1000
        log.info("consolidation pass: %s", report)
        return report

    def _threshold(self, cortisol: float) -> float:
        """The merge threshold, modulated: the configured base (0.92) + 0.03 · effective cortisol."""
        return self.config.merge_overlap_threshold + cortisol * 0.03

    def _score(self, kind: Kind, params: dict[str, Any], report: PassReport,
               cancelled: Callable[[], bool]) -> list[str]:
        promoted: list[str] = []
        after = ""
        while not cancelled():
            def work(tx: Tx, after: str = after) -> Record | None:
                row = tx.run(cypher.query(kind.score), after=after, **params).single()
                if row is None or row["last"] is None:
                    return None
                moves = self._apply(tx, kind, [m for m in row["moves"] if m], params["now"])
                if row["scored"]:
                    Audit(action="crystal.consolidate", actor=ACTOR, agent_id=None, at=params["now"]).write(
                        tx, [], f"importance of {row['scored']} {kind.label.lower()} crystals recalculated",
                        [Noop(reason="importance scores are derived: each pass recalculates them from scratch")])
                return {"last": row["last"], "scored": row["scored"], "moves": moves,
                        "promoted": [p for p in row["promoted"] if p]}

            page = self.db.write(work)
            if page is None:
                break
            report.transactions += 1
            report.scored += page["scored"]
            for m in page["moves"]:
                setattr(report, m["to"], getattr(report, m["to"]) + 1)
            promoted.extend(page["promoted"])
            after = page["last"]
        report.promoted += len(promoted)
        return promoted

    def _apply(self, tx: Tx, kind: Kind, moves: list[dict[str, Any]],
               now: int) -> list[Params]:
        """The page's moves, per owner, each audited; the moves made (a crystal's state is checked again)."""
        done: list[dict[str, Any]] = []
        for owner in sorted({m["agent_id"] or "" for m in moves}):
            mine = [{**m, "label": kind.label, "parent_id": None} for m in moves if (m["agent_id"] or "") == owner]
            audit = Audit(action="crystal.lifecycle", actor=ACTOR, agent_id=owner or None, at=now)
            moving = [m for m in mine if m["to"] != Lifecycle.expired.value]
            steps = store.keep(tx, {m["id"]: [kind.label] for m in moving}, audit, "consolidation: importance")
            made = set(store.expire_in(tx, [m for m in mine if m["to"] == Lifecycle.expired.value], now,
                                       "importance below the forget threshold"))
            made |= set(store.move_in(tx, moving, now, "consolidation: importance"))
            mine = [m for m in mine if m["id"] in made]
            if not mine:
                continue
            counts = {to: sum(1 for m in mine if m["to"] == to) for to in ("expired", "archived", "activated")}
            audit.write(tx, [m["id"] for m in mine], ", ".join(f"{n} {to}" for to, n in counts.items() if n)
                        + " by the consolidation engine's importance",
                        [Noop(reason="lifecycle moves follow the importance formula: expired and archived are final, "
                                     "activated is the next pass's to judge")], [st for st in steps if st.item in made])
            done += mine
        return done

    def _merge(self, kind: Kind, promoted: list[str], thresholds: dict[str, float], default: float, now: int,
               report: PassReport, cancelled: Callable[[], bool]) -> None:
        pairs: list[dict[str, Any]] = []
        cosine = True
        for start in range(0, len(promoted), self.batch):
            if cancelled():
                return
            ids = promoted[start:start + self.batch]
            pairs += self.db.fetch(kind.twins, ids=ids, promote=self.config.promote_threshold)
            if not cosine:
                continue
            try:
                pairs += self.db.fetch(kind.candidates, ids=ids, k=self.neighbours,
                                       promote=self.config.promote_threshold, thresholds=thresholds,
                                       default_threshold=default)
            except IndexOffline:  # its vector index is being rebuilt (graph/upkeep/): cosine merges on the next pass
                log.info("consolidation: %s cosine merges put off, their vector index is being rebuilt", kind.label)
                cosine = False
        merges = pick_merges(pairs)
        size = max(1, self.batch // 2)  # a merge moves two crystals: a batch moves at most `batch`
        for start in range(0, len(merges), size):
            if cancelled():
                return
            part = merges[start:start + size]

            def work(tx: Tx, part: list[dict[str, Any]] = part) -> int:
                owners = {m["winner"]: m["agent_id"] or "" for m in part}
                audits = {o: Audit(action="crystal.merge", actor=ACTOR, agent_id=o or None, at=now)
                          for o in sorted(set(owners.values()))}
                steps = {o: store.keep(tx, {i: [kind.label] for m in part if (m["agent_id"] or "") == o
                                            for i in (m["winner"], *m["losers"])}, a, "consolidation: merged")
                         for o, a in audits.items()}
                made = provenance.merge_in(tx, part, label=kind.label, actor=ACTOR, now=now,
                                           reason="consolidation: merged with a near duplicate")
                for o, audit in audits.items():
                    ids = [i for w, losers in made.items() if owners[w] == o for i in (w, *losers)]
                    if ids:
                        audit.write(tx, ids, f"{len(ids) - sum(1 for w in made if owners[w] == o)} crystals "
                                             f"merged by the consolidation engine",
                                    [Noop(reason="a merge's loser is archived, which is final; the winner stays "
                                                 "consolidated")], [st for st in steps[o] if st.item in ids])
                return len(made)

            merged = self.db.write(work)
            report.transactions += 1
            report.merged += merged
            report.merges.extend(part)
