"""Wiring: from settings to a connected database and the services built on it, in one place.

The composition root of the graph layer: it may import every subsystem, and nothing below it
imports it (db/, model/, audit/ and the subsystems take what they need as arguments)."""

from __future__ import annotations

from dataclasses import dataclass

from graph.db.connection import Database, DatabaseUnavailable, Target
from graph.db.local_server import LocalNeo4j
from graph.embeddings import Embedder
from graph.knowledge.entries import Knowledge
from graph.retrieval import pipeline
from graph.settings import Settings


def local_server(settings: Settings) -> LocalNeo4j:
    return LocalNeo4j(
        home=settings.neo4j_home,
        bolt_port=settings.neo4j_bolt_port,
        http_port=settings.neo4j_http_port,
        heap=settings.neo4j_heap,
        pagecache=settings.neo4j_pagecache,
        user=settings.neo4j_user,
    )


def resolve_target(settings: Settings) -> Target:
    """NEO4J_URI and friends when set; otherwise the project's local server and its password file."""
    if settings.neo4j_uri:
        if settings.neo4j_password is None:
            raise DatabaseUnavailable("NEO4J_URI is set but NEO4J_PASSWORD is not")
        return Target(settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database)
    server = local_server(settings)
    password = settings.neo4j_password or server.password
    return Target(server.uri, settings.neo4j_user, password, settings.neo4j_database)


def connect(settings: Settings) -> Database:
    return Database(resolve_target(settings), slow_ms=settings.slow_query_ms)


@dataclass(frozen=True)
class Services:
    """Everything a request may use, built once when the service starts (and by the CLI and the
    benchmarks). Subsystems that land later (the learning loop, the governor, core memory,
    crystals) become fields here."""

    settings: Settings
    db: Database
    embedder: Embedder
    knowledge: Knowledge
    retriever: pipeline.Retriever

    @classmethod
    def build(cls, settings: Settings, db: Database, embedder: Embedder) -> Services:
        return cls(
            settings=settings, db=db, embedder=embedder,
            knowledge=Knowledge(db=db, embedder=embedder, admission=settings.admission, decay=settings.decay),
            retriever=pipeline.build(db, embedder, settings.retrieval, settings.decay),
        )
