"""Recall by query type (../shared/spec/moltbot-memory.md, section 11.1), one small strategy per type:

- temporal ("when did we …?"): the episodic store, keyword hits (BM25: retrieval's full-text search of the
  agent's memories, sized by how many it has, so a few among others' many matching ones are still found),
  newest first among equals;
- entity ("what do you know about X?"): resolve X to the agent's entities (fuzzy on names and aliases),
  the memories naming them, then one and two hops over the agent's relations (11.2);
- procedural ("how do I usually …?"): a pattern match on procedures' triggers;
- latest ("what's the latest on …?"): recent memories about it, and the active context block;
- general, and any strategy that finds nothing: the service's hybrid retrieval (vector + BM25 + graph,
  RRF) over the agent's memories (11.3).

Every result is ranked by its match × its relevance now (section 9), archived memories are never returned,
and dormant ones only when the recall is explicit (the user asked for it by name)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from grimoire.graph.db.connection import Database
from grimoire.graph.db.lucene import escape_lucene
from grimoire.graph.memory import relevance
from grimoire.graph.memory.relevance import EXPLICIT, SEARCHABLE
from grimoire.graph.memory.routing import Store
from grimoire.graph.memory.stores import Memory, MemoryEntity, as_memory
from grimoire.graph.memory.triggers import QueryType


def _words(text: str) -> list[str]:
    return text.split()


_STOP = frozenset(_words("""a an the i me my we us our you your it its is am are was were be been do does did
have has had of in on at by to for with about from and or but not what when how where who which that this these those
usually normally latest new know remember recall discuss discussed talk talked last time ever again any
some there here so just really"""))


def terms(query: str) -> list[str]:
    words = [w.lower() for w in re.findall(r"[\w][\w.+#-]*", query)]
    return [w.strip(".") for w in words if w not in _STOP and len(w.strip(".")) > 1][:12]


def lucene_any(words: list[str], fuzzy: bool = False) -> str:
    return " OR ".join(escape_lucene(w) + ("~" if fuzzy and len(w) > 3 else "") for w in words)


def lucene_all(words: list[str]) -> str:
    return " AND ".join(escape_lucene(w) for w in words)


RESULTS = 20  # moltbot-memory.md 16, "Max search results"
MIN_SEARCH_SCORE = 0.3  # "Min search score": on the match, before relevance

@dataclass(frozen=True)
class Hit:
    memory: dict[str, Any]
    match: float        # 0..1: how well it answers the query, before relevance
    via: str


@dataclass
class Found:
    hits: list[Hit]
    entities: list[dict[str, Any]] = field(default_factory=list)   # resolved entities and what is around them
    context: str | None = None                                     # the active context block (latest)


class Strategy(Protocol):
    @property
    def query_type(self) -> QueryType: ...

    def find(self, db: Database, agent_id: str, query: str, limit: int) -> Found: ...


def _normalised(rows: list[dict[str, Any]], via: str) -> list[Hit]:
    top = max((float(r["score"]) for r in rows), default=0.0) or 1.0
    return [Hit(dict(r["memory"]), float(r["score"]) / top, via) for r in rows]


Keyword = Callable[[str, str, int], list[tuple[str, float]]]
"""agent id, words, k -> (memory id, BM25 score), best first: retrieval's lexical search of the agent's memories
(graph/services.py gives it; graph/retrieval/lookup.py sizes it by the agent's reach)."""


def no_keyword(agent_id: str, words: str, k: int) -> list[tuple[str, float]]:
    return []


def _keyword(db: Database, keyword: Keyword, agent_id: str, words: list[str], limit: int) -> list[Hit]:
    """Memories of every store matching any of the words (BM25 over the agent's memories), normalised."""
    found = keyword(agent_id, " ".join(words), limit * 2)
    if not found:
        return []
    memories = {r["memory"]["id"]: r["memory"] for r in db.fetch("memory/by_ids", agent_id=agent_id,
                                                                 ids=[i for i, _ in found])}
    return _normalised([{"memory": memories[i], "score": score} for i, score in found if i in memories], "keyword")


@dataclass(frozen=True)
class TemporalRecall:
    query_type: QueryType = QueryType.temporal
    keyword: Keyword = no_keyword

    def find(self, db: Database, agent_id: str, query: str, limit: int) -> Found:
        words = terms(query)
        if not words:
            return Found(_normalised(db.fetch("memory/recent", agent_id=agent_id, store=Store.episodic.value,
                                              limit=limit), "recent"))
        hits = _keyword(db, self.keyword, agent_id, words, limit)
        # a temporal scan: the episodic log first, then newest first among equal matches
        hits.sort(key=lambda h: (h.memory.get("store") != Store.episodic.value, -round(h.match, 2),
                                 -int(h.memory.get("valid_from") or 0)))
        return Found(hits)


@dataclass(frozen=True)
class EntityRecall:
    query_type: QueryType = QueryType.entity
    hops: int = 2
    fanout: int = 5    # the strongest relations followed at each hop

    def find(self, db: Database, agent_id: str, query: str, limit: int) -> Found:
        words = terms(query)
        if not words:
            return Found([])
        rows = db.fetch("memory/entity", agent_id=agent_id, query=lucene_any(words, fuzzy=True), hops=self.hops,
                        fanout=self.fanout, per=limit)
        if not rows:
            return Found([])
        found = rows[0]["found"]
        hits = [Hit(dict(m["memory"]), 1.0 / (1 + int(m["depth"])), f"entity:{m['depth']}")
                for m in rows[0]["memories"]]
        return Found(hits, entities=found)


@dataclass(frozen=True)
class ProceduralRecall:
    query_type: QueryType = QueryType.procedural

    def find(self, db: Database, agent_id: str, query: str, limit: int) -> Found:
        words = terms(query)
        if not words:
            return Found([])
        rows = db.fetch("memory/triggers", agent_id=agent_id, query=lucene_any(words), limit=limit)
        return Found(_normalised(rows, "trigger"))


@dataclass(frozen=True)
class LatestRecall:
    query_type: QueryType = QueryType.latest
    context: Callable[[str], str] | None = None   # the agent's active context block
    keyword: Keyword = no_keyword

    def find(self, db: Database, agent_id: str, query: str, limit: int) -> Found:
        words = terms(query)
        if words:
            hits = _keyword(db, self.keyword, agent_id, words, limit)
            hits.sort(key=lambda h: -int(h.memory.get("valid_from") or 0))  # the latest first
            hits = [Hit(h.memory, max(0.5, h.match), h.via) for h in hits]
        else:
            hits = _normalised(db.fetch("memory/recent", agent_id=agent_id, store=None, limit=limit), "recent")
        return Found(hits, context=self.context(agent_id) if self.context else None)


class Hop(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    from_: str = Field(alias="from")
    relation: str
    to: str


class Neighbour(BaseModel):
    """An entity one or two hops from a resolved one, over the agent's relations (11.2)."""

    id: str
    name: str | None = None
    kind: str | None = None
    depth: int
    relations: list[Hop]


class RecalledEntity(BaseModel):
    """An entity an entity recall resolved the query to, and what is around it."""

    entity: MemoryEntity
    score: float
    around: list[Neighbour]


class Recalled(Memory):
    score: float = Field(description="match × relevance now")
    match: float = Field(description="how well it answers the query (0..1), before relevance")
    via: str = Field(description="what found it: keyword, recent, entity:<depth>, trigger, hybrid")


class RecallAnswer(BaseModel):
    query: str
    query_type: str
    strategy: str = Field(description="the query type's strategy; +hybrid when it found nothing")
    explicit: bool
    results: list[Recalled]
    entities: list[RecalledEntity]
    context: str | None = Field(description="the active context block (a latest recall)")


STRATEGIES: dict[QueryType, Strategy] = {s.query_type: s for s in (
    TemporalRecall(), EntityRecall(), ProceduralRecall(), LatestRecall())}


@dataclass
class Recall:
    """Recall for one agent: the query type's strategy, the hybrid retrieval when it finds nothing, ranked
    by match × relevance, archived never, dormant only when explicit. Up to 20 results, each with a search score
    (`match`) of 0.3 at least (moltbot-memory.md 16: "Max search results 20", "Min search score 0.3"): the floor
    is on how well it matched, not on match × relevance, which would hide the fading memories that section 9.2
    keeps searchable."""

    db: Database
    hybrid: Callable[[str, str, int], list[str]]   # agent id, query, k -> memory ids (the service's retriever)
    keyword: Keyword                               # the service's retriever's lexical search of the agent's memories
    context: Callable[[str], str] | None = None
    strategies: dict[QueryType, Strategy] = field(default_factory=lambda: dict(STRATEGIES))

    def __post_init__(self) -> None:
        self.strategies[QueryType.temporal] = TemporalRecall(keyword=self.keyword)
        self.strategies[QueryType.latest] = LatestRecall(context=self.context, keyword=self.keyword)

    def recall(self, agent_id: str, query: str, query_type: QueryType = QueryType.general, *, explicit: bool = False,
               k: int = RESULTS, min_match: float = MIN_SEARCH_SCORE, now: int) -> RecallAnswer:
        strategy = self.strategies.get(query_type)
        found = strategy.find(self.db, agent_id, query, k) if strategy else Found([])
        strategy_name = query_type.value
        if not found.hits and query.strip():
            found = Found(self._hybrid(agent_id, query, k), found.entities, found.context)
            strategy_name = f"{query_type.value}+hybrid" if strategy else "hybrid"
        allowed = EXPLICIT if explicit else SEARCHABLE
        ranked: dict[str, Recalled] = {}
        for hit in found.hits:
            if hit.match < min_match:
                continue
            memory = as_memory(hit.memory, now)
            if relevance.Status(memory.relevance.status) not in allowed:
                continue
            score = hit.match * memory.relevance.score
            if memory.id not in ranked or ranked[memory.id].score < score:
                ranked[memory.id] = Recalled.model_validate({**memory.model_dump(exclude_unset=True),
                                                             "score": round(score, 6), "match": round(hit.match, 6),
                                                             "via": hit.via})
        results = sorted(ranked.values(), key=lambda m: (-m.score, -(m.valid_from or 0)))[:k]
        return RecallAnswer(query=query, query_type=query_type.value, strategy=strategy_name, explicit=explicit,
                            results=results, entities=[RecalledEntity.model_validate(e) for e in found.entities],
                            context=found.context)

    def _hybrid(self, agent_id: str, query: str, k: int) -> list[Hit]:
        ids = self.hybrid(agent_id, query, k)
        if not ids:
            return []
        rows = self.db.fetch("memory/by_ids", agent_id=agent_id, ids=ids)
        return [Hit(dict(r["memory"]), 1.0 / (1 + int(r["rank"]) / 10), "hybrid") for r in rows]
