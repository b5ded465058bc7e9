"""Retention of the trail (../shared/spec/moltbot-memory.md 12.6): the audit log is a rolling window; records
older than it (90 days by default) are summarised into monthly digests — audit-archive.md, in the spec's format —
and pruned, while the version chain (graph/audit/versions.py) keeps every state they named.

A month is folded once all of it is older than the window, so each digest is written once, from every record of
its month: its counts (mutations, files — the graph's items —, reflection sessions by outcome, critical changes,
decay transitions, archival events) and its notable events. The digest is written first, with its own audit
record (MERGE: many records consolidated into one), then the month's records are deleted a batch at a time; a
digest stays incomplete until its last batch is gone, so a job stopped half-way resumes the deletion.

What folding costs: a rollback to a point in time before the folded months is refused (the records that undo
those changes are gone); one item can still be shown at any of its versions."""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from grimoire.graph.audit.alerts import critical_items
from grimoire.graph.audit.records import Audit
from grimoire.graph.audit.revert import Noop
from grimoire.graph.audit.versions import created
from grimoire.graph.audit.vocabulary import Verb, one_line, verb_of
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.ids import now_ms
from grimoire.graph.model.rows import Properties, Row

log = logging.getLogger(__name__)

DAY_MS = 86_400_000
PAGE = 5_000          # records read per page while a month is summarised
DELETE_BATCH = 1_000  # records deleted per transaction
NOTABLE = 12          # notable events a digest lists at most
SERVICE = "_service"  # the digests' owner for the service's own records (no agent id starts with "_")
NOTABLE_VERBS = (Verb.MERGE, Verb.REVERT, Verb.DELETE, Verb.RENAME, Verb.ALERT)


# ---------------------------------------------------------------------------------------------- months


def month_start(ms: int) -> int:
    d = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return int(datetime(d.year, d.month, 1, tzinfo=UTC).timestamp() * 1000)


def next_month(ms: int) -> int:
    d = datetime.fromtimestamp(ms / 1000, tz=UTC)
    year, month = (d.year + 1, 1) if d.month == 12 else (d.year, d.month + 1)
    return int(datetime(year, month, 1, tzinfo=UTC).timestamp() * 1000)


def months(first: int, before: int) -> Iterator[tuple[int, int]]:
    """The whole months from the one holding `first` that end at or before `before`."""
    start = month_start(first)
    while (end := next_month(start)) <= before:
        yield start, end
        start = end


def month_name(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%B %Y")


def month_key(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m")


def day(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d")


# ---------------------------------------------------------------------------------------------- a digest


APPLIED = re.compile(r"(\d+) of (\d+) proposals applied")


def reflection_outcome(summary: str) -> str:
    """An approved reflection's outcome as its record says it (graph/memory/approval.py: "reflection #N approve:
    A of B proposals applied"): partial when fewer were applied than it proposed (approve_part, or items the
    approval skipped), else approved."""
    found = APPLIED.search(summary)
    if "approve_part" in summary or (found and int(found.group(1)) < int(found.group(2))):
        return "partial"
    return "approved"


@dataclass
class Digest:
    """One month of one owner's records, summed up as 12.6's digest."""

    agent_id: str | None
    start: int
    end: int
    mutations: int = 0
    items: set[str] = field(default_factory=set)
    verbs: Counter[str] = field(default_factory=Counter)
    reflections: Counter[str] = field(default_factory=Counter)  # approved, partial, rejected
    critical: int = 0
    notable: list[tuple[int, str]] = field(default_factory=list)
    created_by_day: Counter[int] = field(default_factory=Counter)  # by the day's first millisecond

    @property
    def id(self) -> str:
        return f"{self.agent_id or SERVICE}:{month_key(self.start)}"

    def add(self, record: dict[str, Any], critical: set[str]) -> None:
        verb = Verb(record["verb"]) if record.get("verb") else verb_of(record["action"])
        targets = list(record.get("target_ids") or [])
        self.mutations += 1
        self.items.update(targets)
        self.verbs[verb.value] += 1
        summary = one_line(str(record.get("summary") or ""), 100)
        is_critical = bool(critical.intersection(targets)) and verb is not Verb.ALERT
        if is_critical:
            self.critical += 1
        if record["action"] in ("memory.reflection.decide", "memory.reflection.reject"):
            outcome = "rejected" if verb is Verb.REJECT else reflection_outcome(str(record.get("summary") or ""))
            self.reflections[outcome] += 1
            self.notable.append((record["at"], f"reflection {outcome}: {summary}"))
        elif is_critical:
            self.notable.append((record["at"], f"critical change: {summary}"))
        elif verb in NOTABLE_VERBS:
            self.notable.append((record["at"], f"{verb.value.lower()}: {summary}"))
        if verb is Verb.CREATE:
            self.created_by_day[record["at"] - record["at"] % DAY_MS] += max(1, len(targets))

    def notable_lines(self) -> list[str]:
        """The month's notable events, oldest first: reflections decided, critical changes, merges, reverts,
        deletions and alerts, and the busiest days of new items; at most NOTABLE."""
        events = list(self.notable)
        events += [(d, f"{n} new items") for d, n in self.created_by_day.most_common(3) if n >= 5]
        events.sort(key=lambda e: e[0])  # stable: events of one moment in the order they happened
        if len(events) > NOTABLE:
            events = events[:NOTABLE - 1] + [(events[-1][0], f"… and {len(events) - NOTABLE + 1} more")]
        return [f"- {day(at)}: {text}" for at, text in events]

    def markdown(self) -> str:
        """12.6's monthly digest format."""
        r, decay, archival = self.reflections, self.verbs[Verb.DECAY.value], self.verbs[Verb.ARCHIVE.value]
        lines = [f"# Audit Digest — {month_name(self.start)}", "## Summary",
                 f"- {self.mutations} total mutations across {len(self.items)} files",
                 f"- {sum(r.values())} reflection sessions ({r['approved']} approved, {r['partial']} partial, "
                 f"{r['rejected']} rejected)",
                 f"- {self.critical} critical file changes",
                 f"- {decay} decay transitions, {archival} archival events",
                 "## Notable Events", *(self.notable_lines() or ["- none"])]
        return "\n".join(lines) + "\n"

    def row(self, folded_at: int, audit_id: str) -> Properties:
        r = self.reflections
        return {"id": self.id, "agent_id": self.agent_id, "month": month_key(self.start), "start": self.start,
                "end": self.end, "markdown": self.markdown(), "mutations": self.mutations, "items": len(self.items),
                "reflections": sum(r.values()), "approved": r["approved"], "partial": r["partial"],
                "rejected": r["rejected"], "critical": self.critical, "decay": self.verbs[Verb.DECAY.value],
                "archival": self.verbs[Verb.ARCHIVE.value],
                "verbs": [f"{v} {n}" for v, n in sorted(self.verbs.items())],
                "notable": self.notable_lines(), "folded_at": folded_at, "audit_id": audit_id}


# ---------------------------------------------------------------------------------------------- folding


@dataclass(frozen=True)
class FoldReport:
    months: int   # owner-months folded into a digest
    records: int  # audit records pruned after their month's digest was written

    def __str__(self) -> str:
        return f"{self.months} months folded into digests, {self.records} records pruned"


def summarise(db: Database, agent_id: str | None, start: int, end: int) -> Digest:
    digest = Digest(agent_id, start, end)
    critical = set(critical_items(agent_id)) if agent_id else set()
    after_at, after_id = -1, ""
    while True:
        rows = db.fetch("audit/fold_page", agent_id=agent_id, start=start, end=end, after_at=after_at,
                        after_id=after_id, limit=PAGE)
        for row in rows:
            digest.add(dict(row), critical)
        if len(rows) < PAGE:
            return digest
        after_at, after_id = rows[-1]["at"], rows[-1]["id"]


def fold_month(db: Database, agent_id: str | None, start: int, end: int, *, actor: str,
               cancelled: Callable[[], bool] = lambda: False) -> int:
    """One owner's month folded: its digest written (once), then its records deleted a batch at a time; how
    many records were deleted."""
    digest_id = Digest(agent_id, start, end).id
    if not db.fetch("audit/digest", id=digest_id):
        digest = summarise(db, agent_id, start, end)
        if digest.mutations == 0:
            return 0
        audit = Audit(action="audit.fold", actor=actor, agent_id=agent_id)

        def write(tx: Tx) -> None:
            row = tx.run(cypher.query("audit/fold_digest"), digest=digest.row(audit.at, audit.id)).single()
            if row is not None and row["written"]:
                audit.write(tx, [digest.id], f"folded {digest.mutations} records of {month_name(start)} into "
                                             f"a digest (older than the audit log's window)",
                            [Noop(reason="the folded records are summarised in the digest; the states they named "
                                         "are kept in the version chain")],
                            created("AuditDigest", [digest.id]))

        db.write(write)
    deleted = 0
    while not cancelled():
        rows = db.run("audit/fold_delete", agent_id=agent_id, start=start, end=end, batch=DELETE_BATCH)
        count = int(rows[0]["deleted"]) if rows else 0
        deleted += count
        if count < DELETE_BATCH:
            db.run("audit/fold_complete", id=digest_id)
            break
    return deleted


def fold(db: Database, retention_days: float, *, now: int | None = None, actor: str = "system:retention",
         cancelled: Callable[[], bool] = lambda: False) -> FoldReport:
    """Every whole month older than the window folded, for every owner (the service's own records too)."""
    before = (now if now is not None else now_ms()) - int(retention_days * DAY_MS)
    folded = records = 0
    for owner in db.fetch("audit/fold_owners", before=before):
        for start, end in months(int(owner["first"]), before):
            if cancelled():
                return FoldReport(folded, records)
            n = fold_month(db, owner["agent_id"], start, end, actor=actor, cancelled=cancelled)
            if not n:
                continue  # a month without records (or folded before)
            folded, records = folded + 1, records + n
            log.info("audit: %s's %s folded into a digest (%d records)", owner["agent_id"] or SERVICE,
                     month_key(start), n)
    return FoldReport(folded, records)


class AuditDigest(BaseModel):
    """One owner's month of records as its digest says it (Digest.row, as written); None: a field a digest
    written before it was kept does not have."""

    id: str
    agent_id: str | None = None
    month: str
    start: int
    end: int
    markdown: str
    mutations: int
    items: int
    reflections: int
    approved: int
    partial: int
    rejected: int
    critical: int
    decay: int
    archival: int
    verbs: list[str] | None = None
    notable: list[str]
    folded_at: int
    audit_id: str
    complete: bool | None = None  # False until the month's last records are deleted
    valid_from: int | None = None
    recorded_at: int | None = None


class DigestRow(Row):
    query = "audit/digests"
    digest: AuditDigest


def digests(db: Database, agent_id: str | None) -> list[AuditDigest]:
    """An owner's digests, newest month first."""
    return [r.digest for r in db.typed(DigestRow, agent_id=agent_id)]


def archive_markdown(db: Database, agent_id: str | None) -> str:
    """audit-archive.md: the monthly digests, oldest first."""
    return "\n".join(d.markdown for d in reversed(digests(db, agent_id)))


def folded_until(db: Database, agent_id: str) -> int | None:
    rows = db.fetch("audit/folded_until", agent_id=agent_id)
    return int(rows[0]["until"]) if rows and rows[0]["until"] is not None else None
