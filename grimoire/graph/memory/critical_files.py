"""An agent's critical workspace files (../shared/spec/moltbot-memory.md, sections 12.1 and 12.5): SOUL.md,
IDENTITY.md, USER.md and TOOLS.md, which have no place in core memory's blocks (MEMORY.md's Identity is the
user's, IDENTITY.md the agent's), kept as an import gives them — a WorkspaceFile node per file with its text,
valid and recorded time, its version (earlier texts are Version nodes, graph/audit/versions.py) and the checksum
the service writes with every text. They are critical items (graph/audit/alerts.py): a change by anyone but a
person or an approved reflection raises an alert in its own transaction, and a text that no longer matches its
checksum (changed outside the service) raises one at start-up and at session start."""

from __future__ import annotations

from collections.abc import Mapping

from grimoire.graph.audit import alerts, versions
from grimoire.graph.audit.records import Audit
from grimoire.graph.audit.revert import DeleteNodes, NodeLabel, RevertOp, SetProperties
from grimoire.graph.audit.versions import Versioned
from grimoire.graph.db import cypher
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import NotFound
from grimoire.graph.memory.models import WorkspaceFile

CRITICAL_FILES = alerts.CRITICAL_FILES


def _unchanged(node: WorkspaceFile | None, content: str) -> bool:
    """The same text with the checksum the service wrote for it: nothing to write. A text changed outside the
    service and imported again is written, so its checksum is the service's again."""
    return node is not None and node.content == content and node.checksum == alerts.file_checksum(content)


def write_in(tx: Tx, agent_id: str, files: Mapping[str, str], *, actor: str, reason: str) -> list[str]:
    """The critical files among `files` written in `tx` (one of neomodel's, graph/db/ogm.py), each that changes with
    its own audit record and, when it replaces a text, the text kept as a version; the names of those written."""
    named = [name for name in CRITICAL_FILES if name in files]
    if not named:
        return []
    if not tx.run(cypher.query("memory/lock_core"), agent_id=agent_id).single():  # one writer per agent at a time
        raise NotFound(f"no agent {agent_id!r}")
    written = []
    for name in named:
        content = files[name]
        uid = alerts.file_id(agent_id, name)
        node = WorkspaceFile.nodes.get_or_none(uid=uid)
        if _unchanged(node, content):
            continue
        audit = Audit(action="memory.file.create" if node is None else "memory.file.edit", actor=actor,
                      agent_id=agent_id)
        now = audit.at
        revert: list[RevertOp]
        if node is None:
            node = WorkspaceFile(uid=uid, agent_id=agent_id, name=name, content=content, version=1, valid_from=now,
                                 recorded_at=now, written_by=actor, checksum=alerts.file_checksum(content)).save()
            revert = [DeleteNodes(label=NodeLabel.WorkspaceFile, ids=[uid])]
            steps = versions.created(Versioned.WorkspaceFile, [uid])
        else:
            steps = versions.keep(tx, Versioned.WorkspaceFile, [uid], now=now, actor=actor, reason=reason,
                                  audit_id=audit.id)
            revert = [SetProperties(label=NodeLabel.WorkspaceFile, id=uid, before={
                "content": node.content, "valid_from": node.valid_from, "recorded_at": node.recorded_at,
                "written_by": node.written_by, "checksum": node.checksum})]
            node.content, node.version = content, int(node.version or 1) + 1  # the counter keep() moved, as saved
            node.valid_from, node.recorded_at, node.written_by = now, now, actor
            node.checksum = alerts.file_checksum(content)
            node.save()
        summary = f"{name} v{node.version} ({len(content)} characters): {reason}"
        audit.write(tx, [uid], summary, revert, steps)
        alerts.on_change(tx, audit, uid, summary)  # a critical file changed by anyone but a person: flagged
        written.append(name)
    return written


def read(agent_id: str) -> dict[str, str]:
    """The agent's critical files by name (inside a neomodel transaction or not), for the export."""
    return {n.name: n.content or "" for n in WorkspaceFile.nodes.filter(agent_id=agent_id)}
