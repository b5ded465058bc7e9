"""LangChain's retriever (`langchain_core.retrievers.BaseRetriever`) over Grimoire's hybrid retrieval
(POST /retrieve), over the typed client: `pip install grimoire-client[langchain]`.

    from grimoire.client import Grimoire
    from grimoire.client.integrations.langchain import GrimoireRetriever
    retriever = GrimoireRetriever(client=Grimoire(url, api_key=key), k=5)
    docs = retriever.invoke("when is gas cheap")   # Documents, best first

Each Document's page_content is the item's text; its metadata carries Grimoire's id, kind (episode or entry),
score, rank, category, tokens and valid_from, so a chain can cite, reinforce or forget what it used. The
request is the key's own: only what the key may see comes back, within its token budget unless `no_budget`.
`ainvoke` awaits the async client when one is given (`aclient=`), else runs the sync call in a worker thread."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from grimoire.client import AsyncGrimoire, Grimoire
from grimoire.client.models import RetrievalResult


class GrimoireRetriever(BaseRetriever):
    """Documents from POST /retrieve: hybrid retrieval (or `mode`), k results, `filters` as RetrievalFilters."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: Grimoire
    aclient: AsyncGrimoire | None = None
    k: int = 10
    mode: str = "hybrid"
    filters: dict[str, Any] | None = None
    budget: int | None = None
    no_budget: bool = False

    def _request(self, query: str) -> dict[str, Any]:
        body: dict[str, Any] = {"text": query, "k": self.k, "mode": self.mode, "no_budget": self.no_budget}
        if self.filters:
            body["filters"] = self.filters
        if self.budget is not None:
            body["budget"] = self.budget
        return body

    @staticmethod
    def _documents(found: RetrievalResult) -> list[Document]:
        return [Document(page_content=r.text or "", id=r.id,
                         metadata={"id": r.id, "kind": r.kind, "score": r.score, "rank": r.rank,
                                   "category": r.category, "tokens": r.tokens, "valid_from": r.valid_from,
                                   "retrieval_mode": found.mode})
                for r in found.results]

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return self._documents(self.client.retrieve_memory(self._request(query)))

    async def _aget_relevant_documents(self, query: str, *,
                                       run_manager: AsyncCallbackManagerForRetrieverRun) -> list[Document]:
        if self.aclient is None:
            found = await asyncio.to_thread(self.client.retrieve_memory, self._request(query))
        else:
            found = await self.aclient.retrieve_memory(self._request(query))
        return self._documents(found)
