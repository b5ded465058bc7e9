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
   (0.92 + 0.03·cortisol), the neighbours from the vector index, never from an all-pairs scan. The winner is
   consolidated, the other archived under it (parent_id, a PROVENANCE merged relationship): the crystal of the
   higher governance priority (knowledge-crystals.md line 118, `priority: number`; the document gives it no rule,
   this one is the project's own, MERGE_PRIORITY_LEAD), else the more important one, else the smaller id.
4. Apply: the scores, moves and merges written with their audit records.

A pass is a run, one audited unit: a ConsolidationRun node (its id, start and finish, each phase's counts, its
status and cursor) that every audit record of the run names (tag `consolidation:<run id>`), the four phases in
order — every crystal scored and forgotten (1, 2) before any is merged (3), each change applied (4) with its
record. A store of up to `single_below` crystals is consolidated in one transaction, as the document has it
(all or nothing: a run that dies leaves no trace and the next does all of it). A larger store pages (a
transaction per page of `batch` crystals and per batch of merges): one transaction over it would hold its write
locks and heap for seconds. Each page's transaction moves the run's cursor with its changes, so a run that dies
midway is found by the next (interrupted, or running and untouched for STALE_MS) and completed from where it
stopped, under the same id: its record shows all four phases, and how often it was resumed. Each phase change
(score and forget -> merge) is audited in the transaction that moves the run's phase, and its finish in the one that
closes it. A run that fails (raises, or its process dies) `max_attempts` times (3 by default) is given up: marked
failed and audited, and the next run starts fresh — a failure that repeats would otherwise be resumed forever,
and every later pass would stop at the same place.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from neo4j.exceptions import ServiceUnavailable, SessionExpired
from neo4j.exceptions import TransientError as Neo4jTransientError
from pydantic import BaseModel, Field

from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel, Noop, SetProperties
from grimoire.graph.crystals import hormonal_state, provenance, store
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database, IndexOffline
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import Conflict, Unavailable
from grimoire.graph.ids import now_ms, uuid7
from grimoire.graph.model.crystal.importance import ConsolidationConfig
from grimoire.graph.model.crystal.lifecycle import Lifecycle
from grimoire.graph.model.rows import Params, Record
from grimoire.graph.observe import Stopwatch

log = logging.getLogger(__name__)


def _outage(exc: BaseException) -> bool:
    """The database, not the run, failed: unreachable, a transient error or a session lost to a leader switch."""
    return isinstance(exc, (Unavailable, Neo4jTransientError, ServiceUnavailable, SessionExpired))


ACTOR = "consolidation"
TAG = "consolidation:"  # + the run's id: every audit record of a run names it
PHASES = ("score", "forget", "merge", "apply")  # knowledge-crystals.md's four phases, in order
PHASE_COUNT = len(PHASES)
STALE_MS = 10 * 60_000  # a running run untouched this long died with its process (a page takes about a second)
SINGLE, PAGED = "single", "paged"
# A merge's winner is the crystal whose governance priority (0..100) leads the other's by at least this many points,
# whatever their importance: what its owner marked to keep stays the one consolidated (knowledge-crystals.md line 118
# gives priority no rule; the project's own). Within the lead (equal priorities), the more important one wins.
MERGE_PRIORITY_LEAD = 1


class PassRunning(Conflict):
    """A consolidation run is going on already, here or on another replica (409)."""


@dataclass(frozen=True)
class Kind:
    label: str
    score: str        # the page's statement
    candidates: str   # the merge candidates' statement (cosine)
    twins: str        # the exact twins' statement (content hash)
    promoted: str     # a resumed run's promoted crystals (its scoring's were in the process that died)


KINDS = (Kind("Episode", "crystals/score_episodes", "crystals/merge_candidates_episodes",
              "crystals/hash_twins_episodes", "crystals/promoted_episodes"),
         Kind("Entry", "crystals/score_entries", "crystals/merge_candidates_entries", "crystals/hash_twins_entries",
              "crystals/promoted_entries"))


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
    run_id: str = ""
    mode: str = PAGED
    status: str = "running"
    resumed: bool = False      # this pass completed a run an earlier one left unfinished

    def __str__(self) -> str:
        return (f"run {self.run_id} ({self.mode}{', resumed' if self.resumed else ''}) {self.status}: "
                f"{self.scored} scored, {self.activated} activated, {self.expired} expired, {self.archived} archived, "
                f"{self.merged} merged in {self.transactions} transactions ({self.seconds:.1f} s)")


class MergeMade(BaseModel):
    """A merge of the pass: the winner (the more important crystal) and its loser, at their cosine."""

    winner: str
    losers: list[str]
    cosine: float | None
    agent_id: str | None
    by_hash: bool = False  # exact twins by content hash (no cosine compared)


class PassSummary(BaseModel):
    """A consolidation pass as POST /crystals/consolidate answers it: its run, counts, merges and phases' seconds
    (the counts are this pass's: a resumed run's record holds the whole run's)."""

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
    run_id: str = Field(description="the ConsolidationRun; its audit records carry the tag consolidation:<run_id>")
    mode: str = Field(description="single (one transaction) or paged (a transaction per page, resumable)")
    status: str = Field(description="completed, or interrupted (the next run completes it)")
    resumed: bool = Field(description="this pass completed a run an earlier one left unfinished")

    @classmethod
    def of(cls, report: PassReport) -> PassSummary:
        return cls.model_validate(vars(report))


def first_wins(p: dict[str, Any]) -> bool:
    """Whether the pair's `a` wins the merge: the higher priority by MERGE_PRIORITY_LEAD, else the more important,
    else the smaller id."""
    lead = int(p.get("a_priority") or 0) - int(p.get("b_priority") or 0)
    if abs(lead) >= MERGE_PRIORITY_LEAD:
        return lead > 0
    return bool(p["a_score"] > p["b_score"] or (p["a_score"] == p["b_score"] and p["a"] < p["b"]))


def pick_merges(pairs: list[dict[str, Any]]) -> list[Params]:
    """Greedy, exact twins (by content hash) first, then the closest pairs: each crystal is merged at most once per
    pass, as winner (first_wins: the higher priority, else the more important one, else the smaller id) or as
    loser."""
    used: set[str] = set()
    out: list[dict[str, Any]] = []

    def order(p: dict[str, Any]) -> tuple[bool, float, str, str]:
        by_hash = bool(p.get("by_hash"))
        return not by_hash, 0.0 if by_hash else -float(p["cosine"]), min(p["a"], p["b"]), max(p["a"], p["b"])

    for p in sorted(pairs, key=order):
        if p["a"] in used or p["b"] in used:
            continue
        winner, loser = (p["a"], p["b"]) if first_wins(p) else (p["b"], p["a"])
        used |= {winner, loser}
        by_hash = bool(p.get("by_hash"))
        out.append({"winner": winner, "losers": [loser], "agent_id": p["agent_id"], "by_hash": by_hash,
                    "cosine": None if by_hash or p["cosine"] is None else round(float(p["cosine"]), 6)})
    return out


@dataclass(frozen=True)
class Page:
    """A page of crystals scored: where it ended, how many, the moves made and the promoted ids."""

    last: str
    scored: int
    moves: list[Params]
    promoted: list[str]


COUNTS = ("scored", "activated", "expired", "archived", "promoted", "merged", "transactions")


@dataclass
class Run:
    """A ConsolidationRun as the engine carries it: where it is (phase, kind, cursor) and its counts so far."""

    id: str
    started_at: int
    mode: str
    phase: str = "score"        # score (phases 1 and 2) -> merge (3) -> done; each change applied (4) as it goes
    kind: str = KINDS[0].label
    after: str = ""
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTS, 0))
    resumes: int = 0
    status: str = "running"
    failures: int = 0           # attempts that raised or died with their process (a shutdown's interruption is none)
    error: str = ""             # the last failure's error

    @classmethod
    def of(cls, row: Record) -> Run:
        return cls(id=row["id"], started_at=row["started_at"], mode=row.get("mode") or PAGED,
                   phase=row.get("phase") or "score", kind=row.get("kind") or KINDS[0].label,
                   after=row.get("after") or "", counts={k: int(row.get(k) or 0) for k in COUNTS},
                   resumes=int(row.get("resumes") or 0), status=row.get("status") or "running",
                   failures=int(row.get("failures") or 0), error=row.get("error") or "")

    def done(self) -> list[str]:
        """The document's phases this run has been through."""
        return {"score": [], "merge": list(PHASES[:2]), "done": list(PHASES)}[self.phase]

    def save(self, tx: Tx, now: int, finished_at: int | None = None) -> None:
        forgotten = self.counts["expired"] + self.counts["archived"]
        props = {"started_at": self.started_at, "mode": self.mode, "phase": self.phase, "kind": self.kind,
                 "after": self.after, "status": self.status, "resumes": self.resumes, "touched_at": now,
                 "failures": self.failures, "error": self.error,
                 "phases_done": self.done(), **self.counts,
                 # each of the document's phases by its count: scored, forgotten, merged, applied (transactions)
                 "phase_score": self.counts["scored"], "phase_forget": forgotten,
                 "phase_merge": self.counts["merged"], "phase_apply": self.counts["transactions"]}
        if finished_at is not None:
            props["finished_at"] = finished_at
        tx.run(cypher.query("crystals/run_save"), id=self.id, props=props).consume()

    def audit(self, action: str, at: int) -> Audit:
        return Audit(action=action, actor=ACTOR, agent_id=None, at=at, tag=TAG + self.id)


class ConsolidationEngine:
    def __init__(self, db: Database, config: ConsolidationConfig | None = None, *, batch: int = 1_000,
                 neighbours: int = 10, single_below: int = 0, max_attempts: int = 3) -> None:
        self.db = db
        self.config = config or ConsolidationConfig()
        self.batch = batch
        self.neighbours = neighbours
        self.single_below = single_below  # a store of at most this many crystals: one transaction (0: always paged)
        self.max_attempts = max(1, max_attempts)  # failed attempts after which a run is given up

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
        default = self._threshold(usual.effective_cortisol)
        watch.lap("moods")
        single = self.single_below > 0 and self._unfinished(at) is None and self._size() <= self.single_below
        if single and not self.db.rebuilds.names:
            try:
                self._single(params, thresholds, default, report, watch)
            except IndexOffline:  # a vector index went offline: page instead, cosine merges on the next pass
                report = PassReport()
                self._paged(params, thresholds, default, report, watch, cancelled)
        else:
            self._paged(params, thresholds, default, report, watch, cancelled)
        report.seconds = watch.total_ms() / 1000
        log.info("consolidation pass: %s", report)
        return report

    # ------------------------------------------------------------------ the run's record

    def _size(self) -> int:
        rows = self.db.fetch("crystals/crystal_count")
        return int(rows[0]["crystals"]) if rows else 0

    def _unfinished(self, now: int) -> tuple[Run, bool] | None:
        """The run left unfinished, and whether a process is still at it (touched within STALE_MS)."""
        rows = self.db.fetch("crystals/run_unfinished", stale_before=now - STALE_MS)
        return (Run.of(rows[0]["run"]), bool(rows[0]["live"])) if rows else None

    def _open(self, now: int, mode: str) -> tuple[Run, bool]:
        """A new run, or the unfinished one resumed (PassRunning while another process is still at it)."""
        found = self._unfinished(now)
        if found is not None and found[1]:
            raise PassRunning(f"consolidation run {found[0].id} is running; try again when it is done")
        if found is not None and found[0].status == "running":
            # Running, untouched for STALE_MS: its process died at it, an attempt that failed like one that raised.
            dead = found[0]
            if self._failed(dead, "its process died mid-run", now):
                found = None  # given up: this run starts fresh
        run = found[0] if found is not None else Run(id=uuid7(), started_at=now, mode=mode)
        resumed = found is not None
        before = {"status": run.status, "resumes": run.resumes}
        run.status, run.resumes = "running", run.resumes + resumed

        def work(tx: Tx) -> None:
            run.save(tx, now)
            if resumed:
                run.audit("crystal.consolidation_open", now).write(
                    tx, [run.id], f"consolidation run {run.id} resumed at phase {run.phase} ({run.kind} after "
                                  f"{run.after or 'the start'})",
                    [SetProperties(label=NodeLabel.ConsolidationRun, id=run.id, before=before)])
            else:
                run.audit("crystal.consolidation_open", now).write(
                    tx, [run.id], f"consolidation run {run.id} opened ({mode})",
                    [DeleteNodes(label=NodeLabel.ConsolidationRun, ids=[run.id])])

        self.db.write(work)
        return run, resumed

    def _failed(self, run: Run, error: str, now: int) -> bool:
        """One more failed attempt of `run`, written: interrupted for the next run to resume, or, at the
        `max_attempts`th, failed (given up, audited). Whether it was given up."""
        before = {"status": run.status, "phase": run.phase, "finished_at": None, "failures": run.failures,
                  "error": run.error or None}
        run.failures += 1
        run.error = error[:500]
        give_up = run.failures >= self.max_attempts
        self.db.write(lambda tx: self._close(tx, run, now, "failed" if give_up else "interrupted", before))
        return give_up

    def _close_run(self, run: Run, now: int, status: str) -> None:
        """`_close` in its own transaction; the revert image taken before it, so a retried transaction (the driver
        retries a transient failure) records the run as it was, not as the first attempt left it in memory."""
        before = {"status": run.status, "phase": run.phase, "finished_at": None}
        self.db.write(lambda tx: self._close(tx, run, now, status, before))

    def _close(self, tx: Tx, run: Run, now: int, status: str, before: dict[str, Any] | None = None) -> None:
        before = before or {"status": run.status, "phase": run.phase, "finished_at": None}
        run.status = status
        if status == "completed":
            run.phase = "done"
        run.save(tx, now, finished_at=now if status in ("completed", "failed") else None)
        c = run.counts
        if status == "failed":
            run.audit("crystal.consolidation_failed", now).write(
                tx, [run.id], f"consolidation run {run.id} given up after {run.failures} failed attempts, at phase "
                              f"{run.phase} ({run.kind} after {run.after or 'the start'}): {run.error}; the next "
                              f"run starts fresh",
                [SetProperties(label=NodeLabel.ConsolidationRun, id=run.id, before=before)])
            return
        run.audit("crystal.consolidation_done", now).write(
            tx, [run.id], f"consolidation run {run.id} {status}: {c['scored']} scored, "
                          f"{c['expired'] + c['archived']} forgotten, {c['activated']} activated, {c['merged']} "
                          f"merged in {c['transactions']} transactions"
                          + (f" ({run.resumes} times resumed)" if run.resumes else ""),
            [SetProperties(label=NodeLabel.ConsolidationRun, id=run.id, before=before)])

    @staticmethod
    def _next_phase(tx: Tx, run: Run, now: int, before: dict[str, Any]) -> None:
        """Scoring and forgetting (phases 1 and 2) done: the run moves to merging (3), audited with the move.
        `before`: the run's place taken outside the transaction function (a retry must not read the first
        attempt's move as the state before)."""
        run.phase, run.kind, run.after = "merge", KINDS[0].label, ""
        run.save(tx, now)
        c = run.counts
        run.audit("crystal.consolidation_phase", now).write(
            tx, [run.id], f"consolidation run {run.id}: {', '.join(PHASES[:2])} done ({c['scored']} scored, "
                          f"{c['expired'] + c['archived']} forgotten, {c['activated']} activated); merging next",
            [SetProperties(label=NodeLabel.ConsolidationRun, id=run.id, before=before)])

    # ------------------------------------------------------------------ the two ways of running

    def _single(self, params: dict[str, Any], thresholds: dict[str, float], default: float, report: PassReport,
                watch: Stopwatch) -> None:
        """The four phases in one transaction: nothing is written unless all of it is."""
        now = params["now"]

        def work(tx: Tx) -> PassReport:
            out = PassReport(mode=SINGLE)
            run = Run(id=uuid7(), started_at=now, mode=SINGLE)
            out.run_id = run.id
            run.save(tx, now)
            run.audit("crystal.consolidation_open", now).write(
                tx, [run.id], f"consolidation run {run.id} opened ({SINGLE})",
                [DeleteNodes(label=NodeLabel.ConsolidationRun, ids=[run.id])])
            promoted: dict[str, list[str]] = {}
            for kind in KINDS:
                promoted[kind.label], after = [], ""
                while (page := self._page(tx, kind, params, after, run)) is not None:
                    self._count(out, page)
                    promoted[kind.label] += page.promoted
                    after = page.last
            run.phase = "merge"
            for kind in KINDS:
                pairs: list[Record] = []
                self._pairs(lambda name, **p: [r.data() for r in tx.run(cypher.query(name), **p)], kind,
                            promoted[kind.label], thresholds, default, lambda: False, pairs)
                merges = pick_merges(pairs)
                if merges:
                    out.merged += self._merge_batch(tx, kind, merges, now, run)
                    out.merges.extend(merges)
            out.promoted = sum(len(p) for p in promoted.values())
            out.transactions = 1
            run.counts.update({k: getattr(out, k) for k in COUNTS})
            self._close(tx, run, now, "completed")
            out.status = run.status
            return out

        done = self.db.write(work)
        vars(report).update(vars(done))
        watch.lap("single")
        report.phase_seconds["single"] = watch.seconds("single")

    def _paged(self, params: dict[str, Any], thresholds: dict[str, float], default: float, report: PassReport,
               watch: Stopwatch, cancelled: Callable[[], bool]) -> None:
        now = params["now"]
        run, report.resumed = self._open(now, PAGED)
        report.run_id, report.mode = run.id, run.mode
        scored: dict[str, list[str]] = {}  # the promoted crystals of the kinds this pass scored itself
        try:
            labels = [k.label for k in KINDS]
            if run.phase == "score":
                for kind in KINDS[labels.index(run.kind):]:
                    if cancelled():
                        break
                    lap = f"{kind.label.lower()}_score"
                    scored[kind.label] = self._score(kind, params, report, run, cancelled)
                    watch.lap(lap)
                    report.phase_seconds[lap] = watch.seconds(lap)
                if not cancelled():
                    before = {"phase": run.phase, "kind": run.kind, "after": run.after}
                    self.db.write(lambda tx: self._next_phase(tx, run, now, before))
            if run.phase == "merge" and not cancelled():
                for kind in KINDS[labels.index(run.kind):]:
                    if cancelled():
                        break
                    lap = f"{kind.label.lower()}_merge"
                    promoted = scored[kind.label] if kind.label in scored else self._promoted(kind, run)
                    self._merge(kind, promoted, thresholds, default, now, report, run, cancelled)
                    watch.lap(lap)
                    report.phase_seconds[lap] = watch.seconds(lap)
            status = "interrupted" if cancelled() else "completed"
        except BaseException as exc:
            # Marked for the next run to complete, or given up at the max_attempts-th failure; should the database
            # be gone too, STALE_MS finds it. A shutdown (KeyboardInterrupt, SystemExit) is no failure of the run,
            # nor is an outage (Neo4j unreachable, a transient error, a leader switch): the next run resumes it.
            try:
                if isinstance(exc, Exception) and not _outage(exc):
                    self._failed(run, f"{type(exc).__name__}: {exc}", now_ms())
                else:
                    self._close_run(run, now_ms(), "interrupted")
            except Exception:  # noqa: BLE001 - the original error is the one to raise
                log.warning("consolidation run %s: could not mark it interrupted", run.id, exc_info=True)
            raise
        self._close_run(run, now_ms(), status)
        report.status = run.status

    # ------------------------------------------------------------------ phases 1 and 2: score and forget

    def _threshold(self, cortisol: float) -> float:
        """The merge threshold, modulated: the configured base (0.92) + 0.03 · effective cortisol."""
        return self.config.merge_overlap_threshold + cortisol * 0.03

    def _page(self, tx: Tx, kind: Kind, params: dict[str, Any], after: str, run: Run) -> Page | None:
        """One page scored, its moves applied, each audited under the run."""
        row = tx.run(cypher.query(kind.score), after=after, **params).single()
        if row is None or row["last"] is None:
            return None
        moves = self._apply(tx, kind, [m for m in row["moves"] if m], params["now"], run)
        if row["scored"]:
            run.audit("crystal.consolidate", params["now"]).write(
                tx, [], f"importance of {row['scored']} {kind.label.lower()} crystals recalculated",
                [Noop(reason="importance scores are derived: each pass recalculates them from scratch")])
        return Page(last=row["last"], scored=row["scored"], moves=moves,
                    promoted=[p for p in row["promoted"] if p])

    @staticmethod
    def _count(report: PassReport, page: Page) -> None:
        report.scored += page.scored
        for m in page.moves:
            setattr(report, m["to"], getattr(report, m["to"]) + 1)

    def _score(self, kind: Kind, params: dict[str, Any], report: PassReport, run: Run,
               cancelled: Callable[[], bool]) -> list[str]:
        promoted: list[str] = []
        after = run.after if run.kind == kind.label else ""
        while not cancelled():
            def work(tx: Tx, after: str = after) -> Page | None:
                page = self._page(tx, kind, params, after, run)
                if page is None:
                    return None
                # the run's cursor and counts move with the page's changes: a run that dies resumes after it
                counts = dict(run.counts)
                counts["scored"] += page.scored
                counts["transactions"] += 1
                for m in page.moves:
                    counts[m["to"]] += 1
                counts["promoted"] += len(page.promoted)
                saved = replace(run, kind=kind.label, after=page.last, counts=counts)
                saved.save(tx, params["now"])
                return page

            page = self.db.write(work)
            if page is None:
                break
            report.transactions += 1
            run.counts["transactions"] += 1
            self._count(report, page)
            run.counts["scored"] += page.scored
            for m in page.moves:
                run.counts[m["to"]] += 1
            run.counts["promoted"] += len(page.promoted)
            run.kind, run.after = kind.label, page.last
            promoted.extend(page.promoted)
            after = page.last
        report.promoted += len(promoted)
        return promoted

    def _promoted(self, kind: Kind, run: Run) -> list[str]:
        """A resumed run's promoted crystals of `kind` (scored before it was interrupted)."""
        out: list[str] = []
        after = ""
        while rows := self.db.fetch(kind.promoted, after=after, batch=self.batch, promote=self.config.promote_threshold,
                                    since=run.started_at):
            out += [r["id"] for r in rows]
            after = out[-1]
        return out

    def _apply(self, tx: Tx, kind: Kind, moves: list[dict[str, Any]], now: int, run: Run) -> list[Params]:
        """The page's moves, per owner, each audited; the moves made (a crystal's state is checked again)."""
        done: list[dict[str, Any]] = []
        for owner in sorted({m["agent_id"] or "" for m in moves}):
            mine = [{**m, "label": kind.label, "parent_id": None} for m in moves if (m["agent_id"] or "") == owner]
            audit = Audit(action="crystal.lifecycle", actor=ACTOR, agent_id=owner or None, at=now, tag=TAG + run.id)
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

    # ------------------------------------------------------------------ phase 3: merge

    def _pairs(self, fetch: Callable[..., list[Record]], kind: Kind, promoted: list[str],
               thresholds: dict[str, float], default: float, cancelled: Callable[[], bool],
               pairs: list[Record]) -> None:
        """The merge candidates of `promoted` into `pairs`: exact twins, then the cosine neighbours."""
        cosine = True
        for start in range(0, len(promoted), self.batch):
            if cancelled():
                return
            ids = promoted[start:start + self.batch]
            pairs += fetch(kind.twins, ids=ids, promote=self.config.promote_threshold)
            if not cosine:
                continue
            try:
                pairs += fetch(kind.candidates, ids=ids, k=self.neighbours, promote=self.config.promote_threshold,
                               thresholds=thresholds, default_threshold=default)
            except IndexOffline:  # its vector index is being rebuilt (graph/upkeep/): cosine merges on the next pass
                log.info("consolidation: %s cosine merges put off, their vector index is being rebuilt", kind.label)
                cosine = False

    def _merge_batch(self, tx: Tx, kind: Kind, part: list[dict[str, Any]], now: int, run: Run) -> int:
        owners = {m["winner"]: m["agent_id"] or "" for m in part}
        audits = {o: Audit(action="crystal.merge", actor=ACTOR, agent_id=o or None, at=now, tag=TAG + run.id)
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

    def _merge(self, kind: Kind, promoted: list[str], thresholds: dict[str, float], default: float, now: int,
               report: PassReport, run: Run, cancelled: Callable[[], bool]) -> None:
        pairs: list[Record] = []
        self._pairs(self.db.fetch, kind, promoted, thresholds, default, cancelled, pairs)
        if cancelled():
            return
        merges = pick_merges(pairs)
        size = max(1, self.batch // 2)  # a merge moves two crystals: a batch moves at most `batch`
        for start in range(0, len(merges), size):
            if cancelled():
                return
            part = merges[start:start + size]

            def work(tx: Tx, part: list[dict[str, Any]] = part) -> int:
                merged = self._merge_batch(tx, kind, part, now, run)
                counts = {**run.counts, "merged": run.counts["merged"] + merged,
                          "transactions": run.counts["transactions"] + 1}
                replace(run, kind=kind.label, counts=counts).save(tx, now)
                return merged

            merged = self.db.write(work)
            report.transactions += 1
            report.merged += merged
            report.merges.extend(part)
            run.counts["merged"] += merged
            run.counts["transactions"] += 1
        run.kind = kind.label
