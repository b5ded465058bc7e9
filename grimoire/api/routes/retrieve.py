"""POST /retrieve: what the agent knows that matters now, fused, reranked, budgeted, explained; and
the agent's Generative Agents weights, learned from feedback on its decisions."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from grimoire.api.auth import Reader, Writer
from grimoire.api.deps import RetrieverDep
from grimoire.api.schemas.retrieve import RetrievalRequest, RetrievalResult
from grimoire.api.schemas.retrieve_feedback import FeedbackOut, RetrieveFeedbackIn, WeightsOut

router = APIRouter(tags=["retrieval"])


# Fields that do not apply are left out (a cut item's rank, `explain` unless asked, ...): see RetrievalResult.
@router.post("/retrieve", response_model=RetrievalResult, response_model_exclude_unset=True,
             summary="Hybrid retrieval (vector + BM25 + graph, RRF, rerank, MMR, token budget) "
                     "or another mode, over what the key may see")
async def retrieve(body: RetrievalRequest, retriever: RetrieverDep, who: Reader) -> RetrievalResult:
    # A bad vector is graph.model.vectors.InvalidVector, an Invalid: a 422 (api/errors.py). The caller's
    # hormones weigh importance and recency in the retriever itself (graph/services.py gives it the modulation).
    # The retrieval blocks (the database, the model): on a worker thread. The route is async so that FastAPI checks
    # the result it returns here, on the loop: for a plain `def` route it does that in a second hop to a worker
    # thread (issue 41: the time a small reach's request spends outside its stages).
    return await run_in_threadpool(retriever.retrieve, body, who.visibility(), who.agent_id)


@router.post("/retrieve/feedback", response_model=FeedbackOut,
             summary="Whether a decision's retrieval was useful: one Hedge step on the agent's "
                     "Generative Agents weights (once per decision, audited)")
def feedback(body: RetrieveFeedbackIn, retriever: RetrieverDep, who: Writer) -> FeedbackOut:
    # A decision the key may not see, or none, is a 404 (graph/retrieval/feedback.py DecisionNotFound).
    r = retriever.feedback(body.decision_id, useful=body.useful, outcome=body.outcome.value if body.outcome else None,
                           visibility=who.visibility(), actor=who.key_id)
    return FeedbackOut(decision_id=r.decision_id, agent_id=r.agent_id, applied=r.applied, reason=r.reason,
                       reward=r.reward, items=r.items, losses=r.losses, weights_before=r.before, weights_after=r.after,
                       updates=r.updates, audit_id=r.audit_id)


@router.get("/retrieve/weights", response_model=WeightsOut,
            summary="The key's agent's Generative Agents weights (recency, importance, relevance): learned, "
                    "or the configured ones")
def learned_weights(retriever: RetrieverDep, who: Reader) -> WeightsOut:
    w = retriever.weights(who.agent_id)
    return WeightsOut(agent_id=who.agent_id, recency=w.recency, importance=w.importance, relevance=w.relevance,
                      updates=w.updates, updated_at=w.updated_at)
