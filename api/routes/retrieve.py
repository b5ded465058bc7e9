"""POST /retrieve: what the agent knows that matters now, fused, reranked, budgeted, explained."""

from __future__ import annotations

from fastapi import APIRouter

from api.auth import Reader
from api.deps import RetrieverDep
from api.schemas.retrieve import RetrievalRequest, RetrievalResult

router = APIRouter(tags=["retrieval"])


# Fields that do not apply are left out (a cut item's rank, `explain` unless asked, ...): see RetrievalResult.
@router.post("/retrieve", response_model=RetrievalResult, response_model_exclude_unset=True,
             summary="Hybrid retrieval (vector + BM25 + graph, RRF, rerank, MMR, token budget) "
                     "or another mode, over what the key may see")
def retrieve(body: RetrievalRequest, retriever: RetrieverDep, who: Reader) -> RetrievalResult:
    # A bad vector is graph.model.vectors.InvalidVector, an Invalid: a 422 (api/errors.py).
    return retriever.retrieve(body, who.visibility(), who.agent_id)
