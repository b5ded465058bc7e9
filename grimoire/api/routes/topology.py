"""The DeFi topology over REST: entities, bi-temporal facts, traversal at a block, curiosity.

Routes taking an entity id in the path use the path converter: ids may hold "/" (`pool:weth/usdc`),
and the path is decoded before it is matched. An entity the caller may not see answers 404 as one
that does not exist (graph/topology/entities.py says who sees what)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from pydantic import Field

from grimoire.api.auth import Reader, Writer, WriterOrPerson
from grimoire.api.deps import DbDep, get_services
from grimoire.api.schemas.topology import (
    Curiosity,
    EntityIds,
    EntityLag,
    FactAbout,
    FactsAsserted,
    FactVersion,
    Invalidated,
    KHopEntity,
    ResolvedEntity,
    TopologyPath,
)
from grimoire.graph.agents import Principal
from grimoire.graph.errors import Invalid, NotFound
from grimoire.graph.model.common import MAX_INT, StrictModel
from grimoire.graph.model.enums import Predicate
from grimoire.graph.topology import entities, facts, freshness, traversal
from grimoire.graph.topology.facts import FactNotFound, Owner
from grimoire.graph.topology.freshness import FactConfig
from grimoire.graph.topology.model import MAX_FACTS, Block, CuriosityIn, EntityIn, FactsIn, InvalidateIn, KHopIn

router = APIRouter(tags=["topology"])


class EntitiesIn(StrictModel):
    entities: Annotated[list[EntityIn], Field(min_length=1, max_length=MAX_FACTS)]


def _owner(who: Principal) -> Owner:
    return Owner(who.agent_id or "admin", who.clade or "", world=who.is_admin)


def _facts_config(request: Request) -> FactConfig:
    config: FactConfig = get_services(request).settings.facts
    return config


FactsDep = Annotated[FactConfig, Depends(_facts_config)]


@router.post("/entities", response_model=EntityIds, status_code=201,
             summary="Create or complete entities (idempotent by canonical id)")
def put_entities(body: EntitiesIn, db: DbDep, who: Writer) -> dict[str, list[str]]:
    # The admin's entities are public; an agent's are its own until something it shares shows them.
    return {"ids": entities.upsert(db, body.entities, actor=who.key_id, public=who.is_admin, creator=who.agent_id)}


@router.get("/entities/resolve", response_model=list[ResolvedEntity],
            summary="Entities matching a name, symbol, alias, canonical id or address")
def resolve(db: DbDep, who: Reader, q: Annotated[str, Query(min_length=1, max_length=200)],
            limit: Annotated[int, Query(ge=1, le=100)] = 10) -> list[ResolvedEntity]:
    if not q.strip():
        raise Invalid("q: give a name, symbol, alias, id or address")
    return entities.resolve(db, q, limit, visibility=who.visibility())


@router.post("/facts", response_model=FactsAsserted, status_code=201,
             summary="Assert facts in order; each closes the active fact of its subject and predicate with another "
                     "object (not for multi-valued predicates)")
def assert_facts(body: FactsIn, db: DbDep, who: Writer, cfg: FactsDep) -> dict[str, Any]:
    result = facts.assert_facts(db, body.facts, owner=_owner(who), actor=who.key_id, visibility=who.visibility(),
                                freshness=cfg)
    if result.missing_entities:
        raise Invalid(f"unknown entities (create them first with POST /entities): {result.missing_entities[:20]}")
    return {"fact_ids": result.fact_ids, "created": result.created, "unchanged": result.unchanged,
            "closed": result.closed, "reinforced": result.reinforced}


@router.post("/facts/{fact_id}/invalidate", response_model=Invalidated,
             summary="The fact stops being valid at a block (history is kept)")
def invalidate(fact_id: str, body: InvalidateIn, db: DbDep, who: WriterOrPerson, cfg: FactsDep) -> Invalidated:
    # Only the owner (its keys that write, its person's) or the admin: FactNotFound (a 404) for any other fact.
    return facts.invalidate(db, fact_id, body.at_block, actor=who.key_id, agent_id=who.agent_id,
                            visibility=who.visibility(), freshness=cfg)


@router.get("/facts/{fact_id}", response_model=list[FactVersion], summary="Every version of a fact, on both time axes")
def fact_versions(fact_id: str, db: DbDep, who: Reader, cfg: FactsDep) -> list[FactVersion]:
    view = who.visibility()
    rows = [v for v in facts.versions(db, fact_id, freshness=cfg) if view.sees(v.model_dump(mode="json"))]
    if not rows:
        raise FactNotFound(f"no fact {fact_id!r}")
    return rows


@router.get("/entities/{entity_id:path}/facts", response_model=list[FactAbout],
            summary="Facts about an entity valid at a block, as known at a time (ms), or both")
def about(entity_id: str, db: DbDep, who: Reader, cfg: FactsDep, block: Annotated[Block | None, Query()] = None,
          known_at: Annotated[int | None, Query(ge=0, le=MAX_INT)] = None,
          predicate: Annotated[list[Predicate] | None, Query()] = None) -> list[FactAbout]:
    entities.require_visible(db, entity_id, who.visibility())  # else 404, unknown or invisible alike
    return facts.about(db, entity_id, block=block, known_at=known_at, predicates=predicate or [],
                       visibility=who.visibility(), freshness=cfg)


@router.get("/entities/{entity_id:path}/lag", response_model=EntityLag,
            summary="The information lag of the facts about an entity (recorded time minus valid time), per fact "
                    "and for the entity, with the term it adds to curiosity")
def lag(entity_id: str, db: DbDep, who: Reader, cfg: FactsDep,
        since_block: Annotated[Block | None, Query(description="facts valid from this block on")] = None,
        until_block: Annotated[Block | None, Query(description="facts valid from at most this block")] = None,
        known_at: Annotated[int | None, Query(ge=0, le=MAX_INT, description="recorded by then (ms)")] = None,
        agent_id: Annotated[str | None, Query(max_length=128, description="facts this agent recorded")] = None,
        predicate: Annotated[list[Predicate] | None, Query()] = None) -> EntityLag:
    entities.require_visible(db, entity_id, who.visibility())
    return freshness.entity_lag(db, entity_id, visibility=who.visibility(), config=cfg, predicates=predicate or [],
                                since_block=since_block, until_block=until_block, known_at=known_at,
                                agent_id=agent_id)


@router.post("/topology/k-hop", response_model=list[KHopEntity],
             summary="Entities within k hops at a block, with path, depth and predicates")
def k_hop(body: KHopIn, db: DbDep, who: Reader) -> list[KHopEntity]:
    entities.require_visible(db, body.entity, who.visibility())
    return traversal.k_hop(db, body.entity, body.block, hops=body.hops, direction=body.direction,
                           predicates=body.predicates, known_at=body.known_at, limit=body.limit,
                           visibility=who.visibility())


@router.get("/topology/path", response_model=TopologyPath,
            summary="The shortest dependency path between two entities at a block")
def path(db: DbDep, who: Reader, cfg: FactsDep,
         source: Annotated[str, Query(alias="from", min_length=1, max_length=260)],
         target: Annotated[str, Query(alias="to", min_length=1, max_length=260)], block: Annotated[Block, Query()],
         known_at: Annotated[int | None, Query(ge=0, le=MAX_INT)] = None) -> TopologyPath:
    found = traversal.shortest_path(db, source, target, block, known_at=known_at, visibility=who.visibility(),
                                    facts=cfg)
    if found is None:
        raise NotFound(f"no path from {source!r} to {target!r} at block {block}")
    return found


@router.post("/topology/curiosity", response_model=Curiosity,
             summary="The curiosity composite of an event for the agent's positions: the topology modifier plus "
                     "the information-lag term")
def curiosity(body: CuriosityIn, db: DbDep, who: Reader, cfg: FactsDep) -> Curiosity:
    entities.require_visible(db, body.event_entity, who.visibility())
    return traversal.topology_curiosity(db, body.event_entity, body.positions, body.block,
                                        visibility=who.visibility(), facts=cfg)
