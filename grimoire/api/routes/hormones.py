"""The hormonal system over REST (knowledge-crystals.md, "Hormonal System"): an agent's dopamine, cortisol and
oxytocin now, with the consolidation and retrieval modulations they give; a hormonal event; and the network
cortisol override (admin) that raises every agent's effective cortisol and halts skill ingestion (skills, their
versions, forks) by agents below the trusted level until it expires; an agent's trust level (admin)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from grimoire.api.auth import Admin, KeyCache, Reader
from grimoire.api.deps import DbDep
from grimoire.api.routes.agents import require_acting_for, require_self_or_admin
from grimoire.api.schemas.crystals import CrystalsTrustIn, HormoneEventIn, WeatherIn
from grimoire.graph import agents
from grimoire.graph.crystals import hormonal_state as hs

router = APIRouter(tags=["hormones"])


@router.get("/agents/{agent_id}/hormones", response_model=hs.HormoneLevels,
            summary="The agent's hormone levels now (decayed toward homeostasis), the override, the modulations")
def levels(agent_id: str, db: DbDep, who: Reader) -> hs.HormoneLevels:
    require_self_or_admin(who, agent_id)
    agents.require(db, agent_id)
    return hs.describe(agent_id, hs.levels(db, agent_id))


@router.post("/agents/{agent_id}/hormones/events", response_model=hs.HormoneLevels,
             summary="A hormonal event (reward, error, social, achievement, urgency) spikes the agent's levels")
def event(agent_id: str, body: HormoneEventIn, db: DbDep, who: Reader) -> hs.HormoneLevels:
    require_acting_for(who, agent_id, "a hormonal event")
    agents.require(db, agent_id)
    return hs.describe(agent_id, hs.record_event(db, agent_id, body.event, actor=who.key_id))


@router.get("/hormones/network", response_model=hs.Weather, summary="The network cortisol override, if one is on")
def weather(db: DbDep, who: Reader) -> hs.Weather:
    active = hs.weather(db)
    return hs.Weather(active=active is not None, override=active)


@router.put("/hormones/network", response_model=hs.NetworkOverride,
            summary="Set the network cortisol override for a duration (admin): effective cortisol at least its "
                    "level, skill ingestion by agents below trusted halted")
def set_weather(body: WeatherIn, db: DbDep, who: Admin) -> hs.NetworkOverride:
    return hs.set_weather(db, body.level, body.duration_ms, body.reason, actor=who.key_id)


@router.delete("/hormones/network", response_model=hs.WeatherEnded,
               summary="End the network cortisol override now (admin)")
def end_weather(db: DbDep, who: Admin) -> hs.WeatherEnded:
    ended = hs.end_weather(db, actor=who.key_id)
    return hs.WeatherEnded(ended=ended is not None, override=ended)


@router.put("/agents/{agent_id}/trust-level", response_model=hs.TrustSet,
            summary="An agent's trust level (admin): below trusted, its skill ingestion halts while the override is on")
def set_trust(agent_id: str, body: CrystalsTrustIn, db: DbDep, who: Admin, request: Request) -> hs.TrustSet:
    changed = hs.set_trust(db, agent_id, body.level, actor=who.key_id)
    cache: KeyCache = request.app.state.key_cache
    cache.drop_agent(agent_id)  # its keys' principals carry the level
    return changed
