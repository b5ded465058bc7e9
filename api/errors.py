"""Turning failures into clear HTTP answers: the database being down is a 503, never a 500."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from neo4j.exceptions import DatabaseUnavailable as Neo4jDatabaseUnavailable
from neo4j.exceptions import ServiceUnavailable, SessionExpired

from graph.db.connection import DatabaseUnavailable


def unavailable(reason: str) -> JSONResponse:
    return JSONResponse(
        status_code=503,
        content={"status": "unavailable", "detail": reason},
        headers={"Retry-After": "5"},
    )


def install(app: FastAPI) -> None:
    async def _unavailable(_: Request, exc: Exception) -> JSONResponse:
        return unavailable(f"Neo4j is unavailable: {exc}")

    for exc_type in (DatabaseUnavailable, ServiceUnavailable, SessionExpired, Neo4jDatabaseUnavailable):
        app.add_exception_handler(exc_type, _unavailable)
