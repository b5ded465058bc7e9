"""The audit trail a person can question (../shared/spec/moltbot-memory.md, sections 12.4 and 12.7): every
record of an agent, newest first, in the spec's words (graph/audit/vocabulary.py), and the answers to its
questions — what changed recently, why was X forgotten, what did one reflection change, has a critical
item ever changed, who changed an item — as records and as audit.log lines.

An agent's trail holds the records of its own changes (the record's agent_id); the admin's holds every
record, the service's own (no agent) included."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from graph.audit.alerts import critical_items
from graph.audit.vocabulary import Verb, actions_of, log_line, read_approval, read_tag, verb_of
from graph.db.connection import Database

LIMIT = 500  # records one question returns at most
FORGOTTEN = (Verb.ARCHIVE, Verb.DELETE, Verb.DECAY)


@dataclass(frozen=True)
class TrailFilter:
    since: int | None = None
    until: int | None = None
    verbs: Sequence[Verb] | None = None
    actor: str | None = None          # a key id, or a tag ("bot:trigger-remember", "system:decay")
    tag_prefix: str | None = None     # "reflection:", "subagent:"
    items: Sequence[str] | None = None
    offset: int = 0
    limit: int = 50

    def params(self) -> dict[str, Any]:
        verbs = list(self.verbs) if self.verbs else None
        return {"since": self.since, "until": self.until, "verbs": [v.value for v in verbs] if verbs else None,
                "actions": actions_of(verbs) if verbs else None, "actor": self.actor, "tag_prefix": self.tag_prefix,
                "items": list(self.items) if self.items else None, "offset": self.offset,
                "limit": min(self.limit, LIMIT)}


def shaped(row: dict[str, Any], critical: set[str] | None = None) -> dict[str, Any]:
    """A record in the spec's words: its verb, actor tag and approval (stored, else read from what it says),
    whether it touched a critical item, and its audit.log line."""
    record = dict(row["record"])
    verb = Verb(record["verb"]) if record.get("verb") else verb_of(record["action"])
    tag = read_tag(record.get("tag"), record["actor"], record["action"], row.get("key_agent"),
                   row.get("key_scopes") or [])
    targets = list(record.get("target_ids") or [])
    if isinstance(record.get("redaction"), str):  # an erasure redacted its text (graph/audit/erasure.py)
        record["redaction"] = json.loads(record["redaction"])
    else:
        record.pop("redaction", None)
    out = {**record, "verb": verb.value, "tag": tag,
           "approval": read_approval(record.get("approval"), verb, tag).value, "target_ids": targets,
           "critical": bool(critical and critical.intersection(targets))}
    out["line"] = log_line(out)
    return out


@dataclass
class Trail:
    db: Database

    def records(self, agent_id: str | None, flt: TrailFilter = TrailFilter()) -> list[dict[str, Any]]:
        """An agent's records (None: every record, for the admin), newest first."""
        if agent_id is None:
            return [shaped(r) for r in self.db.fetch("audit/trail_all", **flt.params())]
        critical = set(critical_items(agent_id))
        return [shaped(r, critical) for r in self.db.fetch("audit/trail", agent_id=agent_id, **flt.params())]

    def log(self, agent_id: str | None, flt: TrailFilter = TrailFilter()) -> str:
        """audit.log (12.4): one line per record, oldest first like a log."""
        return "".join(r["line"] + "\n" for r in reversed(self.records(agent_id, flt)))

    def forgotten(self, agent_id: str, terms: list[str], limit: int = 50) -> dict[str, Any]:
        """Why was X forgotten: its archived memories and the records that archived, deleted or decayed them
        (or name X), newest first."""
        rows = self.db.fetch("audit/forgotten", agent_id=agent_id, terms=[t.lower() for t in terms],
                             verbs=[v.value for v in FORGOTTEN], actions=actions_of(FORGOTTEN), limit=min(limit, LIMIT))
        row = rows[0] if rows else {"memories": [], "records": []}
        critical = set(critical_items(agent_id))
        return {"terms": terms, "memories": sorted(row["memories"], key=lambda m: -int(m.get("archived_at") or 0)),
                "records": [shaped(r, critical) for r in row["records"]]}

    def reflection(self, agent_id: str, reflection_id: str) -> list[dict[str, Any]]:
        """What one reflection did: its proposal, its decision and every change applied under its tag."""
        tagged = self.records(agent_id, TrailFilter(tag_prefix=f"reflection:{reflection_id}", limit=LIMIT))
        about = self.records(agent_id, TrailFilter(items=[reflection_id], limit=LIMIT))
        seen = {r["id"] for r in tagged}
        return sorted(tagged + [r for r in about if r["id"] not in seen], key=lambda r: (-r["at"], r["id"]))

    def item(self, agent_id: str, item_id: str, limit: int = LIMIT) -> dict[str, Any]:
        """Who changed an item, and when: its records newest first and the distinct actors, first seen first."""
        records = self.records(agent_id, TrailFilter(items=[item_id], limit=limit))
        actors: list[str] = []
        for r in reversed(records):
            if r["tag"] not in actors:
                actors.append(r["tag"])
        return {"item": item_id, "changed": bool(records), "changes": len(records), "actors": actors,
                "records": records}

    def critical(self, agent_id: str) -> dict[str, Any]:
        """Has a critical item ever changed: each critical item's records."""
        items = critical_items(agent_id)
        return {"items": [self.item(agent_id, i) for i in items]}
