"""DECAY, the Curator's third phase, with the rewrite4 steps it includes:

- validate recorded predictions: each entry that informed a verified prediction moves once per cycle
  by its net verdicts — x1.05 per net correct one (capped at 0.99), x0.90 per net wrong one;
- apply decay by class: every review uses the entry's effective confidence at the cycle's clock
  (confidence x retention, the read-time decay: structural entries never decay), and the phase's
  GrimoireDecay event reports how many entries decayed and the mean confidence before and after;
- demote: active entries under 0.4 leave PLAYBOOK.md and become candidates (warnings stay active);
- archive: entries under 0.1 for three consecutive cycles (`consecutive_low_confidence`);
- prune: quality under 0.05 and fewer than two accesses, the quality as line 1444 defines it (`pruning_quality`:
  confidence x validated / (validated + contradicted + 1), for an entry an outcome has tested) or, with prune_rule
  artifact, the entry's stored quality_score; warnings and bloodstains are never archived or pruned;
- cross-reference the causal graph: outcomes that name a causal link add evidence to it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from grimoire.graph.audit import RelationshipType, SetRelationshipProperties
from grimoire.graph.db import cypher
from grimoire.graph.db.tx import Tx
from grimoire.graph.learning.operations import PHASE_BASE, Cycle, Op, apply, fit, write
from grimoire.graph.learning.state import Learning
from grimoire.graph.model.enums import EntryCategory
from grimoire.graph.visibility import Visibility


@dataclass
class DecayReport:
    reviewed: int = 0
    decayed: int = 0
    before: float | None = None
    after: float | None = None
    demoted: int = 0
    archived: int = 0
    pruned: int = 0
    validated: int = 0
    causal: int = 0


def validate_op(entry: dict[str, Any], deltas: list[dict[str, Any]], up: float, down: float, cap: float) -> Op:
    correct = sum(d.get("count") or 1 for d in deltas if d.get("verdict") == "correct")
    wrong = sum(d.get("count") or 1 for d in deltas if d.get("verdict") != "correct")
    net = correct - wrong
    before = float(entry["confidence"])
    after = min(cap, max(before, before * (1 + up) ** net)) if net > 0 else before * (1 - down) ** -net
    key = hashlib.sha1("|".join(sorted(d["id"] for d in deltas)).encode()).hexdigest()[:16]
    return Op("VALIDATE", "decay", entry["id"], f"{correct} correct and {wrong} wrong predictions net {net:+d}",
              changes={"confidence": round(after, 6)}, before={"confidence": entry["confidence"]},
              episode_ids=sorted({e for d in deltas for e in (d.get("episode_ids") or [])}),
              category=entry.get("category"), detail={"correct": correct, "wrong": wrong, "net": net}, key=key)


def pruning_quality(entry: dict[str, Any], rule: str = "document") -> float | None:
    """The quality the prune compares with its threshold (grimoire.md:1444): the entry's confidence x validated /
    (validated + contradicted + 1) once an outcome has tested it (None before: a lesson is written before any
    prediction can validate it, and would score 0 at birth; an untested entry still decays and is archived under
    0.1 for three cycles) — or, under the `artifact` rule, its stored quality_score (None without one)."""
    if rule == "artifact":
        q = entry.get("quality_score")
        return None if q is None else float(q)
    validated, contradicted = entry.get("validated_count") or 0, entry.get("contradicted_count") or 0
    if validated + contradicted == 0:
        return None  # no outcome has tested it yet: no verdict (the formula would prune every lesson at birth)
    return float(entry["confidence"]) * validated / (validated + contradicted + 1)


def review(entry: dict[str, Any], effective: float, cycle: Cycle, learning: Learning) -> list[Op]:
    cfg = learning.config
    eid, cat, status = entry["id"], entry["category"], entry["status"]
    protected = cat == EntryCategory.Warning or bool(entry.get("is_bloodstain"))
    ops: list[Op] = []
    if status == "active" and effective < cfg.demote_below and cat != EntryCategory.Warning:
        demote = {"status": "candidate", "in_playbook": False}
        ops.append(Op("DEMOTE", "decay", eid, f"effective confidence {effective:.3f} < {cfg.demote_below}",
                      changes=demote, before={k: entry.get(k) for k in demote}, category=cat))
    decays = entry.get("half_life_ms") is not None
    low = entry.get("consecutive_low_confidence") or 0
    if decays and effective < cfg.low_below:
        low += 1
        changes: dict[str, Any] = {"consecutive_low_confidence": low}
        reason = f"effective confidence {effective:.3f} < {cfg.low_below}: cycle {low} in a row"
        if low >= cfg.low_cycles and not protected:
            changes.update(status="archived", in_playbook=False)
            ops.append(Op("ARCHIVE", "decay", eid, reason + ": archived", changes=changes,
                          before={k: entry.get(k) for k in changes}, category=cat))
            return ops
        ops.append(Op("LOW", "decay", eid, reason, changes=changes, before={k: entry.get(k) for k in changes},
                      category=cat))
    elif low:
        ops.append(Op("LOW", "decay", eid, f"effective confidence {effective:.3f}: the count starts again",
                      changes={"consecutive_low_confidence": 0}, before={"consecutive_low_confidence": low},
                      category=cat))
    quality = pruning_quality(entry, cfg.prune_rule)
    if (not protected and quality is not None and quality < cfg.prune_quality
            and (entry.get("access_count") or 0) < cfg.prune_access):
        prune = {"status": "archived", "in_playbook": False, "pruned": True}
        ops.append(Op("PRUNE", "decay", eid, f"quality {quality:.3f} < {cfg.prune_quality} and "
                      f"{entry.get('access_count') or 0} accesses < {cfg.prune_access}", changes=prune,
                      before={k: entry.get(k) for k in prune}, category=cat))
    return ops


def _validate(learning: Learning, cycle: Cycle, report: DecayReport) -> None:
    cfg = learning.config
    seq = PHASE_BASE["decay"]
    while True:
        rows = fit(learning.db.rows("learning/pending_deltas", agent_id=cycle.agent_id, ops=["adjust"],
                                    limit=cfg.batch), cfg.batch)
        if not rows:
            break
        ops = [validate_op(r["entry"], r["deltas"], cfg.prediction_up, cfg.prediction_down, cfg.prediction_cap)
               for r in rows]
        ids = [d["id"] for r in rows for d in r["deltas"]]

        def mark(tx: Tx, _ops: list[Op], ids: list[str] = ids) -> None:
            tx.run(cypher.query("learning/mark_deltas"), ids=ids, cycle_id=cycle.id).consume()

        write(learning.db, cycle, ops, first_seq=seq, action="curator.validate", batch=len(ops), then=mark)
        report.validated += len(ops)
        seq += len(ops)
    done = [r["id"] for r in learning.db.rows("learning/to_validate", agent_id=cycle.agent_id,
                                               through=cycle.through)]
    if done:
        learning.db.run("learning/mark_validated", ids=done, cycle_id=cycle.id)


def _causal(learning: Learning, cycle: Cycle, report: DecayReport) -> None:
    """Outcomes that name a causal link: one more piece of evidence each (the link's weight, evidence
    and confidence move as cypher/causal/record_outcome.cypher says), once per episode, each a CAUSAL
    operation (on the link, from its episode), a third of `batch` outcomes per transaction (each marks
    its episode, moves its link and writes its operation)."""
    decay = learning.knowledge.decay
    view = Visibility.of(cycle.agent_id, cycle.clade)
    rows = learning.db.rows("learning/causal_evidence", agent_id=cycle.agent_id, through=cycle.through)
    size = max(1, learning.config.batch // 3)
    seq = PHASE_BASE["decay"] + 90_000
    for start in range(0, len(rows), size):
        part = rows[start:start + size]

        def work(tx: Tx, part: list[dict[str, Any]] = part, seq: int = seq) -> int:
            ops: list[Op] = []
            first: dict[str, dict[str, Any]] = {}  # each link's values before this transaction
            for r in part:
                marked = tx.run(cypher.query("learning/mark_causal_checked"), id=r["id"], cycle_id=cycle.id).single()
                if not marked or not marked["marked"]:
                    continue  # an interrupted run of this cycle counted it
                moved = tx.run(cypher.query("causal/record_outcome"), id=r["link_id"], confirmed=r["confirmed"],
                               now=cycle.now, up=decay.upvote_step, down=decay.downvote_step, floor=decay.floor,
                               **view.params()).single()
                if moved is None:
                    continue  # a link the agent may not update, or gone
                before, after = moved["before"], moved["link"]
                first.setdefault(r["link_id"], before)
                verb = "confirms" if r["confirmed"] else "contradicts"
                ops.append(Op("CAUSAL", "decay", None, f"episode {r['id']} {verb} {r['link_id']}: evidence "
                              f"{before['evidence']} -> {after['evidence']}",
                              episode_ids=[r["id"]], key=r["id"],
                              detail={"link_id": r["link_id"], "confirmed": r["confirmed"],
                                      "before": {k: before[k] for k in ("weight", "evidence", "confidence")},
                                      "after": {k: after[k] for k in ("weight", "evidence", "confidence")}}))
            if ops:
                apply(tx, cycle, ops, first_seq=seq, action="curator.causal", targets=sorted(first),
                      extra_revert=[SetRelationshipProperties(type=RelationshipType.CAUSES, id=link, before=before)
                                    for link, before in first.items()])
            return len(ops)

        report.causal += learning.db.write(work)
        seq += len(part)


def run(learning: Learning, cycle: Cycle) -> DecayReport:
    cfg, floor = learning.config, learning.knowledge.decay.floor
    report = DecayReport()
    _validate(learning, cycle, report)
    before_sum = after_sum = 0.0
    after, seq = "", PHASE_BASE["decay"] + 50_000
    while True:
        rows = learning.db.rows("learning/entries_for_review", agent_id=cycle.agent_id, now=cycle.now, floor=floor,
                                 after=after, limit=cfg.batch)
        if not rows:
            break
        ops = [op for r in rows for op in review(r["entry"], r["effective"], cycle, learning)]
        for r in rows:
            report.reviewed += 1
            before_sum += float(r["entry"]["confidence"])
            after_sum += float(r["effective"])
            report.decayed += r["effective"] < float(r["entry"]["confidence"])
        if ops:
            write(learning.db, cycle, ops, first_seq=seq, action="curator.decay", batch=cfg.batch)
        for op in ops:
            report.demoted += op.op == "DEMOTE"
            report.archived += op.op == "ARCHIVE"
            report.pruned += op.op == "PRUNE"
        seq += len(ops)
        after = rows[-1]["entry"]["id"]
        if len(rows) < cfg.batch:
            break
    if report.reviewed:
        report.before = round(before_sum / report.reviewed, 6)
        report.after = round(after_sum / report.reviewed, 6)
    _causal(learning, cycle, report)
    return report
