"""A file-based agent's workspace moved into the graph and back (../shared/spec/moltbot-memory.md, sections 3
to 7 and 9.3): MEMORY.md, the episode log by day, the semantic graph's index, entity files and relation types,
procedures, the vault and decay-scores.json, as one JSON object of relative paths to file texts.

What each file becomes (a memory is written by graph/memory/stores.py, so it is what a message would make):
- MEMORY.md: core memory's four blocks (replaced, " (pinned)" critical facts pinned), in one transaction;
- SOUL.md, IDENTITY.md, USER.md, TOOLS.md: the agent's critical files (graph/memory/critical_files.py), kept as
  written, checksummed and alerted on; imported again with other text, a new version;
- memory/episodes/YYYY-MM-DD.md: an episodic memory per `## HH:MM | type | confidence:X | tags:[a, b]` entry,
  said then (UTC);
- memory/graph/entities/<kind>--<name>.md (each with its row in index.md's Entity Registry, and the reverse): a
  semantic memory holding the file's body that MENTIONS the entity and every [[kind--name]] it links;
- index.md's Edges: a semantic memory per row asserting the relation (a CUSTOM fact, valid from First Seen);
- memory/procedures/<name>.md: a procedural memory (trigger, steps, notes), LEARNED_FROM the episodes its
  "Episode YYYY-MM-DD HH:MM" lines name when the workspace or the graph holds them;
- memory/vault/<name>.md: a vault memory (pinned);
- memory/meta/decay-scores.json: each item's decay inputs (base relevance, created, last accessed, access count,
  pinned); scores and statuses are derived, recomputed on export as of `at`;
- relations.md: checked against the 6.3 vocabulary (the graph's own; exported as the spec's text).

An import validates every file first and refuses the whole workspace with every problem (file and line) named;
then writes core memory (one transaction), and the memories with their decay inputs (ids derived from the
agent and each item's key, so a retried import adds nothing twice), a transaction per 1,000 with their audit
records: an interrupted import leaves whole memories, and running it again completes it. An item imported
before with other content is a conflict, not an overwrite. Entities are named from their ids (the label's words
that spell the id: `Moltbot Memory` for project--moltbot-memory labelled "Moltbot Memory System"); the label is
kept.

Export renders the same layout from the graph, so importing a workspace and exporting it gives the same files
in their canonical form (rows in order, tables unpadded, no trailing space). Memories a message wrote land
where the layout has a place for them: a semantic fact in the Facts of its subject's entity file when an import
wrote that file; every other entity such a memory names gets its page generated from memory
(graph/memory/entity_pages.py, the page GET /agents/{id}/entities/{entity}/page answers). What has no place stays
in the graph: archived memories, core-store memories (their lines are in MEMORY.md) and semantic memories that
name no entity."""

from __future__ import annotations

import hashlib
import io
import json
import re
import uuid
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from grimoire.graph import agents
from grimoire.graph.agents import AgentOut
from grimoire.graph.audit import Audit, NodeLabel, SetProperties
from grimoire.graph.db import cypher, ogm
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.embeddings import Embedder
from grimoire.graph.errors import Conflict, NotFound
from grimoire.graph.ids import now_ms
from grimoire.graph.memory import critical_files, entity_pages, relevance, stores
from grimoire.graph.memory.blocks import Block, BlockOut, Replace, normalise
from grimoire.graph.memory.core import CoreMemory
from grimoire.graph.memory.relevance import Arrival
from grimoire.graph.memory.routing import (
    KINDS,
    Classification,
    Confidence,
    Entity,
    MemoryType,
    Procedure,
    Relation,
    Store,
    slugify,
)
from grimoire.graph.memory.workspace_files import (
    ARRIVAL_OF,
    CHUNK,
    DECAY,
    DEFAULT_BASE,
    EDGE_TYPES,
    ENTITIES,
    EPISODE_REF,
    EPISODES,
    INDEX,
    KIND_ORDER,
    LINK,
    MAX_SHOWN,
    MEMORY_MD,
    META,
    NAMESPACE,
    PROCEDURES,
    REFLECTION_FILES,
    RELATIONS,
    RELATIONS_MD,
    VAULT,
    Decay,
    EdgeRow,
    EntityFile,
    EpisodeEntry,
    Files,
    Index,
    MetaFiles,
    ProcedureFile,
    RegistryRow,
    VaultFile,
    Workspace,
    WorkspaceInvalid,
    day_ms,
    day_of,
    format_score,
    is_day,
    minute_of,
    parse_workspace,
    render_decay,
    render_entity,
    render_episodes,
    render_index,
    render_procedure,
    render_vault,
)
from grimoire.graph.model.crystal.payload import SourceFile
from grimoire.graph.model.enums import MemoryRelation

# ---------------------------------------------------------------------------------------- the import plan

def memory_id(agent_id: str, key: str) -> str:
    """An imported item's memory id: the same for the same agent and key, so importing again adds nothing."""
    return str(uuid.uuid5(NAMESPACE, f"{agent_id}\n{key}"))


def entity_name(slug: str, label: str | None = None) -> str:
    """The entity's name in the graph, which spells its id: the label's words that do (`OAuth2 PKCE` of
    "OAuth2 PKCE Flow" for concept--oauth2-pkce), else the id's words."""
    part = slug.split("--", 1)[1]
    want = part.split("-")
    if label:
        words = list(re.finditer(r"[A-Za-z0-9]+", label))
        for i in range(len(words) - len(want) + 1):
            if [w.group(0).lower() for w in words[i:i + len(want)]] == want:
                return label[words[i].start():words[i + len(want) - 1].end()]
    return " ".join(want)


@dataclass(frozen=True)
class Planned:
    """A memory to write, and what it gets once written: its decay inputs and what only the files say."""

    memory: stores.NewMemory
    key: str
    path: str
    line: int
    props: dict[str, Any]


def _digest(c: Classification, extra: Mapping[str, Any]) -> str:
    content = [c.store.value, c.type.value, c.summary, list(c.tags), c.confidence.value,
               sorted(e.slug for e in c.entities), sorted(json.dumps(r.out()) for r in c.relations),
               [c.procedure.trigger, list(c.procedure.steps), list(c.procedure.notes)] if c.procedure else None,
               {k: v for k, v in sorted(extra.items())}]
    return hashlib.sha1(json.dumps(content, sort_keys=True, default=str).encode()).hexdigest()


@dataclass
class _Planner:
    ws: Workspace
    agent_id: str
    clade: str | None
    now: int
    found: Mapping[int, str]              # a minute (ms) -> the agent's memory said then, in the graph
    labels: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        self.labels = {r.id: r.label for r in self.ws.index.registry}

    def entity(self, slug: str) -> Entity:
        return Entity(entity_name(slug, self.labels.get(slug)), KINDS[slug.split("--", 1)[0]])

    def links(self, text: str) -> tuple[Entity, ...]:
        return tuple(dict.fromkeys(self.entity(slug) for slug in LINK.findall(text)))

    def decay(self, key: str, store: Store, created: int, last: int | None = None, count: int | None = None,
              pinned: bool | None = None, base: float = DEFAULT_BASE) -> Decay:
        d = self.ws.decay.entries.get(key)
        if d is not None:
            return d
        return Decay(store, base, created, last if last is not None else created, count if count is not None else 1,
                     bool(pinned) or store is Store.vault)

    def planned(self, key: str, path: str, line: int, c: Classification, said: str, d: Decay,
                learned_from: tuple[str, ...] = (), *, end_line: int | None = None, **extra: Any) -> Planned:
        # the crystal's payload: the file and the lines it was read from (knowledge-crystals.md, line 28)
        file = SourceFile(path=path, start_line=max(1, line), end_line=max(1, line, end_line or line))
        memory = stores.NewMemory(agent_id=self.agent_id, classification=c, said=said, at=d.created,
                                  arrival=ARRIVAL_OF.get(d.base, Arrival.explicit), clade=self.clade,
                                  learned_from=learned_from, id=memory_id(self.agent_id, key), file=file)
        props = {"access_count": d.access_count, "last_accessed_at": d.last_accessed, "base_relevance": d.base,
                 "pinned": d.pinned or c.store is Store.vault, "workspace_key": key,
                 # the status these inputs give now: the decay system's transitions start from it
                 "decay_status": d.relevance(self.now).status.value, "decay_status_at": self.now,
                 "workspace_hash": _digest(c, extra)}
        props.update({f"workspace_{k}": v for k, v in extra.items() if v is not None})
        return Planned(memory, key, path, line, props)

    def episodes(self) -> list[Planned]:
        out = []
        for e in self.ws.episodes:
            d = self.decay(e.key, Store.episodic, e.at)
            d = d if d.created == e.at else replace(d, created=e.at)  # a minute's later entries, a ms apart
            c = Classification(Store.episodic, e.type, e.text, e.tags, e.confidence, entities=self.links(e.text))
            out.append(self.planned(e.key, f"{EPISODES}{e.day}.md", e.line, c, e.text, d, end_line=e.end_line))
        return out

    def entities(self) -> list[Planned]:
        out = []
        for row in self.ws.index.registry:
            f = self.ws.entities[row.id]
            created = day_ms(f.created) if f.created else self.now
            d = self.decay(f"entity:{row.id}", Store.semantic, created, count=f.access_count, pinned=f.pinned)
            entities = tuple(dict.fromkeys((self.entity(row.id), *self.links(f.body))))
            c = Classification(Store.semantic, MemoryType.fact, f.body, (), Confidence.high, entities=entities)
            out.append(self.planned(f"entity:{row.id}", f"{ENTITIES}{row.id}.md", f.line, c, f.body, d,
                                    end_line=f.end_line, label=row.label, updated=f.updated))
        return out

    def edges(self) -> list[Planned]:
        out = []
        for e in self.ws.index.edges:
            s, o = self.entity(e.source), self.entity(e.target)
            text = f"{self.labels.get(e.source, s.name)} {e.relation.value} {self.labels.get(e.target, o.name)}."
            d = Decay(Store.semantic, DEFAULT_BASE, day_ms(e.first_seen), day_ms(e.last_accessed), 1, False)
            c = Classification(Store.semantic, EDGE_TYPES.get(e.relation, MemoryType.fact), text, (), e.confidence,
                               entities=(s, o), relations=(Relation(s, e.relation, o),))
            out.append(self.planned(e.key, INDEX, e.line, c, text, d))
        return out

    def procedures(self, episodes: Mapping[int, str]) -> list[Planned]:
        out = []
        for p in self.ws.procedures:
            learned = day_ms(p.learned) if p.learned else self.now
            last = day_ms(p.last_used) if p.last_used else None
            d = self.decay(f"procedure:{p.name}", Store.procedural, learned, last, p.access_count)
            sources = [episodes.get(m) or self.found.get(m) for m in _refs(p)]
            c = Classification(Store.procedural, MemoryType.fact, p.trigger, (), Confidence.high,
                               procedure=Procedure(p.trigger, p.steps, p.notes))
            out.append(self.planned(f"procedure:{p.name}", f"{PROCEDURES}{p.name}.md", p.line, c, p.trigger, d,
                                    tuple(dict.fromkeys(s for s in sources if s)), end_line=p.end_line,
                                    learned=list(p.learned_from)))
        return out

    def vault(self) -> list[Planned]:
        out = []
        for v in self.ws.vault:
            d = self.decay(f"vault:{v.name}", Store.vault, day_ms(v.created) if v.created else self.now,
                           base=relevance.BASE_RELEVANCE[Arrival.explicit])
            c = Classification(Store.vault, MemoryType.fact, v.body, (), Confidence.high, entities=self.links(v.body))
            out.append(self.planned(f"vault:{v.name}", f"{VAULT}{v.name}.md", v.line, c, v.body, d,
                                    end_line=v.end_line))
        return out


def _refs(p: ProcedureFile) -> list[int]:
    """The minutes (ms) of the episodes a procedure's Learned From lines name."""
    return [day_ms(m.group(1)) + (int(m.group(2)) * 60 + int(m.group(3))) * 60_000
            for line in p.learned_from if (m := EPISODE_REF.search(line)) and is_day(m.group(1))]


def missing_references(ws: Workspace) -> list[int]:
    """The minutes Learned From lines name that no episode of the workspace was said in: the graph may hold them."""
    here = {e.at for e in ws.episodes if e.n == 1}
    return sorted({m for p in ws.procedures for m in _refs(p)} - here)


def plan(ws: Workspace, agent_id: str, clade: str | None, now: int,
         found: Mapping[int, str] | None = None) -> list[Planned]:
    """The memories the workspace becomes; `found`: the graph's memories of the minutes it references."""
    planner = _Planner(ws, agent_id, clade, now, found or {})
    episodes = planner.episodes()
    by_minute = {e.at: p.memory.id for e, p in zip(ws.episodes, episodes, strict=True) if e.n == 1}
    return [*episodes, *planner.entities(), *planner.edges(), *planner.procedures(by_minute), *planner.vault()]


# ---------------------------------------------------------------------------------------- export, pure

@dataclass(frozen=True)
class EntityRef:
    slug: str
    kind: str
    name: str


@dataclass(frozen=True)
class Stored(entity_pages.PageMemory):
    """A memory as the export reads it from the graph: what an entity page reads of it, and the rest."""

    key: str | None = None             # set by an import
    label: str | None = None
    updated: str | None = None
    learned: tuple[str, ...] | None = None
    procedure: Procedure | None = None
    entities: tuple[EntityRef, ...] = ()
    learned_from: tuple[tuple[int, str], ...] = ()   # (said at, text) of what a procedure was learned from
    subjects: tuple[str, ...] = ()                   # the subjects of the relations it asserts


@dataclass(frozen=True)
class Snapshot:
    core_md: str
    memories: tuple[Stored, ...]       # oldest first
    edges: tuple[EdgeRow, ...]
    meta: Mapping[str, str] = field(default_factory=dict)
    critical: Mapping[str, str] = field(default_factory=dict)  # the critical files by name, as imported
    agent_id: str = ""


def _episode_files(memories: Sequence[Stored]) -> tuple[dict[str, str], dict[str, Decay]]:
    by_day: dict[str, list[EpisodeEntry]] = {}
    decay: dict[str, Decay] = {}
    seen: dict[tuple[str, str], int] = {}
    for m in memories:
        day, time = day_of(m.at), minute_of(m.at)
        n = seen[(day, time)] = seen.get((day, time), 0) + 1
        entry = EpisodeEntry(day, time, m.type, m.confidence, m.tags, m.text, n)
        by_day.setdefault(day, []).append(entry)
        decay[entry.key] = m.decay
    return {f"{EPISODES}{day}.md": render_episodes(day, entries) for day, entries in by_day.items()}, decay


def _with_facts(body: str, facts: Sequence[str]) -> str:
    """The body with facts a message taught added to its Facts section (made when missing)."""
    lines = body.split("\n") if body else []
    new = [f"- {f}" for f in facts if f"- {f}" not in lines]
    if not new:
        return body
    start = next((i for i, line in enumerate(lines) if line.strip().lower() == "## facts"), None)
    if start is None:
        return "\n".join([*lines, "## Facts", *new])
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return "\n".join([*lines[:end], *new, *lines[end:]])


def _fact_home(m: Stored) -> EntityRef | None:
    """Where a semantic memory a message wrote goes: its relations' subject, else the first entity it names."""
    refs = sorted(m.entities, key=lambda e: e.slug)
    subjects = [e for e in refs if e.slug in m.subjects]
    return next(iter(subjects or refs), None)


def _links(slug: str, edges: Sequence[EdgeRow]) -> list[entity_pages.PageLink]:
    out = []
    for e in edges:
        for mine, other, direction in ((e.source, e.target, entity_pages.Direction.outgoing),
                                       (e.target, e.source, entity_pages.Direction.incoming)):
            if mine == slug and other != slug:
                out.append(entity_pages.PageLink(direction, e.relation.value, other, None, e.confidence.value,
                                                 day_ms(e.first_seen)))
    return out


def _entity_files(memories: Sequence[Stored], edges: Sequence[EdgeRow], at: int,
                  agent_id: str = "") -> tuple[dict[str, str], list[RegistryRow], dict[str, Decay]]:
    """The entity files: each one an import wrote, as written, with the facts messages taught it since (their
    subject's); and for every other entity a memory no import wrote names, its page generated from the memories
    (graph/memory/entity_pages.py)."""
    semantic = [m for m in memories if m.store is Store.semantic]
    own = {m.key.removeprefix("entity:"): m for m in semantic if m.key and m.key.startswith("entity:")}
    facts: dict[str, list[Stored]] = {}
    for m in semantic:
        home = _fact_home(m) if m.key is None else None
        if home is not None and home.slug in own:
            facts.setdefault(home.slug, []).append(m)
    named: dict[str, list[Stored]] = {}   # the page memories that name each entity
    refs: dict[str, EntityRef] = {}
    for m in memories:
        if m.key and m.key.startswith("entity:"):
            continue  # a whole page an import wrote
        for e in m.entities:
            named.setdefault(e.slug, []).append(m)
            if m.key is None and e.slug not in own:
                refs.setdefault(e.slug, e)
    files: dict[str, str] = {}
    rows: list[tuple[tuple[int, str], RegistryRow]] = []
    decay: dict[str, Decay] = {}

    def add(slug: str, label: str, d: Decay, text: str) -> None:
        files[f"{ENTITIES}{slug}.md"] = text
        kind = slug.split("--", 1)[0]
        order = next((i for i, k in enumerate(KIND_ORDER) if k.value.lower() == kind), len(KIND_ORDER))
        rows.append(((order, slug), RegistryRow(slug, kind, label, f"entities/{slug}.md",
                                                format_score(d.relevance(at).score, d.pinned))))
        decay[f"entity:{slug}"] = d

    for slug, mine in own.items():
        taught = facts.get(slug, [])
        updated = max([mine.updated or day_of(mine.at)] + [day_of(f.at) for f in taught])
        body = _with_facts(mine.text, [" ".join(f.text.split()) for f in taught])
        add(slug, mine.label or next((e.name for e in mine.entities if e.slug == slug), entity_name(slug)), mine.decay,
            render_entity(EntityFile(slug, body, day_of(mine.decay.created), updated,
                                     mine.decay.relevance(at).score, mine.decay.access_count, mine.decay.pinned)))
    for slug, ref in refs.items():
        entity = entity_pages.EntityPageEntity(slug=slug, name=ref.name, kind=ref.kind.lower(), ids=[])
        chosen = entity_pages.page_memories(named[slug])
        page = entity_pages.build(agent_id, entity, chosen, _links(slug, edges), at)
        if page is not None:
            add(slug, ref.name, entity_pages.aggregate([m.decay for m in chosen]), page.markdown)
    return files, [row for _, row in sorted(rows, key=lambda r: r[0])], decay


def _unique(name: str, taken: set[str]) -> str:
    name = name[:60].strip("-") or "memory"
    out, n = name, 1
    while out in taken:
        n += 1
        out = f"{name}-{n}"
    taken.add(out)
    return out


def _names(memories: Sequence[Stored], prefix: str, fallback: Callable[[Stored], str]) -> list[tuple[str, Stored]]:
    """Each memory's file name: the one it was imported from, else one made from its text."""
    taken = {m.key.removeprefix(prefix) for m in memories if m.key and m.key.startswith(prefix)}
    return [(m.key.removeprefix(prefix) if m.key and m.key.startswith(prefix) else _unique(fallback(m), taken), m)
            for m in memories]


def _learned_line(at: int, text: str) -> str:
    first = " ".join(text.split())
    return f"Episode {day_of(at)} {minute_of(at)} — {first[:80]}"


def _procedure_files(memories: Sequence[Stored], at: int) -> tuple[dict[str, str], dict[str, Decay]]:
    files: dict[str, str] = {}
    decay: dict[str, Decay] = {}
    for name, m in _names(memories, "procedure:", lambda m: slugify(m.procedure.trigger if m.procedure else m.text)):
        p = m.procedure or Procedure(m.text, ())
        learned = m.learned if m.learned is not None else tuple(_learned_line(t, x) for t, x in sorted(m.learned_from))
        files[f"{PROCEDURES}{name}.md"] = render_procedure(ProcedureFile(
            name, p.trigger, p.steps, p.notes, learned, day_of(m.at), day_of(m.decay.last_accessed),
            m.decay.relevance(at).score, m.decay.access_count))
        decay[f"procedure:{name}"] = m.decay
    return files, decay


def _vault_files(memories: Sequence[Stored]) -> tuple[dict[str, str], dict[str, Decay]]:
    files: dict[str, str] = {}
    decay: dict[str, Decay] = {}
    for name, m in _names(memories, "vault:", lambda m: slugify(" ".join(m.text.split()[:6]))):
        files[f"{VAULT}{name}.md"] = render_vault(VaultFile(name, m.text, day_of(m.at)))
        decay[f"vault:{name}"] = m.decay
    return files, decay


def render_workspace(snapshot: Snapshot, at: int) -> dict[str, str]:
    """The workspace's files from what the graph holds; scores as of `at`."""
    of = {s: [m for m in snapshot.memories if m.store is s] for s in Store}
    episodes, episode_decay = _episode_files(of[Store.episodic])
    entities, registry, entity_decay = _entity_files([*of[Store.episodic], *of[Store.semantic]], snapshot.edges,
                                                     at, snapshot.agent_id)
    procedures, procedure_decay = _procedure_files(of[Store.procedural], at)
    vault, vault_decay = _vault_files(of[Store.vault])
    edges = sorted(snapshot.edges, key=lambda e: (e.first_seen, e.source, e.relation.value, e.target))
    files = {MEMORY_MD: snapshot.core_md, **episodes, INDEX: render_index(Index(tuple(registry), tuple(edges))),
             RELATIONS: RELATIONS_MD, **entities, **procedures, **vault,
             DECAY: render_decay(at, {**episode_decay, **entity_decay, **procedure_decay, **vault_decay})}
    files.update({META + name: snapshot.meta[name] for name in REFLECTION_FILES if snapshot.meta.get(name)})
    files.update(snapshot.critical)
    return dict(sorted(files.items()))


def zipped(files: Files, at: int) -> bytes:
    """The files as a zip, in path order, each dated `at` (the same files give the same bytes)."""
    t = datetime.fromtimestamp(at / 1000, tz=UTC)
    stamp = min(max((t.year, t.month, t.day, t.hour, t.minute, t.second), (1980, 1, 1, 0, 0, 0)),
                (2107, 12, 31, 23, 59, 58))  # the years a zip's dates can hold
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(files):
            z.writestr(zipfile.ZipInfo(path, date_time=stamp), files[path], compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


# ---------------------------------------------------------------------------------------- the graph

class ImportOut(BaseModel):
    agent_id: str
    created: dict[str, int] = Field(description="memories written, by store")
    unchanged: int = Field(description="items imported before with the same content: left as they are")
    core_blocks: list[str] = Field(description="the core blocks MEMORY.md changed")
    critical_files: list[str] = Field(description=(
        "the critical files (SOUL.md, IDENTITY.md, USER.md, TOOLS.md) written: new, or with other text"))
    entities: int = Field(description="entities the memories name")
    relations: int = Field(description="index.md's edges, each asserted by a semantic memory")
    skipped: dict[str, str] = Field(description="files of the spec's layout not imported, and why")
    audit_ids: list[str] = Field(description="the audit records of the memories' writes (core edits have their own)")


def _agent(db: Database, agent_id: str) -> AgentOut:
    found = agents.get(db, agent_id)
    if found is None:
        raise NotFound(f"no agent {agent_id!r}")
    return found


@dataclass(frozen=True)
class CoreCheck:
    """Core memory as it stands and the new blocks' token counts, checked against the cap before anything is written."""

    state: dict[Block, BlockOut]
    tokens: dict[Block, int]


def _core_edits(core: CoreMemory, agent_id: str, contents: dict[Block, str]) -> CoreCheck:
    """The blocks' new token counts, checked against the cap (422: the file is too long), and the current state."""
    state = core.read(agent_id)
    tokens = {b: core.tokens(normalise(contents[b])) for b in Block}
    if sum(tokens.values()) > core.cap:
        raise WorkspaceInvalid([f"{MEMORY_MD} line 1: core memory would hold {sum(tokens.values())} tokens, "
                                f"{sum(tokens.values()) - core.cap} over its cap of {core.cap}"])
    return CoreCheck({Block(b.block): b for b in state.blocks}, tokens)


def _write_core(core: CoreMemory, agent_id: str, contents: dict[Block, str], pinned: list[str],
                checked: CoreCheck, actor: str) -> list[str]:
    """The four blocks replaced in one transaction: the ones that shrink first, so none passes the cap on the way."""
    state, tokens = checked.state, checked.tokens
    order = sorted(Block, key=lambda b: tokens[b] - state[b].tokens)
    was_pinned = list(state[Block.critical].pinned)
    changed = [b.value for b in order if normalise(contents[b]) != state[b].content
               or (b is Block.critical and was_pinned != pinned)]

    def work(tx: Tx) -> None:
        for b in order:
            pins = ([p for p in pinned if p not in was_pinned], [p for p in was_pinned if p not in pinned]) \
                if b is Block.critical else ([], [])
            core.edit_in(tx, agent_id, b, Replace(contents[b]), actor=actor, reason="imported from MEMORY.md",
                         pin=pins[0], unpin=pins[1])

    if changed:
        ogm.write(core.db, work)
    return changed


def _existing(db: Database, agent_id: str, planned: Sequence[Planned]) -> set[str]:
    """The planned memories already in the graph (an import run before); Conflict when one's content changed."""
    by_id = {p.memory.id: p for p in planned}
    rows = db.fetch("memory/workspace_existing", ids=list(by_id))
    changed = [by_id[r["id"]] for r in rows if r["agent_id"] != agent_id
               or (r["digest"] is not None and r["digest"] != by_id[r["id"]].props["workspace_hash"])]
    if changed:
        named = "; ".join(f"{p.path} line {p.line} ({p.key})" for p in changed[:MAX_SHOWN])
        raise Conflict(f"the workspace was not imported (nothing was written): these items were imported before "
                       f"with other content: {named}. Forget them first, or import them under another time or name")
    return {r["id"] for r in rows}


def _settle_in(tx: Tx, agent_id: str, rows: list[dict[str, Any]], audit: Audit) -> int:
    """Memories' decay inputs and workspace properties, with the audit record (what each had before)."""
    done = [dict(r) for r in tx.run(cypher.query("memory/workspace_settle"), agent_id=agent_id, rows=rows)]
    if done:
        keys = {k for r in rows for k in r["props"]}
        revert = [SetProperties(label=NodeLabel.Memory, id=r["id"],
                                before={k: r["before"].get(k) for k in sorted(keys)}) for r in done]
        audit.write(tx, [r["id"] for r in done], f"imported {len(done)} memories' decay inputs and workspace keys",
                    revert)
    return len(done)


def _write(db: Database, embedder: Embedder, agent_id: str, planned: Sequence[Planned], existing: set[str],
           actor: str) -> list[str]:
    """The new memories and their decay inputs together, CHUNK per transaction (embedded before it opens);
    then the decay inputs of memories an interrupted import wrote but did not settle."""
    audit_ids: list[str] = []
    new = [p for p in planned if p.memory.id not in existing]
    for start in range(0, len(new), CHUNK):
        chunk = new[start:start + CHUNK]
        memories = [p.memory for p in chunk]
        rows = stores.rows_for(memories, embedder.embed([m.text() for m in memories]), now_ms())
        settle = [{"id": p.memory.id, "props": p.props} for p in chunk]
        wrote = Audit(action="memory.remember", actor=actor, agent_id=agent_id)
        settled = Audit(action="memory.workspace.import", actor=actor, agent_id=agent_id)

        def work(tx: Tx, memories: list[stores.NewMemory] = memories,
                 rows: list[dict[str, Any]] = rows, settle: list[dict[str, Any]] = settle,
                 wrote: Audit = wrote, settled: Audit = settled) -> None:
            stores.write_in(tx, memories, rows, wrote)
            _settle_in(tx, agent_id, settle, settled)

        db.write(work)
        audit_ids += [wrote.id, settled.id]
    rest = [{"id": p.memory.id, "props": p.props} for p in planned if p.memory.id in existing]
    for start in range(0, len(rest), CHUNK):
        audit = Audit(action="memory.workspace.import", actor=actor, agent_id=agent_id)

        def settle_only(tx: Tx, rows: list[dict[str, Any]] = rest[start:start + CHUNK],
                        audit: Audit = audit) -> int:
            return _settle_in(tx, agent_id, rows, audit)

        if db.write(settle_only):
            audit_ids.append(audit.id)
    return audit_ids


def import_workspace(db: Database, embedder: Embedder, core: CoreMemory, agent_id: str, files: Files, *,
                     actor: str, now: int | None = None) -> ImportOut:
    """Validate every file, then write: core memory, the memories, their decay inputs. 422 names every problem
    with its file and line, 409 an item imported before with other content; either way nothing is written."""
    ws = parse_workspace(files)
    agent = _agent(db, agent_id)
    at = now if now is not None else now_ms()
    checked = _core_edits(core, agent_id, ws.core[0]) if ws.core else None
    refs = [{"minute": m, "day": day_of(m)} for m in missing_references(ws)]
    found = {int(r["minute"]): str(r["id"])
             for r in (db.fetch("memory/workspace_said_at", agent_id=agent_id, refs=refs) if refs else [])}
    planned = plan(ws, agent_id, agent.clade, at, found)
    existing = _existing(db, agent_id, planned)
    core_changed = _write_core(core, agent_id, ws.core[0], ws.core[1], checked, actor) if ws.core and checked else []
    critical = (ogm.write(db, lambda tx: critical_files.write_in(tx, agent_id, ws.critical, actor=actor,
                                                                  reason="imported from the workspace"))
                if ws.critical else [])
    new = [p.memory for p in planned if p.memory.id not in existing]
    audit_ids = _write(db, embedder, agent_id, planned, existing, actor)
    created: dict[str, int] = {}
    for m in new:
        created[m.store.value] = created.get(m.store.value, 0) + 1
    return ImportOut(agent_id=agent_id, created=created, unchanged=len(existing), core_blocks=core_changed,
                     critical_files=critical,
                     entities=len({e.slug for p in planned for e in p.memory.classification.entities}),
                     relations=len(ws.index.edges), skipped=ws.skipped, audit_ids=audit_ids)


def _stored(row: Mapping[str, Any]) -> Stored:
    m = row["memory"]
    procedure = (Procedure(m["trigger"], tuple(m.get("steps") or ()), tuple(m.get("notes") or ()))
                 if m.get("trigger") is not None else None)
    decay = Decay(Store(m["store"]), float(m["base_relevance"]), int(m["valid_from"]),
                  int(m.get("last_accessed_at") or m["valid_from"]), int(m.get("access_count") or 0),
                  bool(m.get("pinned")))
    learned = m.get("workspace_learned")
    return Stored(
        m["id"], Store(m["store"]), MemoryType(m["memory_type"]), Confidence(m["confidence_level"]),
        tuple(m.get("tags") or ()), m.get("text") or "", decay, m.get("workspace_key"), m.get("workspace_label"),
        m.get("workspace_updated"), tuple(learned) if learned is not None else None, procedure,
        tuple(EntityRef(e["slug"], e["kind"], e["name"]) for e in row["entities"] if e.get("slug")),
        tuple((int(s["valid_from"]), s.get("text") or "") for s in row["learned_from"]),
        tuple(sorted(set(row["subjects"]))))


def _edge(row: Mapping[str, Any]) -> EdgeRow | None:
    if row["relation"] not in {r.value for r in MemoryRelation} or not row["source"] or not row["target"]:
        return None
    return EdgeRow(row["source"], MemoryRelation(row["relation"]), row["target"],
                   Confidence(row["confidence"] or Confidence.medium.value), day_of(int(row["first_seen"])),
                   day_of(int(row["last_accessed"])))


def snapshot(db: Database, core: CoreMemory, agent_id: str, meta: MetaFiles | None = None) -> Snapshot:
    core_md = core.markdown(agent_id)  # NotFound when there is no such agent
    memories = tuple(_stored(r) for r in db.fetch("memory/workspace_memories", agent_id=agent_id,
                                                  stores=[s.value for s in Store if s is not Store.core],
                                                  semantic=Store.semantic.value))
    edges = tuple(e for r in db.fetch("memory/workspace_edges", agent_id=agent_id) if (e := _edge(r)) is not None)
    critical = ogm.read(db, lambda tx: critical_files.read(agent_id))
    return Snapshot(core_md, memories, edges, dict(meta(agent_id)) if meta else {}, critical, agent_id)


def export_workspace(db: Database, core: CoreMemory, agent_id: str, *, at: int | None = None,
                     meta: MetaFiles | None = None) -> dict[str, str]:
    """The agent's workspace: every file of the layout, scores as of `at` (default now, to the second)."""
    when = at if at is not None else now_ms() // 1000 * 1000
    return render_workspace(snapshot(db, core, agent_id, meta), when)
