"""Erasure (issue 36): a permanent delete takes every copy of the erased text, everywhere the service keeps one,
while the trail keeps its skeleton.

What an erasure removes is its items (the memories, what hangs off them alone) and the text they held. Copies of
that text live on in the agent's other nodes: audit records (a trigger quoting the user, a summary, the revert
images a rollback would restore), versions, reflections, proposals committed into an erased memory, kept
workspaces, events, monthly digests, decisions, Curator operations, entries, admission decisions and the critical
workspace files (SOUL.md, USER.md, …: a file's checksum is the service's again for its redacted text, so an erasure
raises no tamper alert). `redact`
finds them in one scan of the agent's nodes of those kinds and, in the erasure's transaction:

- replaces every occurrence of an erased text (a memory's text, the message that said it, a proposal's content,
  a removed entity's id, a line of core memory it dropped) with the redaction mark `[erased <time> by <actor>]`;
  a removed entity's name or alias where it stands as a whole word; in a text of several lines (a core block's
  earlier state, a reflection), the lines that hold erased text are removed whole (so a core block restored from
  an older state comes back without them and nothing else changed); JSON (revert images, version states,
  workspaces, events) is walked value by value;
- replaces the trigger and summary of an audit record that names an erased item, and the content of a proposal
  committed into one (with its embedding), as a whole;
- deletes the versions of an erased item, and the co-occurrence inference's counts that name a removed entity;
- stamps each node it redacted with `redaction`: a JSON list, one entry per erasure, `{"redacted": true,
  "erased_at", "erased_by", "erasure" (the erasure's audit record), "items" (the erased ids), "sha256" (per item,
  of its text), "fields" (the properties redacted)}`.

Who, when, the verb, the item ids and the version columns stay, so the trail still answers what happened. A
rollback never restores an erased item (graph/audit/rollback.py reads `erased`)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from grimoire.graph.audit import alerts
from grimoire.graph.audit.vocabulary import iso_minute
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.db.vector_epoch import vectors_changed
from grimoire.graph.model.crystal import payload
from grimoire.graph.model.rows import Properties, Row

ERASED_ACTION = "memory.delete"  # the audit action of an erasure; its target_ids are the erased items
SKELETON = frozenset({"id", "agent_id", "action", "verb", "actor", "channel", "approval", "rollback_id",
                      "session_id", "before_versions", "after_versions", "reverted_by", "redaction", "item_label",
                      "labels", "kind", "type", "status", "store", "block", "at", "recorded_at"})
WHOLE = {"AuditRecord": ("trigger", "summary"), "MemoryProposal": ("content", "trigger")}
MARK_PREFIX = "[erased "  # what the mark starts with: an id redacted to it names an erased item
MIN_WORD = 3  # an entity name shorter than this is no evidence of the erased text


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _encodings(text: str) -> list[str]:
    """A text as it stands in a property: as is, and inside a JSON string (escaped, with and without ASCII)."""
    return list(dict.fromkeys([text, json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1]]))


@dataclass(frozen=True)
class Erasure:
    """One permanent delete: its audit record, who made it and when, the items it erased, the texts they held."""

    id: str
    agent_id: str
    actor: str
    at: int
    ids: Sequence[str]               # the items erased (what the stamp names)
    entities: Sequence[str] = ()     # entities removed with them (their ids are erased text: never named again)
    texts: Sequence[str] = ()        # erased wherever they occur
    words: Sequence[str] = ()        # erased where they stand as whole words (removed entities' names)
    lines: Sequence[str] = ()        # lines of core memory dropped: removed outright
    hashes: Mapping[str, str] = field(default_factory=dict)

    @property
    def mark(self) -> str:
        return f"{MARK_PREFIX}{iso_minute(self.at)} by {self.actor}]"

    def stamp(self, fields: Iterable[str]) -> Properties:
        return {"redacted": True, "erased_at": iso_minute(self.at), "erased_by": self.actor, "erasure": self.id,
                "items": list(self.ids), "sha256": dict(self.hashes), "fields": sorted(fields)}

    def _texts(self) -> list[str]:
        """The erased texts and lines, each also with its white space folded (a copy kept that way: a reasoning
        chain's phases), longest first."""
        found = {v for t in [*self.texts, *self.lines] if t.strip() for v in (t, " ".join(t.split()))}
        return sorted(found, key=len, reverse=True)

    def needles(self) -> list[str]:
        """What the scan looks for, lower-cased (a superset: `scrub` decides)."""
        found = {e.lower() for t in [*self._texts(), *self.words] if t.strip() for e in _encodings(t)}
        return sorted(found, key=len, reverse=True)

    def scrub(self, value: str) -> str:
        """`value` without the erased text: JSON walked leaf by leaf; in a text of several lines (a core block, a
        reflection), each line holding erased text removed whole; elsewhere the erased text replaced by the mark."""
        if value[:1] in "[{":
            try:
                data = json.loads(value)
            except ValueError:
                data = None
            if isinstance(data, list | dict):
                walked = self._walk(data)
                return value if walked == data else json.dumps(walked, ensure_ascii=False)
        if "\n" in value:
            value = "\n".join(line for line in value.split("\n") if not self._holds(line))
        for text in self._texts():
            value = value.replace(text, self.mark)
        for word in self._words():
            value = re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", self.mark, value, flags=re.IGNORECASE)
        return value

    def _walk(self, data: Any) -> Any:
        if isinstance(data, dict):
            return {k: self._walk(v) for k, v in data.items()}
        if isinstance(data, list):
            return [self._walk(v) for v in data]
        return self.scrub(data) if isinstance(data, str) else data

    def _words(self) -> list[str]:
        return sorted({w for w in self.words if len(w.strip()) >= MIN_WORD}, key=len, reverse=True)

    def _holds(self, line: str) -> bool:
        return (any(t in line for t in self._texts())
                or any(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", line, flags=re.IGNORECASE) for w in self._words()))


class RedactedNode(BaseModel):
    label: str = Field(description="the node's kind (AuditRecord, Version, MemoryReflection, ContextAssembly, …)")
    id: str | None
    fields: list[str] = Field(description="the properties whose erased text was replaced by the redaction mark")


def _label(labels: Sequence[str]) -> str:
    for known in ("AuditRecord", "CoreBlockVersion", "EntryVersion", "Version", "MemoryReflection", "MemoryProposal",
                  "ContextAssembly", "ContextDecision", "Event", "AuditDigest", "CuratorOperation", "Entry",
                  "AdmissionDecision", "WorkspaceFile"):
        if known in labels:
            return known
    return labels[0] if labels else "?"


def _names(value: str, ids: Sequence[str]) -> bool:
    return any(i in value for i in ids)


def _redact_injected(value: str, e: Erasure) -> str:
    """A kept workspace's items (JSON): an erased item's text replaced as a whole, the rest scrubbed."""
    try:
        items = json.loads(value)
    except ValueError:
        return e.scrub(value)
    if not isinstance(items, list):
        return e.scrub(value)
    for item in items:
        if isinstance(item, dict) and item.get("id") in e.ids:
            item.update({k: e.mark for k in ("text", "ref") if isinstance(item.get(k), str)})
    return e.scrub(json.dumps(items, ensure_ascii=False))


def redacted_props(label: str, texts: Mapping[str, Any], e: Erasure) -> Properties:
    """The text properties of one node that change, and its stamp; {} when nothing does."""
    named = [*e.ids, *e.entities]
    linked = any(_names(v, named) for vs in texts.values() for v in (vs if isinstance(vs, list) else [vs])
                 if isinstance(v, str))
    if label == "MemoryProposal":
        linked = texts.get("memory_id") in e.ids
    out: dict[str, Any] = {}
    for k, v in texts.items():
        if k in SKELETON or v is None:
            continue
        if linked and k in WHOLE.get(label, ()):
            new: Any = e.mark
        elif label == "ContextAssembly" and k == "injected" and isinstance(v, str):
            new = _redact_injected(v, e)
        elif isinstance(v, list):
            new = [e.scrub(x) if isinstance(x, str) else x for x in v]
        else:
            new = e.scrub(v) if isinstance(v, str) else v
        if new != v:
            out[k] = new
    if not out:
        return {}
    before = json.loads(texts["redaction"]) if isinstance(texts.get("redaction"), str) else []
    out["redaction"] = json.dumps([*before, e.stamp(out)])
    return out


def chain_digest(chain: Mapping[str, Any]) -> str:
    """A reasoning chain's hash (graph/context/reasoning.py): sha256 of its provider, model, content and raw blocks."""
    body = {k: chain.get(k) for k in ("provider", "model", "content", "raw_blocks")}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def rehashed(reasoning: str) -> tuple[str, str | None]:
    """A redacted reasoning chain (JSON) with its hash computed again: no fingerprint of the erased text is kept."""
    try:
        chain = json.loads(reasoning)
    except ValueError:
        return reasoning, None
    if not isinstance(chain, dict):
        return reasoning, None
    chain["hash"] = chain_digest(chain)
    return json.dumps(chain, ensure_ascii=False), chain["hash"]


def redact(tx: Tx, e: Erasure) -> tuple[list[RedactedNode], list[RedactedNode]]:
    """Every copy of the erased text in the agent's records, redacted in `tx`; the erased items' versions deleted.
    What was redacted, and what was removed."""
    rows = list(tx.run(cypher.query("audit/redact_candidates"), agent_id=e.agent_id, needles=e.needles(),
                       ids=[*e.ids, *e.entities]))
    writes, doomed, redacted, removed = [], [], [], []
    for row in rows:
        label, texts = _label(row["labels"]), dict(row["texts"])
        if "Version" in row["labels"] and texts.get("item_id") in {*e.ids, *e.entities}:
            doomed.append(row["eid"])
            removed.append(RedactedNode(label=label, id=row["id"], fields=["*"]))
            continue
        props = redacted_props(label, texts, e)
        if props and label == "WorkspaceFile" and isinstance(props.get("content"), str):
            props["checksum"] = alerts.file_checksum(props["content"])  # the service's own change: no tamper alert
        if props and label == "Entry" and isinstance(props.get("content"), str):
            props["content_hash"] = payload.content_hash(props["content"])  # no fingerprint of the erased text
        if props and label == "ContextDecision" and isinstance(props.get("reasoning"), str):
            props["reasoning"], props["reasoning_hash"] = rehashed(props["reasoning"])
        if props:
            writes.append({"eid": row["eid"], "props": props,
                           "unembed": label == "MemoryProposal" and texts.get("memory_id") in e.ids})
            changed = sorted(k for k in props if k != "redaction")
            redacted.append(RedactedNode(label=label, id=row["id"], fields=changed))
    if writes or doomed:
        tx.run(cypher.query("audit/redact_apply"), rows=writes, doomed=doomed).consume()
    if e.entities:  # the co-occurrence counts that name a removed entity (its id is erased text)
        tx.run(cypher.query("audit/erase_cooccurrence"), entities=list(e.entities)).consume()
    vectors_changed(tx)  # no replica keeps an erased item's vector past its next ranking
    return redacted, removed


class ErasureRow(Row):
    query = "audit/erased"
    record: str
    at: int
    actor: str
    ids: list[str] | None


class Erased(BaseModel):
    """An erased item: when, by whom, and the erasure's audit record."""

    id: str
    erased_at: str
    erased_by: str
    erasure: str


def erased(db: Database, agent_id: str) -> dict[str, Erased]:
    """The agent's erased items by id (a rollback restores none of them)."""
    out: dict[str, Erased] = {}
    for row in db.typed(ErasureRow, agent_id=agent_id, action=ERASED_ACTION):
        for i in row.ids or []:
            out.setdefault(i, Erased(id=i, erased_at=iso_minute(row.at), erased_by=row.actor, erasure=row.record))
    return out
