"""Playbook and core memory: the rendered PLAYBOOK.md and MEMORY.md, and the four core blocks editable under
the token cap. While a person types, the remaining tokens are counted by the same tokenizer the cap is
enforced with (graph/memory/core.py), so the number shown is the number the save is judged by."""

from __future__ import annotations

from typing import Any

import anyio
from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from grimoire.api.console import render
from grimoire.api.console.errors import Refused
from grimoire.api.console.gateway import path, together
from grimoire.api.console.pages.common import Acting, Reading, form
from grimoire.graph.memory.blocks import Block

router = APIRouter()


def _block(block: str) -> str:
    if block not in Block.__members__:
        raise Refused(404, f"no core block {block!r}: {', '.join(Block.__members__)}")
    return block


async def _view(console: Reading | Acting, a: str, *, status: int = 200, error: str | None = None,
                typed: dict[str, str] | None = None) -> HTMLResponse:
    playbook, memory_md, core = await together(
        console.gw.text("/playbook", {"agent_id": a}),
        console.gw.text(path("/agents/{}/core/memory.md", a)),
        console.gw.get(path("/agents/{}/core", a)),
    )
    return console.page("memory.html", a, "memory", status=status, playbook=playbook, memory_md=memory_md,
                        core=core, error=error, typed=typed or {})


@router.get("/console/agents/{agent_id}/memory", include_in_schema=False)
async def memory(agent_id: str, console: Reading) -> HTMLResponse:
    return await _view(console, console.agent(agent_id))


@router.post("/console/agents/{agent_id}/memory/{block}", include_in_schema=False)
async def save_block(agent_id: str, block: str, console: Acting) -> Any:
    a, b = console.decider(agent_id), _block(block)
    data = await form(console.request)
    content = str(data.get("content") or "").replace("\r\n", "\n")
    try:
        version = int(data.get("version") or 0)
    except ValueError as e:
        raise Refused(422, "the form's block version is not a number: reload the page") from e
    reply = await console.gw.call("PUT", path("/agents/{}/core/{}", a, b), body={
        "content": content, "expected_version": version, "reason": "edited in the console"})
    if reply.status >= 400:  # over the cap, or edited meanwhile: the page again, with the text as typed
        return await _view(console, a, status=reply.status, error=f"{b}: {reply.message}", typed={b: content})
    return await _view(console, a)


@router.post("/console/agents/{agent_id}/memory/{block}/tokens", include_in_schema=False)
async def count_tokens(agent_id: str, block: str, console: Acting) -> HTMLResponse:
    """The tokens the typed text would take and what would be left of the cap (an htmx fragment)."""
    a, b = console.agent(agent_id), _block(block)
    data = await form(console.request)
    content = str(data.get("content") or "").replace("\r\n", "\n")
    core = await console.gw.get(path("/agents/{}/core", a))
    services = console.request.app.state.services
    tokens = await anyio.to_thread.run_sync(services.core_memory.tokens, content)
    others = sum(x["tokens"] for x in core["blocks"] if x["block"] != b)
    left = core["cap"] - others - tokens
    html = render.env.get_template("_tokens.html").render(tokens=tokens, left=left, cap=core["cap"])
    return HTMLResponse(html)
