"""DISTILL, the Curator's first phase (ExpeL): cluster the agent's unconsolidated episodes by tool,
chain and token pair; a cluster of three or more teaches a lesson (the Reasoner's `distill`):

- no standing lesson covers its episodes: ADD the lesson (a Heuristic "use", a Warning "avoid") at
  confidence 0.5 through the Admission Gate;
- a lesson covers them (per regime: a regime-conditioned lesson covers its regime, a general one the
  rest): the regime's episodes agree (UPVOTE) or contradict it (DOWNVOTE), a pending vote delta;
- they contradict a general lesson learnt in another regime: EDIT the lesson to hold in the regime it
  was learnt in (the earlier version kept) and ADD the opposite lesson for the new regime;
- three or more coherent episodes (mean pairwise cosine over 0.7) of one regime COMPRESS into a
  summary Insight (RAPTOR level 1) at the cluster's mean confidence x 0.9, linked to them.

The episodes of each cluster are marked consolidated in the transaction that records its operations;
lessons and summaries are written first with ids derived from the cycle, so a re-run admits nothing twice.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from grimoire.graph.audit import Audit
from grimoire.graph.db import cypher
from grimoire.graph.db.tx import Tx
from grimoire.graph.knowledge import versions
from grimoire.graph.knowledge.entries import admit
from grimoire.graph.knowledge.reasoner import Judged, Lesson
from grimoire.graph.learning import clusters
from grimoire.graph.learning.clusters import Episode
from grimoire.graph.learning.operations import PHASE_BASE, Cycle, Op, apply, op_id
from grimoire.graph.learning.state import Learning
from grimoire.graph.model.entry import EntryIn
from grimoire.graph.model.enums import EntryCategory, MarketRegime, Scope
from grimoire.graph.model.rows import Properties

log = logging.getLogger(__name__)
MAX_PARENTS = 100  # an entry names at most this many source episodes (the newest)


@dataclass
class Planned:
    """What one cluster key does this cycle."""

    key: str
    episodes: list[Episode]
    adds: list[tuple[EntryIn, dict[str, Any], Op]] = field(default_factory=list)
    centroids: dict[str, np.ndarray] = field(default_factory=dict)  # a summary's vector: its sample's centroid
    ops: list[Op] = field(default_factory=list)
    edits: list[tuple[Op, dict[str, Any], dict[str, Any]]] = field(default_factory=list)  # op, lesson, changes
    deltas: list[dict[str, Any]] = field(default_factory=list)
    fallbacks: list[str] = field(default_factory=list)   # why a configured language model was not used
    category: EntryCategory | None = None  # what ADD writes: None, the Reasoner's lesson (Heuristic, Warning)
    tags: list[str] = field(default_factory=lambda: ["curator"])


@dataclass
class DistillReport:
    clusters: int = 0
    consolidated: int = 0
    reasoner: str = ""
    fallbacks: list[str] = field(default_factory=list)


def entry_id(cycle: Cycle, kind: str, key: str, regime: str | None = None) -> str:
    digest = hashlib.sha1(f"{cycle.id}|{kind}|{key}|{regime}".encode()).hexdigest()[:24]
    return f"{kind}-{digest}"


def _ids(episodes: Sequence[Episode]) -> list[str]:
    return [ep.id for ep in episodes]


def _lesson_entry(learning: Learning, cycle: Cycle, plan: Planned, lesson: Lesson, episodes: Sequence[Episode],
                  regime: str | None, evidence_regime: str | None,
                  strategy: str | None) -> tuple[EntryIn, Properties]:
    # Private: the narrowest scope, whatever its episodes' (only the agent's own are distilled).
    key = plan.key
    entry = EntryIn(id=entry_id(cycle, "lesson", key, regime), agent_id=cycle.agent_id, scope=Scope.private,
                    category=plan.category or lesson.category,
                    content=f"Within strategy {strategy}: {lesson.content}" if plan.category and strategy
                    else lesson.content,
                    market_regime=MarketRegime(regime) if regime else None, strategy=strategy,
                    parent_episode_ids=_ids(episodes)[:MAX_PARENTS], tags=[*plan.tags, "lesson"],
                    confidence=learning.config.lesson_confidence)
    extra = {"lesson_key": key, "polarity": lesson.polarity, "evidence_regime": evidence_regime,
             "created_in": cycle.id, "level": 0}
    return entry, {k: v for k, v in extra.items() if v is not None}


def _add(learning: Learning, cycle: Cycle, plan: Planned, lesson: Lesson, episodes: Sequence[Episode],
         regime: str | None, why: str) -> None:
    s = clusters.summary(plan.key, episodes)
    entry, extra = _lesson_entry(learning, cycle, plan, lesson, episodes, regime,
                                 clusters.dominant([ep.regime for ep in episodes]), s.strategy)
    op = Op("ADD", "distill", entry.id, why, episode_ids=_ids(episodes), category=entry.category.value,
            detail={"lesson_key": plan.key, "regime": regime, "positives": s.positives, "negatives": s.negatives})
    plan.adds.append((entry, extra, op))


def _vote(cycle: Cycle, plan: Planned, lesson: dict[str, Any], up: bool, episodes: Sequence[Episode],
          regime: str | None, why: str) -> None:
    op = Op("UPVOTE" if up else "DOWNVOTE", "distill", lesson["id"], why, episode_ids=_ids(episodes),
            category=lesson["category"], key=regime or "-")
    plan.ops.append(op)
    plan.deltas.append({"id": f"delta-{op_id(cycle.id, op)[3:]}", "entry_id": lesson["id"],
                        "props": {"op": "up" if up else "down", "count": 1, "source": "distill",
                                  "agent_id": cycle.agent_id, "at": cycle.now, "reason": why,
                                  "episode_ids": _ids(episodes)[:MAX_PARENTS], "cycle_id": cycle.id}})


def plan_cluster(learning: Learning, cycle: Cycle, key: str, episodes: list[Episode],
                 lessons: list[dict[str, Any]], *, category: EntryCategory | None = None,
                 tags: Sequence[str] = ("curator",)) -> Planned:
    """A cluster's operations; `category` is what ADD writes (None: the Reasoner's lesson, a Heuristic or a
    Warning, as the Curator cycle's DISTILL does; ExpeL's distillation writes an Insight, graph/learning/expel.py)."""
    cfg, reasoner = learning.config, learning.knowledge.reasoner
    plan = Planned(key, episodes, category=category, tags=list(tags))
    by_regime = {lesson.get("market_regime"): lesson for lesson in lessons}
    covered: dict[str, list[Episode]] = defaultdict(list)
    uncovered: list[Episode] = []
    for ep in episodes:
        target = by_regime.get(ep.regime) or by_regime.get(None)
        if target is None:
            uncovered.append(ep)
        else:
            covered[target["id"]].append(ep)
    for lesson_id, eps in sorted(covered.items()):
        lesson = next(x for x in lessons if x["id"] == lesson_id)
        groups: dict[str | None, list[Episode]] = defaultdict(list)
        for ep in eps:
            groups[ep.regime].append(ep)
        for regime, reps in sorted(groups.items(), key=lambda kv: kv[0] or ""):
            if len(reps) < cfg.min_cluster:
                continue
            taught, judged = reasoner.distill(clusters.summary(key, reps))
            _note(plan, judged)
            if taught is None or taught.polarity == 0:
                continue
            s = clusters.summary(key, reps)
            record = f"{s.positives} of {s.decided} outcomes positive{f' in {regime}' if regime else ''}"
            if taught.polarity == lesson.get("polarity"):
                _vote(cycle, plan, lesson, True, reps, regime, f"confirmed: {record}")
                continue
            learnt_in = lesson.get("evidence_regime")
            if lesson.get("market_regime") is None and regime and learnt_in and regime != learnt_in:
                refined = f"{lesson['content'].rstrip('.')} (holds in {learnt_in} regimes)."
                op = Op("EDIT", "distill", lesson["id"], f"contradicted in {regime} ({record}); learnt in "
                        f"{learnt_in}: now conditioned on {learnt_in}", episode_ids=_ids(reps),
                        category=lesson["category"], detail={"content": refined, "market_regime": learnt_in})
                plan.edits.append((op, lesson, {"content": refined, "market_regime": learnt_in}))
                opposite, judged = reasoner.distill(dataclasses.replace(s, regime=regime))
                _note(plan, judged)
                _add(learning, cycle, plan, opposite or taught, reps, regime,
                     f"the opposite lesson for {regime} regimes: {record}")
            else:
                _vote(cycle, plan, lesson, False, reps, regime, f"contradicted: {record}")
    if len(uncovered) >= cfg.min_cluster:
        s = dataclasses.replace(clusters.summary(key, uncovered), regime=None)
        taught, judged = reasoner.distill(s)
        _note(plan, judged)
        if taught is not None:
            _add(learning, cycle, plan, taught, uncovered, None,
                 f"a pattern across {len(uncovered)} episodes: {s.positives} of {s.decided} positive")
    return plan


def _note(plan: Planned, judged: Judged) -> None:
    if judged.fallback:
        plan.fallbacks.append(judged.fallback)


def _samples(learning: Learning, plan: Planned) -> list[tuple[str, list[Episode], list[Episode]]]:
    """The regimes of a cluster that may compress: (regime, its episodes, the sample measured)."""
    cfg = learning.config
    return [(regime, reps, reps[:cfg.compression_sample])
            for regime, reps in clusters.by_regime(plan.episodes).items() if len(reps) >= cfg.min_cluster]


def _embeddings(learning: Learning, plans: list[Planned]) -> dict[str, list[float]]:
    """Every sample's embeddings, in reads of `batch` ids (not one read per cluster)."""
    ids = [ep.id for plan in plans for _, _, sample in _samples(learning, plan) for ep in sample]
    out: dict[str, list[float]] = {}
    for start in range(0, len(ids), learning.config.batch):
        for r in learning.db.rows("learning/embeddings", ids=ids[start:start + learning.config.batch]):
            if r["embedding"] is not None:
                out[r["id"]] = r["embedding"]
    return out


def _compress(learning: Learning, cycle: Cycle, plan: Planned, embeddings: dict[str, list[float]]) -> None:
    cfg = learning.config
    for regime, reps, sample in _samples(learning, plan):
        vectors = np.array([embeddings[ep.id] for ep in sample if ep.id in embeddings], dtype=np.float32)
        if len(vectors) < cfg.min_cluster:
            continue
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        coherence = clusters.coherence(vectors)
        if coherence <= cfg.coherence:
            continue
        s = clusters.summary(plan.key, reps)
        confidence = round(clusters.mean_confidence(reps, cfg.episode_confidence) * cfg.compression_discount, 6)
        ticks = [ep.tick for ep in reps if ep.tick is not None]
        span = f" (ticks {min(ticks)}-{max(ticks)})" if ticks else ""
        gain = f", mean gain {s.mean_gain:+.4g}" if s.mean_gain is not None else ""
        where = " ".join(x for x in (f"for {s.token_pair}" if s.token_pair else "",
                                     f"on chain {s.chain}" if s.chain else "") if x)
        content = (f"{len(reps)} {s.tool or 'untooled'} episodes {where} in {regime} regimes{span}: "
                   f"{s.positives} positive, {s.negatives} negative, {s.neutrals} other{gain}.").replace("  ", " ")
        entry = EntryIn(id=entry_id(cycle, "summary", plan.key, regime), agent_id=cycle.agent_id,
                        category=EntryCategory.Insight, content=content, market_regime=MarketRegime(regime),
                        strategy=s.strategy, parent_episode_ids=_ids(reps)[:MAX_PARENTS],
                        tags=["curator", "summary"], confidence=confidence)
        extra = {"lesson_key": plan.key, "level": 1, "created_in": cycle.id, "coherence": round(coherence, 6),
                 "summarised": len(reps)}
        op = Op("COMPRESS", "distill", entry.id, f"{len(reps)} coherent episodes (coherence {coherence:.3f}) "
                f"in {regime}: mean confidence x {cfg.compression_discount}", episode_ids=_ids(reps),
                category=EntryCategory.Insight.value, detail={"coherence": coherence, "confidence": confidence,
                                                            "lesson_key": plan.key, "regime": regime})
        plan.adds.append((entry, extra, op))
        plan.centroids[str(entry.id)] = vectors.mean(axis=0)


def run(learning: Learning, cycle: Cycle) -> DistillReport:
    """The DISTILL phase: what it consolidated, and whether the Reasoner fell back to its rules."""
    cfg = learning.config
    rows = learning.db.rows("learning/unconsolidated", agent_id=cycle.agent_id, through=cycle.through)
    every = clusters.by_key(Episode.of(r) for r in rows)
    # Clusters an interrupted run of this cycle recorded: what is left of them was theirs (the watermark
    # fixes the cycle's episodes), consolidated without planning them again.
    recorded = set(learning.db.fetch("learning/cycle", id=cycle.id)[0]["cycle"].get("distilled_keys") or [])
    left = [ep.id for key, eps in every.items() if key in recorded for ep in eps]
    groups = {k: v for k, v in every.items() if k not in recorded and len(v) >= cfg.min_cluster}
    report = DistillReport(clusters=len(groups), reasoner=learning.knowledge.reasoner.name)
    report.consolidated = sum(learning.db.write(lambda tx, part=part: _mark(tx, part, cycle))  # type: ignore[misc]
                              for part in _parts(left, cfg.batch))
    if not groups:
        return report
    standing = [r["lesson"] for r in learning.db.rows("learning/lessons", agent_id=cycle.agent_id,
                                                      keys=list(groups))]
    # A lesson this cycle itself added (an interrupted run's) is not a standing one: the re-run plans as the first did.
    standing = [x for x in standing if x.get("created_in") != cycle.id]
    lessons: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for lesson in standing:
        if lesson.get("level", 0) == 0 and lesson.get("polarity") is not None:
            lessons[lesson["lesson_key"]].append(lesson)
    plans = [plan_cluster(learning, cycle, key, eps, lessons.get(key, [])) for key, eps in groups.items()]
    embeddings = _embeddings(learning, plans)
    for plan in plans:
        _compress(learning, cycle, plan, embeddings)
    _admit(learning, cycle, plans)
    seq = PHASE_BASE["distill"]
    for chunk in _transactions(plans, cfg.batch):
        report.consolidated += _record(learning, cycle, chunk, seq)
        seq += sum(len(plan.ops) + len(plan.adds) + len(plan.edits) for plan in chunk)
    log.info("cycle %s distil: %d clusters, %d episodes consolidated", cycle.id, len(plans), report.consolidated)
    report.fallbacks = [f for plan in plans for f in plan.fallbacks]
    return report


def _admit(learning: Learning, cycle: Cycle, plans: list[Planned]) -> None:
    """The lessons and summaries through the Admission Gate, written in transactions of `batch // 3`
    candidates (each writes an entry, a decision and an event). A summary's vector is the centroid of the
    episodes it summarises: what they are about, not the wording of its counts (and no model call)."""
    adds = [(entry, extra, op) for plan in plans for entry, extra, op in plan.adds]
    centroids = {k: v for plan in plans for k, v in plan.centroids.items()}
    # One call for all of them: the owner's entries are read (or searched) once, each candidate is compared
    # with the ones before it in memory, and the writes go in transactions of `batch // 3` candidates.
    decisions = admit(learning.knowledge, [e for e, _, _ in adds], actor=cycle.actor, clade=cycle.clade,
                      merge=False, extra={str(e.id): x for e, x, _ in adds}, embeddings=centroids,
                      chunk=max(1, learning.config.batch // 3))
    for (entry, _, op), d in zip(adds, decisions, strict=True):
        op.detail["admission"] = d.result.outcome.value if not d.existing else "already stored"
        if d.existing or d.result.writes_entry:
            op.entry_id = d.entry_id
            op.detail["confidence"] = d.result.confidence
        else:
            # The gate turned it down: the operation says so, under the candidate's id (its own key).
            op.entry_id, op.key = None, str(entry.id)
            op.reason += f"; not admitted ({d.result.outcome.value}: {d.result.explanation})"


def _op_rows(plan: Planned) -> int:
    """Rows a cluster writes besides its episodes' marks: its operations, each edit's new version, its
    vote deltas and its key noted on the cycle."""
    return len(plan.ops) + len(plan.adds) + 2 * len(plan.edits) + len(plan.deltas) + 1


def _size(plan: Planned) -> int:
    return len(plan.episodes) + _op_rows(plan)


def _transactions(plans: list[Planned], batch: int) -> list[list[Planned]]:
    """Clusters grouped into transactions of at most `batch` rows (a larger cluster goes alone)."""
    out: list[list[Planned]] = []
    for plan in plans:
        if out and sum(map(_size, out[-1])) + _size(plan) <= batch:
            out[-1].append(plan)
        else:
            out.append([plan])
    return out


def _record(learning: Learning, cycle: Cycle, plans: list[Planned], seq: int, *, consolidate: bool = True,
            action: str = "curator.distill") -> int:
    """Some clusters' operations, vote deltas and edits, and their episodes consolidated: one transaction
    of at most `batch` rows. A cluster of more episodes than that is consolidated in further transactions
    of `batch` episodes after its operations; the clusters' keys are noted on the cycle with them, so
    that a re-run after a kill in between consolidates the rest without planning it again (`run`). ExpeL's
    distillation (`consolidate` false) leaves the episodes to the Curator cycle."""
    batch = learning.config.batch
    edits = [edit for plan in plans for edit in plan.edits]
    vectors = learning.knowledge.embedder.embed([changes["content"] for _, _, changes in edits])
    embeddings = {op_id(cycle.id, op): v.tolist() for (op, _, _), v in zip(edits, vectors, strict=True)}
    ops = [op for plan in plans for op in [*(a[2] for a in plan.adds), *plan.ops, *(e[0] for e in plan.edits)]]
    deltas = [d for plan in plans for d in plan.deltas]
    episode_ids = [ep.id for plan in plans for ep in plan.episodes]
    room = max(0, batch - sum(map(_op_rows, plans)))
    first, rest = (episode_ids[:room], episode_ids[room:]) if consolidate else ([], [])

    def work(tx: Tx) -> int:
        applied = set(apply(tx, cycle, ops, first_seq=seq, action=action))
        for op, lesson, changes in edits:
            if op_id(cycle.id, op) not in applied:
                continue
            audit = Audit(action="curator.edit", actor=cycle.actor, agent_id=cycle.agent_id, at=cycle.now)
            steps = versions.edit_in_tx(tx, lesson, changes, embeddings[op_id(cycle.id, op)], op.reason, audit)
            if steps is not None:
                audit.write(tx, [lesson["id"]], f"cycle {cycle.id}: {op.reason}", versions.revert_ops(lesson, changes),
                            steps)
        if deltas:
            tx.run(cypher.query("learning/write_deltas"), deltas=deltas).consume()
        if consolidate:
            tx.run(cypher.query("learning/note_distilled"), cycle_id=cycle.id,
                   keys=[plan.key for plan in plans]).consume()
        return _mark(tx, first, cycle) if first else 0

    consolidated: int = learning.db.write(work)
    for part in _parts(rest, batch):
        consolidated += learning.db.write(lambda tx, part=part: _mark(tx, part, cycle))  # type: ignore[misc]
    return consolidated


def _parts(ids: list[str], size: int) -> list[list[str]]:
    return [ids[start:start + size] for start in range(0, len(ids), size)]


def _mark(tx: Tx, ids: list[str], cycle: Cycle) -> int:
    row = tx.run(cypher.query("learning/mark_consolidated"), ids=ids, cycle_id=cycle.id).single()
    return int(row["consolidated"]) if row else 0
