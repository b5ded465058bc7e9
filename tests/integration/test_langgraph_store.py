"""LangGraph's store kept in Grimoire (issue 40, part 5): GrimoireStore (clients/python/grimoire/client/
integrations/langgraph.py) against the real service. LangGraph publishes no store conformance suite (its
langgraph-checkpoint-conformance package covers checkpointers only), so the first tests here port the behaviours
its own store tests (libs/checkpoint/tests/test_store.py) ask of InMemoryStore: namespaces listed by prefix,
suffix, wildcards, depth and page; namespaces refused; put, get, update, delete; filters with operators; search
by query; batches and the async API. The rest show what Grimoire adds: hybrid retrieval's scores, visibility
between agents, the audit trail and rollback of every change, TTL as the service's governance, and LangMem's
memory tools running on it with no language model."""

from __future__ import annotations

import importlib.util
import json
import uuid
from pathlib import Path

import anyio
import pytest
from langgraph.store.base import GetOp, InvalidNamespaceError, ListNamespacesOp, MatchCondition, PutOp, SearchOp

from grimoire.client import AsyncGrimoire, Forbidden, Grimoire
from grimoire.client.integrations.langgraph import GrimoireStore
from tests.conftest import ADMIN_KEY, Api
from tests.integration.mcp_live import Live, live_fixture  # noqa: F401  (the fixture)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _client(api: Api, agent: str = "golem-1") -> Grimoire:
    return Grimoire(api_key=api.headers(agent)["X-API-Key"], http=api.client)


@pytest.fixture
def store(api: Api) -> GrimoireStore:
    """Every namespace under agent golem-1, whole (as LangGraph's tests use namespaces of any shape)."""
    return GrimoireStore(_client(api), agent_id="golem-1")


def test_list_namespaces_by_prefix_suffix_wildcard_depth_and_page(store: GrimoireStore) -> None:
    namespaces = [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"), ("a", "c", "f"),
                  ("b", "a", "f"), ("users", "123"), ("users", "456", "settings"), ("admin", "users", "789")]
    store.batch([PutOp(ns, f"id_{i}", {"data": f"value_{i:02d}"}) for i, ns in enumerate(namespaces)])
    assert sorted(store.list_namespaces()) == sorted(namespaces)
    assert store.list_namespaces(prefix=("a", "b")) == [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"),
                                                        ("a", "b", "f")]
    assert store.list_namespaces(suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]
    assert store.list_namespaces(prefix=("a",), suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(prefix=("a", "b"), max_depth=3) == [("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")]
    assert store.list_namespaces(max_depth=2) == [("a", "b"), ("a", "c"), ("admin", "users"), ("b", "a"),
                                                  ("users", "123"), ("users", "456")]
    assert store.list_namespaces(prefix=("a", "b"), limit=2) == [("a", "b", "c"), ("a", "b", "d", "e")]
    assert store.list_namespaces(prefix=("a", "b"), offset=2) == [("a", "b", "d", "i"), ("a", "b", "f")]
    assert store.list_namespaces(prefix=("a", "*", "f")) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(suffix=("*", "f")) == [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]
    assert store.list_namespaces(prefix=("*", "users"), suffix=("*", "settings")) == []
    assert store.list_namespaces(prefix=("nonexistent",)) == []
    assert store.list_namespaces(prefix=("users", "123")) == [("users", "123")]


def test_put_get_update_delete_and_refused_namespaces(store: GrimoireStore) -> None:
    doc = {"foo": "bar"}
    for bad in [(), ("the", "thing.about"), ("some", "fun", ""), ("langgraph", "foo")]:
        with pytest.raises(InvalidNamespaceError):
            store.put(bad, "foo", doc)
    assert store.get(("foo", "langgraph", "foo"), "bar") is None
    store.put(("foo", "langgraph", "foo"), "bar", doc)
    first = store.get(("foo", "langgraph", "foo"), "bar")
    assert first is not None and first.value == doc and first.namespace == ("foo", "langgraph", "foo")
    assert [i.value for i in store.search(("foo", "langgraph", "foo"))] == [doc]

    store.put(("foo", "langgraph", "foo"), "bar", {"foo": "baz", "n": 2})  # an update: a new revision
    second = store.get(("foo", "langgraph", "foo"), "bar")
    assert second is not None and second.value == {"foo": "baz", "n": 2}
    assert second.created_at == first.created_at and second.updated_at > first.updated_at
    assert [i.value for i in store.search(("foo",))] == [{"foo": "baz", "n": 2}]  # one item, not two revisions

    store.delete(("foo", "langgraph", "foo"), "bar")
    assert store.get(("foo", "langgraph", "foo"), "bar") is None
    assert store.search(("foo",)) == [] and store.list_namespaces() == []
    # past the public put: the batch takes what put's check refuses, as LangGraph's stores do
    store.batch([PutOp(("langgraph", "foo"), "bar", doc)])
    assert store.get(("langgraph", "foo"), "bar").value == doc  # type: ignore[union-attr]


def test_search_filters_with_operators_and_pages(store: GrimoireStore) -> None:
    items = {"a": {"color": "red", "score": 4.5, "meta": {"kind": "x"}},
             "b": {"color": "red", "score": 3.0, "meta": {"kind": "y"}},
             "c": {"color": "blue", "score": 5.0},
             "d": {"color": "green", "score": 1.0}}
    store.batch([PutOp(("docs", "team"), k, v) for k, v in items.items()] + [PutOp(("other",), "e", {"color": "red"})])

    def keys(**kw: object) -> set[str]:
        return {i.key for i in store.search(("docs",), **kw)}  # type: ignore[arg-type]

    assert keys(filter={"color": "red"}) == {"a", "b"}
    assert keys(filter={"score": {"$gt": 4.0}}) == {"a", "c"}
    assert keys(filter={"score": {"$gte": 3.0, "$lt": 5.0}}) == {"a", "b"}
    assert keys(filter={"score": {"$lte": 1.0}}) == {"d"}
    assert keys(filter={"color": {"$ne": "red"}}) == {"c", "d"}
    assert keys(filter={"color": "red", "score": {"$gt": 4.0}}) == {"a"}
    assert keys(filter={"meta.kind": "y"}) == {"b"}
    assert keys(filter={"color": "purple"}) == set()
    assert {i.key for i in store.search(())} == {"a", "b", "c", "d", "e"}
    pages = [store.search(("docs",), limit=2, offset=o) for o in (0, 2, 4)]
    assert [len(p) for p in pages] == [2, 2, 0] and len({i.key for p in pages for i in p}) == 4


def test_search_with_a_query_goes_through_hybrid_retrieval(api: Api) -> None:
    store = GrimoireStore(_client(api))  # namespace[0] is the agent
    store.put(("golem-1", "notes"), "food", {"text": "The user loves ramen and sushi for dinner"})
    store.put(("golem-1", "notes"), "deploy", {"text": "Deploy the service to Kubernetes with Helm charts"})
    store.put(("golem-1", "notes"), "gas", {"text": "Gas on mainnet is cheapest around 03:00 UTC"})
    store.put(("golem-1", "archive"), "food-old", {"text": "The user loved pizza, years ago"})
    found = store.search(("golem-1", "notes"), query="what food does the user like to eat")
    assert found and found[0].key == "food"
    assert all(i.namespace == ("golem-1", "notes") for i in found)  # the prefix holds under retrieval
    assert all(i.score is not None and i.score > 0 for i in found)  # retrieval's scores, in its order (MMR's)
    # the newest revision only: an update's earlier text is no longer found
    store.put(("golem-1", "notes"), "food", {"text": "The user now prefers tacos"})
    again = store.search(("golem-1", "notes"), query="ramen and sushi for dinner")
    assert [i.value for i in again if i.key == "food"] in ([], [{"text": "The user now prefers tacos"}])
    assert {i.key for i in store.search(("golem-1",), query="what food", filter={"text": {"$ne": "x"}},
                                        limit=100)} >= {"food", "food-old"}


def test_batch_answers_each_op_in_order_and_the_last_put_to_a_key_wins(store: GrimoireStore) -> None:
    out = store.batch([
        PutOp(("test",), "key", {"value": 1}),
        PutOp(("test",), "key", {"value": 2}),
        PutOp(("test", "sub"), "other", {"value": 3}),
        GetOp(("test",), "key"),
        SearchOp(("test",), filter={"value": 2}),
        ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("test",)),)),
        GetOp(("test",), "missing"),
    ])
    assert out[:3] == [None, None, None]
    assert out[3] is not None and out[3].value == {"value": 2}  # type: ignore[union-attr]
    assert [i.key for i in out[4]] == ["key"]  # type: ignore[union-attr]
    assert out[5] == [("test",), ("test", "sub")] and out[6] is None
    assert len(store.revisions(("test",), "key")) == 1  # the first put of the pair was never written


def test_async_api_on_the_async_client_and_in_a_thread(live: Live) -> None:  # noqa: F811
    key = live.api.headers("golem-1")["X-API-Key"]
    out: dict[str, object] = {}

    async def body() -> None:
        async with AsyncGrimoire(live.url, api_key=key) as a:
            with Grimoire(live.url, api_key=key) as g:
                on_async = GrimoireStore(g, aclient=a, agent_id="golem-1")
                await on_async.aput(("async",), "k1", {"v": 1})
                out["got"] = (await on_async.aget(("async",), "k1")).value  # type: ignore[union-attr]
                out["found"] = [i.key for i in await on_async.asearch(("async",))]
                out["namespaces"] = await on_async.alist_namespaces()
                await on_async.adelete(("async",), "k1")
                out["deleted"] = await on_async.aget(("async",), "k1")
                in_thread = GrimoireStore(g, agent_id="golem-1")  # no async client: the sync batch in a thread
                await in_thread.aput(("thread",), "k2", {"v": 2})
                out["thread"] = (await in_thread.aget(("thread",), "k2")).value  # type: ignore[union-attr]

    anyio.run(body)
    assert out == {"got": {"v": 1}, "found": ["k1"], "namespaces": [("async",)], "deleted": None,
                   "thread": {"v": 2}}


def test_visibility_audit_and_rollback_hold_for_store_writes(api: Api) -> None:
    mine, theirs = GrimoireStore(_client(api, "golem-1")), GrimoireStore(_client(api, "golem-2"))
    mine.put(("golem-1", "prefs"), "food", {"likes": "ramen"})
    assert theirs.get(("golem-1", "prefs"), "food") is None  # private to golem-1: not even by its token
    assert theirs.search(("golem-1",)) == [] and theirs.search((), query="ramen") == []
    with pytest.raises(Forbidden):
        theirs.put(("golem-1", "prefs"), "food", {"likes": "nothing"})

    admin = Grimoire(api_key=ADMIN_KEY, http=api.client)
    mine.put(("golem-1", "prefs"), "food", {"likes": "sushi"})
    newest = mine.revisions(("golem-1", "prefs"), "food")[0]
    trail = admin.audit_of_item("golem-1", newest)
    write = next(r for r in trail.records if r.action == "episode.ingest")
    admin.rollback("golem-1", {"record": write.id})  # the update undone: the value before is the item again
    assert mine.get(("golem-1", "prefs"), "food").value == {"likes": "ramen"}  # type: ignore[union-attr]

    mine.delete(("golem-1", "prefs"), "food")
    assert mine.get(("golem-1", "prefs"), "food") is None
    tombstone = mine.revisions(("golem-1", "prefs"), "food")[0]
    undo = next(r for r in admin.audit_of_item("golem-1", tombstone).records if r.action == "episode.ingest")
    admin.rollback("golem-1", {"record": undo.id})  # the delete undone
    assert mine.get(("golem-1", "prefs"), "food").value == {"likes": "ramen"}  # type: ignore[union-attr]


def test_ttl_is_the_items_governance(api: Api) -> None:
    g = _client(api)
    store = GrimoireStore(g, agent_id="golem-1", ttl={"default_ttl": 2.0})
    store.put(("session",), "scratch", {"note": "temporary"})  # the store's default TTL: 2 minutes
    store.put(("session",), "kept", {"note": "for a while"}, ttl=0.5)
    for key, ms in (("scratch", 120_000), ("kept", 30_000)):
        crystal = g.get_crystal(store.revisions(("session",), key)[0])
        assert crystal.lifespan == "ttl" and crystal.ttl_ms == ms
        assert crystal.expires_at is not None and crystal.expires_at > 0
    plain = GrimoireStore(g, agent_id="golem-1")
    plain.put(("session",), "forever", {"note": "no ttl"})
    assert g.get_crystal(plain.revisions(("session",), "forever")[0]).lifespan != "ttl"
    # a put with a TTL over a key leaves no earlier revision to surface when it lapses
    plain.put(("session",), "forever", {"note": "now temporary"}, ttl=1.0)
    assert len(plain.revisions(("session",), "forever")) == 1


def test_langmem_manages_and_searches_memories_through_its_tools_with_no_model(api: Api) -> None:
    from langmem import create_manage_memory_tool, create_search_memory_tool

    store = GrimoireStore(_client(api), agent_id="golem-1")
    namespace = ("memories", "user-7")
    manage = create_manage_memory_tool(namespace=namespace, store=store)
    search = create_search_memory_tool(namespace=namespace, store=store)

    said = manage.invoke({"content": "The user's favourite chain is Arbitrum", "action": "create"})
    memory_id = uuid.UUID(said.split()[-1])
    manage.invoke({"content": "The user runs a validator on Ethereum mainnet", "action": "create"})
    found = json.loads(search.invoke({"query": "which chain does the user like best"}))
    assert found[0]["key"] == str(memory_id)
    assert found[0]["value"] == {"content": "The user's favourite chain is Arbitrum"}

    manage.invoke({"content": "The user's favourite chain is now Base", "action": "update", "id": str(memory_id)})
    assert store.get(namespace, str(memory_id)).value == {  # type: ignore[union-attr]
        "content": "The user's favourite chain is now Base"}
    manage.invoke({"action": "delete", "id": str(memory_id)})
    assert store.get(namespace, str(memory_id)) is None
    left = json.loads(search.invoke({"query": "favourite chain"}))
    assert [m["value"]["content"] for m in left] == ["The user runs a validator on Ethereum mainnet"]


def test_the_langgraph_example_runs_a_graph_on_the_store(api: Api) -> None:
    spec = importlib.util.spec_from_file_location("langgraph_store", EXAMPLES / "langgraph_store.py")
    assert spec and spec.loader
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    recalled = example.main(_client(api))
    assert "The user is vegetarian since March" in recalled
    assert GrimoireStore(_client(api)).get(("golem-1", "prefs"), "food").value == {  # type: ignore[union-attr]
        "text": "The user loves ramen"}


def test_another_agents_episode_under_a_store_id_is_not_the_keys_value(api: Api) -> None:
    """A public episode another agent writes under the id and text a store revision would have (a newer revision
    number) is not the key's value: a revision counts only when the namespace's agent wrote it."""
    from datetime import UTC, datetime

    from grimoire.client.integrations.langgraph import ID_PREFIX, digest, text_of

    mine = GrimoireStore(_client(api, "golem-1"))
    mine.put(("golem-1", "prefs"), "food", {"likes": "ramen"})
    now = datetime.now(UTC)
    forged = {"id": f"{ID_PREFIX}{digest(('golem-1', 'prefs'), 'food')}-999-deadbeef", "type": "observation",
              "scope": "public", "text": text_of(("golem-1", "prefs"), "food", {"likes": "poison"}, 999, now, now)}
    r = api.client.post("/episodes", headers=api.headers("golem-2"), json=forged)
    assert r.status_code == 201, r.text
    assert forged["id"] in mine.revisions(("golem-1", "prefs"), "food")  # it is found by the key's token...
    assert mine.get(("golem-1", "prefs"), "food").value == {"likes": "ramen"}  # type: ignore[union-attr]
