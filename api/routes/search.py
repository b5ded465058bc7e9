from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field, model_validator

from api.auth import Reader
from api.deps import DbDep, EmbedderDep
from graph import search
from graph.model.vectors import Vector, check_vector
from graph.search import Kind

router = APIRouter(tags=["search"])


class SearchIn(BaseModel):
    text: Annotated[str, Field(min_length=1, max_length=2_000)] | None = None
    vector: Vector | None = None
    mode: Annotated[str, Field(pattern="^(vector|fulltext)$")] = "vector"
    kind: Kind = Kind.episodes
    k: Annotated[int, Field(ge=1, le=100)] = 10

    @model_validator(mode="after")
    def _one_query(self) -> SearchIn:
        if (self.text is None) == (self.vector is None):
            raise ValueError("give either text or vector")
        if self.vector is not None and self.mode != "vector":
            raise ValueError("a vector can only be searched in vector mode")
        if self.text is not None and not self.text.strip():
            raise ValueError("text is blank")
        return self


class Hit(BaseModel):
    id: str
    score: float


@router.post("/search", response_model=list[Hit], summary="Vector or full-text search over what the key may see")
def search_items(body: SearchIn, db: DbDep, embedder: EmbedderDep, who: Reader) -> list[Hit]:
    if body.mode == "fulltext":
        rows = search.fulltext(db, body.kind, body.text or "", body.k, who.visibility())
    else:
        vector = body.vector if body.vector is not None else embedder.embed_one(body.text or "")
        check_vector(vector, embedder.dimension)
        rows = search.vector(db, body.kind, vector, body.k, who.visibility())
    return [Hit(id=r["id"], score=r["score"]) for r in rows]


@router.get("/stats", summary="How many episodes and entries the key may see")
def stats(db: DbDep, who: Reader) -> dict[str, Any]:
    return search.visible_counts(db, who.visibility())


@router.get("/entities/{entity_id:path}/related",  # ids may hold "/": the path converter reaches them
            summary="Episodes mentioning an entity and entries derived from them (visible ones only)")
def related(entity_id: str, db: DbDep, who: Reader,
            limit: Annotated[int, Query(ge=1, le=1_000)] = 100) -> list[dict[str, Any]]:
    return search.related_to_entity(db, entity_id, who.visibility(), limit)  # 404 when unknown or invisible
