"""PROMOTE, the Curator's second phase: insights (and causal links, fragments) at confidence 0.6 or more
become active; heuristics at 0.7 or more become active and enter PLAYBOOK.md — but never directly
from inherited or clade knowledge: such a heuristic must first be validated here (an upvote or a
verified outcome of its own); warnings become active at any confidence. A private warning is offered to the
clade, never shared: the cycle records a PROPAGATE operation marked `proposed` that changes nothing (the
entry keeps its scope); only its owner widens an entry's scope, explicitly. A confidential warning is not
even offered. Confidence is the entry's as its last vote or outcome set it (`promotable`): decay since then is
DECAY's to apply.

It also reviews what the hallucination firewall quarantined ("reviewed next Curator cycle"): an entry
whose contradiction no longer stands — every entry it contradicted is now under the high-confidence
line, archived, or holds in another regime than it does — is released as a candidate (RELEASE).

With a language model configured, a promotion (but a warning's: active at any confidence) is checked for
consistency first (graph/learning/consistency.py: the claim restated three times, the mean pairwise cosine of the
four embeddings), before the batch's transaction opens: under the threshold the promotion is held — a HOLD
operation records the measure and flags the entry `promotion_held` — and when the model gives no usable answer it
waits for the next cycle. The measure replaces the entry's consistency dimension (and its quality score with it)."""

from __future__ import annotations

from typing import Any

from grimoire.graph.learning import consistency
from grimoire.graph.learning.operations import PHASE_BASE, Cycle, Op, write
from grimoire.graph.learning.state import Learning
from grimoire.graph.model.crystal.privacy import MemoryScope, category_type, private_scope
from grimoire.graph.model.enums import EntryCategory, Provenance, Scope
from grimoire.graph.model.rows import Row

CONFIDENTIAL = "confidential"  # graph/model/crystal/sensitivity.py's tag: never offered to anyone
INHERITED = {Provenance.Clade.value, Provenance.Predecessor.value, Provenance.Lethe.value,
             Provenance.Marketplace.value, Provenance.StyxQuery.value, Provenance.Replicant.value}


def offered(entry: dict[str, Any], memory_scope: MemoryScope = MemoryScope.private) -> bool:
    """A private warning not offered before and not confidential: proposed to the clade (scope unchanged). Under
    the private rule for memory crystals (a warning is a fact crystal: graph/model/crystal/privacy.py) none is
    offered: its owner's share would be refused."""
    return (entry.get("scope") == Scope.private and entry.get("sensitivity") != CONFIDENTIAL
            and not entry.get("propagation_proposed")
            and private_scope(entry.get("semantic_type") or category_type(entry.get("category")), "shared",
                              memory_scope) != "private")


def decide(entry: dict[str, Any], effective: float, thresholds: dict[str, float],
           memory_scope: MemoryScope = MemoryScope.private) -> list[Op]:
    cat, status, eid = entry["category"], entry["status"], entry["id"]
    ops: list[Op] = []
    if cat == EntryCategory.Warning:
        if status == "candidate":
            ops.append(Op("PROMOTE", "promote", eid, f"a warning: active at any confidence ({effective:.3f})",
                          changes={"status": "active"}, before={"status": status}, category=cat))
        if offered(entry, memory_scope):
            # Offered once, never applied: no background step widens an item's scope (its owner may share it).
            ops.append(Op("PROPAGATE", "promote", eid, "proposed: a warning its owner may share with the clade; "
                          "its scope stays private until the owner shares it", category=cat,
                          changes={"propagation_proposed": True},
                          before={"propagation_proposed": entry.get("propagation_proposed")},
                          detail={"proposed": True, "scope": Scope.shared.value}))
        return ops
    threshold = thresholds.get(cat)
    if threshold is None or effective < threshold:
        return ops
    if cat == EntryCategory.Heuristic:
        if entry.get("in_playbook"):
            return ops
        if entry.get("provenance") in INHERITED and not (entry.get("validated_count") or 0):
            return ops  # inherited: it must be validated here first
        changes: dict[str, Any] = {"status": "active", "in_playbook": True}
        ops.append(Op("PROMOTE", "promote", eid, f"confidence {effective:.3f} >= {threshold}: into PLAYBOOK.md",
                      changes=changes, before={k: entry.get(k) for k in changes}, category=cat))
    elif status == "candidate":
        ops.append(Op("PROMOTE", "promote", eid, f"confidence {effective:.3f} >= {threshold}: active",
                      changes={"status": "active"}, before={"status": status}, category=cat))
    return ops


def promotable(row: dict[str, Any], demote_below: float) -> float:
    """The confidence PROMOTE holds against its thresholds: the entry's own, as its last vote or outcome set it
    (votes and outcomes promote), not its decay since (decay runs from the last access and is DECAY's to apply:
    a heuristic voted up to 0.7 is 0.69999787 seconds later, and still promoted). One that has decayed under the
    demotion line is not promoted only to be demoted by the same cycle: its effective confidence counts then.
    Rounded to 9 places, so that 0.6 + 0.1 is 0.7."""
    effective = float(row["effective"])
    return round(float(row["entry"]["confidence"]), 9) if effective >= demote_below else effective


def release(entry: dict[str, Any], contradicted: list[dict[str, Any]], high: float) -> Op | None:
    standing = [c for c in contradicted if c["status"] in ("candidate", "active") and c["effective"] >= high
                and (c.get("market_regime") is None or entry.get("market_regime") is None
                     or c["market_regime"] == entry["market_regime"])]
    if standing:
        return None
    return Op("RELEASE", "promote", entry["id"], "the contradiction no longer stands: "
              + (", ".join(f"{c['id']} ({c['status']}, {c['effective']:.2f}, {c.get('market_regime') or 'any regime'})"
                           for c in contradicted) or "nothing it contradicted remains"),
              changes={"status": "candidate"}, before={"status": entry["status"]}, category=entry["category"])


class Claim(Row):
    """An entry PROMOTE checks for consistency (cypher/learning/claims.cypher)."""

    query = "learning/claims"
    id: str
    content: str
    quality_score: float | None
    quality_consistency: float | None
    quality_consistency_of: str | None
    promotion_held: bool | None


def checked(learning: Learning, cycle: Cycle, ops: list[Op]) -> list[Op]:
    """`ops` with each promotion checked for consistency (the module docstring); unchanged without a model."""
    client = learning.knowledge.model
    asked = [op for op in ops if op.op == "PROMOTE" and op.category != EntryCategory.Warning and op.entry_id]
    if client is None or not asked:
        return ops
    claims = {c.id: c for c in learning.db.typed(Claim, agent_id=cycle.agent_id, ids=[op.entry_id for op in asked])}
    hold_below = learning.config.consistency_hold_below
    checking = {id(op) for op in asked}
    out: list[Op] = []
    for op in ops:
        claim = claims.get(op.entry_id or "") if id(op) in checking else None
        if claim is None:
            out.append(op)
            continue
        of = consistency.digest(claim.content)
        fresh = not (claim.quality_consistency_of == of and claim.quality_consistency is not None)
        if fresh:
            # a model that is down is not asked (its breaker, shared with the Reasoner and Loop 3's replay, is open):
            # the rest wait too, at once, rather than each waiting out its timeout
            measured = consistency.measure(client, learning.knowledge.embedder.embed, claim.content, op.category)
            if measured.consistency is None:
                continue   # no usable answer: the promotion waits for the next cycle
            value = measured.consistency
        else:
            value = float(claim.quality_consistency or 0.0)
        held = value < hold_below
        changes: dict[str, Any] = {}
        if fresh:
            changes = {"quality_consistency": value, "quality_consistency_of": of,
                       "quality_score": consistency.rescored(claim.quality_score, claim.quality_consistency, value)}
        if bool(claim.promotion_held) != held:
            changes["promotion_held"] = held
        before = {"quality_consistency": claim.quality_consistency, "quality_consistency_of":
                  claim.quality_consistency_of, "quality_score": claim.quality_score,
                  "promotion_held": claim.promotion_held}
        if held:
            if changes:   # measured now (or newly held): recorded once, not every cycle it stays held
                out.append(Op("HOLD", "promote", op.entry_id, f"consistency {value:.3f} < {hold_below}: promotion "
                              f"held (would have been: {op.reason})", changes=changes,
                              before={k: before[k] for k in changes}, category=op.category,
                              detail={"consistency": value, "threshold": hold_below}))
            continue
        op.changes = {**op.changes, **changes}
        op.before = {**op.before, **{k: before[k] for k in changes}}
        op.reason = f"{op.reason}; consistency {value:.3f} >= {hold_below}"
        op.detail = {**op.detail, "consistency": value}
        out.append(op)
    return out


def run(learning: Learning, cycle: Cycle) -> int:
    cfg, floor = learning.config, learning.knowledge.decay.floor
    after, seq, promoted = "", PHASE_BASE["promote"], 0
    released = []
    for r in learning.db.rows("learning/quarantined", agent_id=cycle.agent_id, now=cycle.now, floor=floor):
        op = release(r["entry"], r["contradicted"], learning.knowledge.admission.high_confidence)
        if op is not None:
            released.append(op)
    if released:
        write(learning.db, cycle, released, first_seq=seq + 90_000, action="curator.release", batch=cfg.batch)
    while True:
        rows = learning.db.rows("learning/entries_for_review", agent_id=cycle.agent_id, now=cycle.now, floor=floor,
                                 after=after, limit=cfg.batch)
        if not rows:
            return promoted
        ops = checked(learning, cycle, [op for r in rows for op in decide(
            r["entry"], promotable(r, cfg.demote_below), cfg.promote_at, learning.knowledge.memory_scope)])
        if ops:
            write(learning.db, cycle, ops, first_seq=seq, action="curator.promote", batch=cfg.batch)
        promoted += sum(op.op == "PROMOTE" for op in ops)
        seq += len(ops)
        after = rows[-1]["entry"]["id"]
        if len(rows) < cfg.batch:
            return promoted
