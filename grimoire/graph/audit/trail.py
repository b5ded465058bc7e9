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

from pydantic import BaseModel, ConfigDict, Field

from grimoire.graph.audit.alerts import critical_items
from grimoire.graph.audit.vocabulary import Verb, actions_of, log_line, read_approval, read_tag, verb_of
from grimoire.graph.db.connection import Database
from grimoire.graph.model.rows import Params, Row

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

    def params(self) -> Params:  # the statements' parameters (cypher/audit/trail*.cypher)
        verbs = list(self.verbs) if self.verbs else None
        return {"since": self.since, "until": self.until, "verbs": [v.value for v in verbs] if verbs else None,
                "actions": actions_of(verbs) if verbs else None, "actor": self.actor, "tag_prefix": self.tag_prefix,
                "items": list(self.items) if self.items else None, "offset": self.offset,
                "limit": min(self.limit, LIMIT)}


class StoredRecord(BaseModel):
    """An audit record as stored (cypher/audit/trail.cypher's `record` map): a key the map does not carry is an
    error here, not dropped."""

    model_config = ConfigDict(extra="forbid")
    id: str
    at: int
    actor: str
    agent_id: str | None
    action: str
    verb: str | None
    tag: str | None
    trigger: str | None
    approval: str | None
    target_ids: list[str] | None
    summary: str | None
    before_versions: list[str] | None
    after_versions: list[str] | None
    reverted_by: str | None
    channel: str | None
    redaction: str | None


class KeyedRecord(BaseModel):
    """A record with the key that acted (its agent and scopes), so the trail can say in what role."""

    model_config = ConfigDict(extra="forbid")
    record: StoredRecord
    key_agent: str | None
    key_scopes: list[str]


class TrailRow(KeyedRecord, Row):
    query = "audit/trail"


class TrailAllRow(KeyedRecord, Row):
    query = "audit/trail_all"


class Stamp(BaseModel):
    """One erasure's stamp on a record whose text it redacted (graph/audit/erasure.py)."""

    redacted: bool
    erased_at: str
    erased_by: str
    erasure: str
    items: list[str]
    sha256: dict[str, str]  # each erased item's text hash, by item id
    fields: list[str]


class TrailRecord(BaseModel):
    """A record in the spec's words (12.4): its verb, actor tag and approval (stored, else read from what it
    says), whether it touched a critical item, and its audit.log line."""

    id: str
    at: int
    actor: str
    agent_id: str | None
    action: str
    verb: str
    tag: str
    trigger: str | None
    approval: str
    target_ids: list[str]
    summary: str | None
    before_versions: list[str] | None
    after_versions: list[str] | None
    reverted_by: str | None
    channel: str | None
    redaction: list[Stamp] | None = None  # the erasures that redacted its text, when any did
    critical: bool
    line: str


def shaped(row: KeyedRecord, critical: set[str] | None = None) -> TrailRecord:
    """A stored record in the spec's words."""
    record = row.record
    verb = Verb(record.verb) if record.verb else verb_of(record.action)
    tag = read_tag(record.tag, record.actor, record.action, row.key_agent, row.key_scopes)
    targets = list(record.target_ids or [])
    fields = {**record.model_dump(), "verb": verb.value, "tag": tag, "target_ids": targets,
              "approval": read_approval(record.approval, verb, tag).value,
              "redaction": json.loads(record.redaction) if record.redaction else None,
              "critical": bool(critical and critical.intersection(targets))}
    return TrailRecord(**fields, line=log_line(fields))


class ForgottenMemory(BaseModel):
    id: str
    text: str | None
    archived_at: int | None = Field(description="when a person archived it (none: the decay system did)")
    decay_status: str | None = Field(default=None, description="the status the decay system last recorded")


class ForgottenRow(Row):
    query = "audit/forgotten"
    memories: list[ForgottenMemory]
    records: list[KeyedRecord]


class Forgotten(BaseModel):
    """Why was X forgotten (12.7): the archived memories with every term, and the records that archived, deleted
    or decayed them (or name X), newest first."""

    about: str | None = None
    terms: list[str]
    memories: list[ForgottenMemory]
    records: list[TrailRecord]


class ItemChanges(BaseModel):
    """Who changed an item: its records newest first, the distinct actors first seen first."""

    item: str
    changed: bool
    changes: int
    actors: list[str]
    records: list[TrailRecord]


class CriticalChanges(BaseModel):
    """Has a critical item ever changed: each critical item's records."""

    items: list[ItemChanges]


@dataclass
class Trail:
    db: Database

    def records(self, agent_id: str | None, flt: TrailFilter = TrailFilter()) -> list[TrailRecord]:
        """An agent's records (None: every record, for the admin), newest first."""
        if agent_id is None:
            return [shaped(r) for r in self.db.typed(TrailAllRow, **flt.params())]
        critical = set(critical_items(agent_id))
        return [shaped(r, critical) for r in self.db.typed(TrailRow, agent_id=agent_id, **flt.params())]

    def log(self, agent_id: str | None, flt: TrailFilter = TrailFilter()) -> str:
        """audit.log (12.4): one line per record, oldest first like a log."""
        return "".join(r.line + "\n" for r in reversed(self.records(agent_id, flt)))

    def forgotten(self, agent_id: str, terms: list[str], limit: int = 50, *, about: str | None = None) -> Forgotten:
        """Why was X forgotten (`about`, searched as `terms`): its archived memories and the records that archived,
        deleted or decayed them (or name X), newest first."""
        rows = self.db.typed(ForgottenRow, agent_id=agent_id, terms=[t.lower() for t in terms],
                             verbs=[v.value for v in FORGOTTEN], actions=actions_of(FORGOTTEN), limit=min(limit, LIMIT))
        row = rows[0] if rows else ForgottenRow(memories=[], records=[])
        critical = set(critical_items(agent_id))
        return Forgotten(about=about, terms=terms, memories=sorted(row.memories, key=lambda m: -(m.archived_at or 0)),
                         records=[shaped(r, critical) for r in row.records])

    def reflection(self, agent_id: str, reflection_id: str) -> list[TrailRecord]:
        """What one reflection did: its proposal, its decision and every change applied under its tag."""
        tagged = self.records(agent_id, TrailFilter(tag_prefix=f"reflection:{reflection_id}", limit=LIMIT))
        about = self.records(agent_id, TrailFilter(items=[reflection_id], limit=LIMIT))
        seen = {r.id for r in tagged}
        return sorted(tagged + [r for r in about if r.id not in seen], key=lambda r: (-r.at, r.id))

    def item(self, agent_id: str, item_id: str, limit: int = LIMIT) -> ItemChanges:
        """Who changed an item, and when: its records newest first and the distinct actors, first seen first."""
        records = self.records(agent_id, TrailFilter(items=[item_id], limit=limit))
        actors: list[str] = []
        for r in reversed(records):
            if r.tag not in actors:
                actors.append(r.tag)
        return ItemChanges(item=item_id, changed=bool(records), changes=len(records), actors=actors, records=records)

    def critical(self, agent_id: str) -> CriticalChanges:
        """Has a critical item ever changed: each critical item's records."""
        return CriticalChanges(items=[self.item(agent_id, i) for i in critical_items(agent_id)])
