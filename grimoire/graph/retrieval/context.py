"""What a retrieval mode works from (graph/retrieval/modes/): the request, who asks (and for which
agent: the perspective of the knowledge weighting), the filters after the adaptive decision, the
services, and what the retrieval has found so far (each backend's rows, the candidates, the cuts;
the caller's reach and the query terms' document frequencies, each asked for once)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextvars import copy_context
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from grimoire.graph.db.connection import Database
from grimoire.graph.db.lucene import matchable
from grimoire.graph.errors import Invalid
from grimoire.graph.knowledge.decay import DecayConfig
from grimoire.graph.model.rows import Record
from grimoire.graph.model.vectors import check_vector
from grimoire.graph.observe import Stopwatch
from grimoire.graph.retrieval import backends, exact, items, rerank, term_overlap
from grimoire.graph.retrieval.candidate import Candidate
from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.retrieval.filters import RetrievalFilters
from grimoire.graph.retrieval.reach import ExactRule, Reach, ReachCache, exact_rule, measure
from grimoire.graph.retrieval.weighting import Perspective
from grimoire.graph.visibility import Visibility

if TYPE_CHECKING:
    from grimoire.graph.retrieval.request import RetrievalRequest

T = TypeVar("T")
S = TypeVar("S")
# BM25 and the entity lookup run beside the query's embedding: their time is mostly waiting on the
# database, which releases the GIL.
POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="retrieval")
# The reads that need no query vector (BM25, the exact ranking's members) start before it is embedded, and the exact
# ranking's candidates are fetched while the graph backend searches (issue 41, "the exact path"): the same
# statements, overlapped rather than one after another. bench/exact_path.py turns it off to measure the way before.
OVERLAP = True
# With the overlap, a request with text reads the exact ranking's members and BM25's first ask in one statement
# (cypher/retrieval/members_fulltext.cypher) rather than two beside each other: the same rows, one round trip, one
# query's fixed cost in the database and the driver (issue 41). bench/exact_path.py turns it off to compare.
ONE_READ = True
# With the overlap, the exact ranking's candidates (their properties) and the graph backend's neighbours of the
# strongest hits are read in one statement (cypher/retrieval/items_neighbours.cypher) rather than two beside each other:
# both wait for the vector ranking, and the graph stage waits for both (issue 41). bench/exact_path.py turns it off.
ONE_GRAPH_READ = True
# With the members and BM25 read in one statement, the entities whose names match the query's words (the graph
# backend's seeds) are read in it too (cypher/retrieval/members_fulltext_entities.cypher) rather than beside it: one
# statement fewer beside the query's embedding on the same cores (issue 41). bench/exact_path.py turns it off.
ONE_ENTITY_READ = True


@dataclass
class Around:
    """What `Context.neighbours_with_items` read for the graph backend: the neighbours' rows (graph_neighbours')."""

    neighbours: list[Record]


@dataclass
class EntityWish:
    """The graph backend's named-entity lookup, to be read with the members and BM25 (`Context.named_entities`)."""

    query: str  # the name index's query (backends.entity_query)
    limit: int
    possessives: bool
    found: Future[list[str]] = field(default_factory=Future)


@dataclass
class Unembedded:
    """What `Context._read_together` read before the query is embedded: the exact ranking's members (None: the
    reach is not ranked exactly) and BM25's rows."""

    members: exact.Members | None = None
    bm25: list[Record] = field(default_factory=list)


def _then(source: Future[S], pick: Callable[[S], T]) -> Future[T]:
    """A future of `pick` of what `source` gives (or of its error), set when `source` is done."""
    out: Future[T] = Future()

    def done(f: Future[S]) -> None:
        try:
            out.set_result(pick(f.result()))
        except BaseException as exc:  # the reads' errors reach whoever waits on either part
            out.set_exception(exc)

    source.add_done_callback(done)
    return out


class QueryMissing(Invalid):
    """A stage needs the query's vector and the request gave neither text nor a vector (a mode's
    `needs` says so before it runs: this is the same check where the vector is used)."""


class QueryVector:
    """The query's vector: the one the request gives (checked at once: a bad one is a 422), or the
    text's embedding, computed the first time a stage needs it, and only then."""

    def __init__(self, vector: list[float] | None, text: str | None, embed: Callable[[str], list[float]],
                 dimension: int) -> None:
        if vector is not None:
            check_vector(vector, dimension)
        self._vector, self._text, self._embed, self._dimension = vector, text, embed, dimension

    def __call__(self) -> list[float] | None:
        if self._vector is None and self._text:
            self._vector = self._embed(self._text)
            check_vector(self._vector, self._dimension)
        return self._vector

    def of(self, text: str) -> list[float]:
        """Another text's embedding by the same model (a part of the query: graph/retrieval/decompose.py)."""
        return self._embed(text)

    def required(self) -> list[float]:
        """The vector, for a stage that cannot go without one."""
        vector = self()
        if vector is None:
            raise QueryMissing("give text or vector")
        return vector


@dataclass
class Context:
    db: Database
    config: RetrievalConfig
    decay: DecayConfig
    req: RetrievalRequest
    visibility: Visibility
    filters: RetrievalFilters        # the request's, or the adaptive decision's narrowing of them
    k: int                           # the request's, or the adaptive decision's smaller one
    now: int
    embedding: QueryVector
    clock: Stopwatch                 # the stages' milliseconds (graph/observe.py), returned with the results
    traces: dict[str, dict[str, Any]] = field(default_factory=dict)  # per candidate id: per backend, and rrf
    found: dict[str, Candidate] = field(default_factory=dict)        # candidates as the backends returned them
    cut: list[Candidate] = field(default_factory=list)               # what the mode cut, with why
    agent_id: str | None = None      # the caller's agent: whose knowledge is "own" (none for the admin key)
    reaches: ReachCache | None = None  # the retriever's large reaches, reused for a while
    held: exact.HeldVectors | None = None  # the retriever's vectors for exact rankings (graph/retrieval/exact.py)

    def __post_init__(self) -> None:
        self.params = self.filters.params(self.visibility)  # the Cypher parameters of the filters
        self.vectors: dict[str, np.ndarray] = {}  # what an exact ranking read, by id: given to the candidates
        self._reach: Future[Reach] | None = None
        self._df: Future[dict[str, int]] | None = None
        self._bm25: Future[list[Record]] | None = None
        self._members: Future[exact.Members | None] | None = None
        self._prefetched: Future[dict[str, Candidate]] | None = None
        self._entities: EntityWish | None = None
        self._prefetched_ids: frozenset[str] = frozenset()

    @property
    def perspective(self) -> Perspective | None:
        """Whom the knowledge weighting weighs for: the caller's agent and clade; none for the admin key."""
        return Perspective(self.agent_id, self.visibility.clade) if self.agent_id else None

    def reach(self) -> Future[Reach]:
        """What the caller can see under the filters (graph/retrieval/reach.py), measured once, in the pool."""
        if self._reach is None:
            count = self.reaches.measure if self.reaches is not None else measure
            self._reach = self.submit(count, self.db, self.params, self.config.visible_count_cap)
        return self._reach

    def bm25(self) -> Future[list[Record]]:
        """The full-text backend's rows for the request's text (graph/retrieval/backends.py), searched once, in the
        pool: it needs no vector, so a mode may start it before the query is embedded."""
        if self._bm25 is None:
            reach_f, cfg = self.reach(), self.config
            self._bm25 = self.submit(lambda: backends.bm25(self.db, self.req.text or "", cfg.per_backend, self.params,
                                                           cfg.candidates_factor, reach_f.result()))
        return self._bm25

    def start_unembedded(self) -> None:
        """Starts, in the pool, the reads that need no query vector: BM25 (with text) and the exact ranking's
        members (`exact_members`), for a mode that embeds the query before it searches; with text, in one job
        (`_read_together`)."""
        if not OVERLAP:
            return
        if self.req.text and ONE_READ and self._bm25 is None and self._members is None:
            both = self.submit(self._read_together, self.reach())
            self._members, self._bm25 = _then(both, lambda b: b.members), _then(both, lambda b: b.bm25)
            return
        if self.req.text:
            self.bm25()
        self.exact_members()

    def named_entities(self, limit: int, possessives: bool) -> Future[list[str]]:
        """The entities the viewer may see that the request's text names (backends.named_entities), in the pool. When
        the members and BM25 will be read in one statement (a reach ranked exactly, as this replica last counted it),
        the lookup is part of it (`_read_together`: members_fulltext_entities.cypher); else its own statement, started
        now. Call it before `start_unembedded`."""
        text = self.req.text or ""
        query = backends.entity_query(text, possessives)
        if not query:
            done: Future[list[str]] = Future()
            done.set_result([])
            return done
        seen = self.reaches.held(self.params, self.config.visible_count_cap) if self.reaches is not None else None
        if (OVERLAP and ONE_READ and ONE_ENTITY_READ and seen is not None and self.ranks_exactly(seen)
                and matchable(text) and self._bm25 is None and self._members is None and self._entities is None):
            self._entities = EntityWish(query, limit, possessives)
            return self._entities.found
        return self.submit(backends.named_entities, self.db, text, self.visibility, limit, possessives)

    def _read_together(self, reach_f: Future[Reach]) -> Unembedded:
        """The members (when the reach is ranked exactly) and BM25's rows, as `exact_members` and `bm25` read them,
        BM25's first ask and the members in one statement (members_fulltext.cypher), with the named entities when
        `named_entities` asked for them (members_fulltext_entities.cypher). BM25 asks nothing for a text with no word
        to match: then the members are read alone (and the entities, if asked for, by their own statement)."""
        wish = self._entities
        try:
            out = self._read_both(reach_f, wish)
        except BaseException as exc:
            if wish is not None and not wish.found.done():
                wish.found.set_exception(exc)  # whoever waits for the entities hears of it too
            raise
        if wish is not None and not wish.found.done():  # the reach changed since it was held: not read with them
            try:
                wish.found.set_result(backends.named_entities(self.db, self.req.text or "", self.visibility,
                                                              wish.limit, wish.possessives))
            except BaseException as exc:
                wish.found.set_exception(exc)
        return out

    def _read_both(self, reach_f: Future[Reach], wish: EntityWish | None) -> Unembedded:
        reach, cfg, out = reach_f.result(), self.config, Unembedded()
        wanted = self.ranks_exactly(reach)

        def both(params: dict[str, Any]) -> Unembedded:
            if wish is None:
                row = self.db.rows("retrieval/members_fulltext", **params)
            else:
                row = self.db.rows("retrieval/members_fulltext_entities", entity_query=wish.query,
                                   limit=backends.ENTITY_CANDIDATES, **params)
                wish.found.set_result(backends.named_in(row[0]["entities"] if row else [], self.req.text or "",
                                                        wish.limit, wish.possessives))
            out.members, out.bm25 = exact.members_of(row), list(row[0]["hits"]) if row else []
            return out

        first_ask: backends.Ask = (lambda name, **params: both(params).bm25) if wanted else self.db.rows
        out.bm25 = backends.bm25(self.db, self.req.text or "", cfg.per_backend, self.params, cfg.candidates_factor,
                                 reach, first_ask=first_ask)
        if wanted and out.members is None:
            out.members = exact.members(self.db, self.params)
        return out

    def ranks_exactly(self, reach: Reach) -> bool:
        """Whether the vector ranking is the exact one from held vectors (graph/retrieval/exact.py): a small (or
        small for the store: reach.ExactRule), non-empty reach of a caller the members query answers for."""
        return reach.exact(self.exact_rule()) and reach.visible > 0 and exact.applies(self.params)

    def exact_rule(self) -> ExactRule:
        return exact_rule(self.config, backends.MAX_CANDIDATES)

    def exact_members(self) -> Future[exact.Members | None]:
        """The exact ranking's members (who may see what: cypher/retrieval/exact_members.cypher), read once, in the
        pool, when the reach says the ranking is exact (else None): they need no vector, so a mode may start the
        read while the query is embedded. The reach is asked for first, so the job only waits on one ahead of it
        in the pool's queue."""
        if self._members is None:
            reach_f = self.reach()
            if not OVERLAP:
                self._members = Future()
                self._members.set_result(None)
                return self._members
            self._members = self.submit(
                lambda: exact.members(self.db, self.params) if self.ranks_exactly(reach_f.result()) else None)
        return self._members

    def prefetch_items(self, ids: Sequence[str]) -> None:
        """Starts fetching (in the pool) the candidates of `ids` that came without their properties (the exact
        ranking's), so that `items` finds them read while the later backends search. Once per retrieval."""
        if self._prefetched is not None or not OVERLAP:
            return
        wanted = self._unfetched(ids)
        if wanted:  # an index search's rows carry their properties: nothing to fetch
            self._prefetched_ids = frozenset(wanted)
            self._prefetched = self.submit(items.fetch, self.db, wanted, self.visibility)

    def neighbours_with_items(self, ids: Sequence[str]) -> backends.Ask | None:
        """For the graph backend (`backends.graph`'s `neighbours_ask`): its neighbours' statement run with the fetch of
        the candidates of `ids` that came without their properties (the exact ranking's), in one statement
        (items_neighbours.cypher), whose items `items` then takes as `prefetch_items` would have fetched them. None
        when there is nothing to fetch, or the fetch began already: the neighbours are read alone."""
        if self._prefetched is not None or not (OVERLAP and ONE_GRAPH_READ):
            return None
        wanted = self._unfetched(ids)
        if not wanted:
            return None

        def read(params: dict[str, Any]) -> Around:
            rows = self.db.rows("retrieval/items_neighbours", ids=wanted, **params)
            row = rows[0] if rows else {"items": [], "neighbours": []}
            fetched: Future[dict[str, Candidate]] = Future()
            fetched.set_result({r["id"]: Candidate.from_row(r) for r in row["items"]})
            self._prefetched, self._prefetched_ids = fetched, frozenset(wanted)
            return Around(list(row["neighbours"]))

        return lambda name, **params: read(params).neighbours

    def _unfetched(self, ids: Sequence[str]) -> list[str]:
        """Of `ids`, once each, those whose properties no backend's rows brought (the exact ranking's)."""
        return [i for i in dict.fromkeys(ids) if i not in self.found]

    def query_terms(self) -> list[str]:
        return term_overlap.terms(self.req.text or "")

    def term_df(self) -> Future[dict[str, int]]:
        """The query terms' visible document frequencies, counted once, in the pool (a mode that blends
        the term overlap asks for them first, so they are counted while it searches)."""
        if self._df is None:
            self._df = self.submit(term_overlap.document_frequencies, self.db, self.query_terms(),
                                   self.config.term_overlap.idf_cap, self.params)
        return self._df

    def term_idf(self) -> dict[str, float]:
        """Each query term's IDF over the visible corpus (graph/retrieval/term_overlap.py)."""
        return term_overlap.idf(self.term_df().result(), self.reach().result().visible, self.query_terms())

    @property
    def at(self) -> int:
        """The time the scores are computed at: the filters' valid time, else now."""
        return self.req.filters.valid_at or self.now

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Runs fn(*args) in the pool, in a copy of the request's context (its logs carry the request id)."""
        return POOL.submit(copy_context().run, fn, *args)

    def note(self, backend: str, rows: Sequence[Mapping[str, Any]]) -> list[str]:
        """Records a backend's rows (rank, score and how the graph reached each) and the candidates
        they carry; returns their ids, best first."""
        for rank, r in enumerate(rows, start=1):
            extra = {key: r[key] for key in ("via", "entity", "distance") if key in r}
            self.traces.setdefault(r["id"], {})[backend] = {"rank": rank, "score": r["score"], **extra}
            if "item" in r and r["id"] not in self.found:
                self.found[r["id"]] = Candidate.from_row(r)
        return [r["id"] for r in rows]

    def items(self, ids: list[str]) -> list[Candidate]:
        """The candidates in order: from what the backends returned, fetching only what they did not (those
        `prefetch_items` asked for are taken from its answer: one it did not return is not visible)."""
        missing = [i for i in ids if i not in self.found]
        fetched = self._prefetched.result() if self._prefetched is not None else {}
        by_id = {**self.found, **{i: fetched[i] for i in missing if i in fetched},
                 **items.fetch(self.db, [i for i in missing if i not in self._prefetched_ids], self.visibility)}
        return [self._traced(by_id[i]) for i in ids if i in by_id]

    def fetch(self, ids: list[str]) -> list[Candidate]:
        """Fresh candidates by id, in order (not those already found: injected items stand apart)."""
        by_id = items.fetch(self.db, ids, self.visibility)
        return [self._traced(by_id[i]) for i in ids if i in by_id]

    def load(self, ids: list[str]) -> list[Candidate]:
        """The ranked candidates, less those whose effective confidence is under the filters'
        minimum, and the entries under the retrievable confidence (config.retrievable_confidence, 0.1:
        the seed drops them from retrieval at once; a structural entry, which never decays, excepted).
        Those go to `cut`, saying why."""
        found = self.items(ids)
        self.clock.lap("items")
        keep = []
        for c in found:
            why = self._too_faint(c)
            if why is None:
                keep.append(c)
            else:
                c.cut = why
                self.cut.append(c)
        return keep

    def _too_faint(self, c: Candidate) -> str | None:
        floor = self.filters.min_confidence
        decays = c.kind == "entry" and c.half_life_ms is not None
        if floor is None and not decays:
            return None
        confidence = rerank.confidence_now(c, self.now, self.decay)
        if floor is not None and confidence < floor:
            return f"effective confidence {confidence:.3f} below {floor}"
        if decays and confidence < self.config.retrievable_confidence:
            return (f"effective confidence {confidence:.3f} below {self.config.retrievable_confidence}: out of "
                    f"retrieval until it is confirmed again")
        return None

    def _traced(self, c: Candidate) -> Candidate:
        c.trace = self.traces.get(c.id, {})
        if c.embedding is None and (vector := self.vectors.get(c.id)) is not None:
            c.embedding = vector.tolist()  # read for the exact ranking: MMR and the factors need no second read
        return c

    def exact(self, top: int, *, short_chars: int = -1, weight: float = 0.0) -> list[exact.Scored]:
        """The exact ranking of the caller's (small) reach from the retriever's held vectors, rows best first
        (graph/retrieval/exact.py); the vectors it read kept for the candidates."""
        held = self.held if self.held is not None else exact.HeldVectors(held=0)
        read = self._members.result() if self._members is not None else None
        rows, self.vectors = exact.rank(self.db, held, self.embedding.required(), self.params, top,
                                        short_chars=short_chars, weight=weight, found=read)
        return rows
