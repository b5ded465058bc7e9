"""Skills over REST (knowledge-crystals.md): crystallize a crystal as a skill (frozen, a stable id, version 1, its
three perspective embeddings), list and search them (by the procedural, causal or entity view), read a skill's
versions with its marketplace listing (the price past the quality gates), a new version, an execution, a
deprecation in favour of another skill."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from grimoire.api.auth import Reader, Writer
from grimoire.api.deps import DbDep, EmbedderDep, KnowledgeDep
from grimoire.api.ownership import guard
from grimoire.api.schemas.crystals import CrystallizeIn, DeprecateIn, ExecutionIn, VersionIn
from grimoire.graph.crystals import skills
from grimoire.graph.crystals.perspectives import Perspective

router = APIRouter(tags=["skills"])


@router.post("/skills", status_code=201, response_model=skills.Crystallized,
             summary="Crystallize a generated or activated crystal as a skill: frozen, a stable skill id, version 1, "
                     "tags, category, its three views")
def crystallize(body: CrystallizeIn, db: DbDep, embedder: EmbedderDep, who: Writer) -> skills.Crystallized:
    guard(db, who)
    return skills.crystallize(db, embedder, body.crystal_id, tags=body.tags, category=body.category,
                              actor=who.key_id, visibility=who.visibility())


# A skill's answer shows the properties its crystal has (response_model_exclude_unset): none it does not have.
@router.get("/skills", response_model=list[skills.ListedSkill], response_model_exclude_unset=True,
            summary="The skills the key sees, each at its newest version, with its listing")
def list_skills(db: DbDep, who: Reader, category: str | None = None, tag: str | None = None,
                include_deprecated: bool = False,
                limit: Annotated[int, Query(ge=1, le=1_000)] = 100) -> list[skills.ListedSkill]:
    return skills.listed_skills(db, who.visibility(), category=category, tag=tag,
                                include_deprecated=include_deprecated, limit=limit)


@router.get("/skills/search", response_model=list[skills.FoundSkill], response_model_exclude_unset=True,
            summary="Skills nearest a query by one of their views: procedural (steps), causal (cause and effect) or "
                    "entity (tools and APIs)")
def search(q: Annotated[str, Query(min_length=1, max_length=2_000)], db: DbDep, embedder: EmbedderDep, who: Reader,
           perspective: Perspective = Perspective.procedural,
           k: Annotated[int, Query(ge=1, le=100)] = 10) -> list[skills.FoundSkill]:
    return skills.search(db, embedder, q, perspective, who.visibility(), k)


@router.get("/skills/{stable_id}", response_model=skills.SkillVersions, response_model_exclude_unset=True,
            summary="A skill's versions, newest first, and its marketplace listing")
def versions(stable_id: str, db: DbDep, who: Reader) -> skills.SkillVersions:
    return skills.chain(db, stable_id, who.visibility())


@router.post("/skills/{stable_id}/versions", status_code=201, response_model=skills.NewVersion,
             summary="A new version of the skill (a new frozen crystal; the version before deprecated)")
def new_version(stable_id: str, body: VersionIn, k: KnowledgeDep, who: Writer) -> skills.NewVersion:
    guard(k.db, who)
    latest = skills.versions(k.db, stable_id, who.visibility())[0]
    return skills.new_version(k.db, k.embedder, latest.id, body.text, actor=who.key_id,
                              visibility=who.visibility(), reason=body.reason, knowledge=k)


@router.post("/skills/{stable_id}/executions", response_model=skills.ListedSkill, response_model_exclude_unset=True,
             summary="Record an execution of the skill's newest version: its record, steering reward and listing")
def execution(stable_id: str, body: ExecutionIn, db: DbDep, who: Writer) -> skills.ListedSkill:
    return skills.record_execution(db, stable_id, success=body.success, reward=body.reward, actor=who.key_id,
                                   visibility=who.visibility())


@router.post("/skills/{stable_id}/deprecate", response_model=skills.Deprecated,
             summary="Deprecate the skill in favour of another")
def deprecate(stable_id: str, body: DeprecateIn, db: DbDep, who: Writer) -> skills.Deprecated:
    return skills.deprecate(db, stable_id, body.replaced_by, actor=who.key_id, visibility=who.visibility())
