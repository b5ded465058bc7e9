"""Verification and bounties over REST (knowledge-crystals.md, "Verification & Bounties (Phase 3)"): the admin
registers and revokes management nodes' Ed25519 keys; a knowledge crystal's owner presents a management node's
signature over its content hash (verified); agents post bounties the visibility rule shows to whom it may, and a
skill's owner fulfils one it sees with its skill (the bounty closes, the skill carries its reward multiplier)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from grimoire.api.auth import Admin, Reader, Writer
from grimoire.api.deps import DbDep
from grimoire.api.schemas.crystals import BountyIn, BountyMatchIn, ManagementNodeIn, VerifyIn
from grimoire.graph.crystals import bounties, endorsements
from grimoire.graph.errors import Invalid

router = APIRouter(tags=["verification and bounties"])


@router.post("/management-nodes", status_code=201, response_model=endorsements.ManagementNode,
             summary="Register a management node's Ed25519 public key (admin); a key registered already is answered "
                     "unchanged, a revoked one is not registered again (409)")
def register_management_node(body: ManagementNodeIn, db: DbDep, who: Admin) -> endorsements.ManagementNode:
    return endorsements.register(db, body.public_key, body.name, actor=who.key_id)


@router.get("/management-nodes", response_model=list[endorsements.ManagementNode],
            summary="The management nodes' keys, revoked ones too (public keys: the same for every caller)")
def list_management_nodes(db: DbDep, who: Reader) -> list[endorsements.ManagementNode]:
    return endorsements.list_nodes(db)


@router.delete("/management-nodes/{node_id}", response_model=endorsements.ManagementNode,
               summary="Revoke a management node's key (admin): it endorses nothing from now on")
def revoke_management_node(node_id: str, db: DbDep, who: Admin) -> endorsements.ManagementNode:
    return endorsements.revoke(db, node_id, actor=who.key_id)


@router.post("/crystals/{crystal_id}/verify", response_model=endorsements.Verified,
             summary="A management node's endorsement of a knowledge crystal (skill, task_pattern): its Ed25519 "
                     "signature over the crystal's content hash sets is_verified and verified_by; a bad signature, "
                     "an unknown or revoked key or a memory crystal is a 4xx and writes nothing")
def verify_crystal(crystal_id: str, body: VerifyIn, db: DbDep, who: Writer) -> endorsements.Verified:
    return endorsements.verify(db, crystal_id, body.signature, key_id=body.key_id, public_key=body.public_key,
                               actor=who.key_id, visibility=who.visibility())


@router.post("/bounties", status_code=201, response_model=bounties.Bounty, response_model_exclude_unset=True,
             summary="Post a bounty: its text, reward multiplier (1 to 10) and scope")
def post_bounty(body: BountyIn, db: DbDep, who: Writer) -> bounties.Bounty:
    if who.agent_id is None:
        raise Invalid("a bounty is an agent's: post it with the agent's key")
    return bounties.post(db, body.text, body.reward_multiplier, body.scope.value, agent_id=who.agent_id,
                         clade=who.clade, actor=who.key_id)


@router.get("/bounties", response_model=list[bounties.Bounty], response_model_exclude_unset=True,
            summary="The bounties the key sees, newest first: open ones unless status says otherwise (closed: "
                    "fulfilled, their valid time ended on a match; all: both)")
def list_bounties(db: DbDep, who: Reader,
                  status: Annotated[bounties.StatusFilter, Query(
                      description="open (the default), closed (fulfilled: its valid time ended on a match) or all"
                  )] = "open",
                  limit: Annotated[int, Query(ge=1, le=1_000)] = 100) -> list[bounties.Bounty]:
    return bounties.list_bounties(db, who.visibility(), status=status, limit=limit)


@router.get("/bounties/{bounty_id}", response_model=bounties.Bounty, response_model_exclude_unset=True,
            summary="A bounty the key sees")
def get_bounty(bounty_id: str, db: DbDep, who: Reader) -> bounties.Bounty:
    return bounties.get(db, bounty_id, who.visibility())


@router.post("/bounties/{bounty_id}/match", response_model=bounties.Matched,
             summary="Fulfil an open bounty the key sees with its skill's newest version: the bounty closes, the "
                     "skill names it, takes its reward multiplier as its bounty priority boost and counts one more "
                     "bounty match (pricing's demand)")
def match_bounty(bounty_id: str, body: BountyMatchIn, db: DbDep, who: Writer) -> bounties.Matched:
    return bounties.match(db, bounty_id, body.stable_skill_id, actor=who.key_id, visibility=who.visibility())
