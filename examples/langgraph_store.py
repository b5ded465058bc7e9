"""LangGraph's long-term memory in Grimoire: a GrimoireStore as the store of a LangGraph graph, and LangMem's memory
tools on it. Needs `pip install ./clients/python[langgraph]` (and `[langmem]` for the tools) and a running service.

    GRIMOIRE_URL=http://127.0.0.1:8000 GRIMOIRE_API_KEY=gk_... python examples/langgraph_store.py

Namespaces start with the agent's id ("my-agent", "prefs"): the item is that agent's episode, private to it, in
its audit trail and undone by its rollback. tests/integration/test_langgraph_store.py runs `main` on the service."""

from __future__ import annotations

from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore

from grimoire.client import Grimoire
from grimoire.client.integrations.langgraph import GrimoireStore


class State(TypedDict):
    agent: str
    said: str
    recalled: list[str]


def remember(state: State, *, store: BaseStore) -> dict[str, list[str]]:
    """A node: keep what the user said, then recall what is known about it (hybrid retrieval)."""
    store.put((state["agent"], "notes"), f"note-{len(state['said'])}", {"text": state["said"]})
    found = store.search((state["agent"], "notes"), query=state["said"], limit=3)
    return {"recalled": [item.value["text"] for item in found]}


def main(client: Grimoire) -> list[str]:
    agent = client.whoami().agent.id
    store = GrimoireStore(client)
    store.put((agent, "prefs"), "food", {"text": "The user loves ramen"})
    graph = StateGraph(State).add_node("remember", remember).add_edge(START, "remember") \
        .add_edge("remember", END).compile(store=store)
    out = graph.invoke({"agent": agent, "said": "The user is vegetarian since March", "recalled": []})
    print("recalled:", out["recalled"])
    print("food:", store.get((agent, "prefs"), "food"))
    print("namespaces:", store.list_namespaces(prefix=(agent,)))
    return list(out["recalled"])


if __name__ == "__main__":
    with Grimoire() as g:  # GRIMOIRE_URL, GRIMOIRE_API_KEY
        main(g)
