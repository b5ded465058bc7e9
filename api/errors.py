"""Turning failures into clear HTTP answers, once for the whole app.

The domain raises one of four kinds (graph/errors.py) and each kind has one status here: NotFound
404, Invalid 422, Conflict 409, Unavailable 503 (with Retry-After). The body is `{"detail": message}`,
the exception's own message; a 503's is `{"status": "unavailable", "detail": message}`. The Neo4j
driver's own errors are mapped too: the database being down is a 503, never a 500. Anything else
(a bare ValueError or LookupError included) is a bug: a 500."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from neo4j.exceptions import ConstraintError, ServiceUnavailable, SessionExpired
from neo4j.exceptions import DatabaseUnavailable as Neo4jDatabaseUnavailable

from graph.errors import Conflict, GrimoireError, Invalid, NotFound, Unavailable

log = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
STATUS: dict[type[GrimoireError], int] = {NotFound: 404, Invalid: 422, Conflict: 409, Unavailable: 503}


def unavailable(reason: str) -> JSONResponse:
    return JSONResponse(
        status_code=503,
        content={"status": "unavailable", "detail": reason},
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
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

    # The four kinds of domain error: the status is the kind's, the body the exception's message.
    async def _domain(_: Request, exc: Exception) -> JSONResponse:
        status = next(code for kind, code in STATUS.items() if isinstance(exc, kind))
        return JSONResponse(status_code=status, content={"detail": str(exc)})

    async def _unavailable(request: Request, exc: Exception) -> JSONResponse:
        log.warning("503 for %s %s: %s", request.method, request.url.path, exc)
        return unavailable(str(exc))

    for kind in (NotFound, Invalid, Conflict):
        app.add_exception_handler(kind, _domain)
    app.add_exception_handler(Unavailable, _unavailable)

    # The driver's own errors, where no domain error wrapped them.
    async def _driver_unavailable(request: Request, exc: Exception) -> JSONResponse:
        log.warning("503 for %s %s: %s", request.method, request.url.path, exc)
        return unavailable(f"Neo4j is unavailable: {exc}")

    for exc_type in (ServiceUnavailable, SessionExpired, Neo4jDatabaseUnavailable):
        app.add_exception_handler(exc_type, _driver_unavailable)

    async def _constraint(_: Request, exc: Exception) -> JSONResponse:
        # Two writers raced for the same id: nothing was half-written (the transaction rolled back).
        return JSONResponse(status_code=409, content={"detail": f"conflict, retry: {getattr(exc, 'message', exc)}"})

    async def _out_of_range(_: Request, exc: Exception) -> JSONResponse:
        # A number the database cannot hold (its integers are 64-bit) that no field bound caught.
        return JSONResponse(status_code=422, content={"detail": f"a number in the request is out of range: {exc}"})

    app.add_exception_handler(ConstraintError, _constraint)
    app.add_exception_handler(OverflowError, _out_of_range)
