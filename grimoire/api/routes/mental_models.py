"""The 13 core mental models: always available (graph/knowledge/mental_models.py)."""

from __future__ import annotations

from fastapi import APIRouter

from grimoire.api.auth import Reader
from grimoire.api.deps import KnowledgeDep
from grimoire.api.schemas.entries import MentalModelOut
from grimoire.graph.knowledge import mental_models

router = APIRouter(tags=["mental models"])


@router.get("/mental-models", response_model=list[MentalModelOut],
            summary="The 13 core mental models, each a public structural Insight every agent retrieves")
def list_mental_models(k: KnowledgeDep, who: Reader) -> list[MentalModelOut]:
    return mental_models.library(k.db, who.visibility(), floor=k.decay.floor)
