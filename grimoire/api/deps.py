"""Request-scoped access to the services built once at start-up (graph/services.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.knowledge.entries import Knowledge
from grimoire.graph.learning.cycle import Curator
from grimoire.graph.memory.core import CoreMemory
from grimoire.graph.memory.messages import AgentMemory
from grimoire.graph.retrieval import Retriever
from grimoire.graph.services import Services


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


DbDep = Annotated[Database, Depends(get_db)]
EmbedderDep = Annotated[Embedder, Depends(get_embedder)]
KnowledgeDep = Annotated[Knowledge, Depends(get_knowledge)]
RetrieverDep = Annotated[Retriever, Depends(get_retriever)]
CuratorDep = Annotated[Curator, Depends(get_curator)]
CoreMemoryDep = Annotated[CoreMemory, Depends(get_core_memory)]
AgentMemoryDep = Annotated[AgentMemory, Depends(get_agent_memory)]
ServicesDep = Annotated[Services, Depends(get_services)]
