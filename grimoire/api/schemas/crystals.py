"""Requests to knowledge crystals' routes (api/routes/crystals.py, hormones.py, skills.py)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from grimoire.graph.crystals.hormonal_state import TrustLevel
from grimoire.graph.model.common import ID_PATTERN, MAX_INT, MAX_LIST, MAX_TEXT, ShortText, StrictModel
from grimoire.graph.model.crystal.hormones import HormonalEvent
from grimoire.graph.model.crystal.lifecycle import Lifecycle
from grimoire.graph.model.enums import Scope

Reason = Annotated[str, Field(min_length=1, max_length=500)]
CrystalId = Annotated[str, Field(pattern=ID_PATTERN)]


class TransitionIn(StrictModel):
    to: Lifecycle = Field(description="the state to move to; only the state diagram's moves are allowed (409)")
    reason: Reason = "by hand"


class ForkIn(StrictModel):
    scope: Scope = Field(default=Scope.private, description="the fork's scope (private when its source is "
                                                            "confidential)")
    metadata: dict[str, Any] = Field(default_factory=dict, description="kept on the forked relationship")


class MergeIn(StrictModel):
    winner_id: CrystalId = Field(description="becomes consolidated")
    loser_ids: Annotated[list[CrystalId], Field(min_length=1, max_length=MAX_LIST)] = Field(
        description="each becomes archived, its parent_id the winner")
    reason: Reason = "merged by hand"


class VersionIn(StrictModel):
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)] = Field(description="the new version's text")
    reason: Reason = "changed"


class CrystallizeIn(StrictModel):
    crystal_id: CrystalId = Field(description="a generated or activated crystal of the caller's")
    tags: Annotated[list[ShortText], Field(max_length=MAX_LIST)] = Field(default_factory=list)
    category: ShortText | None = Field(default=None, description="e.g. risk-management, code-generation")


class ExecutionIn(StrictModel):
    success: bool
    reward: Annotated[float, Field(ge=-1.0, le=1.0)] = Field(default=0.0, description="the outcome's reward, -1..1")


class DeprecateIn(StrictModel):
    replaced_by: Annotated[str, Field(min_length=1, max_length=200)] = Field(
        description="the replacement's stable skill id")


class HormoneEventIn(StrictModel):
    event: HormonalEvent


class WeatherIn(StrictModel):
    level: Annotated[float, Field(ge=0.0, le=1.0)] = Field(description="the network cortisol level")
    duration_ms: Annotated[int, Field(ge=1_000, le=MAX_INT)] = Field(description="how long it lasts")
    reason: Reason


class CrystalsTrustIn(StrictModel):
    level: TrustLevel


class ManagementNodeIn(StrictModel):
    public_key: Annotated[str, Field(min_length=40, max_length=64)] = Field(
        description="the management node's Ed25519 public key: 32 bytes, base64")
    name: ShortText | None = Field(default=None, description="what the node is, for people")


class VerifyIn(StrictModel):
    signature: Annotated[str, Field(min_length=80, max_length=100)] = Field(
        description="the management node's Ed25519 signature (64 bytes, base64) over the crystal's content hash: "
                    "its 64 hex characters (GET /crystals/{id} content_hash) as ASCII bytes")
    key_id: Annotated[str, Field(pattern=ID_PATTERN)] | None = Field(
        default=None, description="the endorsing management node's id (POST /management-nodes answers it)")
    public_key: Annotated[str, Field(min_length=40, max_length=64)] | None = Field(
        default=None, description="or its Ed25519 public key (base64)")


class BountyIn(StrictModel):
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)] = Field(description="what the bounty asks for")
    reward_multiplier: Annotated[float, Field(ge=1.0, le=10.0)] = Field(
        description="the reward multiplier a skill that fulfils it takes as its bounty priority boost (1 to 10)")
    scope: Scope = Field(default=Scope.private, description="who sees it (and so may fulfil it): private is the "
                                                             "poster's alone, shared its clade's, public everyone's")


class BountyMatchIn(StrictModel):
    stable_skill_id: Annotated[str, Field(pattern=ID_PATTERN)] = Field(
        description="the caller's skill whose newest version fulfils the bounty")
