"""What POST /retrieve takes and answers (api/routes/retrieve.py): the retrieval's own request and
result models (graph/retrieval/request.py, graph/retrieval/result.py), which the other consumers
of retrieval share."""

from __future__ import annotations

from grimoire.graph.retrieval import Explanation, RetrievalFilters, RetrievalRequest, RetrievalResult, RetrievedItem

__all__ = ["Explanation", "RetrievalFilters", "RetrievalRequest", "RetrievalResult", "RetrievedItem"]
