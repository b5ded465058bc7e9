"""Agent memory over REST: core memory's four blocks read together, edited one at a time under the cap
(a 409 says by how many tokens an edit would pass it), critical facts pinned, earlier versions, and
MEMORY.md. An agent reads and edits its own core memory; the admin any agent's."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from api.auth import Reader, Writer
from api.deps import CoreMemoryDep
from api.routes.agents import require_self_or_admin
from api.schemas.memory import AppendIn, CoreOut, LineIn, PinIn, ReplaceIn, VersionOut
from graph.agents import Principal
from graph.memory.blocks import Append, Block, EditLine, Replace, Unchanged

router = APIRouter(tags=["memory"])


def _own(who: Principal, agent_id: str) -> str:
    require_self_or_admin(who, agent_id)
    return agent_id


@router.get("/agents/{agent_id}/core", response_model=CoreOut,
            summary="Core memory: the four blocks together, each with its tokens, the total and the cap")
def read_core(agent_id: str, core: CoreMemoryDep, who: Reader) -> dict[str, Any]:
    return core.read(_own(who, agent_id))


@router.get("/agents/{agent_id}/core/memory.md", response_class=PlainTextResponse,
            summary="MEMORY.md: core memory in the spec's layout (text/markdown)")
def memory_md(agent_id: str, core: CoreMemoryDep, who: Reader) -> PlainTextResponse:
    return PlainTextResponse(core.markdown(_own(who, agent_id)), media_type="text/markdown; charset=utf-8")


@router.get("/agents/{agent_id}/core/{block}/versions", response_model=list[VersionOut],
            summary="A core block's earlier texts, newest first, each closed when the next edit replaced it")
def block_versions(agent_id: str, block: Block, core: CoreMemoryDep, who: Reader) -> list[dict[str, Any]]:
    return core.versions(_own(who, agent_id), block)


@router.put("/agents/{agent_id}/core/{block}", response_model=CoreOut,
            summary="Replace a core block's text (409 past the cap, saying by how many tokens)")
def replace_block(agent_id: str, block: Block, body: ReplaceIn, core: CoreMemoryDep, who: Writer) -> dict[str, Any]:
    return core.edit(_own(who, agent_id), block, Replace(body.content), actor=who.key_id, reason=body.reason)


@router.post("/agents/{agent_id}/core/{block}/append", response_model=CoreOut,
             summary="Append lines to a core block (409 past the cap)")
def append_block(agent_id: str, block: Block, body: AppendIn, core: CoreMemoryDep, who: Writer) -> dict[str, Any]:
    return core.edit(_own(who, agent_id), block, Append(body.text), actor=who.key_id, reason=body.reason)


@router.post("/agents/{agent_id}/core/{block}/line", response_model=CoreOut,
             summary="Edit one line of a core block, by its number or its current text (empty: delete it)")
def edit_line(agent_id: str, block: Block, body: LineIn, core: CoreMemoryDep, who: Writer) -> dict[str, Any]:
    return core.edit(_own(who, agent_id), block, EditLine(body.new, body.line, body.old), actor=who.key_id,
                     reason=body.reason)


@router.post("/agents/{agent_id}/core/critical/pin", response_model=CoreOut,
             summary="Pin a critical fact (added when missing): it never decays and every edit keeps it")
def pin_fact(agent_id: str, body: PinIn, core: CoreMemoryDep, who: Writer) -> dict[str, Any]:
    return core.edit(_own(who, agent_id), Block.critical, Unchanged(), actor=who.key_id,
                     reason="pinned a critical fact", pin=[body.fact])


@router.post("/agents/{agent_id}/core/critical/unpin", response_model=CoreOut,
             summary="Unpin a critical fact (it stays in the block; edits may now change it)")
def unpin_fact(agent_id: str, body: PinIn, core: CoreMemoryDep, who: Writer) -> dict[str, Any]:
    return core.edit(_own(who, agent_id), Block.critical, Unchanged(), actor=who.key_id,
                     reason="unpinned a critical fact", unpin=[body.fact.strip()])
