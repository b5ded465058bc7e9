"""What every console page starts from: the signed-in session, its gateway to the routes, and the checks that
make an agent's pages that agent's (an agent's or a person's key sees its own agent only; the admin's every
agent) and its decisions a person's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse

from grimoire.api.console import render, sessions
from grimoire.api.console.errors import Refused
from grimoire.api.console.gateway import Gateway
from grimoire.api.console.sessions import Session


@dataclass
class Console:
    request: Request
    session: Session
    gw: Gateway

    def agent(self, agent_id: str) -> str:
        if not self.session.sees(agent_id):
            raise Refused(403, f"this key opens the pages of agent {self.session.principal.agent_id!r} only, "
                               f"not {agent_id!r}")
        return agent_id

    def decider(self, agent_id: str) -> str:
        self.agent(agent_id)
        if not self.session.decides(agent_id):
            raise Refused(403, "only the person who runs this agent (a key with scope 'person') or an admin may "
                               "approve, roll back, acknowledge or edit here; this key may read")
        return agent_id

    def page(self, template: str, agent_id: str | None, active: str, status: int = 200,
             **context: Any) -> HTMLResponse:
        return render.page(self.request, self.session, template, status=status, agent_id=agent_id, active=active,
                           may_decide=bool(agent_id) and self.session.decides(agent_id or ""), **context)


def _reader(request: Request) -> Console:
    session = sessions.current(request)  # a sync dependency: on a worker thread, as the database read wants
    return Console(request, session, Gateway(request.app, session.principal))


async def _actor(request: Request) -> Console:
    session = await sessions.checked(request)
    return Console(request, session, Gateway(request.app, session.principal))


Reading = Annotated[Console, Depends(_reader)]
Acting = Annotated[Console, Depends(_actor)]  # a post: signed in, same origin, the session's CSRF token


async def form(request: Request) -> dict[str, Any]:
    """The posted form, a field given several times as a list."""
    data = await request.form()
    out: dict[str, Any] = {}
    for key in data:
        values = [v for v in data.getlist(key) if isinstance(v, str)]
        out[key] = values if len(values) > 1 else (values[0] if values else "")
    return out


def listed(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    return [value] if isinstance(value, str) else list(value)
