"""The errors of the domain, in four kinds the API maps to HTTP once (api/errors.py).

Raise a subclass of one kind; a bare ValueError or LookupError from anywhere is a bug (a 500),
not a client's mistake."""

from __future__ import annotations


class GrimoireError(Exception):
    """Base of every error this project raises on purpose."""


class NotFound(GrimoireError, LookupError):
    """No such thing, or one the caller may not see: the same answer, so existence does not leak (404)."""


class Invalid(GrimoireError, ValueError):
    """The request is well-formed but breaks a rule of the domain (422)."""


class Conflict(GrimoireError):
    """The request clashes with the stored state (409)."""


class Unavailable(GrimoireError):
    """A dependency (Neo4j, a projection, the model) cannot answer now; retrying may help (503)."""
