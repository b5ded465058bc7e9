"""An entity's page (../shared/spec/moltbot-memory.md, 6.2's entity file), generated from what the agent's memory
holds about it — rule-based, no language model: the same memories give the same page.

The memories of a page: the agent's own episodic and semantic memories that name the entity (MENTIONS), neither
forgotten (archived) nor erased, the PAGE_MEMORIES said last. Procedures, the vault and core memory have their
own files (a vault memory never leaves its file); a file an import wrote for the entity is kept as written by the
workspace export and is not one of its page's memories (its text is a whole page).

- Open Questions: a memory phrased as a question (a sentence ending in "?", or opening with should, shall, could,
  would, can, will, is, are, do, does, did, whether, why, who, what or which) or marked uncertain: confidence low
  (the router's hedges: maybe, might, perhaps, probably, I think, not sure, possibly), a tag `question`,
  `open-question` or `uncertain`, or words that say it is open (UNSURE: unsure, uncertain, undecided, unclear,
  unknown, open question, to be decided, TBD, wondering, ...). Such a memory is listed here only.
- Facts: the other semantic memories, oldest first.
- Timeline: the other episodic memories, each with its day, oldest first.
- Summary: the texts of the SUMMARY_MEMORIES most relevant memories (section 9's score now, then the uncapped score,
  then the newest), settled ones before open questions.
- Relations: the agent's relations in force (CUSTOM facts of the 6.3 vocabulary, neither expired nor archived, at
  least one of their memories live) that touch the entity: `→ relation [[other]]` when the entity is the subject,
  `← relation [[other]]` when it is the object.

The header is the entity file's (type, created, last updated, decay score, access count, pinned), the decay inputs
those of its memories together: the first said, the last access, every access. The REST page
(GET /agents/{agent_id}/entities/{entity_id}/page) and the workspace export's entity files for entities no import
wrote are this one generator's."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from grimoire.graph.db.connection import Database
from grimoire.graph.errors import NotFound
from grimoire.graph.memory.routing import Confidence, MemoryType, Store
from grimoire.graph.memory.workspace_files import Decay, EntityFile, day_of, render_entity
from grimoire.graph.model.rows import Row

SUMMARY_MEMORIES = 3     # the summary's memories
PAGE_MEMORIES = 1_000    # a page reads the memories said last, so a hub entity's page stays bounded
PAGE_STORES = (Store.episodic, Store.semantic)
IMPORTED = "entity:"  # the workspace key of a file an import wrote for an entity
QUESTION_TAGS = frozenset({"question", "open-question", "uncertain"})
UNSURE = re.compile(r"\b(?:unsure|uncertain|undecided|unclear|unknown|open question|to be (?:decided|determined)|"
                    r"tbd|not (?:yet )?decided|(?:have not|haven't) decided|still deciding|wondering|"
                    r"not sure|no idea)\b", re.I)
_QUESTION = re.compile(r"\?[\"')\]]*(?:\s|$)")
# a sentence that opens as a question does (a message's "?" may not survive its summary)
ASKS = re.compile(r"(?:^|[.!;]\s+)(?:should|shall|could|would|can|will|is|are|do|does|did|whether|why|who|what|"
                  r"which)\b", re.I)


class Direction(StrEnum):
    outgoing = "outgoing"   # the entity is the relation's subject
    incoming = "incoming"   # its object


@dataclass(frozen=True)
class PageMemory:
    """A memory as a page reads it."""

    id: str
    store: Store
    type: MemoryType
    confidence: Confidence
    tags: tuple[str, ...]
    text: str
    decay: Decay

    @property
    def at(self) -> int:
        return self.decay.created

    @property
    def line(self) -> str:
        return " ".join(self.text.split())


@dataclass(frozen=True)
class PageLink:
    """A relation touching the entity."""

    direction: Direction
    relation: str
    other: str                    # the other entity's spec id (kind--name)
    other_name: str | None
    confidence: str | None
    since: int | None             # valid from (epoch ms)


# ---------------------------------------------------------------------------------------- the answer

class EntityPageEntity(BaseModel):
    slug: str = Field(description="the spec's entity id, kind--name")
    name: str
    kind: str
    ids: list[str] = Field(description="the graph's entities of that spec id the memories name")


class EntityPageItem(BaseModel):
    memory_id: str
    text: str
    day: str = Field(description="YYYY-MM-DD of when it was said")
    store: str
    confidence: str


class EntityPageQuestion(EntityPageItem):
    reason: str = Field(description="why it is open: a question, low confidence, an uncertain tag or wording")


class EntityPageRelation(BaseModel):
    direction: Direction
    relation: str = Field(description="section 6.3's relation")
    other: str = Field(description="the other entity's spec id (kind--name)")
    other_name: str | None = None
    confidence: str | None = None
    since: str | None = Field(default=None, description="YYYY-MM-DD it holds from")


class EntityPage(BaseModel):
    """An entity's page (6.2): summary, facts, timeline, open questions and relations, and the Markdown file."""

    agent_id: str
    entity: EntityPageEntity
    created: str = Field(description="the day its first memory was said")
    updated: str = Field(description="the day its last memory was said")
    decay_score: float = Field(description="its memories' decay inputs together, scored now (section 9)")
    access_count: int
    pinned: bool
    memories: int = Field(description="the memories the page was made from")
    summary: str
    summary_from: list[str] = Field(description="the memories the summary quotes, most relevant first")
    facts: list[EntityPageItem]
    timeline: list[EntityPageItem]
    open_questions: list[EntityPageQuestion]
    relations: list[EntityPageRelation]
    markdown: str = Field(description="the entity file, as the workspace export writes it")


# ---------------------------------------------------------------------------------------- the rules

def open_reason(m: PageMemory) -> str | None:
    """Why a memory is an open question, or None: the rule the module's docstring states."""
    if _QUESTION.search(m.line + " ") or ASKS.search(m.line):
        return "a question"
    if m.confidence is Confidence.low:
        return "low confidence"
    if QUESTION_TAGS & {t.lower() for t in m.tags}:
        return "tagged uncertain"
    if UNSURE.search(m.line):
        return "uncertain wording"
    return None


def aggregate(decays: Sequence[Decay]) -> Decay:
    """The decay inputs of an entity made of memories: the first creation, the last access, every access."""
    return Decay(Store.semantic, max(d.base for d in decays), min(d.created for d in decays),
                 max(d.last_accessed for d in decays), sum(d.access_count for d in decays),
                 any(d.pinned for d in decays))


def _sentence(text: str) -> str:
    return text if text[-1:] in ".!?" else f"{text}."


def _item(m: PageMemory) -> EntityPageItem:
    return EntityPageItem(memory_id=m.id, text=m.line, day=day_of(m.at), store=m.store.value,
                          confidence=m.confidence.value)


def _relations(links: Iterable[PageLink]) -> list[EntityPageRelation]:
    seen: dict[tuple[Direction, str, str], PageLink] = {}
    for link in links:
        key = (link.direction, link.relation, link.other)
        if key not in seen or (link.since or 0) < (seen[key].since or 0):
            seen[key] = link
    ordered = sorted(seen.values(), key=lambda x: (x.direction is not Direction.outgoing, x.relation, x.other))
    return [EntityPageRelation(direction=x.direction, relation=x.relation, other=x.other, other_name=x.other_name,
                               confidence=x.confidence, since=day_of(x.since) if x.since is not None else None)
            for x in ordered]


def body(page: EntityPage) -> str:
    """The file's sections under its header; a section with nothing in it is left out (the summary never is)."""
    out = ["## Summary", page.summary]
    if page.facts:
        out += ["## Facts", *(f"- {f.text}" for f in page.facts)]
    if page.timeline:
        out += ["## Timeline", *(f"- {t.day}: {t.text}" for t in page.timeline)]
    if page.open_questions:
        out += ["## Open Questions", *(f"- {q.text}" for q in page.open_questions)]
    if page.relations:
        out += ["## Relations", *(f"- {'→' if r.direction is Direction.outgoing else '←'} {r.relation} "
                                  f"[[{r.other}]]" for r in page.relations)]
    return "\n".join(out)


def page_memories(memories: Iterable[PageMemory]) -> list[PageMemory]:
    """A page's memories: of its stores, the PAGE_MEMORIES said last, oldest first."""
    return sorted((m for m in memories if m.store in PAGE_STORES), key=lambda m: (m.at, m.id))[-PAGE_MEMORIES:]


def build(agent_id: str, entity: EntityPageEntity, memories: Sequence[PageMemory], links: Iterable[PageLink],
          at: int) -> EntityPage | None:
    """The page from its memories (any order; the PAGE_MEMORIES said last are used) and relations, scored as of
    `at`; None when no memory of the page's stores names it."""
    mine = page_memories(memories)
    if not mine:
        return None
    reasons = {m.id: open_reason(m) for m in mine}
    settled = [m for m in mine if reasons[m.id] is None]

    def rank(m: PageMemory) -> tuple[bool, float, float, int, str]:
        r = m.decay.relevance(at)
        return (reasons[m.id] is None, r.score, r.raw, m.at, m.id)

    top = sorted(mine, key=rank, reverse=True)[:SUMMARY_MEMORIES]
    d = aggregate([m.decay for m in mine])
    page = EntityPage(
        agent_id=agent_id, entity=entity, created=day_of(d.created), updated=day_of(mine[-1].at),
        decay_score=round(d.relevance(at).score, 4), access_count=d.access_count, pinned=d.pinned, memories=len(mine),
        summary=" ".join(_sentence(m.line) for m in top), summary_from=[m.id for m in top],
        facts=[_item(m) for m in settled if m.store is Store.semantic],
        timeline=[_item(m) for m in settled if m.store is Store.episodic],
        open_questions=[EntityPageQuestion(**_item(m).model_dump(), reason=reasons[m.id] or "")
                        for m in mine if reasons[m.id] is not None],
        relations=_relations(links), markdown="")
    file = EntityFile(entity.slug, body(page), page.created, page.updated, d.relevance(at).score, d.access_count,
                      d.pinned)
    return page.model_copy(update={"markdown": render_entity(file)})


# ---------------------------------------------------------------------------------------- the graph

class PageEntityRow(BaseModel):
    id: str
    slug: str | None = None
    name: str | None = None
    kind: str | None = None


class PageMemoryRow(BaseModel):
    id: str
    store: str
    memory_type: str | None = None
    confidence_level: str | None = None
    tags: list[str] | None = None
    text: str | None = None
    valid_from: int
    last_accessed_at: int | None = None
    access_count: int | None = None
    base_relevance: float
    pinned: bool | None = None


class PageRelationRow(BaseModel):
    outgoing: bool
    relation: str
    other: PageEntityRow
    confidence: str | None = None
    since: int | None = None


class EntityPageRow(Row):
    """One entity's page for one agent: the entities of the id, their memories and relations."""

    query = "memory/entity_page"
    entities: list[PageEntityRow]
    memories: list[PageMemoryRow]
    relations: list[PageRelationRow]


def page_memory(row: PageMemoryRow | dict[str, Any]) -> PageMemory:
    m = row if isinstance(row, PageMemoryRow) else PageMemoryRow.model_validate(row)
    decay = Decay(Store(m.store), m.base_relevance, m.valid_from, m.last_accessed_at or m.valid_from,
                  m.access_count or 0, bool(m.pinned))
    return PageMemory(m.id, Store(m.store), MemoryType(m.memory_type or MemoryType.fact.value),
                      Confidence(m.confidence_level or Confidence.medium.value), tuple(m.tags or ()), m.text or "",
                      decay)


def read(db: Database, agent_id: str, entity_id: str, at: int) -> EntityPage:
    """The page of the entity (its spec id, kind--name, or the graph's id) from the agent's own live memories;
    NotFound when none of them names it."""
    rows = db.typed(EntityPageRow, agent_id=agent_id, key=entity_id, stores=[s.value for s in PAGE_STORES],
                    limit=PAGE_MEMORIES, imported=IMPORTED)
    row = rows[0] if rows else None
    entities = sorted(row.entities, key=lambda e: e.id) if row else []
    page = None
    if row and entities:
        first = entities[0]
        slug = first.slug or entity_id
        entity = EntityPageEntity(slug=slug, name=first.name or slug, kind=(first.kind or slug.split("--")[0]).lower(),
                                  ids=[e.id for e in entities])
        links = [PageLink(Direction.outgoing if r.outgoing else Direction.incoming, r.relation,
                          r.other.slug or r.other.id, r.other.name, r.confidence, r.since) for r in row.relations]
        page = build(agent_id, entity, [page_memory(m) for m in row.memories], links, at)
    if page is None:
        raise NotFound(f"no entity {entity_id!r} in agent {agent_id!r}'s memories")
    return page
