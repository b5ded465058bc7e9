"""LangChain's retriever over Grimoire's hybrid retrieval: Documents with Grimoire's ids and scores in their
metadata. Needs `pip install ./clients/python[langchain]` and a running service.

    GRIMOIRE_URL=http://127.0.0.1:8000 GRIMOIRE_API_KEY=gk_... python examples/langchain_retriever.py "gas"

In a chain, `retriever | format_docs` feeds a prompt as any retriever does. tests/integration/
test_langchain_retriever.py runs `main` on the service."""

from __future__ import annotations

import sys

from langchain_core.documents import Document

from grimoire.client import Grimoire
from grimoire.client.integrations.langchain import GrimoireRetriever


def main(client: Grimoire, question: str) -> list[Document]:
    retriever = GrimoireRetriever(client=client, k=5)
    docs = retriever.invoke(question)
    for doc in docs:
        print(f"{doc.metadata['score']:.3f} {doc.metadata['kind']} {doc.metadata['id']}: {doc.page_content}")
    return docs


if __name__ == "__main__":
    with Grimoire() as g:  # GRIMOIRE_URL, GRIMOIRE_API_KEY
        main(g, " ".join(sys.argv[1:]) or "when is gas cheap")
