"""Turning failures into clear HTTP answers: the database being down is a 503, never a 500."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from neo4j.exceptions import ConstraintError, ServiceUnavailable, SessionExpired
from neo4j.exceptions import DatabaseUnavailable as Neo4jDatabaseUnavailable

from graph.db.connection import DatabaseUnavailable
from graph.episodes import DuplicateIds
from graph.knowledge.causal import LinkNotFound
from graph.knowledge.entries import EntryNotFound, InvalidReference
from graph.model.vectors import InvalidVector
from graph.topology.entities import EntityNotFound

log = logging.getLogger(__name__)


def unavailable(reason: str) -> JSONResponse:
    return JSONResponse(
        status_code=503,
        content={"status": "unavailable", "detail": reason},
        headers={"Retry-After": "5"},
    )


def _validation_errors(exc: RequestValidationError) -> list[dict[str, object]]:
    """Location, message and type of each error; the offending input is left out, since it may be
    huge or not representable in JSON (NaN, infinity)."""
    return [{"loc": [str(p) for p in err.get("loc", ())], "msg": str(err.get("msg", "")), "type": err.get("type")}
            for err in exc.errors()]


def install(app: FastAPI) -> None:
    async def _invalid_request(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = _validation_errors(exc)
        first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
        message = f"{'.'.join(first['loc'])}: {first['msg']}"
        if len(errors) > 1:
            message += f" (and {len(errors) - 1} more)"
        return JSONResponse(status_code=422, content={"message": message, "detail": errors})

    app.add_exception_handler(RequestValidationError, _invalid_request)

    async def _unavailable(request: Request, exc: Exception) -> JSONResponse:
        log.warning("503 for %s %s: %s", request.method, request.url.path, exc)
        return unavailable(f"Neo4j is unavailable: {exc}")

    for exc_type in (DatabaseUnavailable, ServiceUnavailable, SessionExpired, Neo4jDatabaseUnavailable):
        app.add_exception_handler(exc_type, _unavailable)

    async def _not_found(_: Request, exc: Exception) -> JSONResponse:
        return JSONResponse(status_code=404, content={"detail": f"not found: {exc}"})

    async def _invalid(_: Request, exc: Exception) -> JSONResponse:
        return JSONResponse(status_code=422, content={"detail": str(exc)})

    async def _conflict(_: Request, exc: Exception) -> JSONResponse:
        # Two writers raced for the same id: nothing was half-written (the transaction rolled back).
        return JSONResponse(status_code=409, content={"detail": f"conflict, retry: {getattr(exc, 'message', exc)}"})

    async def _out_of_range(_: Request, exc: Exception) -> JSONResponse:
        # A number the database cannot hold (its integers are 64-bit) that no field bound caught.
        return JSONResponse(status_code=422, content={"detail": f"a number in the request is out of range: {exc}"})

    app.add_exception_handler(OverflowError, _out_of_range)
    app.add_exception_handler(ConstraintError, _conflict)
    for exc_type in (EntryNotFound, LinkNotFound):
        app.add_exception_handler(exc_type, _not_found)

    async def _no_entity(_: Request, exc: Exception) -> JSONResponse:
        # Unknown and invisible entities alike: the message names only the id that was asked for.
        return JSONResponse(status_code=404, content={"detail": str(exc)})

    app.add_exception_handler(EntityNotFound, _no_entity)
    for exc_type in (InvalidReference, DuplicateIds, InvalidVector):
        app.add_exception_handler(exc_type, _invalid)
