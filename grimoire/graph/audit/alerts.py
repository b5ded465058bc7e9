"""Critical items and their alerts (../shared/spec/moltbot-memory.md, section 12.5).

An agent's critical items are its configuration, its identity block, its critical-facts block (the pinned
facts) and its critical workspace files — SOUL.md, IDENTITY.md, USER.md and TOOLS.md as a workspace import gave
them (graph/memory/critical_files.py): `critical_items`. A change to one by anyone but a person (a person's key, the
admin, the command line: `manual`) or an approved reflection raises an alert in the change's own transaction:
an Alert node and an ALERT record. Each critical block also keeps a checksum of its text and pins, each critical
file one of its text, and each agent one of its configuration (written when it is registered); the service
verifies them at start-up and when an agent starts a session, and a mismatch (the block changed outside the
service, say in Neo4j Browser) raises an alert too. Alerts are returned at the agent's next session start
until someone acknowledges them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from grimoire.graph.audit import versions
from grimoire.graph.audit.models import Alert
from grimoire.graph.audit.records import Audit
from grimoire.graph.audit.revert import DeleteNodes, NodeLabel, SetProperties
from grimoire.graph.audit.vocabulary import read_tag
from grimoire.graph.db import cypher, ogm
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import Conflict, NotFound
from grimoire.graph.ids import now_ms, uuid7
from grimoire.graph.model.rows import Record

AUDITOR = "system:audit"  # who raises an alert (12.5's `system:audit`)
CRITICAL_BLOCKS = ("identity", "critical")  # core blocks (graph/memory/blocks.py Block) that are critical items
# The workspace files 12.1 marks critical or high (behavioral constitution, agent identity, human context,
# capability definitions): kept as WorkspaceFile nodes (graph/memory/critical_files.py) when imported.
CRITICAL_FILES = ("SOUL.md", "IDENTITY.md", "USER.md", "TOOLS.md")


def file_id(agent_id: str, name: str) -> str:
    """A critical workspace file's item id: the file's name in it, so an alert and the trail name the file."""
    return f"{agent_id}:file:{name}"


def critical_items(agent_id: str) -> list[str]:
    """12.5: the agent's configuration (its node), its identity and its critical-facts block (the pinned
    facts) and its critical workspace files — the items whose every change is flagged. Block ids as
    graph/memory/core.py `block_id` makes them."""
    return [agent_id, *(f"{agent_id}:core:{block}" for block in CRITICAL_BLOCKS),
            *(file_id(agent_id, name) for name in CRITICAL_FILES)]


class AlertRecord(BaseModel):
    """An alert as stored (graph/audit/models.py Alert, by its database names); what is unset is None."""

    id: str
    agent_id: str
    item: str                         # the critical item's id
    kind: str                         # unauthorized-change, checksum-mismatch
    summary: str
    change_id: str | None = None      # the audit record of the change, when the service made it
    observed: str | None = None       # a mismatch: the checksum found
    at: int
    acknowledged_at: int | None = None
    acknowledged_by: str | None = None


class AlertsAtStart(BaseModel):
    """A session's start as the audit layer sees it: the critical items verified, and the alerts waiting for the user
    (12.5); graph/memory/sessions.py adds what waits for the batch review."""

    agent_id: str
    started_at: int
    raised: int                       # alerts this verification raised
    alerts: list[AlertRecord]         # every alert not acknowledged, oldest first


def as_record(alert: Alert) -> AlertRecord:
    return AlertRecord.model_validate(ogm.properties(alert))


CONFIGURATION = ("name", "kind", "clade", "generation", "parent_id")  # an agent's configuration: its node's fields
ADDED = ("timezone",)  # configuration added later: in the checksum when set


def checksum(content: str, pinned: Sequence[str]) -> str:
    """A critical block's text and pins, hashed: what start-up compares with what the service last wrote."""
    return hashlib.sha256(json.dumps([content, list(pinned)], ensure_ascii=False).encode()).hexdigest()


def file_checksum(content: str) -> str:
    """A critical workspace file's text, hashed: what start-up compares with what the service last wrote."""
    return hashlib.sha256(json.dumps(["file", content], ensure_ascii=False).encode()).hexdigest()


def configuration_checksum(configuration: dict[str, Any]) -> str:
    """An agent's configuration, hashed: written when it is registered, compared at start-up and session start. The
    settings added since (ADDED) count once set, so an agent registered before them keeps the checksum it has."""
    values = [configuration.get(k) for k in CONFIGURATION]
    values += [[k, configuration[k]] for k in ADDED if configuration.get(k) is not None]
    return hashlib.sha256(json.dumps(values, ensure_ascii=False, default=str).encode()).hexdigest()


def _observed(db: Database, agent_id: str | None) -> list[tuple[Record, str]]:
    """Each critical item that keeps a checksum (blocks, workspace files, agents' configuration), with the checksum
    of what is stored now; items written before checksums were kept are left out."""
    out = []
    for row in db.fetch("audit/critical_blocks", agent_id=agent_id, blocks=list(CRITICAL_BLOCKS)):
        if row["checksum"] is not None:
            out.append((dict(row), checksum(row["content"] or "", row["pinned"] or [])))
    for row in db.fetch("audit/critical_files", agent_id=agent_id):
        if row["checksum"] is not None:
            out.append((dict(row), file_checksum(row["content"] or "")))
    for row in db.fetch("audit/critical_agents", agent_id=agent_id):
        if row["checksum"] is not None:
            out.append((dict(row), configuration_checksum(dict(row["configuration"]))))
    return out


def acting_as(tx: Tx, change: Audit) -> str:
    """The change's actor tag (12.3), the key it was made with looked up when the record does not say."""
    if change.tag:
        return change.tag
    row = tx.run(cypher.query("audit/key_scopes"), id=change.actor).single()
    return read_tag(None, change.actor, change.action, row["agent_id"] if row else None,
                    (row["scopes"] or []) if row else [])


def authorized(tag: str) -> bool:
    """A person (a person's key, the admin, the command line: `manual`) or an approved reflection may change a
    critical item without an alert."""
    return tag == "manual" or tag.startswith("reflection:")


def _raise(tx: Tx, agent_id: str, item: str, kind: str, summary: str,
           change_id: str | None, observed: str | None = None) -> Alert:
    at = now_ms()
    alert: Alert = Alert(uid=uuid7(), agent_id=agent_id, item=item, kind=kind, summary=summary,
                         change_id=change_id, observed=observed, at=at).save()
    Audit(action="alert.raise", actor=AUDITOR, agent_id=agent_id, tag=AUDITOR, at=at).write(
        tx, [item, alert.uid], f"{summary}. Pending acknowledgment.",
        [DeleteNodes(label=NodeLabel.Alert, ids=[alert.uid])])
    return alert


def on_change(tx: Tx, change: Audit, item: str, summary: str) -> Alert | None:
    """Inside the transaction of a change to an item (its record `change` written): when the item is critical,
    an alert unless a person or an approved reflection made it."""
    if change.agent_id is None or item not in critical_items(change.agent_id):
        return None
    tag = acting_as(tx, change)
    if authorized(tag):
        return None
    return _raise(tx, change.agent_id, item, "unauthorized-change", f"Critical item {item} changed by {tag}: {summary}",
                  change.id)


def verify(db: Database, agent_id: str | None = None) -> list[AlertRecord]:
    """Compare each critical block's text and pins, each critical file's text and each agent's configuration with
    the checksum the service wrote (one agent's, or every agent's); a mismatch raises an alert once for what was
    found (acknowledged, it is not raised again)."""
    raised: list[AlertRecord] = []
    for row, seen in _observed(db, agent_id):
        if seen == row["checksum"]:
            continue

        def work(tx: Tx, row: dict[str, Any] = row, seen: str = seen) -> AlertRecord | None:
            if Alert.nodes.filter(item=row["id"], kind="checksum-mismatch", observed=seen):
                return None
            alert = _raise(tx, row["agent_id"], row["id"], "checksum-mismatch",
                           f"Critical item {row['id']} does not match the checksum the service wrote: it was "
                           f"changed outside the service", None, seen)
            return as_record(alert)

        made = ogm.write(db, work)
        if made:
            raised.append(made)
    return raised


def pending(db: Database, agent_id: str) -> list[AlertRecord]:
    """The agent's unacknowledged alerts, oldest first."""
    return ogm.read(db, lambda tx: [as_record(a) for a in
                                    Alert.nodes.filter(agent_id=agent_id, acknowledged_at__isnull=True).order_by("at")])


def all_of(db: Database, agent_id: str, limit: int = 100) -> list[AlertRecord]:
    return ogm.read(db, lambda tx: [as_record(a) for a in
                                    Alert.nodes.filter(agent_id=agent_id).order_by("-at")[:limit]])


def start_session(db: Database, agent_id: str) -> AlertsAtStart:
    """12.5 at a session's start: the agent's critical items verified, and every alert still to acknowledge."""
    raised = verify(db, agent_id)
    return AlertsAtStart(agent_id=agent_id, started_at=now_ms(), raised=len(raised), alerts=pending(db, agent_id))


def acknowledge(db: Database, agent_id: str, alert_id: str, *, actor: str) -> AlertRecord:
    """The alert seen and accepted (12.5: 'Was this intentional?'): it is not returned at session start again."""
    def work(tx: Tx) -> AlertRecord:
        alert = Alert.nodes.get_or_none(uid=alert_id, agent_id=agent_id)
        if alert is None:
            raise NotFound(f"no alert {alert_id!r} for agent {agent_id!r}")
        if alert.acknowledged_at is not None:
            raise Conflict(f"alert {alert_id} was acknowledged already")
        at = now_ms()
        audit = Audit(action="alert.acknowledge", actor=actor, agent_id=agent_id, at=at)
        steps = versions.keep(tx, versions.Versioned.Alert, [alert.uid], now=at, actor=actor, reason="acknowledged",
                              audit_id=audit.id)
        alert.acknowledged_at, alert.acknowledged_by = at, actor
        alert.save()
        audit.write(tx, [alert.uid], f"acknowledged: {alert.summary}",
                    [SetProperties(label=NodeLabel.Alert, id=alert.uid, before={"acknowledged_at": None,
                                                                                "acknowledged_by": None})], steps)
        return as_record(alert)

    return ogm.write(db, work)
