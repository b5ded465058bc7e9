"""Netting, the end of DISTILL: the vote deltas batched since the last cycle (Reflexion's, from decisions'
outcomes, and distillation's, from clusters) net per entry — three up and one down nets +2 — and the
net moves the confidence once: +0.1 per net up (and the decay clock restarts; the entry is confirmed live and decays
at half the rate from then on, grimoire.md's class D), -0.15 per net down, between the 0.05 floor and 1.0. The
deltas are marked applied in the same transaction."""

from __future__ import annotations

import hashlib
from typing import Any

from grimoire.graph.db import cypher
from grimoire.graph.db.tx import Tx
from grimoire.graph.knowledge.decay import DecayConfig, confirmed
from grimoire.graph.learning.operations import PHASE_BASE, Cycle, Op, fit, write
from grimoire.graph.learning.state import Learning

VOTES = ["up", "down"]


def net_op(entry: dict[str, Any], deltas: list[dict[str, Any]], cycle: Cycle, up_step: float, down_step: float,
           floor: float, decay: DecayConfig | None = None) -> Op:
    ups = sum(d.get("count") or 1 for d in deltas if d["op"] == "up")
    downs = sum(d.get("count") or 1 for d in deltas if d["op"] == "down")
    net = ups - downs
    before = float(entry["confidence"])
    after = min(1.0, before + up_step * net) if net > 0 else max(floor, before + down_step * net) if net < 0 else before
    changes: dict[str, Any] = {"confidence": round(after, 6),
                               "validated_count": (entry.get("validated_count") or 0) + ups,
                               "contradicted_count": (entry.get("contradicted_count") or 0) + downs}
    if net > 0:
        changes["last_accessed_at"] = cycle.now  # UPVOTE resets the decay clock
        changes.update(confirmed(entry, decay or DecayConfig()))  # confirmed live: half the decay rate, once
    episodes = sorted({e for d in deltas for e in (d.get("episode_ids") or [])})
    sources = sorted({d.get("source") or "" for d in deltas})
    # Keyed by the deltas it nets: deltas that arrive while the cycle runs net in an operation of their own.
    key = hashlib.sha1("|".join(sorted(d["id"] for d in deltas)).encode()).hexdigest()[:16]
    return Op("NET", "net", entry["id"], f"{ups} up and {downs} down net {net:+d}", changes=changes,
              before={k: entry.get(k) for k in changes}, episode_ids=episodes, category=entry.get("category"),
              detail={"ups": ups, "downs": downs, "net": net, "sources": sources}, key=key)


def run(learning: Learning, cycle: Cycle) -> int:
    cfg, floor = learning.config, learning.knowledge.decay.floor
    netted, seq = 0, PHASE_BASE["net"]
    while True:
        rows = fit(learning.db.rows("learning/pending_deltas", agent_id=cycle.agent_id, ops=VOTES, limit=cfg.batch),
                   cfg.batch)
        if not rows:
            return netted
        ops = [net_op(r["entry"], r["deltas"], cycle, cfg.upvote_step, cfg.downvote_step, floor,
                      learning.knowledge.decay) for r in rows]
        delta_ids = [d["id"] for r in rows for d in r["deltas"]]

        def mark(tx: Tx, _ops: list[Op], ids: list[str] = delta_ids) -> None:
            tx.run(cypher.query("learning/mark_deltas"), ids=ids, cycle_id=cycle.id).consume()

        write(learning.db, cycle, ops, first_seq=seq, action="curator.net", batch=len(ops), then=mark)
        netted += len(ops)
        seq += len(ops)
