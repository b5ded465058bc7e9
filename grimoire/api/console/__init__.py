"""The memory console (issue 21): pages where a person sees what their agents know, approves what they propose
and undoes what went wrong, served by the service itself at /console.

- sessions.py: sign-in with an API key, a session in the database (graph/console_sessions.py) behind an HttpOnly
  SameSite cookie, CSRF tokens;
- gateway.py: the pages read and act through the service's own routes, in-process, as the session's principal;
- render.py: Jinja2 templates (templates/) and their filters; errors.py: the sign-in redirect and error pages;
- pages/: one module per page (overview, knowledge, memory, approvals, audit, graph; signin);
- static/: the console's own script and style, and the vendored libraries (vendor.py, static/vendor/)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from grimoire.graph.settings import Settings

STATIC = Path(__file__).resolve().parent / "static"


def mount(app: FastAPI, settings: Settings) -> None:
    from grimoire.api.console import errors
    from grimoire.api.console.pages import ROUTERS
    from grimoire.api.console.sessions import Sessions

    app.state.console_sessions = Sessions(settings.console_session_hours * 3600, settings.admin_key)
    errors.install(app)
    for router in ROUTERS:
        app.include_router(router)
    app.mount("/console/static", StaticFiles(directory=STATIC), name="console-static")
