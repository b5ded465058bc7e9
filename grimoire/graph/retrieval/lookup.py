"""The two single-backend searches retrieval offers beside the full pipeline (graph/retrieval/__init__.py): `similar`,
the vector backend alone (the Context Governor's need: the items nearest a query vector, with the properties its
categories read and their effective confidence now), and `lexical`, the full-text backend alone (agent-memory
recall's keyword search). Both are sized by the caller's reach (graph/retrieval/reach.py) and answer exactly when
the index leaves too few of a small visible set, as the pipeline's backends do."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from grimoire.graph.db.connection import Database
from grimoire.graph.knowledge.decay import DecayConfig
from grimoire.graph.retrieval import backends, reach, rerank, term_overlap
from grimoire.graph.retrieval.candidate import Candidate, Kind
from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.retrieval.reach import Reach, ReachCache


@dataclass(frozen=True)
class Similar:
    """An item near the query vector: its cosine in [-1, 1], the properties the Governor's categories read, and
    its effective confidence at the time asked (entries: after decay; episodes: their access decay)."""

    id: str
    kind: Kind
    score: float
    effective_confidence: float
    text: str | None = None
    category: str | None = None
    confidence: float | None = None   # as stored (an entry's; none for most episodes)
    half_life_ms: float | None = None
    valid_from: int | None = None
    recorded_at: int | None = None
    block: int | None = None
    pad: list[float] | None = None
    tick: int | None = None           # an episode's
    type: str | None = None
    outcome: str | None = None
    provenance: str | None = None     # an entry's
    dream_validated: bool = False


@dataclass(frozen=True)
class LexicalHit:
    """An item matching the query's words: its score (the full-text index's BM25, 0 or more; from the exact
    ranking of a small set, the IDF-weighted share of the query's terms it holds, in [0, 1])."""

    id: str
    kind: Kind
    score: float
    exact: bool = False


def similar(db: Database, embedding: list[float], k: int, params: dict[str, Any], *, config: RetrievalConfig,
            decay: DecayConfig, reaches: ReachCache, now: int) -> list[Similar]:
    """The k visible items nearest the embedding, best first (retrieval's vector backend, sized by reach)."""
    rows = backends.vector_measured(db, embedding, k, params, config, reaches)
    return [_similar(r, decay, now) for r in rows]


def _similar(row: dict[str, Any], decay: DecayConfig, now: int) -> Similar:
    c, p = Candidate.from_row(row), row["item"]
    return Similar(id=c.id, kind=c.kind, score=float(row["score"]), effective_confidence=rerank.confidence_now(
        c, now, decay), text=c.text, category=c.category, confidence=c.confidence, half_life_ms=c.half_life_ms,
        valid_from=c.valid_from, recorded_at=c.recorded_at, block=c.block, pad=c.pad, tick=p.get("tick"),
        type=p.get("type"), outcome=p.get("outcome"), provenance=p.get("provenance"),
        dream_validated=bool(p.get("dream_validated")))


def lexical(db: Database, text: str, k: int, params: dict[str, Any], *, config: RetrievalConfig,
            reaches: ReachCache, memories: bool = False) -> list[LexicalHit]:
    """The k visible items best matching the text, best first (retrieval's full-text backend, sized by reach).
    `memories`: only the agent filter's agent's memories (:Episode:Memory), their own reach counted, so an agent
    with a few memories in a store where others hold many matching ones asks the index for enough hits to find
    its own; when the index still leaves fewer than k of a small set (at most `exact_below`: its hits were cut
    short by the others' matches), the memories holding a query term that it missed follow its hits."""
    if not memories:
        seen = reaches.measure(db, params, config.visible_count_cap)
        return [_hit(r) for r in backends.bm25(db, text, k, params, config.candidates_factor, seen)]
    seen = memory_reach(db, params, config.visible_count_cap)
    found = [_hit(r) for r in backends.bm25(db, text, k, params, config.candidates_factor, seen, memories=True)]
    if len(found) >= min(k, seen.visible) or not seen.exact(config.exact_below):
        return found
    return found + missed(db, text, k - len(found), params, found, seen)[:k - len(found)]


def memory_reach(db: Database, params: dict[str, Any], cap: int) -> Reach:
    """The caller's visible memories (the agent filter's agent's) against all episodes, the index's documents."""
    row = db.rows("retrieval/memory_count", cap=cap, **{key: params[key] for key in reach.PARAMS})[0]
    return Reach(visible=row["visible"], total=row["total"], capped=row["visible"] >= cap)


def missed(db: Database, text: str, k: int, params: dict[str, Any], found: list[LexicalHit],
           seen: Reach) -> list[LexicalHit]:
    """The visible memories holding a query term (by its light stem, term_overlap.py) that the index's hits left
    out, ranked by the share of the query's terms they hold (IDF over this set), scored below every hit."""
    terms = term_overlap.terms(text)
    if not terms or k <= 0:
        return []
    had = {h.id for h in found}
    rows = [r for r in db.rows("retrieval/memory_texts", words=sorted({term_overlap.stem(t) for t in terms}),
                               cap=seen.visible,
                               **{key: params[key] for key in reach.PARAMS}) if r["id"] not in had]
    held = {r["id"]: {t for t in terms if term_overlap.stem(t) in
                      {term_overlap.stem(w) for w in term_overlap.words(r["text"] or "")}} for r in rows}
    held = {i: ts for i, ts in held.items() if ts}
    idf = term_overlap.idf({t: sum(1 for ts in held.values() if t in ts) for t in terms}, seen.visible, terms)
    below = min((h.score for h in found), default=1.0)
    share = {i: sum(1.0 + idf[t] for t in ts) / (2 * len(terms)) for i, ts in held.items()}
    return [LexicalHit(id=i, kind="episode", score=below * v, exact=True)
            for i, v in sorted(share.items(), key=lambda x: (-x[1], x[0]))]


def _hit(row: dict[str, Any]) -> LexicalHit:
    return LexicalHit(id=row["id"], kind=row["kind"], score=float(row["score"]))
