"""The Markdown workspace's files (../shared/spec/moltbot-memory.md, sections 3 to 7 and 9.3), without a
database: each file's records, parsed with every problem named by file and line, and rendered back in the
canonical form the export writes (rows in order, tables unpadded, no trailing space); and the workspace as a
whole checked (every registry row with its entity file, every decay entry with its item). The graph side —
the import plan, writing and reading — is graph/memory/workspace.py."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from typing import Any

from grimoire.graph.audit.alerts import CRITICAL_FILES
from grimoire.graph.errors import Invalid
from grimoire.graph.memory import memory_md, relevance, stores
from grimoire.graph.memory.blocks import TITLES, Block
from grimoire.graph.memory.relevance import Arrival
from grimoire.graph.memory.routing import (
    KINDS,
    Confidence,
    MemoryType,
    Store,
)
from grimoire.graph.model.enums import EntityKind, MemoryRelation

Files = Mapping[str, str]
MetaFiles = Callable[[str], Mapping[str, str]]  # agent id -> reflection's meta files by name (plain text)

MEMORY_MD = "MEMORY.md"
EPISODES = "memory/episodes/"
GRAPH = "memory/graph/"
INDEX = GRAPH + "index.md"
RELATIONS = GRAPH + "relations.md"
ENTITIES = GRAPH + "entities/"
PROCEDURES = "memory/procedures/"
VAULT = "memory/vault/"
META = "memory/meta/"
DECAY = META + "decay-scores.json"
REFLECTION_FILES = ("reflection-log.md", "pending-reflection.md", "evolution.md")
SKIPPED = {**{META + name: "reflection's file: the reflection engine keeps it" for name in REFLECTION_FILES},
           META + "pending-memories.md": "sub-agents' proposals: committed through the API, not imported",
           META + "audit.log": "the graph keeps its own audit trail"}
MAX_SHOWN = 20         # problems named in a refusal
CHUNK = stores.CHUNK
NAMESPACE = uuid.UUID("5f1f3c1e-3d4e-4b8a-9a51-6f0b9d8e2c17")  # imported memories' ids (uuid5)

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_SLUG = r"[a-z0-9]+(?:-[a-z0-9]+)*"
_ENTITY_ID = re.compile(rf"^({'|'.join(KINDS)})--({_SLUG})$")
LINK = re.compile(rf"\[\[((?:{'|'.join(KINDS)})--{_SLUG})\]\]")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
_COMMENT = re.compile(r"^<!--(.*)-->$")
_FIELD = re.compile(r"^\s*([A-Za-z][A-Za-z ]*?)\s*:\s*(.*?)\s*$")
EPISODE_REF = re.compile(r"\bEpisode (\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2})\b")
_STEP = re.compile(r"^(\d+)\.\s+(\S.*)$")
_BULLET = re.compile(r"^-\s+(\S.*)$")
_SCORE = re.compile(r"^\d+(?:\.\d+)?( \(pinned\))?$")
KIND_ORDER = [EntityKind.Person, EntityKind.Project, EntityKind.Concept, EntityKind.Tool, EntityKind.Place]
REGISTRY_COLUMNS = ("ID", "Type", "Label", "File", "Decay Score")
EDGE_COLUMNS = ("From", "Relation", "To", "Confidence", "First Seen", "Last Accessed")
EDGE_TYPES = {MemoryRelation.decided_on: MemoryType.decision, MemoryRelation.prefers: MemoryType.preference,
              MemoryRelation.avoids: MemoryType.preference}
ARRIVAL_OF = {value: arrival for arrival, value in relevance.BASE_RELEVANCE.items()}
DEFAULT_BASE = relevance.BASE_RELEVANCE[Arrival.detected]  # an item the file-based agent wrote, no decay entry
DECAY_INPUTS = ("store", "base_relevance", "created", "last_accessed", "access_count", "pinned")
DECAY_DERIVED = ("type_weight", "current_score", "status")

RELATIONS_MD = """# Relation Types
## Structural
- `develops` — person → project
- `uses` / `used-by` — project ↔ tool/concept
- `part-of` / `contains` — hierarchical nesting
- `depends-on` — dependency relationship
## Temporal
- `decided-on` — a choice was made (with date)
- `supersedes` — newer fact replaces older
- `preceded-by` / `followed-by` — sequence
## Qualitative
- `prefers` — user preference
- `avoids` — user anti-preference
- `confident-about` / `uncertain-about` — epistemic status
- `relates-to` — general association
"""


class WorkspaceInvalid(Invalid):
    """The workspace breaks the layout (422): every problem, each naming its file and line; nothing written."""

    def __init__(self, problems: str | Sequence[str]) -> None:
        problems = [problems] if isinstance(problems, str) else list(problems)
        shown = "; ".join(problems[:MAX_SHOWN])
        more = f" (and {len(problems) - MAX_SHOWN} more)" if len(problems) > MAX_SHOWN else ""
        super().__init__(f"the workspace was not imported (nothing was written): {shown}{more}")
        self.problems = problems


@dataclass
class Problems:
    found: list[str] = field(default_factory=list)

    def add(self, path: str, line: int | None, message: str) -> None:
        self.found.append(f"{path}{f' line {line}' if line else ''}: {message}")

    def raise_any(self) -> None:
        if self.found:
            raise WorkspaceInvalid(self.found)


# ---------------------------------------------------------------------------------------- times

def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def day_of(ms: int) -> str:
    return stores.day_of(ms)


def minute_of(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%H:%M")


def day_ms(day: str) -> int:
    return int(datetime.combine(date.fromisoformat(day), datetime.min.time(), UTC).timestamp() * 1000)


def is_day(text: str) -> bool:
    if not _DAY.match(text):
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _parse_iso(text: str) -> int | None:
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        return None
    return int((value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp() * 1000)


def format_score(score: float, pinned: bool = False) -> str:
    return f"{score:.2f}" + (" (pinned)" if pinned else "")


# ---------------------------------------------------------------------------------------- records

@dataclass(frozen=True)
class Decay:
    """An item's decay inputs (section 9.3); its score and status follow from them at a moment."""

    store: Store
    base: float
    created: int
    last_accessed: int
    access_count: int
    pinned: bool

    def relevance(self, at: int) -> relevance.Relevance:
        return relevance.relevance(store=self.store, base=self.base, access_count=self.access_count,
                                   last_accessed=self.last_accessed, now=at, pinned=self.pinned)


@dataclass(frozen=True)
class DecayFile:
    last_updated: int | None
    entries: dict[str, Decay]
    lines: dict[str, int]


@dataclass(frozen=True)
class EpisodeEntry:
    day: str
    time: str            # HH:MM, UTC
    type: MemoryType
    confidence: Confidence
    tags: tuple[str, ...]
    text: str
    n: int = 1           # the nth entry of its minute
    line: int = field(default=0, compare=False)
    end_line: int = field(default=0, compare=False)   # its text's last line

    @property
    def key(self) -> str:
        return f"episode:{self.day}:{self.time}" + (f"#{self.n}" if self.n > 1 else "")

    @property
    def at(self) -> int:
        hours, minutes = (int(x) for x in self.time.split(":"))
        return day_ms(self.day) + (hours * 60 + minutes) * 60_000 + self.n - 1  # a minute's entries keep order


@dataclass(frozen=True)
class RegistryRow:
    id: str
    type: str
    label: str
    file: str
    score: str
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class EdgeRow:
    source: str
    relation: MemoryRelation
    target: str
    confidence: Confidence
    first_seen: str
    last_accessed: str
    line: int = field(default=0, compare=False)

    @property
    def key(self) -> str:
        return f"edge:{self.source}:{self.relation.value}:{self.target}"


@dataclass(frozen=True)
class Index:
    registry: tuple[RegistryRow, ...]
    edges: tuple[EdgeRow, ...]


@dataclass(frozen=True)
class EntityFile:
    slug: str
    body: str
    created: str | None = None
    updated: str | None = None
    score: float | None = None       # as written: derived, recomputed on export
    access_count: int | None = None
    pinned: bool | None = None
    line: int = field(default=1, compare=False)  # the header's line
    lines: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)  # each field's
    end_line: int = field(default=1, compare=False)  # the file's last line with text

    @property
    def kind(self) -> str:
        return self.slug.split("--", 1)[0]


@dataclass(frozen=True)
class ProcedureFile:
    name: str
    trigger: str
    steps: tuple[str, ...]
    notes: tuple[str, ...] = ()
    learned_from: tuple[str, ...] = ()
    learned: str | None = None
    last_used: str | None = None
    score: float | None = None
    access_count: int | None = None
    line: int = field(default=1, compare=False)
    lines: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)
    end_line: int = field(default=1, compare=False)  # the file's last line with text


@dataclass(frozen=True)
class VaultFile:
    name: str
    body: str
    created: str | None = None
    line: int = field(default=1, compare=False)
    lines: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)
    end_line: int = field(default=1, compare=False)  # the file's last line with text


# ---------------------------------------------------------------------------------------- parsing helpers

def _numbered(text: str) -> list[tuple[int, str]]:
    return [(n, raw.rstrip()) for n, raw in enumerate(text.splitlines(), 1)]


def last_line(lines: Sequence[tuple[int, str]], default: int) -> int:
    """The number of the last of the lines with text (`default` when none has)."""
    return next((n for n, line in reversed(lines) if line.strip()), default)


def _body(lines: Sequence[tuple[int, str]]) -> str:
    """The lines' text without the blank lines around it."""
    texts = [line for _, line in lines]
    while texts and not texts[0].strip():
        texts.pop(0)
    while texts and not texts[-1].strip():
        texts.pop()
    return "\n".join(texts)


def _fields(path: str, n: int, inner: str, allowed: Iterable[str], problems: Problems) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in inner.split("|"):
        if not part.strip():
            continue
        m = _FIELD.match(part)
        if m is None:
            problems.add(path, n, f"a header field reads 'Name: value', not {part.strip()!r}")
            continue
        name = m.group(1).lower()
        if name not in allowed:
            problems.add(path, n, f"unknown header field {m.group(1)!r} (known: {', '.join(allowed)})")
            continue
        out[name] = m.group(2)
    return out


@dataclass
class _Doc:
    """A file of the layout: `# title`, header comments of `Name: value` fields, then the rest."""

    title: str
    fields: dict[str, str]
    field_lines: dict[str, int]
    header_line: int
    rest: list[tuple[int, str]]


def _doc(path: str, text: str, allowed: Sequence[str], problems: Problems) -> _Doc:
    lines = _numbered(text)
    i = 0
    while i < len(lines) and not lines[i][1].strip():
        i += 1
    if i == len(lines) or not lines[i][1].startswith("# "):
        problems.add(path, lines[i][0] if i < len(lines) else 1, "the file starts with its title, '# ...'")
        return _Doc("", {}, {}, 1, lines[i:])
    title, header_line = lines[i][1][2:].strip(), lines[i][0]
    fields: dict[str, str] = {}
    field_lines: dict[str, int] = {}
    i += 1
    while i < len(lines) and (not lines[i][1].strip() or _COMMENT.match(lines[i][1].strip())):
        n, line = lines[i]
        comment = _COMMENT.match(line.strip())
        if comment:
            header_line = n if not fields else header_line
            got = _fields(path, n, comment.group(1), allowed, problems)
            fields.update(got)
            field_lines.update({k: n for k in got})
        i += 1
    return _Doc(title, fields, field_lines, header_line, lines[i:])


def _day_field(path: str, doc: _Doc, name: str, problems: Problems) -> str | None:
    value = doc.fields.get(name)
    if value is not None and not is_day(value):
        problems.add(path, doc.field_lines[name], f"{name.capitalize()} is a day, YYYY-MM-DD, not {value!r}")
        return None
    return value


def _int_field(path: str, doc: _Doc, name: str, problems: Problems) -> int | None:
    value = doc.fields.get(name)
    if value is not None and not value.isdigit():
        problems.add(path, doc.field_lines[name], f"{name.capitalize()} is a whole number, not {value!r}")
        return None
    return int(value) if value is not None else None


def _score_field(path: str, doc: _Doc, problems: Problems) -> float | None:
    value = doc.fields.get("decay score")
    if value is not None and not _SCORE.match(value):
        problems.add(path, doc.field_lines["decay score"], f"Decay score is a number, not {value!r}")
        return None
    return float(value.split()[0]) if value is not None else None


def _type_field(path: str, doc: _Doc, expected: str, problems: Problems) -> None:
    value = doc.fields.get("type")
    if value is not None and value.lower() != expected:
        problems.add(path, doc.field_lines["type"], f"Type is {expected!r} here, not {value!r}")


def _sections(path: str, lines: Sequence[tuple[int, str]], known: Sequence[str],
              problems: Problems) -> dict[str, list[tuple[int, str]]]:
    """The `## Name` sections of the lines (each name known, once), their lines without blank ones."""
    out: dict[str, list[tuple[int, str]]] = {}
    current: str | None = None
    for n, line in lines:
        if not line.strip():
            continue
        if line.startswith("## "):
            name = line[3:].strip()
            match = next((k for k in known if k.lower() == name.lower()), None)
            if match is None:
                problems.add(path, n, f"unknown section {name!r} (known: {', '.join(known)})")
            elif match in out:
                problems.add(path, n, f"a second {match!r} section")
            current = match or name  # an unknown section's lines go with it, reported once
            out.setdefault(current, [])
            continue
        if current is None:
            problems.add(path, n, f"a line before the first section: {line.strip()[:60]!r}")
            continue
        out[current].append((n, line))
    return out


# ---------------------------------------------------------------------------------------- MEMORY.md

def parse_memory_md(path: str, text: str, problems: Problems) -> tuple[dict[Block, str], list[str]] | None:
    """memory_md.parse's rules, with the line of what breaks them."""
    titles = {title.lower() for title in TITLES.values()}
    in_section = False
    ok = True
    for n, line in _numbered(text):
        if not line.strip() or line.startswith("# ") or _COMMENT.match(line.strip()):
            continue
        if line.startswith("## "):
            in_section = True
            if line[3:].strip().lower() not in titles:
                problems.add(path, n, f"unknown section {line[3:].strip()!r} "
                                      f"(known: {', '.join(TITLES.values())})")
                ok = False
        elif not in_section:
            problems.add(path, n, f"a line before the first section: {line.strip()[:60]!r}")
            ok = False
    return memory_md.parse(text) if ok else None


# ---------------------------------------------------------------------------------------- the episode log

def _header(path: str, n: int, line: str, day: str, problems: Problems) -> EpisodeEntry | None:
    expected = "'## HH:MM | type | confidence:X | tags:[a, b]'"
    parts = [p.strip() for p in line[3:].split("|")]
    if len(parts) != 4:
        problems.add(path, n, f"malformed header: {len(parts)} fields, expected {expected}")
        return None
    time, kind, confidence, tags = parts
    reasons = []
    if not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", time):
        reasons.append(f"the time is HH:MM (UTC), not {time!r}")
    if kind not in MemoryType.__members__:
        reasons.append(f"the type is one of {', '.join(MemoryType)}, not {kind!r}")
    level = confidence.removeprefix("confidence:").strip()
    if not confidence.startswith("confidence:") or level not in Confidence.__members__:
        reasons.append(f"the confidence reads confidence:high, medium or low, not {confidence!r}")
    tag_list = re.fullmatch(r"tags:\s*\[(.*)\]", tags)
    names = [t.strip() for t in tag_list.group(1).split(",")] if tag_list and tag_list.group(1).strip() else []
    if tag_list is None or any(not t for t in names):
        reasons.append(f"the tags read tags:[a, b], not {tags!r}")
    if reasons:
        problems.add(path, n, f"malformed header: {'; '.join(reasons)}")
        return None
    return EpisodeEntry(day, time, MemoryType(kind), Confidence(level), tuple(names), "", line=n)


def parse_episodes(path: str, day: str, text: str, problems: Problems) -> list[EpisodeEntry]:
    """A day's log: `# YYYY-MM-DD — Episode Log`, then entries, each a header and its text."""
    entries: list[EpisodeEntry] = []
    body: list[tuple[int, str]] = []
    current: EpisodeEntry | None = None
    started = False  # past the first header (a malformed one's text is not reported again)
    seen: dict[str, int] = {}

    def close() -> None:
        if current is None:
            return
        text_ = _body(body)
        if not text_:
            problems.add(path, current.line, "the entry has no text")
        n = seen[current.time] = seen.get(current.time, 0) + 1
        entries.append(replace(current, text=text_, n=n, end_line=last_line(body, current.line)))

    for n, line in _numbered(text):
        if line.startswith("## "):
            close()
            current, body, started = _header(path, n, line, day, problems), [], True
        elif started:
            body.append((n, line))
        elif line.startswith("# "):
            named = re.search(r"\d{4}-\d{2}-\d{2}", line)
            if named and named.group(0) != day:
                problems.add(path, n, f"the title's day {named.group(0)} is not the file's, {day}")
        elif line.strip() and not _COMMENT.match(line.strip()):
            problems.add(path, n, f"a line before the first entry: {line.strip()[:60]!r}")
    close()
    return entries


def render_episodes(day: str, entries: Sequence[EpisodeEntry]) -> str:
    out = [f"# {day} — Episode Log"]
    for e in entries:
        out.append(f"## {e.time} | {e.type.value} | confidence:{e.confidence.value} | tags:[{', '.join(e.tags)}]")
        out += e.text.split("\n")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------- index.md

def _cells(line: str) -> list[str] | None:
    inner = line.strip()
    if len(inner) < 2 or not inner.startswith("|") or not inner.endswith("|"):
        return None
    return [c.strip() for c in inner[1:-1].split("|")]


def _table(path: str, rows: Sequence[tuple[int, str]], columns: Sequence[str],
           problems: Problems) -> list[tuple[int, list[str]]]:
    out: list[tuple[int, list[str]]] = []
    for i, (n, line) in enumerate(rows):
        cells = _cells(line)
        if cells is None:
            problems.add(path, n, f"not a table row: {line.strip()[:60]!r}")
        elif i == 0 and [c.lower() for c in cells] != [c.lower() for c in columns]:
            problems.add(path, n, f"the table's columns are {' | '.join(columns)}")
        elif i == 1 and not all(re.fullmatch(r":?-+:?", c) for c in cells):
            problems.add(path, n, "the row under the columns is their separator, |---|")
        elif i >= 2 and len(cells) != len(columns):
            problems.add(path, n, f"{len(cells)} cells, expected {len(columns)}")
        elif i >= 2:
            out.append((n, cells))
    return out


def _registry_row(path: str, n: int, cells: list[str], problems: Problems) -> RegistryRow | None:
    row = RegistryRow(cells[0], cells[1], cells[2], cells[3], cells[4], n)
    reasons = []
    m = _ENTITY_ID.match(row.id)
    if m is None:
        reasons.append(f"the ID reads kind--name ({', '.join(KINDS)}), not {row.id!r}")
    elif row.type.lower() != m.group(1):
        reasons.append(f"the type of {row.id} is {m.group(1)!r}, not {row.type!r}")
    if not row.label:
        reasons.append("the label is empty")
    if row.file != f"entities/{row.id}.md":
        reasons.append(f"the file of {row.id} is entities/{row.id}.md, not {row.file!r}")
    if not _SCORE.match(row.score):
        reasons.append(f"the decay score is a number, '(pinned)' after it when pinned, not {row.score!r}")
    for reason in reasons:
        problems.add(path, n, reason)
    return None if reasons else row


def _edge_row(path: str, n: int, cells: list[str], problems: Problems) -> EdgeRow | None:
    source, relation, target, confidence, first_seen, last_accessed = cells
    reasons = [f"{what} reads kind--name, not {value!r}" for what, value in (("From", source), ("To", target))
               if not _ENTITY_ID.match(value)]
    if relation not in {r.value for r in MemoryRelation}:
        reasons.append(f"unknown relation {relation!r} (section 6.3's: {', '.join(MemoryRelation)})")
    if confidence not in Confidence.__members__:
        reasons.append(f"the confidence is high, medium or low, not {confidence!r}")
    reasons += [f"{what} is a day, YYYY-MM-DD, not {value!r}" for what, value in
                (("First Seen", first_seen), ("Last Accessed", last_accessed)) if not is_day(value)]
    for reason in reasons:
        problems.add(path, n, reason)
    if reasons:
        return None
    return EdgeRow(source, MemoryRelation(relation), target, Confidence(confidence), first_seen, last_accessed, n)


def parse_index(path: str, text: str, problems: Problems) -> Index:
    lines = [(n, line) for n, line in _numbered(text) if not line.startswith("# ") and not _COMMENT.match(line)]
    sections = _sections(path, lines, ("Entity Registry", "Edges"), problems)
    registry = [_registry_row(path, n, cells, problems)
                for n, cells in _table(path, sections.get("Entity Registry", []), REGISTRY_COLUMNS, problems)]
    edges = [_edge_row(path, n, cells, problems)
             for n, cells in _table(path, sections.get("Edges", []), EDGE_COLUMNS, problems)]
    rows = [r for r in registry if r is not None]
    for what, keys in (("entity", [(r.id, r.line) for r in rows]),
                       ("edge", [(e.key, e.line) for e in edges if e is not None])):
        seen: set[str] = set()
        for key, n in keys:
            if key in seen:
                problems.add(path, n, f"a second row for the {what} {key}")
            seen.add(key)
    return Index(tuple(rows), tuple(e for e in edges if e is not None))


def _table_lines(columns: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    return ["| " + " | ".join(columns) + " |", "|" + "|".join("-" * (len(c) + 2) for c in columns) + "|",
            *("| " + " | ".join(row) + " |" for row in rows)]


def render_index(index: Index) -> str:
    return "\n".join([
        "# Semantic Graph Index", "<!-- Auto-generated during reflection. Manual edits will be overwritten. -->",
        "## Entity Registry",
        *_table_lines(REGISTRY_COLUMNS, [(r.id, r.type, r.label, r.file, r.score) for r in index.registry]),
        "## Edges",
        *_table_lines(EDGE_COLUMNS, [(e.source, e.relation.value, e.target, e.confidence.value, e.first_seen,
                                      e.last_accessed) for e in index.edges]),
    ]) + "\n"


# ---------------------------------------------------------------------------------------- entity files

ENTITY_FIELDS = ("type", "created", "last updated", "decay score", "access count", "pinned")


def parse_entity(path: str, slug: str, text: str, problems: Problems) -> EntityFile:
    doc = _doc(path, text, ENTITY_FIELDS, problems)
    if doc.title and doc.title != slug:
        problems.add(path, doc.header_line, f"the title is the entity's id, '# {slug}', not {doc.title!r}")
    _type_field(path, doc, slug.split("--", 1)[0], problems)
    pinned = doc.fields.get("pinned")
    if pinned is not None and pinned.lower() not in ("yes", "no"):
        problems.add(path, doc.field_lines["pinned"], f"Pinned is yes or no, not {pinned!r}")
        pinned = None
    body = _body(doc.rest)
    if not body:
        problems.add(path, doc.header_line, "the entity file has no text under its header")
    return EntityFile(slug, body, _day_field(path, doc, "created", problems),
                      _day_field(path, doc, "last updated", problems), _score_field(path, doc, problems),
                      _int_field(path, doc, "access count", problems),
                      None if pinned is None else pinned.lower() == "yes", doc.header_line, doc.field_lines,
                      last_line(_numbered(text), doc.header_line))


def _comment(fields: Sequence[tuple[str, object | None]]) -> list[str]:
    shown = [f"{name}: {value}" for name, value in fields if value is not None]
    return [f"<!-- {' | '.join(shown)} -->"] if shown else []


def render_entity(e: EntityFile) -> str:
    score = None if e.score is None else format_score(e.score)
    pinned = None if e.pinned is None else ("yes" if e.pinned else "no")
    return "\n".join([f"# {e.slug}",
                      *_comment([("Type", e.kind), ("Created", e.created), ("Last updated", e.updated)]),
                      *_comment([("Decay score", score), ("Access count", e.access_count), ("Pinned", pinned)]),
                      e.body]) + "\n"


# ---------------------------------------------------------------------------------------- relations.md

def parse_relations(path: str, text: str, problems: Problems) -> list[MemoryRelation]:
    """The relations the file names (in backticks); each must be one of section 6.3's, the graph's own."""
    named: list[MemoryRelation] = []
    for n, line in _numbered(text):
        for name in re.findall(r"`([^`]+)`", line):
            if name in {r.value for r in MemoryRelation}:
                named.append(MemoryRelation(name))
            else:
                problems.add(path, n, f"unknown relation {name!r}: the graph's vocabulary is section 6.3's "
                                      f"({', '.join(MemoryRelation)})")
    return named


# ---------------------------------------------------------------------------------------- procedures

PROCEDURE_FIELDS = ("type", "learned", "last used", "decay score", "access count")
PROCEDURE_SECTIONS = ("Trigger", "Steps", "Notes", "Learned From")


def _bullets(path: str, lines: Sequence[tuple[int, str]], section: str, problems: Problems) -> tuple[str, ...]:
    out = []
    for n, line in lines:
        m = _BULLET.match(line.strip())
        if m is None:
            problems.add(path, n, f"a line of {section} reads '- text', not {line.strip()[:60]!r}")
        else:
            out.append(m.group(1))
    return tuple(out)


def _steps(path: str, lines: Sequence[tuple[int, str]], problems: Problems) -> tuple[str, ...]:
    steps: list[str] = []
    for n, line in lines:
        m = _STEP.match(line.strip())
        if m is None:
            problems.add(path, n, f"a step reads 'N. text', not {line.strip()[:60]!r}")
        elif int(m.group(1)) != len(steps) + 1:
            problems.add(path, n, f"step {len(steps) + 1} is numbered {m.group(1)}")
            steps.append(m.group(2))
        else:
            steps.append(m.group(2))
    return tuple(steps)


def parse_procedure(path: str, name: str, text: str, problems: Problems) -> ProcedureFile:
    doc = _doc(path, text, PROCEDURE_FIELDS, problems)
    if doc.title and doc.title not in (name, f"{name}.md"):
        problems.add(path, doc.header_line, f"the title is the file's name, '# {name}.md', not {doc.title!r}")
    _type_field(path, doc, "procedure", problems)
    sections = _sections(path, doc.rest, PROCEDURE_SECTIONS, problems)
    trigger = "\n".join(line for _, line in sections.get("Trigger", []))
    steps = _steps(path, sections.get("Steps", []), problems)
    if not trigger:
        problems.add(path, doc.header_line, "a procedure has a '## Trigger' with its text")
    if not steps:
        problems.add(path, doc.header_line, "a procedure has '## Steps', numbered 1., 2., ...")
    return ProcedureFile(name, trigger, steps, _bullets(path, sections.get("Notes", []), "Notes", problems),
                         _bullets(path, sections.get("Learned From", []), "Learned From", problems),
                         _day_field(path, doc, "learned", problems), _day_field(path, doc, "last used", problems),
                         _score_field(path, doc, problems), _int_field(path, doc, "access count", problems),
                         doc.header_line, doc.field_lines, last_line(_numbered(text), doc.header_line))


def render_procedure(p: ProcedureFile) -> str:
    score = None if p.score is None else format_score(p.score)
    out = [f"# {p.name}.md", *_comment([("Type", "procedure"), ("Learned", p.learned), ("Last used", p.last_used)]),
           *_comment([("Decay score", score), ("Access count", p.access_count)]),
           "## Trigger", p.trigger, "## Steps", *(f"{i}. {s}" for i, s in enumerate(p.steps, 1))]
    if p.notes:
        out += ["## Notes", *(f"- {x}" for x in p.notes)]
    if p.learned_from:
        out += ["## Learned From", *(f"- {x}" for x in p.learned_from)]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------- the vault

def parse_vault(path: str, name: str, text: str, problems: Problems) -> VaultFile:
    doc = _doc(path, text, ("type", "created"), problems)
    if doc.title and doc.title not in (name, f"{name}.md"):
        problems.add(path, doc.header_line, f"the title is the file's name, '# {name}', not {doc.title!r}")
    _type_field(path, doc, "vault", problems)
    body = _body(doc.rest)
    if not body:
        problems.add(path, doc.header_line, "the vault file has no text under its header")
    return VaultFile(name, body, _day_field(path, doc, "created", problems), doc.header_line, doc.field_lines,
                     last_line(_numbered(text), doc.header_line))


def render_vault(v: VaultFile) -> str:
    return "\n".join([f"# {v.name}", *_comment([("Type", "vault"), ("Created", v.created)]), v.body]) + "\n"


# ---------------------------------------------------------------------------------------- decay-scores.json

def _line_of(text: str, needle: str) -> int:
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def _decay_entry(path: str, n: int, key: str, raw: object, problems: Problems) -> Decay | None:
    if not isinstance(raw, dict):
        problems.add(path, n, f"the entry {key} is an object")
        return None
    reasons = [f"unknown field {k!r}" for k in raw if k not in DECAY_INPUTS + DECAY_DERIVED]
    reasons += [f"no {k!r}" for k in DECAY_INPUTS if k not in raw]
    store, base, count, pinned = (raw.get(k) for k in ("store", "base_relevance", "access_count", "pinned"))
    created, accessed = (_parse_iso(v) if isinstance(v, str) else None
                         for v in (raw.get("created"), raw.get("last_accessed")))
    if "store" in raw and (not isinstance(store, str) or store not in Store.__members__):
        reasons.append(f"the store is one of {', '.join(Store)}, not {store!r}")
    if "base_relevance" in raw and (not isinstance(base, int | float) or isinstance(base, bool)
                                    or not 0 <= base <= 1):
        reasons.append(f"base_relevance is a number from 0 to 1, not {base!r}")
    if "access_count" in raw and (not isinstance(count, int) or isinstance(count, bool) or count < 0):
        reasons.append(f"access_count is a whole number, not {count!r}")
    if "pinned" in raw and not isinstance(pinned, bool):
        reasons.append(f"pinned is true or false, not {pinned!r}")
    reasons += [f"{k} is a time, like 2026-02-02T16:00:00Z, not {raw.get(k)!r}"
                for k, v in (("created", created), ("last_accessed", accessed)) if k in raw and v is None]
    for reason in reasons:
        problems.add(path, n, f"{key}: {reason}")
    if reasons or created is None or accessed is None:
        return None
    return Decay(Store(str(store)), float(base), created, accessed, int(count), bool(pinned))  # type: ignore[arg-type]


def parse_decay(path: str, text: str, problems: Problems) -> DecayFile:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        problems.add(path, e.lineno, f"not JSON: {e.msg}")
        return DecayFile(None, {}, {})
    if not isinstance(doc, dict) or not isinstance(doc.get("entries"), dict):
        problems.add(path, 1, 'the file is {"version": 1, "last_updated": ..., "entries": {...}}')
        return DecayFile(None, {}, {})
    if doc.get("version", 1) != 1:
        problems.add(path, _line_of(text, '"version"'), f"version 1 is known, not {doc.get('version')!r}")
    updated = doc.get("last_updated")
    last_updated = _parse_iso(updated) if isinstance(updated, str) else None
    if updated is not None and last_updated is None:
        problems.add(path, _line_of(text, '"last_updated"'), f"last_updated is a time, not {updated!r}")
    entries: dict[str, Decay] = {}
    lines: dict[str, int] = {}
    for key, raw in doc["entries"].items():
        lines[key] = _line_of(text, json.dumps(key))
        entry = _decay_entry(path, lines[key], key, raw, problems)
        if entry is not None:
            entries[key] = entry
    return DecayFile(last_updated, entries, lines)


def render_decay(at: int, entries: Mapping[str, Decay]) -> str:
    out: dict[str, Any] = {}
    for key in sorted(entries):
        d = entries[key]
        r = d.relevance(at)
        out[key] = {"store": d.store.value, "base_relevance": d.base, "created": iso(d.created),
                    "last_accessed": iso(d.last_accessed), "access_count": d.access_count,
                    "type_weight": relevance.TYPE_WEIGHT.get(d.store),  # the vault: null, it never decays
                    "current_score": round(r.score, 2), "status": r.status.value, "pinned": d.pinned}
    doc = {"version": 1, "last_updated": iso(at), "entries": out}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------------------------------- the workspace

@dataclass(frozen=True)
class Workspace:
    core: tuple[dict[Block, str], list[str]] | None
    episodes: tuple[EpisodeEntry, ...]
    index: Index
    entities: dict[str, EntityFile]      # by id (slug)
    procedures: tuple[ProcedureFile, ...]
    vault: tuple[VaultFile, ...]
    decay: DecayFile
    skipped: dict[str, str]
    critical: dict[str, str] = field(default_factory=dict)  # SOUL.md, IDENTITY.md, USER.md, TOOLS.md: kept verbatim


def _bad_path(path: str) -> str | None:
    if path != path.strip() or "\\" in path or path.startswith("/") or any(
            part in ("", ".", "..") for part in path.split("/")):
        return "a path is relative, with '/' between its parts and no '.' or '..' parts"
    return None


def _route(path: str) -> tuple[str, str] | None:
    """(what the file is, its name) by the layout of section 3; None when the layout has no such file."""
    fixed = {MEMORY_MD: "core", INDEX: "index", RELATIONS: "relations", DECAY: "decay"}
    if path in fixed:
        return fixed[path], ""
    if path in CRITICAL_FILES:
        return "critical", path
    if path in SKIPPED or path.startswith(".audit/"):
        return "skip", SKIPPED.get(path, "the file-based audit snapshots: the graph keeps its own audit trail")
    for prefix, kind in ((EPISODES, "episodes"), (ENTITIES, "entity"), (PROCEDURES, "procedure"), (VAULT, "vault")):
        rest = path.removeprefix(prefix)
        if rest != path and rest.endswith(".md") and "/" not in rest:
            return kind, rest[:-3]
    return None


def _read_files(files: Files, problems: Problems) -> Workspace:
    """Each file parsed on its own (its problems noted); the checks across files come after."""
    got: dict[str, Any] = {"core": None, "episodes": [], "index": Index((), ()), "entities": {}, "procedures": [],
                           "vault": [], "decay": DecayFile(None, {}, {}), "skipped": {}, "critical": {}}
    layout = ("MEMORY.md, SOUL.md, IDENTITY.md, USER.md, TOOLS.md, memory/episodes/YYYY-MM-DD.md, "
              "memory/graph/index.md, memory/graph/relations.md, memory/graph/entities/<kind>--<name>.md, "
              "memory/procedures/<name>.md, memory/vault/<name>.md, memory/meta/decay-scores.json")
    for path in sorted(files):
        text = files[path]
        route = None if _bad_path(path) else _route(path)
        if route is None:
            problems.add(path, None, _bad_path(path) or f"not a file of the workspace's layout ({layout})")
            continue
        kind, name = route
        if kind == "skip":
            got["skipped"][path] = name
        elif kind == "critical":
            got["critical"][name] = text  # free text: the person's own words, kept as written
        elif kind == "core":
            got["core"] = parse_memory_md(path, text, problems)
        elif kind == "index":
            got["index"] = parse_index(path, text, problems)
        elif kind == "relations":
            parse_relations(path, text, problems)
        elif kind == "decay":
            got["decay"] = parse_decay(path, text, problems)
        elif kind == "episodes":
            if is_day(name):
                got["episodes"] += parse_episodes(path, name, text, problems)
            else:
                problems.add(path, None, f"an episode log is named by its day, YYYY-MM-DD.md, not {name}.md")
        elif kind == "entity":
            if _ENTITY_ID.match(name):
                got["entities"][name] = parse_entity(path, name, text, problems)
            else:
                problems.add(path, None, f"an entity file is named <kind>--<name>.md ({', '.join(KINDS)}; "
                                         f"lower-case words joined by '-'), not {name}.md")
        elif _NAME.match(name):
            parsed = (parse_procedure(path, name, text, problems) if kind == "procedure"
                      else parse_vault(path, name, text, problems))
            got["procedures" if kind == "procedure" else "vault"].append(parsed)
        else:
            problems.add(path, None, f"a {kind} file's name is letters, digits, '-' and '_', not {name}.md")
    return Workspace(got["core"], tuple(got["episodes"]), got["index"], got["entities"], tuple(got["procedures"]),
                     tuple(got["vault"]), got["decay"], got["skipped"], got["critical"])


def parse_workspace(files: Files) -> Workspace:
    """Every file parsed and checked against the others; WorkspaceInvalid (422) names every problem."""
    problems = Problems()
    ws = _read_files(files, problems)
    _check_registry(ws, problems)
    _check_decay(ws, problems)
    problems.raise_any()
    return ws


def _check_registry(ws: Workspace, problems: Problems) -> None:
    """Each registry row has its entity file and each entity file its row; "(pinned)" agrees."""
    rows = {r.id: r for r in ws.index.registry}
    decay = ws.decay.entries
    for row in ws.index.registry:
        if row.id not in ws.entities:
            problems.add(INDEX, row.line, f"the workspace has no {ENTITIES}{row.id}.md for {row.id}")
    for slug, e in ws.entities.items():
        found = rows.get(slug)
        if found is None:
            problems.add(f"{ENTITIES}{slug}.md", e.line, f"no row for {slug} in {INDEX}'s Entity Registry")
        elif (pinned := decay[f"entity:{slug}"].pinned if f"entity:{slug}" in decay else e.pinned) is not None \
                and found.score.endswith("(pinned)") != pinned:
            problems.add(INDEX, found.line, f"{slug} is {'' if pinned else 'not '}pinned in its file and {DECAY}")


def _items(ws: Workspace) -> dict[str, tuple[Store, str, int]]:
    """Every item with a decay entry's key: its store, file and line."""
    out: dict[str, tuple[Store, str, int]] = {}
    for e in ws.episodes:
        out[e.key] = (Store.episodic, f"{EPISODES}{e.day}.md", e.line)
    for slug, f in ws.entities.items():
        out[f"entity:{slug}"] = (Store.semantic, f"{ENTITIES}{slug}.md", f.line)
    for p in ws.procedures:
        out[f"procedure:{p.name}"] = (Store.procedural, f"{PROCEDURES}{p.name}.md", p.line)
    for v in ws.vault:
        out[f"vault:{v.name}"] = (Store.vault, f"{VAULT}{v.name}.md", v.line)
    return out


def _check_decay(ws: Workspace, problems: Problems) -> None:
    """Each decay entry names an item of its store, and says what the item's own header says."""
    items = _items(ws)
    for key, d in ws.decay.entries.items():
        line = ws.decay.lines[key]
        if key not in items:
            problems.add(DECAY, line, f"{key} names no item of the workspace (keys: episode:YYYY-MM-DD:HH:MM, "
                                      "entity:<id>, procedure:<name>, vault:<name>)")
        elif d.store is not items[key][0]:
            problems.add(DECAY, line, f"{key} is in the {items[key][0].value} store, not {d.store.value}")
        elif d.store is Store.vault and not d.pinned:
            problems.add(DECAY, line, f"{key}: the vault is always pinned")
    for key, (path, said) in _headers(ws).items():
        entry = ws.decay.entries.get(key)
        for name, mine, what, line in said if entry is not None else []:
            theirs = _decay_value(entry, what) if entry is not None else None
            if mine is not None and mine != theirs:
                problems.add(path, line, f"{name} {mine} disagrees with {DECAY}'s {key} ({theirs})")


def _decay_value(d: Decay, what: str) -> object:
    return {"time": iso(d.created), "created": day_of(d.created), "last used": day_of(d.last_accessed),
            "access count": d.access_count, "pinned": d.pinned}[what]


Said = list[tuple[str, object, str, int]]  # (a header field, its value, the decay input it states, its line)


def _headers(ws: Workspace) -> dict[str, tuple[str, Said]]:
    """What each item's own header says of its decay inputs."""
    out: dict[str, tuple[str, Said]] = {}
    for e in ws.episodes:
        out[e.key] = (f"{EPISODES}{e.day}.md", [("the entry's time", iso(e.at - e.n + 1), "time", e.line)])
    for slug, f in ws.entities.items():
        out[f"entity:{slug}"] = (f"{ENTITIES}{slug}.md", [
            (name, mine, name.lower(), f.lines.get(name.lower(), f.line)) for name, mine in (
                ("Created", f.created), ("Access count", f.access_count), ("Pinned", f.pinned))])
    for p in ws.procedures:
        out[f"procedure:{p.name}"] = (f"{PROCEDURES}{p.name}.md", [
            (name, mine, what, p.lines.get(name.lower(), p.line)) for name, mine, what in (
                ("Learned", p.learned, "created"), ("Last used", p.last_used, "last used"),
                ("Access count", p.access_count, "access count"))])
    for v in ws.vault:
        out[f"vault:{v.name}"] = (f"{VAULT}{v.name}.md",
                                  [("Created", v.created, "created", v.lines.get("created", v.line))])
    return out
