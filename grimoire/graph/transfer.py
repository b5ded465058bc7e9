"""Export and import of one agent's knowledge as JSON lines: back it up, move it, hand it on.

Line 1 is a header; then one line per node (labels, id, properties, embedding) and one per
relationship (type, endpoints, properties). Labels and relationship types on import must be
the project's own; property names must be plain identifiers. A file with any bad line is
refused whole, before anything is written.
"""

from __future__ import annotations

import json
import logging
import math
from collections import defaultdict
from collections.abc import Iterable, Iterator
from enum import StrEnum
from typing import Annotated, Any, Literal

from neo4j.exceptions import ClientError
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator, model_validator

from grimoire.graph.agents import AgentOut
from grimoire.graph.audit import (
    Audit,
    DeleteNodes,
    DeleteRelationships,
    Endpoints,
    NodeLabel,
    RelationshipType,
    RevertOp,
    SetProperties,
    changed,
)
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.db.vector_epoch import vectors_changed
from grimoire.graph.errors import Invalid
from grimoire.graph.events import ingest_result
from grimoire.graph.events import write as write_events
from grimoire.graph.ids import now_ms
from grimoire.graph.knowledge.answers import EntryOut, StoredDecisionOut
from grimoire.graph.model.common import ID_PATTERN
from grimoire.graph.model.crystal.privacy import MemoryScope, category_type, private_scope
from grimoire.graph.model.enums import EntityKind, EntryCategory
from grimoire.graph.model.episode import EpisodeOut
from grimoire.graph.model.rows import Properties
from grimoire.graph.model.vectors import Vector, vector_problem

log = logging.getLogger(__name__)
FORMAT = "grimoire-export"
VERSION = 1
BATCH = 1_000
MAX_LINE = 2 * 1024 * 1024


class BaseLabel(StrEnum):
    Agent = "Agent"
    Episode = "Episode"
    Entry = "Entry"
    Entity = "Entity"
    AdmissionDecision = "AdmissionDecision"


ANSWERS: dict[BaseLabel, type[BaseModel]] = {
    BaseLabel.Agent: AgentOut, BaseLabel.Entry: EntryOut, BaseLabel.Episode: EpisodeOut,
    BaseLabel.AdmissionDecision: StoredDecisionOut}
"""The model each kind of node is read back as (an Entity has none of its own)."""


class RelType(StrEnum):
    MENTIONS = "MENTIONS"
    DERIVED_FROM = "DERIVED_FROM"
    DECIDED = "DECIDED"
    PROVENANCE = "PROVENANCE"  # a crystal's lineage (graph/crystals/provenance.py): kept across a move


EXTRA_LABELS = {c.value for c in EntryCategory} | {k.value for k in EntityKind} | {"Skill"}
_PROPERTY_NAME = r"^[a-z_][a-z0-9_]{0,63}$"
Scalar = str | bool | int | float


def _valid_value(value: Any) -> Any:
    items = value if isinstance(value, list) else [value]
    for x in items:
        if isinstance(x, float) and not math.isfinite(x):
            raise ValueError("numbers must be finite")
        if not isinstance(x, str | bool | int | float):
            raise ValueError("property values are scalars or lists of scalars")
    return value


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @field_validator("properties", check_fields=False)
    @classmethod
    def _properties(cls, props: dict[str, Any]) -> Properties:
        import re

        for key, value in props.items():
            if not re.match(_PROPERTY_NAME, key):
                raise ValueError(f"property name {key!r} is not a plain identifier")
            _valid_value(value)
        return props


class Header(_Record):
    record: Literal["header"]
    format: Literal["grimoire-export"]
    version: Literal[1]
    agent_id: Annotated[str, Field(pattern=ID_PATTERN)]
    exported_at: int


class NodeRecord(_Record):
    record: Literal["node"]
    labels: Annotated[list[str], Field(min_length=1, max_length=4)]
    id: Annotated[str, Field(min_length=1, max_length=256)]
    properties: dict[str, Any]
    embedding: Vector | None = None

    @field_validator("labels")
    @classmethod
    def _labels(cls, labels: list[str]) -> list[str]:
        bases = [x for x in labels if x in BaseLabel.__members__]
        if len(bases) != 1:
            raise ValueError(f"a node needs exactly one of {[b.value for b in BaseLabel]}")
        unknown = [x for x in labels if x not in BaseLabel.__members__ and x not in EXTRA_LABELS]
        if unknown:
            raise ValueError(f"unknown labels {unknown}")
        return labels

    @property
    def base(self) -> BaseLabel:
        return next(BaseLabel(x) for x in self.labels if x in BaseLabel.__members__)

    @model_validator(mode="after")
    def _answerable(self) -> NodeRecord:
        """A node is read back as its answer model (an agent, an entry, an episode, a decision): one whose properties
        that model refuses (a kind it does not know, a generation of 1.5) is refused here, not a 500 at every read."""
        model = ANSWERS.get(self.base)
        if model is not None:
            try:
                model.model_validate({**self.properties, "id": self.id})
            except ValidationError as exc:
                raise ValueError(f"a {self.base.value} this service could not read back: "
                                 f"{exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}") from None
        return self


class RelRecord(_Record):
    record: Literal["relationship"]
    type: RelType
    from_: Annotated[str, Field(alias="from", min_length=1, max_length=256)]
    from_label: BaseLabel
    to: Annotated[str, Field(min_length=1, max_length=256)]
    to_label: BaseLabel
    properties: dict[str, Any] = Field(default_factory=dict)

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


Record = Annotated[Header | NodeRecord | RelRecord, Field(discriminator="record")]
_adapter: TypeAdapter[Header | NodeRecord | RelRecord] = TypeAdapter(Record)


class BadExport(Invalid):
    """A line of an import is not a valid record, or the database refused it; nothing was written."""

    def __init__(self, problem: str) -> None:
        super().__init__(f"not imported: {problem}")


def _base_of(labels: list[str]) -> str:
    return next(x for x in labels if x in BaseLabel.__members__)


def export_agent(db: Database, agent_id: str) -> Iterator[str]:
    yield json.dumps({"record": "header", "format": FORMAT, "version": VERSION, "agent_id": agent_id,
                      "exported_at": now_ms()})
    for row in db.fetch("transfer/export_nodes", agent_id=agent_id):
        embedding = row["embedding"]
        yield json.dumps({"record": "node", "labels": sorted(row["labels"]), "id": row["id"],
                          "properties": row["properties"],
                          "embedding": list(embedding) if embedding is not None else None}, sort_keys=True)
    for row in db.fetch("transfer/export_relationships", agent_id=agent_id):
        yield json.dumps({"record": "relationship", "type": row["type"], "from": row["from"],
                          "from_label": _base_of(row["from_labels"]), "to": row["to"],
                          "to_label": _base_of(row["to_labels"]), "properties": row["properties"]}, sort_keys=True)


def parse(lines: Iterable[str], dimension: int | None = None) -> tuple[Header, list[NodeRecord], list[RelRecord]]:
    """Every record validated, embeddings against the index's dimension too, before anything is written."""
    header: Header | None = None
    nodes: list[NodeRecord] = []
    rels: list[RelRecord] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if len(line) > MAX_LINE:
            raise BadExport(f"line {number}: longer than {MAX_LINE} characters")
        try:
            record = _adapter.validate_json(line)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise BadExport(f"line {number}: {where}: {first['msg']}") from None
        if isinstance(record, Header):
            if number != 1 and header is None and (nodes or rels):
                raise BadExport(f"line {number}: the header must come first")
            header = record
        elif header is None:
            raise BadExport(f"line {number}: the header must come first")
        elif isinstance(record, NodeRecord):
            problem = vector_problem(record.embedding, dimension) if record.embedding is not None else None
            if problem is not None:
                raise BadExport(f"line {number}: embedding: {problem}")
            nodes.append(record)
        else:
            rels.append(record)
    if header is None:
        raise BadExport("empty: no header line")
    return header, nodes, rels


def _import_revert(tx: Tx, by_label: dict[BaseLabel, list[dict[str, Any]]],
                   by_type: dict[tuple[RelType, BaseLabel, BaseLabel], list[dict[str, Any]]]) -> list[RevertOp]:
    """What undoes an import, read before it writes: the relationships it creates between nodes that are
    there already deleted, the previous values of the properties it replaces on those nodes set back, the
    nodes it creates deleted (with their relationships). Not kept: the embeddings and properties of
    relationships it replaces, the extra labels it adds."""
    keys: list[RevertOp] = []
    for (rel_type, from_label, to_label), rows in by_type.items():
        new: dict[str, list[str]] = defaultdict(list)
        for r in tx.run(cypher.query("audit/import_relationships_before"), type=rel_type.value,
                        from_label=from_label.value, to_label=to_label.value, rows=rows):
            new[r["from"]].append(r["to"])
        keys.append(DeleteRelationships(type=RelationshipType(rel_type.value), keys=[
            Endpoints(start_label=NodeLabel(from_label.value), start_id=start, end_ids=ends)
            for start, ends in new.items()]))
    restored: list[RevertOp] = []
    created: list[RevertOp] = []
    for label, rows in by_label.items():
        after = {row["id"]: {**row["properties"], "id": row["id"]} for row in rows}
        found = {r["id"]: r["props"] for r in tx.run(cypher.query("audit/import_nodes_before"), label=label.value,
                                                     ids=list(after))}
        restored += [SetProperties(label=NodeLabel(label.value), id=i, before=changed(props, after[i]))
                     for i, props in found.items()]
        created.append(DeleteNodes(label=NodeLabel(label.value), ids=[i for i in after if i not in found]))
    return [*keys, *restored, *created]


class Imported(BaseModel):
    agent_id: str
    nodes: int
    relationships: int
    audit_ids: list[str]
    relationships_skipped: int


def import_records(db: Database, lines: Iterable[str], *, actor: str, dimension: int | None = None,
                   memory_scope: MemoryScope = MemoryScope.private) -> Imported:
    """Restore an export, all or nothing: every batch (1,000 rows each) runs in one transaction, so
    a refusal half-way (by the database, or the connection dropping) leaves nothing behind. MERGE
    by id, so importing twice changes nothing. A memory crystal exported wider than private (under the
    as_written rule) comes back private under the private rule: an import never widens one."""
    header, nodes, rels = parse(lines, dimension)
    by_label: dict[BaseLabel, list[dict[str, Any]]] = defaultdict(list)
    # Agents first, so the owner exists before its items.
    for n in sorted(nodes, key=lambda n: n.base != BaseLabel.Agent):
        props, scope = n.properties, n.properties.get("scope")
        if isinstance(scope, str) and private_scope(_semantic(n.base, props), scope, memory_scope) != scope:
            props = {**props, "scope": "private", "requested_scope": props.get("requested_scope") or scope}
        by_label[n.base].append({"id": n.id, "properties": props, "embedding": n.embedding,
                                 "extra_labels": [x for x in n.labels if x not in BaseLabel.__members__]})
    by_type: dict[tuple[RelType, BaseLabel, BaseLabel], list[dict[str, Any]]] = defaultdict(list)
    for r in rels:
        by_type[(r.type, r.from_label, r.to_label)].append({"from": r.from_, "to": r.to, "properties": r.properties})
    batches: list[tuple[str, dict[str, Any], list[dict[str, Any]]]] = []
    for label, rows in by_label.items():
        batches += [("transfer/import_nodes", {"label": label.value}, rows[s:s + BATCH])
                    for s in range(0, len(rows), BATCH)]
    for (rel_type, from_label, to_label), rows in by_type.items():
        params = {"type": rel_type.value, "from_label": from_label.value, "to_label": to_label.value}
        batches += [("transfer/import_relationships", params, rows[s:s + BATCH]) for s in range(0, len(rows), BATCH)]
    audit = Audit(action="agent.import", actor=actor, agent_id=header.agent_id)
    clade = next((n.properties.get("clade") for n in nodes if n.base == BaseLabel.Agent and n.id == header.agent_id),
                 None)

    def work(tx: Tx) -> dict[str, int]:
        revert = _import_revert(tx, by_label, by_type)  # read before anything is written
        written = {"nodes": 0, "relationships": 0}
        for statement, params, rows in batches:
            result = tx.run(cypher.query(statement), rows=rows, **params).single()
            written["relationships" if "relationships" in statement else "nodes"] += int(result[0]) if result else 0
        vectors_changed(tx)  # an import replaces the vectors of items it finds by id
        audit.write(tx, [n.id for n in nodes], f"imported {written['nodes']} nodes and {written['relationships']} "
                    f"relationships", revert)
        write_events(tx, [ingest_result(header.agent_id, clade, source="import", stage="import", outcome={
            **written, "relationships_skipped": len(rels) - written["relationships"]})])
        return written

    try:
        counts = db.write(work)
    except ClientError as exc:  # e.g. a list mixing types, which Neo4j cannot store: nothing was written
        raise BadExport(f"refused by the database, nothing written: {exc.message}") from None
    log.info("imported %d nodes and %d relationships of agent %s (%d skipped) by %s", counts["nodes"],
             counts["relationships"], header.agent_id, len(rels) - counts["relationships"], actor)
    return Imported(agent_id=header.agent_id, nodes=counts["nodes"], relationships=counts["relationships"],
                    audit_ids=[audit.id], relationships_skipped=len(rels) - counts["relationships"])


def _semantic(base: BaseLabel, props: dict[str, Any]) -> str | None:
    """A node's crystal type, read from an export written before crystals kept one: an episode's, or an entry's by
    its category (a warning is a fact)."""
    if props.get("semantic_type"):
        return str(props["semantic_type"])
    if base is BaseLabel.Episode:
        return "episode"
    return category_type(props.get("category")) if base is BaseLabel.Entry else None
