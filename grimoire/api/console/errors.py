"""What a console page shows when it cannot show itself: the sign-in page when there is no session, and
otherwise an error page with the status and the message of whatever refused (a route's 403, 404 or 409, a
forged form's 403), so a person reads the same reason an API client would get."""

from __future__ import annotations

from urllib.parse import quote

import anyio
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response


class SignInFirst(Exception):
    """No session (or an expired one): the page sends the browser to the sign-in page."""


class Refused(Exception):
    def __init__(self, status: int, message: str, *, retry_after: str | None = None):
        self.status = status
        self.message = message
        self.retry_after = retry_after
        super().__init__(f"{status}: {message}")


def install(app: FastAPI) -> None:
    from grimoire.api.console import render, sessions

    async def sign_in_first(request: Request, exc: Exception) -> Response:
        if "hx-request" not in request.headers:  # a page or a form: back here after signing in (a page, not a post)
            target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            after = f"?next={quote(target, safe='')}" if request.method == "GET" else ""
            return RedirectResponse(f"/console/sign-in{after}", status_code=303)
        return HTMLResponse("<p class=error>Your console session has ended: sign in again.</p>", status_code=401,
                            headers={"HX-Redirect": "/console/sign-in"})

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, Refused)
        session = await anyio.to_thread.run_sync(sessions.peek, request)  # the database: off the event loop
        if exc.status == 401 and session is not None:  # a route refused the session's principal
            await anyio.to_thread.run_sync(sessions.end, request, session, "refused by a route")
            return await sign_in_first(request, SignInFirst())
        headers = {"Retry-After": exc.retry_after} if exc.retry_after else {}
        if "hx-request" in request.headers:  # a fragment in place of the one asked for
            html = render.env.get_template("_refused.html").render(status=exc.status, message=exc.message)
            return HTMLResponse(html, status_code=exc.status, headers=headers)
        response = render.page(request, session, "error.html", status=exc.status, error=exc)
        response.headers.update(headers)
        return response

    app.add_exception_handler(SignInFirst, sign_in_first)
    app.add_exception_handler(Refused, refused)
