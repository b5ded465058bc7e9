"""Sign-in, sign-out and the way in: a person's (or an agent's, or the admin's) API key becomes a session; the
admin picks an agent, everyone else lands on their own agent's overview."""

from __future__ import annotations

import anyio
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from grimoire.api.auth import resolve
from grimoire.api.console import render, sessions
from grimoire.api.console.errors import SignInFirst
from grimoire.api.console.pages.common import Acting, Reading, form
from grimoire.api.deps import get_services
from grimoire.graph.model.enums import KeyScope

router = APIRouter()


def _next(target: str | None, fallback: str) -> str:
    """Only a path of the console itself: a sign-in link cannot send anyone elsewhere."""
    if target and target.startswith("/console") and "//" not in target and "\\" not in target:
        return target
    return fallback


@router.get("/console", include_in_schema=False)
def home(request: Request) -> Response:
    session = sessions.peek(request)
    if session is None:
        return RedirectResponse("/console/sign-in", status_code=303)
    if session.is_admin:
        return RedirectResponse("/console/agents", status_code=303)
    return RedirectResponse(f"/console/agents/{session.principal.agent_id}", status_code=303)


@router.get("/console/sign-in", include_in_schema=False)
def sign_in_page(request: Request, next: str | None = None) -> HTMLResponse:  # noqa: A002
    return render.page(request, None, "signin.html", next=_next(next, ""), error=None)


@router.post("/console/sign-in", include_in_schema=False)
async def sign_in(request: Request) -> Response:
    sessions.same_origin(request)  # a sign-in posted from another site (login CSRF) is refused too
    data = await form(request)
    key = str(data.get("key") or "").strip()
    target = str(data.get("next") or "")
    found = await anyio.to_thread.run_sync(resolve, get_services(request), request.app.state.key_cache, key) \
        if key else None
    if found is None:
        return render.page(request, None, "signin.html", status=401, next=_next(target, ""),
                           error="That key is unknown or revoked." if key else "Paste an API key to sign in.")
    if not found.may(KeyScope.read):
        return render.page(request, None, "signin.html", status=403, next=_next(target, ""),
                           error="That key cannot read (no 'read' scope): the console shows what a key may read.")
    # A new sign-in replaces the browser's earlier session (ended with it).
    secret, _ = await anyio.to_thread.run_sync(sessions.of(request).start, get_services(request).db, found,
                                               request.cookies.get(sessions.COOKIE))
    fallback = "/console/agents" if found.is_admin else f"/console/agents/{found.agent_id}"
    response = RedirectResponse(_next(target, fallback), status_code=303)
    # A browser-session cookie: the server ends the session when idle (GRIMOIRE_CONSOLE_SESSION_HOURS).
    secure = request.url.scheme == "https" or request.headers.get("x-forwarded-proto") == "https"
    response.set_cookie(sessions.COOKIE, secret, httponly=True, samesite="strict", path="/console",
                        secure=secure)
    return response


@router.post("/console/sign-out", include_in_schema=False)
async def sign_out(request: Request, console: Acting) -> Response:
    await anyio.to_thread.run_sync(sessions.end, request, console.session)
    response = RedirectResponse("/console/sign-in", status_code=303)
    response.delete_cookie(sessions.COOKIE, path="/console")
    return response


@router.get("/console/agents", include_in_schema=False)
async def agents(console: Reading) -> Response:
    if not console.session.is_admin:
        if console.session.principal.agent_id is None:
            raise SignInFirst()
        return RedirectResponse(f"/console/agents/{console.session.principal.agent_id}", status_code=303)
    listed = await console.gw.get("/agents")
    return console.page("agents.html", None, "agents", agents=listed)
