"""Request-scoped access to the process-wide database and embedder."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from graph.db.connection import Database
from graph.embeddings import Embedder
from graph.entries import Knowledge


def get_db(request: Request) -> Database:
    return request.app.state.db


def get_embedder(request: Request) -> Embedder:
    return request.app.state.embedder


def get_knowledge(request: Request) -> Knowledge:
    return request.app.state.knowledge


DbDep = Annotated[Database, Depends(get_db)]
EmbedderDep = Annotated[Embedder, Depends(get_embedder)]
KnowledgeDep = Annotated[Knowledge, Depends(get_knowledge)]
