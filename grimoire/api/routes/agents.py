from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import StreamingResponse

from grimoire.api.auth import Admin, KeyCache, Reader
from grimoire.api.deps import DbDep, EmbedderDep, ServicesDep
from grimoire.api.schemas.agents import AgentOut, Imported, KeyOut, Me, RevokedKey
from grimoire.graph import agents, transfer
from grimoire.graph.agents import AgentIn, KeyIn, Principal
from grimoire.graph.db.connection import Database
from grimoire.graph.errors import NotFound
from grimoire.graph.model.enums import AgentKind, KeyScope

router = APIRouter(tags=["agents and keys"])


def require_self_or_admin(who: Principal, agent_id: str) -> None:
    if not (who.is_admin or who.agent_id == agent_id):
        raise HTTPException(403, "only the agent itself or an admin key may do this")


def require_reader_of(db: Database, who: Principal, agent_id: str) -> str:
    """Reading an agent's memory (core memory, memories, recall): the agent, its person, the admin, or one of its
    sub-agents — shared read, gated write (moltbot-memory.md 13.1): a sub-agent's writes stay proposals."""
    if who.is_admin or who.agent_id == agent_id:
        return agent_id
    me = agents.get(db, who.agent_id) if who.agent_id else None
    if not (me and me.kind == AgentKind.sub and me.parent_id == agent_id):
        raise HTTPException(403, "only the agent itself, its person, its sub-agents or an admin key may read this")
    return agent_id


def require_acting_for(who: Principal, agent_id: str, what: str) -> str:
    """A decision on the agent's behalf: the admin, the agent's own key that writes, or its person's key (which
    reads and approves) — not a read-only key."""
    if not (who.is_admin or (who.agent_id == agent_id and {KeyScope.write, KeyScope.person} & set(who.scopes))):
        raise HTTPException(403, f"{what} takes the agent's key that writes, its person's or an admin's")
    return agent_id


def require_person_for(who: Principal, agent_id: str, what: str) -> str:
    """A decision a person makes for the agent: the admin or the agent's person's key (scope `person`), never
    one of the agent's own keys — the rule MCP's people-only tools and the console apply too."""
    if not (who.is_admin or (who.is_person and who.agent_id == agent_id)):
        raise HTTPException(403, f"{what} takes a person's key (the agent's owner, scope 'person') or the admin's: "
                                 "an agent's own key cannot decide it")
    return agent_id


@router.post("/agents", response_model=AgentOut, response_model_exclude_unset=True, status_code=201,
             summary="Register an agent (admin)")
def register_agent(agent: AgentIn, db: DbDep, who: Admin) -> AgentOut:
    # AgentExists is a 409, InvalidAgent (a sub-agent without a known parent) a 422: api/errors.py.
    return agents.register(db, agent, actor=who.key_id)


@router.get("/agents/me", response_model=Me, response_model_exclude_unset=True,
            summary="The principal this key acts as")
def me(db: DbDep, who: Reader) -> Me:
    agent = agents.get(db, who.agent_id) if who.agent_id else None
    return Me(key_id=who.key_id, scopes=sorted(who.scopes), admin=who.is_admin, agent=agent)


@router.get("/agents", response_model=list[AgentOut], response_model_exclude_unset=True,
            summary="Agents: all for an admin, the own clade's otherwise")
def list_agents(db: DbDep, who: Reader) -> list[AgentOut]:
    return agents.list_agents(db, None if who.is_admin else (who.clade or "\x00"))


@router.post("/agents/{agent_id}/keys", response_model=KeyOut, status_code=201,
             summary="Make an API key for an agent (admin); the key is shown this once")
def create_key(agent_id: str, body: KeyIn, db: DbDep, who: Admin) -> KeyOut:
    raw, stored = agents.create_key(db, agent_id, body, actor=who.key_id)  # UnknownAgent: a 404
    return stored.model_copy(update={"key": raw})


@router.get("/agents/{agent_id}/keys", response_model=list[KeyOut], summary="An agent's keys (never the secrets)")
def list_keys(agent_id: str, db: DbDep, who: Reader) -> list[KeyOut]:
    require_self_or_admin(who, agent_id)
    return agents.list_keys(db, agent_id)


@router.delete("/keys/{key_id}", response_model=RevokedKey,
               summary="Revoke a key (admin, or the key's agent with a key of no less authority)")
def revoke_key(key_id: str, request: Request, db: DbDep, who: Reader) -> RevokedKey:
    owner = next((k for k in agents.list_keys(db, who.agent_id) if k.id == key_id), None) if who.agent_id else None
    if not who.is_admin and owner is None:
        raise NotFound(f"no key {key_id!r} of this agent")
    if not who.is_admin and owner is not None and agents.authority(owner.scopes) > who.authority:
        raise HTTPException(403, "a key revokes only keys of no more authority than its own (read or propose, "
                                 "write, person): revoke this one with a key of at least its authority or the "
                                 "admin's")
    revoked = agents.revoke_key(db, key_id, actor=who.key_id)
    if revoked is None:
        raise NotFound(f"no key {key_id!r}")
    cache: KeyCache = request.app.state.key_cache
    cache.drop_key(key_id)  # its console sessions ended with it, in the database (graph/agents.py revoke_key)
    return revoked


@router.get("/agents/{agent_id}/export", summary="One agent's knowledge as JSON lines (the agent or an admin)",
            response_class=StreamingResponse, responses={200: {"content": {"application/x-ndjson": {}}}})
def export_agent(agent_id: str, db: DbDep, who: Reader) -> StreamingResponse:
    require_self_or_admin(who, agent_id)
    agents.require(db, agent_id)
    lines = list(transfer.export_agent(db, agent_id))  # read fully first: a failure is a clean error
    return StreamingResponse((line + "\n" for line in lines), media_type="application/x-ndjson")


@router.post("/agents/import", response_model=Imported,
             summary="Import an export (admin); importing twice changes nothing",
             openapi_extra={"requestBody": {"content": {"application/x-ndjson": {"schema": {"type": "string"}}},
                                            "required": True}})
async def import_agent(request: Request, db: DbDep, embedder: EmbedderDep, who: Admin,
                       services: ServicesDep) -> Imported:
    try:
        body = (await request.body()).decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:  # not text: a 422 like any bad line, nothing imported
        raise transfer.BadExport(f"the body is not UTF-8 (byte {exc.start})") from exc
    from starlette.concurrency import run_in_threadpool

    # A bad line is BadExport, a 422 saying "not imported: ..." (api/errors.py).
    return await run_in_threadpool(transfer.import_records, db, body.splitlines(), actor=who.key_id,
                                   dimension=embedder.dimension,
                                   memory_scope=services.settings.crystals.memory_scope)
