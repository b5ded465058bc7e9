"""POST /search (one retrieval backend over episodes or entries), GET /stats (visible counts) and
GET /entities/{id}/related (what mentions an entity)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from grimoire.api.auth import Reader
from grimoire.api.deps import DbDep, RetrieverDep
from grimoire.api.schemas.search import SCORES, Hit, SearchIn
from grimoire.graph.model.vectors import check_vector
from grimoire.graph.retrieval import RelatedEpisode, related_to_entity, search_fulltext, search_vector
from grimoire.graph.stats import VisibleCounts, visible_counts

router = APIRouter(tags=["search"])


@router.post("/search", response_model=list[Hit], summary="Vector or full-text search over what the key may see",
             description="The k best visible episodes or entries by one of retrieval's backends (the vector index, "
                         "with an exact search when the index leaves too few visible hits, or the full-text "
                         f"index), best first. Scores: {SCORES}.")
def search_items(body: SearchIn, retriever: RetrieverDep, who: Reader) -> list[Hit]:
    db, config = retriever.db, retriever.config
    if body.mode == "fulltext":
        rows = search_fulltext(db, body.kind, body.text or "", body.k, who.visibility(), config)
    else:
        vector = body.vector if body.vector is not None else retriever.embed(body.text or "")
        check_vector(vector, retriever.dimension)  # InvalidVector: a 422 naming the rule
        rows = search_vector(db, body.kind, vector, body.k, who.visibility(), config)
    retriever.reads.note([r["id"] for r in rows])  # a search is a read: access for relevance, written in batches
    return [Hit(id=r["id"], score=r["score"]) for r in rows]


@router.get("/stats", summary="How many episodes and entries the key may see", response_model=VisibleCounts)
def stats(db: DbDep, who: Reader, agent_id: Annotated[str | None, Query(
        max_length=200, description="count one agent's items only (of those the key may see)")] = None,
          ) -> VisibleCounts:
    return visible_counts(db, who.visibility(), agent_id)


@router.get("/entities/{entity_id:path}/related",  # ids may hold "/": the path converter reaches them
            summary="Episodes mentioning an entity and entries derived from them (visible ones only)",
            response_model=list[RelatedEpisode])
def related(entity_id: str, db: DbDep, who: Reader,
            limit: Annotated[int, Query(ge=1, le=1_000)] = 100) -> list[RelatedEpisode]:
    return related_to_entity(db, entity_id, who.visibility(), limit)  # 404 when unknown or invisible
