"""Server-rendered pages: Jinja2 templates (templates/), escaped by default, with the few filters the pages
share (times, numbers, Markdown). Markdown is rendered with raw HTML off, so a memory's text can never become
markup in a person's browser."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markdown_it import MarkdownIt
from markupsafe import Markup

from grimoire.api.console.sessions import Session
from grimoire.graph.model.common import to_ms

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"

NAV = [("overview", "Overview"), ("knowledge", "Knowledge"), ("memory", "Playbook & core memory"),
       ("approvals", "Approvals"), ("audit", "Audit"), ("graph", "Graph")]

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def epoch_ms(value: Any) -> int | None:
    """A time as the routes give it (epoch ms, or ISO 8601 where they present it) in epoch ms; None when it is
    neither."""
    if value is None or value == "" or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value)
    try:
        return to_ms(datetime.fromisoformat(str(value).replace("Z", "+00:00")))
    except ValueError:
        return None


def when(value: Any) -> str:
    """Epoch ms or ISO 8601 as `2026-11-26 11:02` (UTC)."""
    if value is None or value == "":
        return "—"
    ms = epoch_ms(value)
    return str(value) if ms is None else datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M")


def num(value: Any, digits: int = 2) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


_COMMENT = re.compile(r"<!--.*?-->", re.S)


def markdown(text: str | None) -> Markup:
    """The spec's files carry HTML comments (budgets, hints): left out of the page, not shown as text."""
    return Markup(_markdown.render(_COMMENT.sub("", text or "")))  # noqa: S704 - raw HTML is off in the renderer


def as_json(value: Any) -> Markup:
    """JSON for a data attribute or a <script type=application/json> (escaped for HTML by the template)."""
    return Markup(json.dumps(value, separators=(",", ":"), default=str)  # noqa: S704
                  .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]),
                  trim_blocks=True, lstrip_blocks=True)
env.filters.update(when=when, num=num, markdown=markdown, as_json=as_json)


def page(request: Request, session: Session | None, template: str, *, status: int = 200,
         **context: Any) -> HTMLResponse:
    html = env.get_template(template).render(
        request=request, session=session, csrf=session.csrf if session else "", nav=NAV, **context)
    return HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)


# The console's pages load nothing from anywhere but this service (the vendored libraries included).
SECURITY_HEADERS = {
    "Content-Security-Policy": ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                                "img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; "
                                "form-action 'self'; base-uri 'none'"),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
