"""Each agent's hormones in the graph (knowledge-crystals.md, "Hormonal System"), and the network cortisol override.

An agent's levels are stored as they were at their last event (AgentHormones) and read decayed to now
(hormones.HormonalState.at_time). An event — named over REST, or found by the trigger patterns in an episode the
agent writes — spikes them, audited. The override (NetworkWeather, set by the admin with a duration) raises every
agent's effective cortisol to its level and, while it lasts, halts skill ingestion (skills, their versions, forks: the
seed's ingestNetworkSkill) by agents below the trusted level; their own episodes, entries and proposals go on.
The modulations that follow (hormones.HormonalState.consolidation and .retrieval) are what the consolidation
engine and retrieval read."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from grimoire.graph.agents import UnknownAgent
from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel, SetProperties, versions
from grimoire.graph.audit.versions import Versioned
from grimoire.graph.crystals.models import NetworkWeather
from grimoire.graph.db import cypher, ogm
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import Conflict, Invalid
from grimoire.graph.ids import iso, now_ms
from grimoire.graph.model.crystal import hormones
from grimoire.graph.model.crystal.hormones import HormonalEvent, HormonalState, Override
from grimoire.graph.model.rows import Row
from grimoire.graph.timed import Timed

NETWORK = "network"


class TrustLevel(StrEnum):
    untrusted = "untrusted"
    provisional = "provisional"
    trusted = "trusted"


class Levels(BaseModel):
    """An agent's hormone levels as stored (at their last event, `valid_from` in ms)."""

    dopamine: float
    cortisol: float
    oxytocin: float
    valid_from: int
    last_event: str | None = None


class LevelsRow(Row):
    query = "crystals/hormones_get"
    agent_id: str
    levels: Levels


class EveryLevelsRow(Row):
    query = "crystals/hormones_every"
    agent_id: str
    levels: Levels


class LockedLevels(Row):
    """crystals/hormones_lock (a write: validated from the transaction's record)."""

    query = "crystals/hormones_lock"
    existed: bool
    levels: Levels


class NetworkOverride(BaseModel):
    """The network cortisol override as set (times in ms, as stored)."""

    level: float
    reason: str
    valid_from: int
    valid_until: int
    set_by: str | None = None


class EndedOverride(NetworkOverride):
    """The override's node as it is once ended (valid_until: when it was ended)."""

    id: str
    recorded_at: int


class WeatherRow(Row):
    query = "crystals/weather"
    weather: NetworkOverride


class ConsolidationModulation(BaseModel):
    decay_resistance: float
    merge_threshold: float
    halt_untrusted_ingestion: bool


class RetrievalModulation(BaseModel):
    importance_boost: float
    recency_bias: float


class HormoneLevels(BaseModel):
    """An agent's levels now (decayed toward homeostasis; `at` in ms), the override, the modulations they give."""

    agent_id: str
    dopamine: float
    cortisol: float
    oxytocin: float
    effective_cortisol: float
    at: int
    override: Override | None
    consolidation: ConsolidationModulation
    retrieval: RetrievalModulation


class Weather(BaseModel):
    """The network cortisol override, if one is on."""

    active: bool
    override: Override | None


class WeatherEnded(BaseModel):
    ended: bool
    override: EndedOverride | None


class TrustSet(BaseModel):
    agent_id: str
    trust_level: TrustLevel
    before: str | None
    at: int


def trust_of(agent: dict[str, Any] | None) -> TrustLevel:
    """An agent's trust level: set by the admin, else trusted for a main agent (a person's), provisional for a
    sub-agent or a golem."""
    if not agent:
        return TrustLevel.untrusted
    if agent.get("trust_level"):
        return TrustLevel(agent["trust_level"])
    return TrustLevel.trusted if agent.get("kind") == "main" else TrustLevel.provisional


class IngestionHalted(Conflict):
    """The network cortisol override is on and a writer below the trusted level brings a skill in (409)."""


def _override(row: NetworkOverride | None, now: int) -> Override | None:
    if row is None or row.valid_until <= now:
        return None
    return Override(level=row.level, until=row.valid_until, reason=row.reason)


# Values as last read, each for a second: the network override (every write asks, and it changes rarely) and agents'
# stored levels for retrieval's modulation (every retrieval asks; they move with an agent's episodes, whose writes here
# drop the agent's entry once they commit). The decay toward homeostasis is computed at each read from the stored
# levels, so a held entry is as current as they are.
WEATHER: Timed[int, NetworkOverride | None] = Timed(1.0)  # by database
LEVELS: Timed[tuple[int, str], Levels | None] = Timed(1.0)  # by database and agent


def _weather_row(db: Database) -> NetworkOverride | None:
    rows = db.typed(WeatherRow)
    return rows[0].weather if rows else None


def _levels_row(db: Database, agent_id: str) -> Levels | None:
    rows = db.typed(LevelsRow, ids=[agent_id])
    return rows[0].levels if rows else None


def drop_levels(agent_id: str) -> None:
    """After a write of the agent's levels commits: this replica's next retrieval for it reads them anew."""
    LEVELS.drop(lambda key, _: key[1] == agent_id)


def weather(db: Database, now: int | None = None) -> Override | None:
    return _override(WEATHER.get_or_load(id(db), lambda: _weather_row(db)), now if now is not None else now_ms())


def guard_ingestion(db: Database, agent: dict[str, Any] | None) -> None:
    """Refuse skill ingestion (api/ownership.py `guard` names the writes) by an agent below the trusted level
    while the network override lasts."""
    active = weather(db)
    if active is None:
        return
    level = trust_of(agent)
    if level is not TrustLevel.trusted:
        raise IngestionHalted(f"skill ingestion is halted by the network cortisol override until {iso(active.until)} "
                              f"({active.reason}): agent {agent.get('id') if agent else '?'} is {level.value}, "
                              f"below trusted")


def _state(row: Levels | None, override: Override | None, now: int) -> HormonalState:
    base = (HormonalState(dopamine=row.dopamine, cortisol=row.cortisol, oxytocin=row.oxytocin, at=row.valid_from)
            if row is not None else HormonalState(at=now))
    state = base.at_time(now)
    return HormonalState(dopamine=state.dopamine, cortisol=state.cortisol, oxytocin=state.oxytocin, at=state.at,
                         override=override)


def levels(db: Database, agent_id: str, now: int | None = None) -> HormonalState:
    """The agent's levels now, with the network override if one is on."""
    at = now if now is not None else now_ms()
    rows = db.typed(LevelsRow, ids=[agent_id])
    return _state(rows[0].levels if rows else None, weather(db, at), at)


def every_agent(db: Database, now: int) -> tuple[dict[str, HormonalState], HormonalState]:
    """Every agent's levels that were ever stored, and the levels of an agent without any (homeostasis), each
    with the override (the consolidation pass)."""
    override = weather(db, now)
    stored = {r.agent_id: _state(r.levels, override, now) for r in db.typed(EveryLevelsRow)}
    return stored, _state(None, override, now)


def describe(agent_id: str, state: HormonalState) -> HormoneLevels:
    return HormoneLevels(
        agent_id=agent_id, dopamine=round(state.dopamine, 6), cortisol=round(state.cortisol, 6),
        oxytocin=round(state.oxytocin, 6), effective_cortisol=round(state.effective_cortisol, 6), at=state.at,
        override=state.override, consolidation=ConsolidationModulation.model_validate(state.consolidation()),
        retrieval=RetrievalModulation.model_validate(state.retrieval()))


def _write_levels(tx: Tx, agent_id: str, state: HormonalState, event: str, actor: str,
                  before: Levels | None) -> None:
    now = state.at
    audit = Audit(action="hormones.event", actor=actor, agent_id=agent_id, at=now)
    hid = f"{agent_id}:hormones"
    steps = versions.keep(tx, Versioned.AgentHormones, [hid], now=now, actor=actor, reason=event,
                          audit_id=audit.id) if before else []
    tx.run(cypher.query("crystals/hormones_set"), agent_id=agent_id, id=f"{agent_id}:hormones",
           dopamine=state.dopamine, cortisol=state.cortisol, oxytocin=state.oxytocin, at=now, event=event).consume()
    revert: list[Any] = ([SetProperties(label=NodeLabel.AgentHormones, id=hid,
                                        before=before.model_dump())]
                         if before else [DeleteNodes(label=NodeLabel.AgentHormones, ids=[hid])])
    audit.write(tx, [hid], f"{event}: dopamine {state.dopamine:.3f}, cortisol {state.cortisol:.3f}, "
                           f"oxytocin {state.oxytocin:.3f}", revert, steps)


def spike_in(tx: Tx, agent_id: str, events: list[HormonalEvent], now: int, actor: str) -> None:
    """Spike the agent's levels by each event, in the caller's transaction (an episode's write); the levels are
    locked first, so concurrent events all count."""
    if not events:
        return
    row = tx.run(cypher.query("crystals/hormones_lock"), id=f"{agent_id}:hormones", agent_id=agent_id, now=now,
                 homeostasis={h.value: v for h, v in hormones.HOMEOSTASIS.items()}).single()
    assert row is not None  # MERGE returns the node
    locked = LockedLevels.model_validate(dict(row))
    state = _state(locked.levels, None, now)
    for event in events:
        state = state.spike(event, now)
    _write_levels(tx, agent_id, state, "+".join(e.value for e in events), actor,
                  locked.levels if locked.existed else None)


def record_event(db: Database, agent_id: str, event: HormonalEvent, *, actor: str) -> HormonalState:
    now = now_ms()

    def work(tx: Tx) -> None:
        spike_in(tx, agent_id, [event], now, actor)

    db.write(work)
    drop_levels(agent_id)  # committed: a retrieval meanwhile may have held the levels from before
    return levels(db, agent_id, now)


def events_of(texts: list[str]) -> list[HormonalEvent]:
    found: list[HormonalEvent] = []
    for text in texts:
        found.extend(hormones.events_in(text))
    return found


def set_weather(db: Database, level: float, duration_ms: int, reason: str, *, actor: str) -> NetworkOverride:
    """The admin's network cortisol override, for `duration_ms`; it replaces any override still on."""
    if not 0.0 <= level <= 1.0:
        raise Invalid("the override's level is between 0 and 1")
    now = now_ms()

    def work(tx: Tx) -> NetworkOverride:
        node = NetworkWeather.nodes.get_or_none(uid=NETWORK)
        before = ogm.properties(node) if node is not None else None
        audit = Audit(action="hormones.network_override", actor=actor, agent_id=None, at=now)
        steps = versions.keep(tx, Versioned.NetworkWeather, [NETWORK], now=now, actor=actor, reason=reason,
                              audit_id=audit.id) if node is not None else []
        if node is None:
            node = NetworkWeather(uid=NETWORK, level=level, reason=reason, valid_from=now,
                                  valid_until=now + duration_ms, recorded_at=now, set_by=actor)
        else:
            node.level, node.reason, node.valid_from = level, reason, now
            node.valid_until, node.recorded_at, node.set_by = now + duration_ms, now, actor
        node.save()
        revert: list[Any] = ([SetProperties(label=NodeLabel.NetworkWeather, id=NETWORK,
                                            before={k: before.get(k) for k in ("level", "reason", "valid_from",
                                                                               "valid_until", "set_by")})]
                             if before else [DeleteNodes(label=NodeLabel.NetworkWeather, ids=[NETWORK])])
        audit.write(tx, [NETWORK], f"network cortisol {level:.2f} for {duration_ms} ms: {reason}", revert, steps)
        return NetworkOverride(level=level, reason=reason, valid_from=now, valid_until=now + duration_ms,
                               set_by=actor)

    out: NetworkOverride = ogm.write(db, work)
    WEATHER.clear()
    return out


def end_weather(db: Database, *, actor: str) -> EndedOverride | None:
    """End the override now (it closes in valid time: valid_until = now)."""
    now = now_ms()

    def work(tx: Tx) -> EndedOverride | None:
        node = NetworkWeather.nodes.get_or_none(uid=NETWORK)
        if node is None or node.valid_until <= now:
            return None
        before = {"valid_until": node.valid_until}
        audit = Audit(action="hormones.network_override", actor=actor, agent_id=None, at=now)
        steps = versions.keep(tx, Versioned.NetworkWeather, [NETWORK], now=now, actor=actor, reason="ended",
                              audit_id=audit.id)
        node.refresh()
        node.valid_until = now
        node.save()
        audit.write(tx, [NETWORK], "network cortisol override ended",
                    [SetProperties(label=NodeLabel.NetworkWeather, id=NETWORK, before=before)], steps)
        return EndedOverride.model_validate(ogm.properties(node))

    out: EndedOverride | None = ogm.write(db, work)
    WEATHER.clear()
    return out


def retrieval_modulation(db: Database, agent_id: str | None) -> tuple[float, float] | None:
    """The (importance_boost, recency_bias) retrieval applies for this agent: None for an agent whose hormones
    never moved while no override is on (it retrieves as configured)."""
    if not agent_id:
        return None
    now = now_ms()
    stored = LEVELS.get_or_load((id(db), agent_id), lambda: _levels_row(db, agent_id))  # held for a second
    override = weather(db, now)
    if stored is None and override is None:
        return None
    mod = _state(stored, override, now).retrieval()
    return mod["importance_boost"], mod["recency_bias"]


def set_trust(db: Database, agent_id: str, level: TrustLevel, *, actor: str) -> TrustSet:
    """The admin sets an agent's trust level (what the network override's halt reads)."""
    now = now_ms()

    def work(tx: Tx) -> TrustSet:
        audit = Audit(action="agent.trust_level", actor=actor, agent_id=agent_id, at=now)
        steps = versions.keep(tx, Versioned.Agent, [agent_id], now=now, actor=actor, reason="trust level",
                              audit_id=audit.id)
        row = tx.run(cypher.query("crystals/trust_set"), id=agent_id, level=level.value).single()
        if row is None:
            raise UnknownAgent(agent_id)
        audit.write(tx, [agent_id], f"trust level {row['before'] or 'unset'} → {level.value}",
                    [SetProperties(label=NodeLabel.Agent, id=agent_id, before={"trust_level": row["before"]})], steps)
        return TrustSet(agent_id=agent_id, trust_level=level, before=row["before"], at=now)

    return db.write(work)
