"""What POST /search takes and answers (api/routes/search.py)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, model_validator

from grimoire.graph.model.vectors import Vector
from grimoire.graph.retrieval import SearchKind as Kind

SCORES = ("vector mode: the cosine similarity of the item's embedding to the query, in [-1, 1] (the scale of "
          "POST /retrieve's vector scores); fulltext mode: the Lucene BM25 score, 0 or more and unbounded, "
          "comparable only within one query")


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
    score: float = Field(description=SCORES)
