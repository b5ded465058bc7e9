"""The causal graph over REST: link entries, walk consequences and causes, verify outcomes,
export a graph and let a successor inherit it."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from grimoire.api.auth import Reader, Writer
from grimoire.api.deps import DbDep, KnowledgeDep
from grimoire.api.routes.agents import require_self_or_admin
from grimoire.api.schemas.causal import CausalHit, CausalLinkOut, Inherited, LinksMade
from grimoire.graph import agents
from grimoire.graph.agents import UnknownAgent
from grimoire.graph.errors import Invalid
from grimoire.graph.knowledge import causal
from grimoire.graph.knowledge.causal import CausalGraph, LinksIn
from grimoire.graph.model.vectors import check_vector

router = APIRouter(tags=["causal graph"])


class CausalOutcomeIn(BaseModel):
    confirmed: bool = Field(description="the predicted effect was observed (true) or not (false)")


@router.post("/causal/links", response_model=LinksMade, status_code=201,
             summary="Link cause and effect entries (idempotent by id)")
def add_links(body: LinksIn, db: DbDep, who: Writer) -> LinksMade:
    if who.agent_id is None:
        raise Invalid("causal links belong to an agent: use the agent's key")
    # An entry causing itself is InvalidLink (422), an end the caller cannot see LinkNotFound (404).
    return causal.link(db, body.links, agent_id=who.agent_id, clade=who.clade or "", actor=who.key_id,
                       visibility=who.visibility())


@router.get("/causal/{entry_id}/consequences", response_model=list[CausalHit],
            summary="What an entry leads to, up to 3 hops, by weight x recency")
def consequences(entry_id: str, db: DbDep, k: KnowledgeDep, who: Reader,
                 depth: Annotated[int, Query(ge=1, le=causal.MAX_DEPTH)] = causal.MAX_DEPTH) -> list[CausalHit]:
    return causal.traverse(db, entry_id, direction="forward", depth=depth, config=k.decay,
                           visibility=who.visibility())


@router.get("/causal/{entry_id}/causes", response_model=list[CausalHit],
            summary="What leads to an entry, up to 3 hops, by weight x recency")
def causes(entry_id: str, db: DbDep, k: KnowledgeDep, who: Reader,
           depth: Annotated[int, Query(ge=1, le=causal.MAX_DEPTH)] = causal.MAX_DEPTH) -> list[CausalHit]:
    return causal.traverse(db, entry_id, direction="backward", depth=depth, config=k.decay,
                           visibility=who.visibility())


@router.post("/causal/links/{link_id}/outcome", response_model=CausalLinkOut, response_model_exclude_unset=True,
             summary="A verified outcome: evidence, weight and confidence move")
def outcome(link_id: str, body: CausalOutcomeIn, db: DbDep, k: KnowledgeDep, who: Writer) -> CausalLinkOut:
    return causal.record_outcome(db, link_id, body.confirmed, actor=who.key_id, agent_id=who.agent_id,
                                 config=k.decay, visibility=who.visibility())


@router.get("/agents/{agent_id}/causal-graph", response_model=CausalGraph,
            summary="An agent's causal graph with its entries (the agent or an admin)")
def export_graph(agent_id: str, db: DbDep, who: Reader) -> CausalGraph:
    require_self_or_admin(who, agent_id)
    return causal.export(db, agent_id)


@router.post("/agents/{agent_id}/inherit-causal-graph", response_model=Inherited, status_code=201,
             summary="A successor inherits a predecessor's causal graph at confidence 0.3, provenance Predecessor")
def inherit(agent_id: str, body: CausalGraph, k: KnowledgeDep, who: Writer) -> Inherited:
    require_self_or_admin(who, agent_id)
    db, embedder = k.db, k.embedder
    successor = agents.get(db, agent_id)
    if successor is None:
        raise UnknownAgent(f"no agent {agent_id!r}")
    for e in body.entries:
        check_vector(e.embedding, embedder.dimension, what=f"entry {e.id}: embedding")
    return causal.inherit(k, body, successor=agent_id, clade=successor.clade or "",
                          actor=who.key_id)
