"""Console sign-in: an API key exchanged for a server-side session behind an HttpOnly, SameSite=Strict cookie.

The key never reaches the page's script: the browser holds an opaque session id, the service holds the key
(in memory: a restart signs everyone out) and calls its own routes with it (gateway.py). Every form and
every htmx request carries the session's CSRF token (a hidden field or the X-CSRF-Token header); a post
without it, or from another origin, is refused with a 403 before anything runs."""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from fastapi import Request

from api.console.errors import Refused, SignInFirst
from graph.agents import Principal
from graph.model.enums import KeyScope

COOKIE = "grimoire_console"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"


@dataclass
class Session:
    id: str
    key: str
    principal: Principal
    csrf: str
    expires: float

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

    @property
    def who(self) -> str:
        p = self.principal
        if p.is_admin:
            return "admin"
        return f"{'person' if self.is_person else 'agent key'} · {p.agent_id}"


class Sessions:
    """In-memory sessions, each sliding to `idle_seconds` past its last use."""

    def __init__(self, idle_seconds: float):
        self.idle = idle_seconds
        self._by_id: dict[str, Session] = {}
        self._lock = threading.Lock()

    def start(self, key: str, principal: Principal) -> Session:
        s = Session(id=secrets.token_urlsafe(32), key=key, principal=principal, csrf=secrets.token_urlsafe(32),
                    expires=time.monotonic() + self.idle)
        with self._lock:
            self._sweep()
            self._by_id[s.id] = s
        return s

    def get(self, session_id: str | None) -> Session | None:
        if not session_id:
            return None
        with self._lock:
            s = self._by_id.get(session_id)
            if s is None or s.expires < time.monotonic():
                self._by_id.pop(session_id, None)
                return None
            s.expires = time.monotonic() + self.idle
            return s

    def end(self, session_id: str | None) -> None:
        with self._lock:
            self._by_id.pop(session_id or "", None)

    def end_key(self, key_id: str) -> None:
        """A revoked key's sessions end with it."""
        with self._lock:
            for sid in [sid for sid, s in self._by_id.items() if s.principal.key_id == key_id]:
                del self._by_id[sid]

    def _sweep(self) -> None:
        now = time.monotonic()
        for sid in [sid for sid, s in self._by_id.items() if s.expires < now]:
            del self._by_id[sid]


def of(request: Request) -> Sessions:
    store: Sessions = request.app.state.console_sessions
    return store


def peek(request: Request) -> Session | None:
    """The browser's session, if it has a live one (using it slides its expiry)."""
    return of(request).get(request.cookies.get(COOKIE))


def current(request: Request) -> Session:
    found = peek(request)
    if found is None:
        raise SignInFirst()
    return found


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
    session = current(request)
    same_origin(request)
    token = request.headers.get(CSRF_HEADER)
    if token is None:
        form = await request.form()
        value = form.get(CSRF_FIELD)
        token = value if isinstance(value, str) else None
    if not token or not hmac.compare_digest(token.encode(), session.csrf.encode()):
        raise Refused(403, "this form's token does not match your session (a forged or stale form): "
                                 "reload the page and try again")
    return session
