"""Turning failures into clear HTTP answers, once for the whole app, in one shape.

Every error answers RFC 9457 problem details (`application/problem+json`): `type` (`about:blank`: the status
says the kind), `title` (the status's phrase), `status`, `detail` (the message, one sentence a person reads),
`instance` (the request's path) and `request_id` (the request's `X-Request-ID`, to find its log lines). A 422 for a
request that does not match its schema adds `errors`: each field error's location, message and type.

The domain raises one of four kinds (graph/errors.py) and each kind has one status here: NotFound 404,
Invalid 422, Conflict 409, Unavailable 503 (with Retry-After); `detail` is the exception's own message. The
Neo4j driver's own errors are mapped too: the database being down is a 503, never a 500. Starlette's and the
routes' HTTPExceptions (401, 403, 404 for no route, 405) answer the same shape. Anything else (a bare ValueError
or LookupError included) is a bug: a 500, in the same shape, its message in the log only."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from neo4j.exceptions import ConstraintError, ServiceUnavailable, SessionExpired
from neo4j.exceptions import DatabaseUnavailable as Neo4jDatabaseUnavailable
from starlette.exceptions import HTTPException as StarletteHTTPException

from grimoire.graph.errors import Conflict, GrimoireError, Invalid, NotFound, Unavailable
from grimoire.graph.logs import NO_REQUEST, request_id

log = logging.getLogger(__name__)

PROBLEM = "application/problem+json"
RETRY_AFTER_SECONDS = 5
STATUS: dict[type[GrimoireError], int] = {NotFound: 404, Invalid: 422, Conflict: 409, Unavailable: 503}


def title(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def problem_body(status: int, detail: str, instance: str | None = None, *,
                 errors: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The one error body: RFC 9457's members, the request id when there is one, `errors` for a 422's fields."""
    body: dict[str, Any] = {"type": "about:blank", "title": title(status), "status": status, "detail": detail}
    if instance:
        body["instance"] = instance
    rid = request_id.get()
    if rid != NO_REQUEST:
        body["request_id"] = rid
    if errors is not None:
        body["errors"] = errors
    return body


def problem(status: int, detail: str, instance: str | None = None, *, errors: list[dict[str, Any]] | None = None,
            headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(status_code=status, content=problem_body(status, detail, instance, errors=errors),
                        headers=headers, media_type=PROBLEM)


def unavailable(reason: str, instance: str | None = None) -> JSONResponse:
    return problem(503, reason, instance, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})


def _validation_errors(exc: RequestValidationError) -> list[dict[str, Any]]:
    """Location, message and type of each error; the offending input is left out, since it may be
    huge or not representable in JSON (NaN, infinity)."""
    return [{"loc": [str(p) for p in err.get("loc", ())], "msg": str(err.get("msg", "")), "type": err.get("type")}
            for err in exc.errors()]


def _summary(errors: list[dict[str, Any]]) -> str:
    first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
    message = f"{'.'.join(first['loc'])}: {first['msg']}"
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more)"
    return message


PROBLEM_SCHEMA: dict[str, Any] = {
    "title": "Problem", "type": "object", "required": ["type", "title", "status", "detail"],
    "description": "Every error's body: RFC 9457 problem details (api/errors.py).",
    "properties": {
        "type": {"type": "string", "description": "about:blank: the status says the kind"},
        "title": {"type": "string", "description": "the status's phrase"},
        "status": {"type": "integer"},
        "detail": {"type": "string", "description": "what went wrong, for a person"},
        "instance": {"type": "string", "description": "the request's path"},
        "request_id": {"type": "string", "description": "the request's X-Request-ID, to find its log lines"},
        "errors": {"type": "array", "description": "a 422's field errors", "items": {
            "type": "object", "required": ["loc", "msg", "type"], "properties": {
                "loc": {"type": "array", "items": {"type": "string"}}, "msg": {"type": "string"},
                "type": {"type": "string"}}}},
    },
}


def document(app: FastAPI) -> None:
    """The OpenAPI spec says what errors answer: each declared 4xx or 5xx is the Problem schema as
    application/problem+json (FastAPI's own HTTPValidationError is not what a 422 carries here)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = build()
        schemas = schema.setdefault("components", {}).setdefault("schemas", {})
        for name in ("HTTPValidationError", "ValidationError"):
            schemas.pop(name, None)
        schemas["Problem"] = PROBLEM_SCHEMA
        problem_content = {PROBLEM: {"schema": {"$ref": "#/components/schemas/Problem"}}}
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                for status, response in operation.get("responses", {}).items():
                    if status[:1] in ("4", "5"):
                        response["content"] = problem_content
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def install(app: FastAPI) -> None:
    document(app)
    async def _invalid_request(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = _validation_errors(exc)
        return problem(422, _summary(errors), request.url.path, errors=errors)

    app.add_exception_handler(RequestValidationError, _invalid_request)

    async def _http(request: Request, exc: Exception) -> JSONResponse:
        # The routes' and Starlette's own refusals (401, 403, no such route, a method the path lacks).
        assert isinstance(exc, StarletteHTTPException)
        detail = str(exc.detail)
        if detail == title(exc.status_code) and exc.status_code in (404, 405):  # Starlette's routing: say which
            detail = (f"no route {request.url.path}" if exc.status_code == 404
                      else f"{request.url.path} does not take {request.method}")
        return problem(exc.status_code, detail, request.url.path, headers=exc.headers)

    app.add_exception_handler(StarletteHTTPException, _http)

    # The four kinds of domain error: the status is the kind's, the detail the exception's message.
    async def _domain(request: Request, exc: Exception) -> JSONResponse:
        status = next(code for kind, code in STATUS.items() if isinstance(exc, kind))
        return problem(status, str(exc), request.url.path)

    async def _unavailable(request: Request, exc: Exception) -> JSONResponse:
        log.warning("503 for %s %s: %s", request.method, request.url.path, exc)
        return unavailable(str(exc), request.url.path)

    for kind in (NotFound, Invalid, Conflict):
        app.add_exception_handler(kind, _domain)
    app.add_exception_handler(Unavailable, _unavailable)

    # The driver's own errors, where no domain error wrapped them.
    async def _driver_unavailable(request: Request, exc: Exception) -> JSONResponse:
        log.warning("503 for %s %s: %s", request.method, request.url.path, exc)
        return unavailable(f"Neo4j is unavailable: {exc}", request.url.path)

    for exc_type in (ServiceUnavailable, SessionExpired, Neo4jDatabaseUnavailable):
        app.add_exception_handler(exc_type, _driver_unavailable)

    async def _constraint(request: Request, exc: Exception) -> JSONResponse:
        # Two writers raced for the same id: nothing was half-written (the transaction rolled back).
        return problem(409, f"conflict, retry: {getattr(exc, 'message', exc)}", request.url.path)

    async def _out_of_range(request: Request, exc: Exception) -> JSONResponse:
        # A number the database cannot hold (its integers are 64-bit) that no field bound caught.
        return problem(422, f"a number in the request is out of range: {exc}", request.url.path)

    app.add_exception_handler(ConstraintError, _constraint)
    app.add_exception_handler(OverflowError, _out_of_range)

    async def _bug(request: Request, exc: Exception) -> JSONResponse:
        # A bug: the same shape, no internals (ServerErrorMiddleware logs the traceback and re-raises).
        return problem(500, "internal error: the service failed on this request; its log says why",
                       request.url.path)

    app.add_exception_handler(Exception, _bug)
