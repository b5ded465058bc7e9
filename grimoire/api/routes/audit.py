"""The audit trail over REST (../shared/spec/moltbot-memory.md, sections 12.4 and 12.7): an agent's records
in the spec's words, as JSON or audit.log lines, and the answers to the spec's questions. An agent (and its
person) reads its own trail; the admin any agent's, and `GET /audit` every record, the service's own too."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, Field

from grimoire.api.auth import Admin, Reader, WriterOrPerson
from grimoire.api.deps import AgentMemoryDep, DbDep, EmbedderDep, get_db, get_services
from grimoire.api.routes.agents import require_person_for, require_self_or_admin
from grimoire.api.schemas.rollback import RollbackIn
from grimoire.graph import agents
from grimoire.graph.agents import KeyScope, Principal
from grimoire.graph.audit import alerts, retention, versions
from grimoire.graph.audit.alerts import AlertRecord
from grimoire.graph.audit.retention import AuditDigest
from grimoire.graph.audit.rollback import RollbackDone, RollbackPlan, Rollbacks
from grimoire.graph.audit.trail import LIMIT, CriticalChanges, Forgotten, ItemChanges, Trail, TrailFilter, TrailRecord
from grimoire.graph.audit.versions import ItemHistory
from grimoire.graph.audit.vocabulary import Verb
from grimoire.graph.errors import Invalid
from grimoire.graph.memory import sessions
from grimoire.graph.memory.recall import terms
from grimoire.graph.memory.sessions import SessionEnded, SessionStart
from grimoire.graph.model.common import Instant, to_ms

router = APIRouter(tags=["audit"])


def get_trail(request: Request) -> Trail:
    return Trail(get_db(request))


TrailDep = Annotated[Trail, Depends(get_trail)]


def trail_filter(
    since: Annotated[Instant | None, Query(description="records at or after this time")] = None,
    until: Annotated[Instant | None, Query(description="records at or before this time")] = None,
    verb: Annotated[list[Verb] | None, Query(description="the spec's actions (12.4, 13.7); repeat for several")] = None,
    actor: Annotated[str | None, Query(max_length=200, description="a key id or an actor tag (bot:trigger-remember, "
                                                                   "system:decay, manual, reflection:ID)")] = None,
    tag: Annotated[str | None, Query(max_length=200, description="actor tags starting with this ('reflection:')")]
    = None,
    item: Annotated[str | None, Query(max_length=300, description="records that changed this item (its id)")] = None,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    limit: Annotated[int, Query(ge=1, le=LIMIT)] = 50,
) -> TrailFilter:
    return TrailFilter(since=to_ms(since), until=to_ms(until), verbs=verb, actor=actor, tag_prefix=tag,
                       items=[item] if item else None, offset=offset, limit=limit)


FilterDep = Annotated[TrailFilter, Depends(trail_filter)]


def _own(who: Principal, agent_id: str) -> str:
    require_self_or_admin(who, agent_id)
    return agent_id


@router.get("/agents/{agent_id}/audit", response_model=list[TrailRecord],
            summary="The agent's audit trail, newest first: each record with the spec's action, actor tag, approval, "
                    "trigger, items and its audit.log line")
def agent_trail(agent_id: str, trail: TrailDep, flt: FilterDep, who: Reader) -> list[TrailRecord]:
    return trail.records(_own(who, agent_id), flt)


@router.get("/agents/{agent_id}/audit.log", response_class=PlainTextResponse,
            summary="audit.log (12.4): TIMESTAMP | ACTION | ITEM | ACTOR | APPROVAL | SUMMARY, oldest first")
def agent_log(agent_id: str, trail: TrailDep, flt: FilterDep, who: Reader) -> str:
    return trail.log(_own(who, agent_id), flt)


@router.get("/agents/{agent_id}/audit/forgotten", response_model=Forgotten,
            summary="Why was X forgotten: the archived memories about X and the records that archived, deleted or "
                    "decayed them")
def forgotten(agent_id: str, trail: TrailDep, who: Reader,
              about: Annotated[str, Query(min_length=1, max_length=300)],
              limit: Annotated[int, Query(ge=1, le=LIMIT)] = 50) -> Forgotten:
    words = terms(about)
    if not words:
        raise Invalid("say what was forgotten: 'about' has no word to search for")
    return trail.forgotten(_own(who, agent_id), words, limit, about=about)


@router.get("/agents/{agent_id}/audit/reflections/{reflection_id}", response_model=list[TrailRecord],
            summary="What one reflection did: its proposal, its decision and every change applied under it")
def reflection_changes(agent_id: str, reflection_id: str, trail: TrailDep, who: Reader) -> list[TrailRecord]:
    return trail.reflection(_own(who, agent_id), reflection_id)


@router.get("/agents/{agent_id}/audit/critical", response_model=CriticalChanges,
            summary="Has a critical item ever changed: the agent's configuration, identity and critical facts, "
                    "SOUL.md, IDENTITY.md, USER.md and TOOLS.md, each with its records")
def critical(agent_id: str, trail: TrailDep, who: Reader) -> CriticalChanges:
    return trail.critical(_own(who, agent_id))


@router.get("/agents/{agent_id}/audit/items/{item_id}", response_model=ItemChanges,
            summary="Who changed an item: its records newest first and the actors, first seen first")
def item(agent_id: str, item_id: str, trail: TrailDep, who: Reader) -> ItemChanges:
    return trail.item(_own(who, agent_id), item_id)


@router.get("/agents/{agent_id}/audit/digests", response_model=list[AuditDigest], response_model_exclude_none=True,
            summary="The monthly digests (12.6) the trail's records older than its window were folded into, newest "
                    "month first: counts, notable events and each digest's Markdown")
def agent_digests(agent_id: str, db: DbDep, who: Reader) -> list[AuditDigest]:
    return retention.digests(db, _own(who, agent_id))


@router.get("/agents/{agent_id}/audit/archive.md", response_class=PlainTextResponse,
            summary="audit-archive.md (12.6): the agent's monthly digests, oldest first")
def agent_archive(agent_id: str, db: DbDep, who: Reader) -> str:
    return retention.archive_markdown(db, _own(who, agent_id))


@router.get("/audit/digests", response_model=list[AuditDigest], response_model_exclude_none=True,
            summary="The service's own monthly digests (records of no agent), newest first (admin)")
def service_digests(db: DbDep, who: Admin) -> list[AuditDigest]:
    return retention.digests(db, None)


class Folded(BaseModel):
    """What a fold did: the owner-months whose records became a digest, and the records pruned."""

    months: int
    records: int
    retention_days: float = Field(description="the window (GRIMOIRE_AUDIT_LOG_RETENTION_DAYS): whole months older "
                                              "than it were folded")


@router.post("/audit/fold", response_model=Folded,
             summary="Fold every whole month of the audit log older than the window into monthly digests now, and "
                     "prune its records (what the daily audit.retention job does), on this replica (admin)")
def fold_audit(request: Request, db: DbDep, who: Admin) -> Folded:
    days = get_services(request).settings.audit_log_retention_days
    done = retention.fold(db, days, actor=who.key_id)
    return Folded(months=done.months, records=done.records, retention_days=days)


@router.get("/audit", response_model=list[TrailRecord],
            summary="Every audit record, the service's own included (admin)")
def every_record(trail: TrailDep, flt: FilterDep, who: Admin) -> list[TrailRecord]:
    return trail.records(None, flt)


# ---------------------------------------------------------------------------------------- sessions and alerts

@router.post("/agents/{agent_id}/sessions", response_model=SessionStart, response_model_exclude_unset=True,
             summary="Start a session: the critical items' checksums verified, the alerts waiting for the user "
                     "(12.5: 'Heads up — … was modified. Was this intentional?') until acknowledged, and what waits "
                     "for the batch review (13.3): open proposals and the reflection waiting for approval")
def start_session(agent_id: str, memory: AgentMemoryDep, who: Reader) -> SessionStart:
    return sessions.start(memory, agents.require(memory.db, _own(who, agent_id)))


@router.post("/agents/{agent_id}/sessions/end", response_model=SessionEnded, response_model_exclude_unset=True,
             summary="End a session: a reflection over what it added (10.1 'Session end'), pending approval; none "
                     "when nothing was remembered since the last reflection or one is waiting")
def end_session(agent_id: str, memory: AgentMemoryDep, who: WriterOrPerson) -> SessionEnded:
    return sessions.end(memory, agents.require(memory.db, _own(who, agent_id)), actor=who.key_id)


@router.get("/agents/{agent_id}/alerts", response_model=list[AlertRecord], response_model_exclude_none=True,
            summary="The agent's alerts: those not acknowledged, or all (newest first)")
def list_alerts(agent_id: str, db: DbDep, who: Reader, all: bool = False,
                limit: Annotated[int, Query(ge=1, le=LIMIT)] = 100) -> list[AlertRecord]:
    own = _own(who, agent_id)
    return alerts.all_of(db, own, limit) if all else alerts.pending(db, own)


@router.post("/agents/{agent_id}/alerts/{alert_id}/acknowledge", response_model=AlertRecord,
             response_model_exclude_none=True,
             summary="Acknowledge an alert (a person's key for the agent, or the admin's): audited, and not "
                     "returned at session start again")
def acknowledge_alert(agent_id: str, alert_id: str, db: DbDep, who: Reader) -> AlertRecord:
    return alerts.acknowledge(db, require_person_for(who, agent_id, "acknowledging an alert"), alert_id,
                              actor=who.key_id)


# ---------------------------------------------------------------------------------------------- versions, rollback


def _person(who: Principal, agent_id: str) -> str:
    """A rollback is a person's decision (the agent's person's key, or the admin's): never the agent's own key."""
    if not (who.is_admin or (who.agent_id == agent_id and KeyScope.person in who.scopes)):
        raise HTTPException(403, "a rollback takes the key of the person who runs this agent (scope 'person') or "
                                 "an admin's")
    return agent_id


@router.get("/agents/{agent_id}/versions/{item_id}", response_model=ItemHistory, response_model_exclude_none=True,
            summary="An item's earlier versions, newest first, each with its properties as they were, who wrote and "
                    "who replaced it, when, why and the audit record")
def item_versions(agent_id: str, item_id: str, db: DbDep, who: Reader) -> ItemHistory:
    return ItemHistory(item=item_id, versions=versions.history(db, item_id, _own(who, agent_id)))


@router.post("/agents/{agent_id}/rollback", response_model=RollbackDone | RollbackPlan,
             summary="Roll back one item to a version, a reflection, an actor's changes, a session, one change, a "
                     "rollback, or the whole memory to a time (a person's key or the admin's); 409 names a later "
                     "change it would roll over, unless forced; dry_run shows what it would do")
def rollback(agent_id: str, body: RollbackIn, db: DbDep, embedder: EmbedderDep,
             who: Reader) -> RollbackDone | RollbackPlan:
    owner = _person(who, agent_id)
    service = Rollbacks(db, embedder)
    if body.dry_run:
        return service.preview(owner, body.target())
    return service.rollback(owner, body.target(), actor=who.key_id, force=body.force)
