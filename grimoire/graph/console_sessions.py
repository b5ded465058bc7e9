"""Console sessions (api/console/): a sign-in kept in the database, so that every replica of the service honours
it and a restart signs no one out.

What is stored, and what is not: the browser's cookie holds a random secret (256 bits); the ConsoleSession node
holds its SHA-256 (`hash`), the key's id and its agent's, never the secret and never the key. The CSRF token is
derived from the secret (an HMAC), so whichever replica serves a page puts the same token in its forms from the
cookie alone; the node holds the token's SHA-256, which a post is checked against in constant time. The
environment's admin key has no node to look up: its sessions hold a seal (an HMAC of the admin key under the
session's secret), so an admin session outlives a restart only while GRIMOIRE_ADMIN_KEY stays the same.

Who a session acts as is read from the database on every console request, with the key and its agent (one
statement): a revoked key (graph/agents.py ends its sessions in the revoking transaction, and the read checks
the key anyway), a sign-out or an idle expiry take effect at once on every replica.

Times: valid_from (signed in), valid_until (ended: signed out, replaced by a new sign-in, its key revoked; unset
while open), last_used_at and expires_at (the idle expiry, sliding), recorded_at (last written). Sign-in and
sign-out are audited (channel `console`); the slide is not (like an access counter, it changes no memory).

The slide costs no write per page view: the expiry moves only once a tenth of the idle time has passed since it
last moved (SLIDE_FRACTION), so a session in use is written at most once per idle/10, and one left alone ends
between 0.9 and 1 idle period after its last use."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

from neomodel import IntegerProperty, StringProperty, StructuredNode

from grimoire.graph.agents import Principal, admin_principal, principal_of
from grimoire.graph.audit import Audit
from grimoire.graph.audit.channel import Channel
from grimoire.graph.db import cypher, ogm
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.ids import uuid7

SLIDE_FRACTION = 0.1
SWEEP_BATCH = 200
CSRF_CONTEXT = b"grimoire console csrf"


class ConsoleSession(StructuredNode):  # type: ignore[misc]
    """A console sign-in (see the module's docstring for what each time means)."""

    __label__ = "ConsoleSession"
    uid = StringProperty(unique_index=True, required=True, db_property="id")  # public: the audit trail names it
    hash = StringProperty(unique_index=True, required=True)  # SHA-256 of the cookie's secret
    csrf_hash = StringProperty(required=True)                # SHA-256 of the CSRF token
    key_id = StringProperty(index=True, required=True)
    agent_id = StringProperty()                              # none for the environment's admin key
    admin_seal = StringProperty()                            # the environment's admin key only
    valid_from = IntegerProperty(required=True)
    valid_until = IntegerProperty()
    last_used_at = IntegerProperty(required=True)
    expires_at = IntegerProperty(index=True, required=True)
    ended_reason = StringProperty()
    recorded_at = IntegerProperty(required=True)


MODELS = (ConsoleSession,)


@dataclass(frozen=True)
class Live:
    """An open session as a request sees it: who it acts as and the token its forms carry."""

    id: str
    hash: str
    principal: Principal
    csrf: str       # what the page's forms carry (derived from the cookie's secret)
    csrf_hash: str  # what is stored, a post's token is checked against (csrf_holds)
    expires_at: int


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def csrf_of(secret: str) -> str:
    return hmac.new(secret.encode(), CSRF_CONTEXT, hashlib.sha256).hexdigest()


def csrf_holds(stored_hash: str, token: str | None) -> bool:
    """Whether a posted token is the session's: its SHA-256 against the stored one, in constant time."""
    return bool(token) and hmac.compare_digest(digest(token or "").encode(), stored_hash.encode())


def _seal(secret: str, admin_key: str) -> str:
    return hmac.new(secret.encode(), admin_key.encode(), hashlib.sha256).hexdigest()


def slide_due(last_used_at: int, now: int, idle_ms: int) -> bool:
    """A page view moves the expiry only once a tenth of the idle time has passed since the last move."""
    return now - last_used_at >= idle_ms * SLIDE_FRACTION


def start(db: Database, principal: Principal, *, idle_ms: int, admin_key: str | None, now: int,
          replacing: str | None = None) -> tuple[str, Live]:
    """A new session for `principal` (the browser's earlier one, `replacing`'s, ended with it): the cookie's
    secret, shown this once, and the session."""
    secret = secrets.token_urlsafe(32)
    session_hash, csrf = digest(secret), csrf_of(secret)
    session_id = uuid7(now)
    is_environment = principal.key_id == admin_principal().key_id
    audit = Audit(action="console.sign_in", actor=principal.key_id, agent_id=principal.agent_id, at=now,
                  channel=Channel.console.value)

    def work(tx: Tx) -> None:
        replaced = tx.run(cypher.query("console/end"), hash=digest(replacing), now=now,
                          reason="replaced").single() if replacing else None
        ConsoleSession(uid=session_id, hash=session_hash, csrf_hash=digest(csrf), key_id=principal.key_id,
                       agent_id=principal.agent_id,
                       admin_seal=_seal(secret, admin_key) if is_environment and admin_key else None,
                       valid_from=now, last_used_at=now, expires_at=now + idle_ms, recorded_at=now).save()
        summary = f"console sign-in with key {principal.key_id}"
        if replaced is None:
            audit.write(tx, [session_id], summary, [])
        else:  # the browser's earlier session, ended by this sign-in
            audit.write(tx, [session_id, replaced["id"]], f"{summary}, replacing session {replaced['id']}", [])

    ogm.write(db, work)
    return secret, Live(session_id, session_hash, principal, csrf, digest(csrf), now + idle_ms)


def find(db: Database, secret: str | None, *, idle_ms: int, admin_key: str | None, now: int) -> Live | None:
    """The open session the cookie's secret names, acting as its key as the key is now; None when there is none,
    it expired, it ended or its key no longer holds. Slides its expiry when due (slide_due)."""
    if not secret:
        return None
    session_hash = digest(secret)
    rows = db.fetch("console/find", hash=session_hash, now=now)
    if not rows:
        return None
    session, key, agent = rows[0]["session"], rows[0]["key"], rows[0]["agent"]
    principal = _acting_as(secret, session, key, agent, admin_key)
    if principal is None:
        return None
    expires_at = int(session["expires_at"])
    if slide_due(int(session["last_used_at"]), now, idle_ms):
        expires_at = now + idle_ms
        db.run("console/slide", hash=session_hash, now=now, before=now - int(idle_ms * SLIDE_FRACTION),
               expires_at=expires_at)
    return Live(session["id"], session_hash, principal, csrf_of(secret), session["csrf_hash"], expires_at)


def _acting_as(secret: str, session: dict[str, Any], key: dict[str, Any] | None, agent: dict[str, Any] | None,
               admin_key: str | None) -> Principal | None:
    if session["key_id"] == admin_principal().key_id:
        seal = session.get("admin_seal") or ""
        holds = bool(admin_key) and hmac.compare_digest(seal.encode(), _seal(secret, admin_key or "").encode())
        return admin_principal() if holds else None
    if key is None or agent is None or key.get("revoked_at") is not None:
        return None
    return principal_of(key, agent)


def end(db: Database, secret: str, *, reason: str, actor: str, now: int) -> bool:
    """Sign-out (or a session a route refused): ended on every replica, audited. False if it was not open."""
    audit = Audit(action="console.sign_out", actor=actor, agent_id=None, at=now, channel=Channel.console.value)

    def work(tx: Tx) -> bool:
        row = tx.run(cypher.query("console/end"), hash=digest(secret), now=now, reason=reason).single()
        if row is None:
            return False
        audit.agent_id = row["agent_id"]
        audit.write(tx, [row["id"]], f"console session ended ({reason})", [])
        return True

    return db.write(work)


def holds(db: Database, session_hash: str, now: int) -> bool:
    """Whether the session is still open and its key still holds: what a long request (the overview's event
    stream) asks while it runs."""
    rows = db.fetch("console/find", hash=session_hash, now=now)
    if not rows:
        return False
    key = rows[0]["key"]
    return rows[0]["session"]["key_id"] == admin_principal().key_id or (
        key is not None and key.get("revoked_at") is None)


def sweep(db: Database, now: int, batch: int = SWEEP_BATCH) -> int:
    """Delete up to `batch` sessions that can never be used again (expired or ended), with one audit record."""
    audit = Audit(action="console.sweep", actor="system", agent_id=None, at=now, channel=Channel.console.value)

    def work(tx: Tx) -> int:
        ids = [r["id"] for r in tx.run(cypher.query("console/sweep"), now=now, batch=batch)]
        if ids:
            audit.write(tx, ids, f"{len(ids)} expired or ended console sessions deleted", [])
        return len(ids)

    return db.write(work)
