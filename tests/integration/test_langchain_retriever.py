"""LangChain's retriever over POST /retrieve (issue 40, part 5): GrimoireRetriever (clients/python/grimoire/client/
integrations/langchain.py) returns Documents whose metadata carries Grimoire's ids, kinds and scores, only what the
key may see, sync and async."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import anyio
from langchain_core.documents import Document

from grimoire.client import Grimoire
from grimoire.client.integrations.langchain import GrimoireRetriever
from tests.conftest import Api


def test_retriever_returns_documents_with_grimoires_scores_and_ids(api: Api) -> None:
    g = Grimoire(api_key=api.headers("golem-1")["X-API-Key"], http=api.client)
    g.remember("Gas on mainnet fell to 6 gwei at 03:00 UTC", id="lc-ep-gas")
    g.remember("The Curve stETH pool lost half its depth overnight", id="lc-ep-curve")
    g.learn("Rebalance when gas is under 10 gwei", category="Heuristic", id="lc-en-gas")
    other = Grimoire(api_key=api.headers("golem-9", clade="clade-z")["X-API-Key"], http=api.client)
    other.remember("Gas was 6 gwei for golem-9 too", id="lc-ep-theirs")  # private to golem-9

    docs = GrimoireRetriever(client=g, k=3).invoke("when is gas cheap on mainnet")
    assert docs and all(isinstance(d, Document) for d in docs)
    assert docs[0].metadata["id"] in {"lc-ep-gas", "lc-en-gas"} and docs[0].id == docs[0].metadata["id"]
    assert {d.metadata["kind"] for d in docs} <= {"episode", "entry"}
    assert all(d.metadata["score"] is not None for d in docs)  # retrieval's scores, in its order (MMR's)
    assert [d.metadata["rank"] for d in docs] == list(range(1, len(docs) + 1))
    by_id = {d.metadata["id"]: d.page_content for d in docs}
    assert by_id.get("lc-ep-gas", "Gas on mainnet fell to 6 gwei at 03:00 UTC") == \
        "Gas on mainnet fell to 6 gwei at 03:00 UTC"
    assert "lc-ep-theirs" not in by_id  # only what the key may see

    entries_only = GrimoireRetriever(client=g, k=5, filters={"kinds": ["entries"]}).invoke("gas")
    assert [d.metadata["id"] for d in entries_only] == ["lc-en-gas"]

    async def asynchronously() -> list[Document]:
        return await GrimoireRetriever(client=g, k=3).ainvoke("when is gas cheap on mainnet")

    assert [d.metadata["id"] for d in anyio.run(asynchronously)] == [d.metadata["id"] for d in docs]


def test_the_langchain_example_prints_documents(api: Api) -> None:
    g = Grimoire(api_key=api.headers("golem-1")["X-API-Key"], http=api.client)
    g.remember("Gas on mainnet fell to 6 gwei at 03:00 UTC", id="lc-ex-gas")
    spec = importlib.util.spec_from_file_location(
        "langchain_retriever", Path(__file__).resolve().parents[2] / "examples" / "langchain_retriever.py")
    assert spec and spec.loader
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert [d.metadata["id"] for d in example.main(g, "gas on mainnet")] == ["lc-ex-gas"]
