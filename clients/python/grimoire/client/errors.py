"""The service's answers as exceptions: one class per kind of failure, each with the service's own message (the
`detail` of its problem details, RFC 9457), the whole body in `body`."""

from __future__ import annotations

from typing import Any


class GrimoireError(Exception):
    """A request the service refused or could not answer."""

    status: int = 0

    def __init__(self, status: int, message: str, body: Any = None, retry_after: float | None = None):
        super().__init__(f"{status}: {message}")
        self.status, self.message, self.body, self.retry_after = status, message, body, retry_after

    @property
    def errors(self) -> list[dict[str, Any]]:
        """A 422's field errors (`loc`, `msg`, `type`), from the problem details' `errors`; empty otherwise."""
        found = self.body.get("errors") if isinstance(self.body, dict) else None
        return found if isinstance(found, list) else []

    @property
    def request_id(self) -> str | None:
        """The request's id, to find its lines in the service's log."""
        found = self.body.get("request_id") if isinstance(self.body, dict) else None
        return found if isinstance(found, str) else None


class Invalid(GrimoireError):
    """400 or 422: the request is malformed or breaks a rule; `body` has the details."""


class Unauthorized(GrimoireError):
    """401: no key, or a key the service does not know (revoked)."""


class Forbidden(GrimoireError):
    """403: the key may not do this (a scope it lacks, another agent's memory, a person's decision)."""


class NotFound(GrimoireError):
    """404: nothing this key may see has that id."""


class Conflict(GrimoireError):
    """409: the state forbids it now (a stale version, a cap, a lifecycle move the diagram lacks)."""


class TooLarge(GrimoireError):
    """413: the body is over the service's limit."""


class TooManyRequests(GrimoireError):
    """429: the key is over its limit on a replica (requests at once, or its rate); nothing ran, and `retry_after`
    says when a retry is accepted (the client retries first, as for a 503)."""


class Unavailable(GrimoireError):
    """503: the database is down or restarting, or the replica is at capacity (nothing ran); `retry_after` says when
    to try again (the client retries first)."""


KINDS: dict[int, type[GrimoireError]] = {400: Invalid, 401: Unauthorized, 403: Forbidden, 404: NotFound,
                                         409: Conflict, 413: TooLarge, 422: Invalid, 429: TooManyRequests,
                                         503: Unavailable}


def error_for(status: int, body: Any, retry_after: float | None) -> GrimoireError:
    """The typed error for an answer: its message is the problem details' `detail` (RFC 9457, api/errors.py)."""
    if isinstance(body, dict):
        message = body.get("detail")
        message = message if isinstance(message, str) else str(body.get("title") or body)[:500]
    else:
        message = str(body)[:500]
    return KINDS.get(status, GrimoireError)(status, message, body, retry_after)
