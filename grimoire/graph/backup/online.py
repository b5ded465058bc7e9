"""The online backup of the whole store, and its restore into an empty database.

A backup is gzipped JSON lines: a header, the schema (each constraint and index with the statement that creates
it again), every node (its number in the file, labels, properties, vectors apart), every relationship (the numbers
of its endpoints, type, properties), and an end line with the counts: a file without it is cut short and is
refused. Nodes and relationships are read in one read transaction, streamed by the driver in batches; the file is
written beside its name and renamed at the end, so a half-written backup never has the name asked for.

A restore refuses a database that holds any node, checks the whole file before it writes, makes the schema the
backup's (an empty database may hold the project's schema, or another), writes the nodes and relationships in
transactions of 1,000 rows, then creates the constraints and indexes and waits until each is ONLINE (the vector
and full-text indexes built from the restored data in one pass). Nodes are not matched by Neo4j's internal ids,
which a restore cannot keep: each carries its number in the file under a label of its own while the
relationships are written, removed at the end; what identifies an item is its own `id` property, restored as it
was. The restore writes no audit record of its own: the trail restored is the one backed up, and an extra
record would make the restored store differ from it.

Neo4j reads are read-committed, not a snapshot: for an exact copy take the backup with the service stopped or
idle (the offline dump, graph/backup/offline.py, needs the server stopped anyway).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Annotated, Any, Literal, TypedDict

from neo4j import ManagedTransaction, Transaction
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from grimoire.graph.backup import values
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.ids import now_ms
from grimoire.graph.model.rows import Params, Properties

FORMAT = "grimoire-backup"
VERSION = 1
BATCH = 1_000
SCHEMA_WAIT_SECONDS = 24 * 3600  # a vector index over millions of items takes hours on a small machine

Progress = Callable[[str, int, int], None]
"""(stage, done, total): called after each batch."""


class BackupError(Exception):
    """A backup file that cannot be restored (not one, cut short, written by a newer version); nothing written."""


class RestoreRefused(BackupError):
    """The database is not empty: a restore writes only into an empty one."""


@dataclass(frozen=True)
class BackupReport:
    path: Path
    nodes: int
    relationships: int
    constraints: int
    indexes: int
    bytes: int
    seconds: float


@dataclass(frozen=True)
class RestoreReport:
    nodes: int
    relationships: int
    constraints: int
    indexes: int
    seconds: float
    schema_seconds: float


class Printer:
    """A long backup or restore's progress on stderr: a line a stage starts and ends, and at most one every few
    seconds between."""

    EVERY_SECONDS = 5.0

    def __init__(self, what: str) -> None:
        self.what = what
        self.stage = ""
        self.done = -1
        self.last = 0.0

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if stage == self.stage and done < total and (
                now - self.last < self.EVERY_SECONDS or (done == self.done and now - self.last < 60)):
            return
        self.stage, self.done, self.last = stage, done, now
        unit = " ONLINE" if stage == "indexes" else ""
        print(f"[{self.what}] {stage}: {done:,}/{total:,}{unit}", file=sys.stderr, flush=True)


def _quiet(stage: str, done: int, total: int) -> None:
    return None


def _line(out: IO[str], record: Params) -> None:
    out.write(json.dumps(record, separators=(",", ":"), allow_nan=False))
    out.write("\n")


class SchemaObject(BaseModel):
    """A constraint or an index, with the statement that creates it again (as SHOW prints it)."""

    name: str
    type: str
    statement: str

    @property
    def key(self) -> tuple[str, str]:
        return self.name, self.statement


def _schema(db: Database) -> tuple[list[SchemaObject], list[SchemaObject]]:
    return ([SchemaObject.model_validate(r) for r in db.rows("backup/constraints")],
            [SchemaObject.model_validate(r) for r in db.rows("backup/indexes")])


def backup(db: Database, path: Path, *, progress: Progress = _quiet, compresslevel: int = 3) -> BackupReport:
    started = time.monotonic()
    counts = db.rows("backup/counts")[0]
    server = db.rows("backup/version")[0]
    constraints, indexes = _schema(db)
    total_nodes, total_rels = int(counts["nodes"]), int(counts["relationships"])
    partial = path.with_name(path.name + ".partial")
    numbers: dict[str, int] = {}
    written = {"nodes": 0, "relationships": 0}

    def read_all(tx: Transaction, out: IO[str]) -> None:
        for row in tx.run(cypher.query("backup/nodes")):
            key = numbers.setdefault(row["element"], len(numbers))
            plain, vectors = values.split(row["properties"])
            _line(out, {"record": "node", "key": key, "labels": sorted(row["labels"]), "properties": plain,
                        "vectors": vectors})
            written["nodes"] += 1
            if written["nodes"] % BATCH == 0:
                progress("nodes", written["nodes"], total_nodes)
        progress("nodes", written["nodes"], max(total_nodes, written["nodes"]))
        for row in tx.run(cypher.query("backup/relationships")):
            start, end = numbers.get(row["start"]), numbers.get(row["end"])
            if start is None or end is None:
                continue  # an endpoint created after the node read (a busy store): not in this backup
            plain, vectors = values.split(row["properties"])
            _line(out, {"record": "relationship", "start": start, "end": end, "type": row["type"],
                        "properties": plain, "vectors": vectors})
            written["relationships"] += 1
            if written["relationships"] % BATCH == 0:
                progress("relationships", written["relationships"], total_rels)
        progress("relationships", written["relationships"], max(total_rels, written["relationships"]))

    try:
        # the whole store (confidential items, key hashes, the trail): readable by its owner alone
        fd = os.open(partial, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)
        os.fchmod(fd, 0o600)  # a partial file left by an earlier run keeps the mode it had
        with (os.fdopen(fd, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=compresslevel) as zipped,
              io.TextIOWrapper(zipped, encoding="utf-8") as out):
            _line(out, {"record": "header", "format": FORMAT, "version": VERSION, "created_at": now_ms(),
                        "database": db.name, "neo4j": server["version"], "edition": server["edition"],
                        "nodes": total_nodes, "relationships": total_rels})
            for c in constraints:
                _line(out, {"record": "constraint", **c.model_dump()})
            for i in indexes:
                _line(out, {"record": "index", **i.model_dump()})
            # One transaction, not a managed one: a retry would write the nodes read so far a second time.
            with db.session(read=True, fetch_size=BATCH) as s, s.begin_transaction() as tx:
                read_all(tx, out)
            _line(out, {"record": "end", **written, "constraints": len(constraints), "indexes": len(indexes)})
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return BackupReport(path=path, nodes=written["nodes"], relationships=written["relationships"],
                        constraints=len(constraints), indexes=len(indexes), bytes=path.stat().st_size,
                        seconds=time.monotonic() - started)


# ---------------------------------------------------------------- restore


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HeaderLine(_Line):
    record: Literal["header"]
    format: Literal["grimoire-backup"]
    version: Literal[1]
    created_at: int
    database: str
    neo4j: str
    edition: str
    nodes: int
    relationships: int


class SchemaLine(_Line):
    record: Literal["constraint", "index"]
    name: str
    type: str
    statement: str

    @property
    def runnable(self) -> bool:
        """One CREATE of an index or constraint, as SHOW printed it: run as written."""
        text = self.statement
        return (text.startswith("CREATE ") and ";" not in text
                and (" INDEX " in text or text.startswith("CREATE CONSTRAINT")))


class NodeLine(_Line):
    record: Literal["node"]
    key: int
    labels: list[str]
    properties: dict[str, Any]  # values as values.encode wrote them
    vectors: dict[str, list[float]]


class RelLine(_Line):
    record: Literal["relationship"]
    start: int
    end: int
    type: str
    properties: dict[str, Any]  # values as values.encode wrote them
    vectors: dict[str, list[float]]


class EndLine(_Line):
    record: Literal["end"]
    nodes: int
    relationships: int
    constraints: int
    indexes: int


Line = Annotated[HeaderLine | SchemaLine | NodeLine | RelLine | EndLine, Field(discriminator="record")]
_lines: TypeAdapter[HeaderLine | SchemaLine | NodeLine | RelLine | EndLine] = TypeAdapter(Line)


class NodeRow(TypedDict):
    key: int
    labels: list[str]
    properties: Properties
    vectors: dict[str, list[float]]


class RelRow(TypedDict):
    start: int
    end: int
    type: str
    properties: Properties
    vectors: dict[str, list[float]]


@dataclass(frozen=True)
class Contents:
    header: HeaderLine
    end: EndLine
    constraints: list[SchemaLine]
    indexes: list[SchemaLine]


def _records(path: Path) -> Iterator[tuple[int, HeaderLine | SchemaLine | NodeLine | RelLine | EndLine]]:
    number = 0
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            for number, text in enumerate(f, start=1):  # noqa: B007  # the line number is reported on error
                if not text.strip():
                    continue
                raw = json.loads(text)
                if number == 1 and (not isinstance(raw, dict) or raw.get("record") != "header"
                                    or raw.get("format") != FORMAT):
                    raise BackupError(f"{path}: not a Grimoire backup (line 1 is no {FORMAT} header)")
                if number == 1 and raw.get("version") != VERSION:
                    raise BackupError(f"{path}: backup format version {raw.get('version')}; this Grimoire reads "
                                      f"version {VERSION}")
                yield number, _lines.validate_python(raw)
    except (OSError, EOFError) as exc:  # not gzip, or cut short inside the compressed stream
        raise BackupError(f"{path}: not a readable backup ({exc})") from None
    except json.JSONDecodeError as exc:
        raise BackupError(f"{path}: line {number}: not JSON ({exc.msg})") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        raise BackupError(f"{path}: line {number}: {'.'.join(str(p) for p in first['loc'])}: {first['msg']}") from None


def check(path: Path) -> Contents:
    """The whole file read once before anything is written: its header, that every line is a known record with
    a statement to run or numbered endpoints among the nodes before it, and the end line with matching counts."""
    header: HeaderLine | None = None
    end: EndLine | None = None
    constraints: list[SchemaLine] = []
    indexes: list[SchemaLine] = []
    nodes = rels = 0
    seen_nodes: set[int] = set()
    for number, rec in _records(path):
        if end is not None:
            raise BackupError(f"{path}: line {number}: a record after the end line")
        if isinstance(rec, HeaderLine):
            if header is not None:
                raise BackupError(f"{path}: line {number}: a second header")
            header = rec
        elif isinstance(rec, SchemaLine):
            if not rec.runnable:
                raise BackupError(f"{path}: line {number}: not a CREATE statement of an index or constraint")
            (constraints if rec.record == "constraint" else indexes).append(rec)
        elif isinstance(rec, NodeLine):
            seen_nodes.add(rec.key)
            nodes += 1
        elif isinstance(rec, RelLine):
            if rec.start not in seen_nodes or rec.end not in seen_nodes:
                raise BackupError(f"{path}: line {number}: a relationship between nodes the file does not hold")
            rels += 1
        else:
            end = rec
    if header is None:
        raise BackupError(f"{path}: empty")
    if end is None:
        raise BackupError(f"{path}: cut short (no end line): the backup did not finish writing")
    if (end.nodes, end.relationships) != (nodes, rels):
        raise BackupError(f"{path}: the end line counts {end.nodes} nodes and {end.relationships} relationships, "
                          f"the file holds {nodes} and {rels}")
    return Contents(header=header, end=end, constraints=constraints, indexes=indexes)


def _prepare_schema(db: Database, contents: Contents) -> tuple[list[SchemaLine], list[SchemaLine]]:
    """Drop what the database holds that the backup does not hold as it is (it is empty: nothing to rebuild);
    the lookup indexes the backup holds created now (Neo4j's label and type scans), the rest returned to create
    after the data."""
    want = {(r.name, r.statement) for r in (*contents.constraints, *contents.indexes)}
    have_constraints, _ = _schema(db)
    for c in have_constraints:
        if c.key not in want:
            db.run("backup/drop_constraint", name=c.name)
    for i in _schema(db)[1]:  # without the indexes the dropped constraints owned
        if i.key not in want:
            db.run("schema/drop_index", name=i.name)
    kept = {o.key for o in (*_schema(db)[0], *_schema(db)[1])}
    for line in contents.indexes:
        if line.type == "LOOKUP" and (line.name, line.statement) not in kept:
            _create(db, line.statement)
    kept = {o.key for o in (*_schema(db)[0], *_schema(db)[1])}
    return ([c for c in contents.constraints if (c.name, c.statement) not in kept],
            [i for i in contents.indexes if (i.name, i.statement) not in kept])


def _create(db: Database, statement: str) -> None:
    """A schema statement from the backup, run as written: DDL takes no parameters for what it creates."""
    with db.session() as s:
        s.run(statement).consume()  # checked by SchemaLine.runnable


def _write(db: Database, name: str, rows: list[NodeRow] | list[RelRow]) -> int:
    def work(tx: ManagedTransaction) -> int:
        record = tx.run(cypher.query(name), rows=rows).single()
        return int(record["written"]) if record else 0

    return db.write(work)


def _node_row(rec: NodeLine) -> NodeRow:
    return {"key": rec.key, "labels": rec.labels, "vectors": rec.vectors,
            "properties": {k: values.decode(v) for k, v in rec.properties.items()}}


def _rel_row(rec: RelLine) -> RelRow:
    return {"start": rec.start, "end": rec.end, "type": rec.type, "vectors": rec.vectors,
            "properties": {k: values.decode(v) for k, v in rec.properties.items()}}


def refuse_unless_empty(db: Database) -> None:
    nodes = int(db.rows("backup/is_empty")[0]["nodes"])
    if nodes:
        raise RestoreRefused(
            f"the database {db.name!r} holds {nodes:,} nodes: a restore writes only into an empty database. Restore "
            "before the service first starts on it (it seeds nodes), into a fresh server, or empty this one first "
            "(stop the service; MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS), then run it again.")


def wait_for_indexes(db: Database, names: set[str], progress: Progress, timeout: float) -> None:
    """Until every named index is ONLINE, reporting how many are; one FAILED is an error."""
    deadline = time.monotonic() + timeout
    while names:
        rows = db.rows("schema/index_progress", names=sorted(names))
        failed = [r["name"] for r in rows if r["state"] == "FAILED"]
        if failed:
            raise BackupError(f"index {', '.join(failed)} FAILED to build: see Neo4j's log")
        done = sum(1 for r in rows if r["state"] == "ONLINE")
        progress("indexes", done, len(rows))
        if done == len(rows):
            return
        if time.monotonic() > deadline:
            raise BackupError(f"indexes not ONLINE after {timeout:.0f}s: "
                              f"{', '.join(r['name'] for r in rows if r['state'] != 'ONLINE')}")
        time.sleep(1.0)


def restore(db: Database, path: Path, *, progress: Progress = _quiet,
            schema_wait_seconds: float = SCHEMA_WAIT_SECONDS) -> RestoreReport:
    started = time.monotonic()
    refuse_unless_empty(db)
    contents = check(path)
    constraints, indexes = _prepare_schema(db, contents)
    db.run("backup/restore_key_index")
    wait_for_indexes(db, {"grimoire_restore_key"}, _quiet, schema_wait_seconds)
    total_nodes, total_rels = contents.end.nodes, contents.end.relationships
    written = {"nodes": 0, "relationships": 0}
    nodes: list[NodeRow] = []
    rels: list[RelRow] = []

    def flush_nodes() -> None:
        if nodes:
            _flush("backup/restore_nodes", nodes, "nodes")
            nodes.clear()

    def flush_rels() -> None:
        if rels:
            _flush("backup/restore_relationships", rels, "relationships")
            rels.clear()

    def _flush(name: str, batch: list[NodeRow] | list[RelRow], stage: str) -> None:
        count = _write(db, name, batch)
        if count != len(batch):
            raise BackupError(f"wrote {count} of a batch of {len(batch)} {stage}")
        written[stage] += count
        progress(stage, written[stage], total_nodes if stage == "nodes" else total_rels)

    for _, rec in _records(path):
        if isinstance(rec, NodeLine):
            nodes.append(_node_row(rec))
            if len(nodes) >= BATCH:
                flush_nodes()
        elif isinstance(rec, RelLine):
            flush_nodes()  # every node is written before the first relationship (the file holds them so)
            rels.append(_rel_row(rec))
            if len(rels) >= BATCH:
                flush_rels()
    flush_nodes()
    flush_rels()
    while int(db.run("backup/restore_unmark", batch=BATCH)[0]["unmarked"]):
        pass
    db.run("backup/restore_key_index_drop")
    schema_started = time.monotonic()
    for line in (*constraints, *indexes):
        _create(db, line.statement)
    wait_for_indexes(db, {o.name for o in (*_schema(db)[0], *_schema(db)[1])}, progress, schema_wait_seconds)
    return RestoreReport(nodes=written["nodes"], relationships=written["relationships"],
                         constraints=len(contents.constraints), indexes=len(contents.indexes),
                         seconds=time.monotonic() - started, schema_seconds=time.monotonic() - schema_started)
