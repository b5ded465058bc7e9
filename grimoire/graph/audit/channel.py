"""Which way a change came in: every audit record notes it (`channel`), so a person reading the trail
sees whether an agent wrote over REST, through its MCP tools, or a scheduled job did.

A context variable, like the request id (graph/logs.py): set where the request enters (api/mcp/ sets
`mcp` around the routes it calls), carried onto the worker threads that copy the context."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from enum import StrEnum


class Channel(StrEnum):
    rest = "rest"
    mcp = "mcp"
    console = "console"  # a person's action in the memory console (api/console/)
    scheduler = "scheduler"
    cli = "cli"


current: ContextVar[Channel] = ContextVar("audit_channel", default=Channel.rest)


@contextmanager
def through(channel: Channel) -> Iterator[None]:
    token = current.set(channel)
    try:
        yield
    finally:
        current.reset(token)
