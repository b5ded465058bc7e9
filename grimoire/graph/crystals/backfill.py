"""Crystals written before their payload was kept get their content hash and source (knowledge-crystals.md,
lines 25-29): at start-up, with the schema, a batch of BATCH per transaction with its audit record. The hash is
sha-256 of the normalised text (graph/model/crystal/payload.py), so it is computed here, not in Cypher.
Idempotent: a crystal with a hash is never read again, and one scan per label when there is nothing to do; each
label is walked once in id order (a cursor), so a large store's backfill is linear."""

from __future__ import annotations

import logging
from collections.abc import Callable

from grimoire.graph.audit import Audit, NodeLabel, RemoveProperties
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.model.crystal.payload import content_hash

log = logging.getLogger(__name__)

BATCH = 1_000
LABELS = (NodeLabel.Entry, NodeLabel.Episode, NodeLabel.Memory)  # an archived memory is a Memory only


def backfill_payload(db: Database, *, batch: int = BATCH, actor: str = "schema",
                     cancelled: Callable[[], bool] = lambda: False) -> int:
    """The number of crystals given a content hash."""
    done = 0
    for label in LABELS:
        after = ""  # the last id of the batch before: each label is walked once, in id order
        while not cancelled():
            audit = Audit(action="crystal.backfill_payload", actor=actor, agent_id=None)
            last: list[str] = []

            def work(tx: Tx, label: NodeLabel = label, audit: Audit = audit, after: str = after,
                     last: list[str] = last) -> int:
                found = list(tx.run(cypher.query("schema/backfill_payload_missing"), label=label.value, after=after,
                                    batch=batch))
                last[:] = [max(r["id"] for r in found)] if found else []  # the cursor, of the attempt that commits
                rows = [{"id": r["id"], "hash": content_hash(r["text"]), "source": r["source"]} for r in found]
                ids = [r["id"] for r in tx.run(cypher.query("schema/backfill_payload_set"), label=label.value,
                                               rows=rows)] if rows else []
                if ids:
                    audit.write(tx, ids, f"content hash of {len(ids)} crystals written before it was kept",
                                [RemoveProperties(label=label, ids=ids, properties=["content_hash"])])
                return len(found)

            n = db.write(work)
            done += n
            if n < batch or not last:
                break
            after = last[0]
    if done:
        log.info("content hashes backfilled: %d crystals", done)
    return done
