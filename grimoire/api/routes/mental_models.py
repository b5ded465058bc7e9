"""The 13 core mental models: always available (graph/knowledge/mental_models.py)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from grimoire.api.auth import Reader
from grimoire.api.deps import KnowledgeDep
from grimoire.api.presentation import present
from grimoire.api.schemas.mental_models import MentalModelOut
from grimoire.graph.knowledge import mental_models

router = APIRouter(tags=["mental models"])


@router.get("/mental-models", response_model=list[MentalModelOut],
            summary="The 13 core mental models, each a public structural Insight every agent retrieves")
def list_mental_models(k: KnowledgeDep, who: Reader) -> list[dict[str, Any]]:
    stored = mental_models.stored(k.db, who.visibility(), floor=k.decay.floor)
    out = []
    for m in mental_models.MODELS:
        entry = stored.get(m.id)
        fields = {key: v for key, v in present(entry).items() if key in MentalModelOut.model_fields} if entry else {}
        out.append({"id": m.id, "number": m.number, "name": m.name, "application": m.application,
                    "content": m.content, **fields, "stored": entry is not None})
    return out
