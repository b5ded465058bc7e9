"""Console sign-in: an API key exchanged for a session behind an HttpOnly, SameSite=Strict cookie.

The key never reaches the page's script, nor the database: the browser holds an opaque secret, the database a
ConsoleSession with its hash and the key's id (graph/console_sessions.py), so every replica honours the cookie and
a restart signs no one out. The pages call the service's own routes as the session's principal, read again on
every request (gateway.py). Every form and every htmx request carries the session's CSRF token (a hidden field or
the X-CSRF-Token header); a post without it, or from another origin, is refused with a 403 before anything runs."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

import anyio
from fastapi import Request

from grimoire.api.console.errors import Refused, SignInFirst
from grimoire.graph import console_sessions
from grimoire.graph.agents import Principal
from grimoire.graph.console_sessions import Live
from grimoire.graph.db.connection import Database
from grimoire.graph.ids import now_ms
from grimoire.graph.model.enums import KeyScope

COOKIE = "grimoire_console"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"


@dataclass(frozen=True)
class Session:
    id: str  # the session's public id (the audit trail's), not the cookie's secret
    hash: str  # the SHA-256 of the cookie's secret: what a long request asks after (console_sessions.holds)
    principal: Principal
    csrf: str
    csrf_hash: str

    @classmethod
    def of(cls, live: Live) -> Session:
        return cls(live.id, live.hash, live.principal, live.csrf, live.csrf_hash)

    @property
    def is_admin(self) -> bool:
        return self.principal.is_admin

    @property
    def is_person(self) -> bool:
        return KeyScope.person in self.principal.scopes

    def sees(self, agent_id: str) -> bool:
        """The console's pages of an agent: the admin's key sees every agent; any other key its own agent."""
        return self.is_admin or self.principal.agent_id == agent_id

    def decides(self, agent_id: str) -> bool:
        """Approve, roll back, acknowledge, edit core memory: the person who runs the agent, or the admin."""
        return self.is_admin or (self.is_person and self.principal.agent_id == agent_id)

    def token_holds(self, token: str | None) -> bool:
        return console_sessions.csrf_holds(self.csrf_hash, token)

    @property
    def who(self) -> str:
        p = self.principal
        if p.is_admin:
            return "admin"
        return f"{'person' if self.is_person else 'agent key'} · {p.agent_id}"


class Sessions:
    """Sessions in the database, each sliding to `idle_seconds` past its last use (GRIMOIRE_CONSOLE_SESSION_HOURS).
    Each call reads or writes the database: call from a worker thread, never on the event loop."""

    def __init__(self, idle_seconds: float, admin_key: str | None):
        self.idle_ms = int(idle_seconds * 1000)
        self.admin_key = admin_key

    def start(self, db: Database, principal: Principal, replacing: str | None = None) -> tuple[str, Session]:
        """The cookie's secret and the session; a sign-in first deletes a batch of dead sessions (expired,
        ended), so they never pile up."""
        now = now_ms()
        console_sessions.sweep(db, now)
        secret, live = console_sessions.start(db, principal, idle_ms=self.idle_ms, admin_key=self.admin_key,
                                              now=now, replacing=replacing)
        return secret, Session.of(live)

    def get(self, db: Database, secret: str | None) -> Session | None:
        live = console_sessions.find(db, secret, idle_ms=self.idle_ms, admin_key=self.admin_key, now=now_ms())
        return Session.of(live) if live else None

    def end(self, db: Database, secret: str | None, session: Session, reason: str = "signed out") -> None:
        if secret:
            console_sessions.end(db, secret, reason=reason, actor=session.principal.key_id, now=now_ms())


def of(request: Request) -> Sessions:
    store: Sessions = request.app.state.console_sessions
    return store


def db_of(request: Request) -> Database:
    database: Database = request.app.state.services.db
    return database


def peek(request: Request) -> Session | None:
    """The browser's session, if it has a live one (read once per request; using it slides its expiry when due).
    Reads the database: from a worker thread (a sync route or dependency, or anyio.to_thread)."""
    if "console_session" not in request.scope.setdefault("state", {}):
        found = of(request).get(db_of(request), request.cookies.get(COOKIE))
        request.scope["state"]["console_session"] = found
    session: Session | None = request.scope["state"]["console_session"]
    return session


def current(request: Request) -> Session:
    found = peek(request)
    if found is None:
        raise SignInFirst()
    return found


def end(request: Request, session: Session, reason: str = "signed out") -> None:
    """The browser's session ended, on every replica (from a worker thread)."""
    of(request).end(db_of(request), request.cookies.get(COOKIE), session, reason)
    request.scope["state"]["console_session"] = None


def same_origin(request: Request) -> None:
    """A browser names the page a post came from (Origin, else Referer): it must be this service."""
    source = request.headers.get("origin") or request.headers.get("referer")
    if source and source != "null":
        if urlsplit(source).netloc != request.headers.get("host", ""):
            raise Refused(403, "this form was posted from another site: refused")
    elif source == "null":
        raise Refused(403, "this form was posted from an opaque origin: refused")


async def checked(request: Request) -> Session:
    """A state-changing request: signed in, from this origin, with the session's CSRF token."""
    session = await anyio.to_thread.run_sync(current, request)
    same_origin(request)
    token = request.headers.get(CSRF_HEADER)
    if token is None:
        form = await request.form()
        value = form.get(CSRF_FIELD)
        token = value if isinstance(value, str) else None
    if not session.token_holds(token):
        raise Refused(403, "this form's token does not match your session (a forged or stale form): "
                                 "reload the page and try again")
    return session
