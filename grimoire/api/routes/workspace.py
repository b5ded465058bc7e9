"""The Markdown workspace over REST (graph/memory/workspace.py): a file-based agent's memory imported into the
graph (every file validated first: a 422 names each problem's file and line, and nothing is written) and
exported back in the same layout, as JSON or as a zip. An agent imports and exports its own; the admin any."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Response

from grimoire.api.auth import Reader, Writer
from grimoire.api.deps import AgentMemoryDep
from grimoire.api.routes.agents import require_self_or_admin
from grimoire.api.schemas.workspace import ImportOut, Workspace
from grimoire.graph.agents import Principal
from grimoire.graph.ids import now_ms
from grimoire.graph.memory import reflection_format, workspace
from grimoire.graph.memory.messages import AgentMemory
from grimoire.graph.model.common import to_ms

router = APIRouter(tags=["memory"])

def _meta(memory: AgentMemory) -> workspace.MetaFiles:
    """Reflection's meta files for the export: reflection-log.md and evolution.md once the agent has reflected,
    pending-reflection.md while a reflection waits for approval."""
    def files(agent_id: str) -> dict[str, str]:
        past = memory.reflections.all(agent_id)
        if not past:
            return {}
        out = {"reflection-log.md": reflection_format.log_md(past),
               "evolution.md": reflection_format.evolution_md(past)}
        pending = next((r for r in past if r.status == "pending"), None)
        if pending is not None:
            out["pending-reflection.md"] = pending.markdown
        return out

    return files


def _own(who: Principal, agent_id: str) -> str:
    require_self_or_admin(who, agent_id)
    return agent_id


def _at(at: datetime | None) -> int:
    """The moment decay scores are computed as of: `at`, else now (to the second)."""
    ms = to_ms(at)
    return ms if ms is not None else now_ms() // 1000 * 1000


@router.post("/agents/{agent_id}/workspace", response_model=ImportOut,
             summary="Import a Markdown workspace (section 3's layout) into the agent's memory; every file is "
                     "validated first (422: each problem's file and line, nothing written)")
def import_workspace(agent_id: str, body: Workspace, memory: AgentMemoryDep, who: Writer) -> ImportOut:
    return workspace.import_workspace(memory.db, memory.embedder, memory.core, _own(who, agent_id), body.files,
                                      actor=who.key_id)


@router.get("/agents/{agent_id}/workspace", response_model=Workspace,
            summary="Export the agent's memory as a Markdown workspace: relative paths to file texts; decay "
                    "scores as of `at` (default now)")
def export_workspace(agent_id: str, memory: AgentMemoryDep, who: Reader, at: datetime | None = None) -> dict[str, Any]:
    files = workspace.export_workspace(memory.db, memory.core, _own(who, agent_id), at=_at(at),
                                       meta=_meta(memory))
    return {"files": files}


@router.get("/agents/{agent_id}/workspace.zip", response_class=Response,
            responses={200: {"content": {"application/zip": {}}}},
            summary="The exported workspace as a zip of its files")
def export_zip(agent_id: str, memory: AgentMemoryDep, who: Reader, at: datetime | None = None) -> Response:
    when = _at(at)
    files = workspace.export_workspace(memory.db, memory.core, _own(who, agent_id), at=when, meta=_meta(memory))
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", agent_id)
    return Response(workspace.zipped(files, when), media_type="application/zip",
                    headers={"Content-Disposition": f'attachment; filename="{name}-workspace.zip"'})
