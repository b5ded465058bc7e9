"""POST /retrieve: what the agent knows that matters now, fused, reranked, budgeted, explained."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request

from api.auth import Reader
from graph.retrieval.pipeline import RetrievalRequest, Retriever

router = APIRouter(tags=["retrieval"])


@router.post("/retrieve", summary="Hybrid retrieval (vector + BM25 + graph, RRF, rerank, MMR, token budget) "
                                  "or another mode, over what the key may see")
def retrieve(body: RetrievalRequest, request: Request, who: Reader) -> dict[str, Any]:
    retriever: Retriever = request.app.state.services.retriever
    try:
        return retriever.retrieve(body, who.visibility(), who.agent_id)
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from exc
