"""Request-scoped access to the services built once at start-up (graph/services.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

from fastapi import Depends, Request

from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.knowledge.entries import Knowledge
from grimoire.graph.learning.cycle import Curator
from grimoire.graph.memory.core import CoreMemory
from grimoire.graph.memory.messages import AgentMemory
from grimoire.graph.retrieval import Retriever
from grimoire.graph.services import Services

T = TypeVar("T")


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


def get_db(request: Request) -> Database:
    return get_services(request).db


def get_embedder(request: Request) -> Embedder:
    return get_services(request).embedder


def get_knowledge(request: Request) -> Knowledge:
    return get_services(request).knowledge


def get_retriever(request: Request) -> Retriever:
    return get_services(request).retriever


def get_curator(request: Request) -> Curator:
    return get_services(request).curator


def get_core_memory(request: Request) -> CoreMemory:
    return get_services(request).core_memory


def get_agent_memory(request: Request) -> AgentMemory:
    return get_services(request).memory


def _on_the_loop(pick: Callable[[Request], T]) -> Callable[[Request], Awaitable[T]]:
    """`pick` as an async dependency: FastAPI runs a plain `def` dependency on a worker thread, a hop there and back
    for each of them on every request (issue 41: the time a small reach's request spends outside its stages); these
    only look up what start-up built."""
    async def dependency(request: Request) -> T:
        return pick(request)

    return dependency


DbDep = Annotated[Database, Depends(_on_the_loop(get_db))]
EmbedderDep = Annotated[Embedder, Depends(_on_the_loop(get_embedder))]
KnowledgeDep = Annotated[Knowledge, Depends(_on_the_loop(get_knowledge))]
RetrieverDep = Annotated[Retriever, Depends(_on_the_loop(get_retriever))]
CuratorDep = Annotated[Curator, Depends(_on_the_loop(get_curator))]
CoreMemoryDep = Annotated[CoreMemory, Depends(_on_the_loop(get_core_memory))]
AgentMemoryDep = Annotated[AgentMemory, Depends(_on_the_loop(get_agent_memory))]
ServicesDep = Annotated[Services, Depends(_on_the_loop(get_services))]
