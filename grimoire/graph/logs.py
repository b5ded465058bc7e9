"""Logging: one logger per module (`logging.getLogger(__name__)`), the request id carried through a
request into every record (also on worker threads that copy the context), and the service's
level from settings (GRIMOIRE_LOG_LEVEL).

Every record also carries the current trace and span ids (graph/tracing.py; `-` when tracing is off) and, within a
request, the agent it acts for and its route (`Request`, filled in by the API as it learns them). The format is
human-readable by default; GRIMOIRE_LOG_FORMAT=json writes one JSON object a line instead (`JsonLines`)."""

from __future__ import annotations

import json
import logging
import sys
from contextvars import ContextVar, Token
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from opentelemetry import trace

PACKAGES = ("grimoire", "bench")
FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s %(trace_id)s/%(span_id)s] %(message)s"
NO_REQUEST = "-"
NO_TRACE = "-"
Format = Literal["text", "json"]


@dataclass
class Request:
    """What a request's records say of it beyond its id; one object per request, filled in as it is learned (the
    agent once its key is resolved, on whichever thread that runs: the object is shared, not copied)."""

    route: str | None = None
    agent_id: str | None = None


request_id: ContextVar[str] = ContextVar("request_id", default=NO_REQUEST)
request: ContextVar[Request | None] = ContextVar("request", default=None)
_base_factory = logging.getLogRecordFactory()


def requested() -> tuple[Request, Token[Request | None] | None]:
    """The request's `Request`, made and set here when there is none yet (with the token to reset it then)."""
    about = request.get()
    if about is not None:
        return about, None
    about = Request()
    return about, request.set(about)


def _record(*args: Any, **kwargs: Any) -> logging.LogRecord:
    record = _base_factory(*args, **kwargs)
    record.request_id = request_id.get()
    here = trace.get_current_span().get_span_context()  # the invalid span's when tracing is off: no ids
    record.trace_id = format(here.trace_id, "032x") if here.is_valid else NO_TRACE
    record.span_id = format(here.span_id, "016x") if here.is_valid else NO_TRACE
    about = request.get()
    record.agent_id = about.agent_id if about else None
    record.route = about.route if about else None
    return record


# Fields of a record that a JSON line carries under its own name when set: `duration_ms` and `status` are given by
# the request log (api/request_log.py) as `extra`.
_EXTRA = ("duration_ms", "status", "method")


class JsonLines(logging.Formatter):
    """One JSON object a line: time, level, logger, message, request id, trace and span ids, agent, route, and a
    request's duration and status where the record has them; an exception's type and traceback."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", NO_REQUEST),
            "trace_id": getattr(record, "trace_id", NO_TRACE),
            "span_id": getattr(record, "span_id", NO_TRACE),
            "agent_id": getattr(record, "agent_id", None),
            "route": getattr(record, "route", None),
        }
        for key in _EXTRA:
            if (value := getattr(record, key, None)) is not None:
                line[key] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


class _Ours(logging.StreamHandler):  # type: ignore[type-arg]
    """The handler `configure` adds, told apart from anyone else's."""


def handler() -> logging.Handler | None:
    """The handler `configure` added to the root logger, if it added one."""
    return next((h for h in logging.getLogger().handlers if isinstance(h, _Ours)), None)


def configure(level: str, fmt: Format = "text") -> None:
    """Every record carries `request_id` (and the trace's ids, the agent, the route); the project's loggers log at
    `level`. As text a handler is added only when nothing else (uvicorn's or pytest's configuration, a host
    application) has one; as JSON the root logger always gets one that writes JSON lines (standard error), and
    uvicorn's loggers write through it (its access line, which shows a query string, gives way to the request
    log's, which shows the route; httpx's lines, which show the URLs it calls, are kept to warnings)."""
    if logging.getLogRecordFactory() is not _record:
        logging.setLogRecordFactory(_record)
    for name in PACKAGES:
        logging.getLogger(name).setLevel(level)
    root = logging.getLogger()
    ours = handler()
    if ours is not None:
        root.removeHandler(ours)
    if fmt == "json":
        ours = _Ours(sys.stderr)
        ours.setFormatter(JsonLines())
        root.addHandler(ours)
        for name in ("uvicorn", "uvicorn.error"):
            logging.getLogger(name).handlers = []
            logging.getLogger(name).propagate = True
        logging.getLogger("uvicorn.access").disabled = True
        # httpx's INFO line names each URL it calls, query string and all (the MCP server's and the console's calls)
        for name in ("httpx", "httpx2"):
            logging.getLogger(name).setLevel(logging.WARNING)
        return
    logging.getLogger("uvicorn.access").disabled = False
    if not root.handlers:
        ours = _Ours()
        ours.setFormatter(logging.Formatter(FORMAT))
        root.addHandler(ours)
