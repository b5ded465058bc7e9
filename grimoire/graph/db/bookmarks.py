"""Read your own writes across replicas: a request's place in its caller's causal chain of Neo4j bookmarks.

Every Database shares one bookmark manager across its sessions, so a read in this process sees the writes this
process committed. Another replica knows nothing of them; a cluster may send its read to a secondary that has not
applied them yet. So the caller carries the chain: each response names the bookmark of what the request committed
(api/bookmarks.py: `X-Grimoire-Bookmark`), and a request sent with it opens every one of its sessions with it
besides the process's own (the driver waits, on the member that serves it, until that transaction is applied
there: no extra round-trip). `current` holds the request's Chain; Database.session (connection.py) passes its
`given` bookmarks to the driver and records what each write session committed.

A bookmark is the driver's opaque token; here it is checked only for its shape (a malformed one is the caller's
mistake, a 400) and Neo4j's own refusal of one it cannot parse becomes BookmarkRefused (a 400 too)."""

from __future__ import annotations

import re
import threading
from collections.abc import Collection, Iterable
from contextvars import ContextVar

from neo4j import Bookmarks
from neo4j.exceptions import Neo4jError

from grimoire.graph.errors import Invalid, Unavailable

HEADER = "X-Grimoire-Bookmark"
MAX_BOOKMARKS = 16  # one per database a chain wrote to, and a few from concurrent writes; more is not a bookmark
MAX_LENGTH = 512  # a Neo4j 5 bookmark is some 40 characters
_SHAPE = re.compile(r"^[A-Za-z0-9+/=:._\-]+$")
REFUSED_CODES = ("Neo.ClientError.Transaction.InvalidBookmark", "Neo.ClientError.Transaction.InvalidBookmarkMixture")
NOT_REACHED_CODE = "Neo.TransientError.Transaction.BookmarkTimeout"


class BookmarkRefused(Invalid):
    """A bookmark that is not one: malformed, or one Neo4j cannot read (the API answers 400)."""


class BookmarkNotReached(Unavailable):
    """The database member serving the request did not reach the bookmark's transaction within the server's
    bookmark wait (db.transaction.bookmark_ready_timeout): a secondary far behind (503, retry)."""


def parse(values: Iterable[str]) -> tuple[str, ...]:
    """The bookmarks of header values, each one or several separated by commas (blank ones skipped), in order,
    each once; BookmarkRefused for a malformed one or too many."""
    found: dict[str, None] = {}
    for value in values:
        for token in (t.strip() for t in value.split(",")):
            if not token:
                continue
            if len(token) > MAX_LENGTH or not _SHAPE.match(token):
                raise BookmarkRefused(f"{HEADER}: {token[:60]!r} is not a bookmark (send back the value a "
                                      f"response's {HEADER} carried, as it was)")
            found[token] = None
    if len(found) > MAX_BOOKMARKS:
        raise BookmarkRefused(f"{HEADER}: {len(found)} bookmarks, at most {MAX_BOOKMARKS} (the latest response's "
                              "value is enough: it follows every earlier one of the chain)")
    return tuple(found)


class Chain:
    """One request's bookmarks: `given`, the caller's (every session of the request waits for them), and
    `latest`, what the request's write sessions committed, kept as the driver's bookmark manager keeps its own: a
    session's new bookmarks replace those it started from (they follow them), concurrent ones stay side by side."""

    def __init__(self, given: tuple[str, ...] = ()):
        self.given = given
        self.refused = False  # Neo4j could not read a given bookmark (the answer is a 400)
        self._written: tuple[str, ...] = ()
        self._lock = threading.Lock()

    @property
    def wrote(self) -> bool:
        return bool(self._written)

    @property
    def latest(self) -> tuple[str, ...]:
        """What a response names: the request's own commits, else the bookmarks it was given (echoed)."""
        return self._written or self.given

    def opening(self, kwargs: dict[str, object], known: Collection[str]) -> frozenset[str]:
        """A session's driver arguments with the given bookmarks (the driver joins them to its bookmark
        manager's for the session's first transaction); returns what the session starts from."""
        if self.given:
            kwargs.setdefault("bookmarks", Bookmarks.from_raw_values(self.given))
        return frozenset(known) | frozenset(self.given)

    def record(self, started: frozenset[str], committed: Bookmarks) -> None:
        """A write session ended: its last bookmarks follow everything it started from."""
        new = tuple(committed.raw_values)
        if not new or set(new) <= set(self.given):  # nothing committed: the session still holds the given ones
            return
        with self._lock:
            self._written = (*(b for b in self._written if b not in started and b not in new), *new)


current: ContextVar[Chain | None] = ContextVar("grimoire_bookmarks", default=None)
"""The chain of the request being served (set by api/bookmarks.py), None outside a request (the scheduler)."""


def refused(exc: Neo4jError) -> None:
    """Raise the domain's error for Neo4j refusing a session's bookmarks; return for any other error."""
    if exc.code in REFUSED_CODES:
        raise BookmarkRefused(f"{HEADER}: the database refused the bookmark ({exc.message}); send back the value a "
                              f"response's {HEADER} carried, as it was") from exc
    if exc.code == NOT_REACHED_CODE:
        raise BookmarkNotReached(f"the database has not reached the bookmark's transaction yet ({exc.message}); "
                                 "retry shortly") from exc
