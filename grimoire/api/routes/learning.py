"""The learning loop over REST: run a Curator cycle, read cycles back with their operations, the
agent's PLAYBOOK.md (text/markdown), its strategies and their packages, and a clade mate's package imported."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import PlainTextResponse

from grimoire.api.auth import Reader, Writer
from grimoire.api.deps import DbDep, KnowledgeDep, get_services
from grimoire.api.routes.agents import require_self_or_admin
from grimoire.api.schemas.learning import (
    CycleIn,
    CycleOut,
    CycleReportOut,
    OperationOut,
    StrategyImported,
    StrategyImportIn,
    StrategyOut,
    StrategyPackageOut,
)
from grimoire.graph import agents
from grimoire.graph.agents import Principal, UnknownAgent
from grimoire.graph.errors import Invalid, NotFound
from grimoire.graph.learning import playbook, strategies, strategy_import
from grimoire.graph.services import manual_cycle

router = APIRouter(tags=["learning"])


def _agent(who: Principal, agent_id: str | None) -> str:
    chosen = agent_id or who.agent_id
    if chosen is None:
        raise Invalid("the admin key names the agent: agent_id")
    require_self_or_admin(who, chosen)
    return chosen


@router.post("/curator/cycles", response_model=CycleReportOut, summary="Run a Curator cycle now (or resume an "
             "interrupted one); with no episode since the last cycle it changes nothing")
def run_cycle(request: Request, db: DbDep, who: Writer, body: CycleIn | None = None) -> dict[str, Any]:
    agent_id = _agent(who, body.agent_id if body else None)
    agent = agents.get(db, agent_id)
    if agent is None:
        raise UnknownAgent(f"no agent {agent_id!r}")
    report = manual_cycle(get_services(request), agent_id, agent.clade, who.key_id)
    return {"status": report.status, "cycle": report.cycle, "counts": report.counts, "resumed": report.resumed,
            "seconds": report.seconds}


@router.get("/curator/cycles", response_model=list[CycleOut], response_model_exclude_unset=True,
            summary="An agent's Curator cycles, newest first")
def list_cycles(db: DbDep, who: Reader, agent_id: str | None = None,
                limit: Annotated[int, Query(ge=1, le=500)] = 20) -> list[dict[str, Any]]:
    chosen = _agent(who, agent_id)
    return [r["cycle"] for r in db.fetch("learning/cycles", agent_id=chosen, limit=limit,
                                         **who.visibility().params())]


@router.get("/curator/cycles/{cycle_id}/operations", response_model=list[OperationOut],
            summary="What a cycle did: each operation, on which entry, why, from which episodes")
def cycle_operations(cycle_id: str, db: DbDep, who: Reader) -> list[dict[str, Any]]:
    rows = db.fetch("learning/cycle_operations", cycle_id=cycle_id, **who.visibility().params())
    if not rows and not db.fetch("learning/cycles_visible", cycle_id=cycle_id, **who.visibility().params()):
        raise NotFound(f"no cycle {cycle_id!r}")
    out = []
    for r in rows:
        op = dict(r["operation"])
        op["changes"] = json.loads(op.get("changes") or "{}")
        op["detail"] = json.loads(op.get("detail") or "{}")
        out.append(op)
    return out


@router.get("/playbook", response_class=PlainTextResponse, summary="The agent's PLAYBOOK.md (text/markdown): "
            "promoted heuristics by strategy, and the active warnings",
            responses={200: {"content": {"text/markdown": {}}}})
def get_playbook(db: DbDep, who: Reader, agent_id: str | None = None) -> PlainTextResponse:
    chosen = _agent(who, agent_id)
    if agent_id and agents.get(db, chosen) is None:  # the admin naming no agent: a 404, not an empty playbook
        raise UnknownAgent(f"no agent {chosen!r}")
    return PlainTextResponse(playbook.render(db, chosen, who.visibility()), media_type="text/markdown; charset=utf-8")


@router.get("/strategies", response_model=list[StrategyOut],
            summary="The agent's strategies with their Performance-Safety Ratio (packaging above 0.90)")
def list_strategies(db: DbDep, who: Reader, agent_id: str | None = None) -> list[StrategyOut]:
    return [r.out() for r in strategies.records(db, _agent(who, agent_id))]


@router.get("/strategies/{strategy}/package", response_model=StrategyPackageOut,
            responses={409: {"description": "the strategy's PSR has not passed 0.90"}},
            summary="A strategy packaged for sharing: its playbook section, heuristics, warnings and causal links")
def strategy_package(strategy: str, k: KnowledgeDep, who: Reader, agent_id: str | None = None) -> StrategyPackageOut:
    return strategies.package(k.db, _agent(who, agent_id), strategy, who.visibility(), memory_scope=k.memory_scope)


@router.post("/agents/{agent_id}/strategies/import", response_model=StrategyImported, status_code=201,
             responses={403: {"description": "the importer is not of the package owner's clade"},
                        409: {"description": "not the owner's current package (stale or forged), or the strategy's "
                                             "PSR no longer passes 0.90"},
                        422: {"description": "the digest does not match the package's content, or the owner imports "
                                             "its own package"}},
             summary="Import a clade mate's strategy package: each entry a candidate of the agent's through the "
                     "Admission Gate at 0.8x its confidence (clade knowledge), with its provenance; idempotent")
def import_strategy(agent_id: str, body: StrategyImportIn, k: KnowledgeDep, who: Writer) -> StrategyImported:
    require_self_or_admin(who, agent_id)
    importer = agents.get(k.db, agent_id)
    if importer is None:
        raise UnknownAgent(f"no agent {agent_id!r}")
    owner = agents.get(k.db, body.package.agent_id)
    # Strategy sharing is free within the clade, and only there: an unknown owner gets the same answer.
    if owner is None or not importer.clade or owner.clade != importer.clade:
        raise HTTPException(403, "only an agent of the package owner's clade may import its strategy package")
    return strategy_import.import_package(k, body, importer=importer, owner=owner, actor=who.key_id)
