"""Logging: one logger per module (`logging.getLogger(__name__)`), the request id carried through a
request into every record (also on worker threads that copy the context), and the service's
level from settings (GRIMOIRE_LOG_LEVEL)."""

from __future__ import annotations

import logging
from contextvars import ContextVar
from typing import Any

PACKAGES = ("grimoire", "bench")
FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"
NO_REQUEST = "-"

request_id: ContextVar[str] = ContextVar("request_id", default=NO_REQUEST)
_base_factory = logging.getLogRecordFactory()


def _record(*args: Any, **kwargs: Any) -> logging.LogRecord:
    record = _base_factory(*args, **kwargs)
    record.request_id = request_id.get()
    return record


def configure(level: str) -> None:
    """Every record carries `request_id`; the project's loggers log at `level`. A handler is added
    only when nothing else (uvicorn's or pytest's configuration, a host application) has one."""
    if logging.getLogRecordFactory() is not _record:
        logging.setLogRecordFactory(_record)
    for name in PACKAGES:
        logging.getLogger(name).setLevel(level)
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter(FORMAT))
        root.addHandler(handler)
