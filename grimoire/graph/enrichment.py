"""Lazy enrichment of episodes (grimoire.md, "Streaming Retrieval", line 1100: iRAG's lazy extraction).

With GRIMOIRE_EPISODE_ENRICHMENT=lazy (the default) an ingest stores each episode with its embedding (computed
before the transaction, as always) and its text, so vector and full-text search find it at once, and marks it
`enrichment: pending` with the derived work it still owes as properties of its own (`pending_mentions`, the JSON
of its mentions; `pending_follows`, the episode it follows). The `episodes.enrich` job (graph/services.py, once per
period across replicas, triggered by every lazy ingest) takes the oldest pending episodes, BATCH per transaction,
and does that work as the synchronous ingest would: MENTIONS (entities created as needed, never public), FOLLOWS;
then marks them `done` and drops the pending properties, with one audit record per owner in the same transaction.

Visibility: the job only links an episode to what it named; it changes no scope, clade or owner, and an entity it
creates is visible only to who may see an item that mentions it (graph/visibility.py), so nothing widens and a
confidential episode shares nothing. An episode deleted while pending (a rollback of its ingest) takes its pending
work with it: nothing is left to enrich; one enriched since has the job's record undone with its ingest
(graph/audit/rollback.py DERIVED), never a conflict that blocks the rollback. Idempotent: only episodes still
pending under their lock are touched.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from grimoire.graph.audit import Audit, DeleteRelationships, Endpoints, NodeLabel, RelationshipType, versions
from grimoire.graph.audit.versions import Versioned
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.db.vector_epoch import vectors_changed
from grimoire.graph.ids import now_ms
from grimoire.graph.model.rows import Params

PENDING, DONE = "pending", "done"
BATCH = 1_000
EVERY_SECONDS = 10.0  # the job's period: a backstop, since every lazy ingest triggers it
JOB = "episodes.enrich"
ACTOR = "system:enrichment"
ACTION = "episode.enrich"

log = logging.getLogger(__name__)


@dataclass
class EnrichReport:
    enriched: int = 0
    batches: int = 0
    audit_ids: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.enriched} episodes enriched in {self.batches} transactions"


def _batch(tx: Tx, limit: int) -> tuple[int, list[str]]:
    """One transaction: the oldest pending episodes read, enriched and audited (one record per owner)."""
    pending = list(tx.run(cypher.query("episodes/enrichment_pending"), limit=limit))
    if not pending:
        return 0, []
    audits: dict[str | None, Audit] = {}
    rows: list[Params] = []
    for r in pending:
        owner = r["agent_id"]
        if owner not in audits:
            audits[owner] = Audit(action=ACTION, actor=ACTOR, agent_id=owner)
        rows.append({"id": r["id"], "audit_id": audits[owner].id, "follows": r["follows"],
                     "mentions": json.loads(r["mentions"]) if r["mentions"] else []})
    now = now_ms()
    done: dict[str | None, list[dict[str, Any]]] = defaultdict(list)
    for r in tx.run(cypher.query("episodes/enrich"), rows=rows, now=now):
        done[r["agent_id"]].append(dict(r))
    if any(e["followed"] for eps in done.values() for e in eps):
        vectors_changed(tx)  # a turn before changed in place: what replicas hold for exact ranking is stale
    audit_ids: list[str] = []
    for owner, eps in done.items():
        audit = audits[owner]
        # an episode with nothing to derive (no mention, no turn before) only changes its bookkeeping: no record,
        # so nothing stands between its ingest and a rollback of it
        ids = [e["id"] for e in eps if e["mentioned"] or e["followed"]]
        if not ids:
            continue
        # Reverting takes the links back; the entities a mention created stay (as for an ingest), and the episode
        # stays done (marking it pending again would have the job redo what was undone).
        revert = [DeleteRelationships(type=RelationshipType.MENTIONS, keys=[
                      Endpoints(start_label=NodeLabel.Episode, start_id=e["id"], end_ids=e["mentioned"])
                      for e in eps if e["mentioned"]]),
                  DeleteRelationships(type=RelationshipType.FOLLOWS, keys=[
                      Endpoints(start_label=NodeLabel.Episode, start_id=e["id"], end_ids=[e["followed"]])
                      for e in eps if e["followed"]])]
        # Targets: the episodes (their enrichment is bookkeeping, like a version counter: no version is kept for
        # it, "" in the record) and the entities their mentions created (at their first version).
        made = sorted({i for e in eps for i in e["created"]})
        audit.write(tx, ids + made, f"enriched {len(ids)} episodes: "
                                    f"{sum(len(e['mentioned']) for e in eps)} mentions ({len(made)} new entities), "
                                    f"{sum(1 for e in eps if e['followed'])} follows",
                    [op for op in revert if not op.changes_nothing()], versions.created(Versioned.Entity, made))
        audit_ids.append(audit.id)
    return sum(len(eps) for eps in done.values()), audit_ids


def enrich(db: Database, *, batch: int = BATCH, cancelled: Callable[[], bool] = lambda: False) -> EnrichReport:
    """Enrich every pending episode, `batch` per transaction, until none is left (or `cancelled`)."""
    report = EnrichReport()
    while not cancelled():
        n, audit_ids = db.write(lambda tx: _batch(tx, batch))  # may be retried: the report counts what committed
        if not n:  # none pending (or none left pending under its lock): done
            break
        report.enriched += n
        report.batches += 1
        report.audit_ids += audit_ids
    if report.enriched:
        log.info("episodes: %s", report)
    return report
