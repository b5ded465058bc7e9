"""Skills (knowledge-crystals.md, "Versioning (Skills)", "Multi-Perspective Embeddings", "Marketplace Pricing"): a
crystal crystallized as a skill is frozen under a stable skill id; a change is a new version — a new crystal with
the next skill_version, its previous_version_id, deriving from it (mutated) — and the version before is deprecated;
a skill may be deprecated in favour of another; its tags and category describe it; its procedural, causal and
entity views are embedded and searchable; its executions price it once it passes the quality gates."""

from __future__ import annotations

import json

from pydantic import BaseModel

from grimoire.graph.audit import Audit, DeleteNodes, SetProperties
from grimoire.graph.crystals import pricing, store
from grimoire.graph.crystals.perspectives import INDEX, PROPERTY, Perspective, views
from grimoire.graph.crystals.pricing import Listing
from grimoire.graph.crystals.provenance import judge_version
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.embeddings import Embedder
from grimoire.graph.errors import Conflict, Invalid, NotFound
from grimoire.graph.ids import now_ms, uuid7
from grimoire.graph.knowledge.entries import Knowledge
from grimoire.graph.model.crystal import fields
from grimoire.graph.model.crystal.governance import govern
from grimoire.graph.model.crystal.lifecycle import IllegalTransition, Lifecycle, check
from grimoire.graph.model.crystal.payload import content_hash
from grimoire.graph.model.rows import Row
from grimoire.graph.visibility import Visibility

SKILL_FIELDS = ("lifecycle", "lifecycle_at", "semantic_type", "stable_skill_id", "skill_version", "deprecated",
                "skill_tags", "skill_category", "lifespan")


class StaleVersion(Conflict):
    """The version was changed (a newer one made) since it was read (409)."""


class SkillNotFound(NotFound):
    def __init__(self, stable_id: str) -> None:
        super().__init__(f"no skill {stable_id} that this key may see")


class Skill(store.CrystalFields):
    """A skill's version: the crystal's properties as stored, its skill record among them (no embeddings)."""


class ListedSkill(Skill):
    """A skill's version with its marketplace listing."""

    listing: Listing


class FoundSkill(Skill):
    """A skill found by one of its views, with its cosine to the query."""

    cosine: float


class SkillsRow(Row):
    query = "crystals/skills_list"
    skill: Skill


class SkillVersionRow(SkillsRow):
    query = "crystals/skill_versions"


class SkillSearchRow(Row):
    query = "crystals/skill_search"
    skill: Skill
    cosine: float


class LatestSkillRow(Row):
    """crystals/skill_latest_lock (read in the change's transaction)."""

    query = "crystals/skill_latest_lock"
    skill: Skill
    kinds: list[str]


class SkillVersions(BaseModel):
    """A skill's versions the caller sees, newest first, and the newest one's listing."""

    stable_skill_id: str
    latest: Skill
    versions: list[Skill]
    listing: Listing


class Crystallized(BaseModel):
    id: str
    stable_skill_id: str
    skill_version: int
    lifecycle: Lifecycle
    at: int


class NewVersion(BaseModel):
    """A frozen crystal's change: the new crystal, the next version of its chain."""

    id: str
    previous_version_id: str
    stable_skill_id: str
    skill_version: int
    at: int


class Deprecated(BaseModel):
    id: str
    stable_skill_id: str
    deprecated_by: str
    at: int


def embed_views(embedder: Embedder, text: str) -> dict[str, list[float]]:
    """The three perspective embeddings, by their property names (computed before any transaction opens)."""
    texts = views(text)
    order = list(Perspective)
    vectors = embedder.embed([texts[p] for p in order])
    return {PROPERTY[p]: v.tolist() for p, v in zip(order, vectors, strict=True)}


def _text(crystal: store.CrystalFields) -> str:
    return crystal.content or crystal.text or ""


def crystallize(db: Database, embedder: Embedder, crystal_id: str, *, tags: list[str], category: str | None,
                actor: str, visibility: Visibility) -> Crystallized:
    """generated or activated → frozen, as a skill with version 1."""
    crystal = store.get(db, crystal_id, visibility)
    embedded = embed_views(embedder, _text(crystal))
    stable_id = f"skill-{uuid7()}"  # unique across owners and labels (a crystal id is unique per label only)
    now = now_ms()

    def work(tx: Tx) -> Crystallized:
        locked, kinds = store.lock(tx, crystal_id, visibility)
        if "Skill" in kinds:
            raise Invalid(f"{crystal_id} is a skill already ({locked.stable_skill_id}): change it with a new "
                          f"version")
        current = Lifecycle(locked.lifecycle)
        if current not in (Lifecycle.generated, Lifecycle.activated):  # a frozen crystal is immutable
            raise IllegalTransition(f"{current.value} → frozen as a skill is refused: only a generated or activated "
                                    f"crystal is crystallized")
        before = {k: getattr(crystal, k) for k in (*SKILL_FIELDS, "memory_source")}
        audit = Audit(action="skill.crystallize", actor=actor, agent_id=locked.agent_id, at=now)
        steps = store.keep(tx, {crystal_id: kinds}, audit, "crystallized as a skill")
        tx.run(cypher.query("crystals/crystallize"), id=crystal_id, label=store.label_of(kinds).value,
               stable_id=stable_id, tags=tags, category=category, views=embedded, now=now).consume()
        audit.write(tx, [crystal_id], f"{crystal_id} crystallized as skill {stable_id}",
                    [SetProperties(label=store.label_of(kinds), id=crystal_id, before=before)], steps)
        return Crystallized(id=crystal_id, stable_skill_id=stable_id, skill_version=1, lifecycle=Lifecycle.frozen,
                            at=now)

    return db.write(work)


def new_version(db: Database, embedder: Embedder, crystal_id: str, text: str, *, actor: str,
                visibility: Visibility, reason: str = "changed", knowledge: Knowledge | None = None) -> NewVersion:
    """A change to a frozen crystal: a new crystal, the next version (immutable ones are never changed). An entry's
    change passes the Admission Gate first (`knowledge`: provenance.judge_version)."""
    crystal = store.get(db, crystal_id, visibility)
    if crystal.lifecycle != Lifecycle.frozen.value:
        raise Invalid(f"{crystal_id} is {crystal.lifecycle}, not frozen: change it in place (an entry's "
                      f"EDIT keeps its versions)")
    if crystal.deprecated:
        raise Invalid(f"{crystal_id} is an earlier version; change the newest one of {crystal.stable_skill_id}")
    vector = embedder.embed([text])[0].tolist()  # before the transaction opens
    embedded = embed_views(embedder, text) if "Skill" in crystal.kinds else {}
    new_id = uuid7()
    now = now_ms()
    # The new text is tagged and weighed afresh: a confidential change is private whatever the version before was.
    # It keeps the scope the version before has (never the wider one once asked for: no version widens a scope).
    scope = crystal.scope or "private"
    governed = govern(text, scope, None, now)
    props = {"sensitivity": governed["sensitivity"], "scope": governed["scope"],
             "requested_scope": governed.get("requested_scope") or crystal.requested_scope,
             **{k: v for k, v in fields.behavioural(text, session=crystal.origin == "session", now=now).items()
                if k.startswith("hormone_") or k == "emotional_valence"},
             # the new text's hash; the file lines the version before was read from are not this text's
             "content_hash": content_hash(text), "source_path": None, "start_line": None, "end_line": None}
    if knowledge is not None and "Entry" in crystal.kinds:
        props.update(judge_version(knowledge, crystal, text, props["scope"]).model_dump())

    def work(tx: Tx) -> NewVersion:
        locked, kinds = store.lock(tx, crystal_id, visibility)
        check(Lifecycle(locked.lifecycle), Lifecycle.frozen)
        if locked.deprecated:  # another change made the next version first
            raise StaleVersion(f"{crystal_id} was changed since it was read: change its newest version")
        audit = Audit(action="crystal.version", actor=actor, agent_id=locked.agent_id, at=now)
        steps = store.keep(tx, {crystal_id: kinds}, audit, "a new version made")
        row = tx.run(cypher.query("crystals/new_version"), id=crystal_id, label=store.label_of(kinds).value,
                     new_id=new_id, text=text, embedding=vector, views=embedded, props=props,
                     actor=visibility.viewer or actor, now=now,
                     metadata=json.dumps({"reason": reason})).single()
        assert row is not None  # locked above
        audit.write(
            tx, [new_id, crystal_id], f"{crystal_id} is frozen: its change is version {row['version']} ({new_id})",
            [DeleteNodes(label=store.label_of(kinds), ids=[new_id]),
             SetProperties(label=store.label_of(kinds), id=crystal_id,
                           before={"deprecated": crystal.deprecated, "deprecated_by": None,
                                   "stable_skill_id": crystal.stable_skill_id,
                                   "skill_version": crystal.skill_version})], steps)
        return NewVersion(id=new_id, previous_version_id=crystal_id, stable_skill_id=row["stable_id"],
                          skill_version=row["version"], at=now)

    return db.write(work)


def versions(db: Database, stable_id: str, visibility: Visibility) -> list[Skill]:
    """The skill's versions the caller sees, newest first."""
    rows = [r.skill for r in db.typed(SkillVersionRow, stable_id=stable_id, **visibility.params())]
    if not rows:
        raise SkillNotFound(stable_id)
    return rows


def category_counts(db: Database, visibility: Visibility) -> dict[str, int]:
    """How many skills (newest versions, not deprecated) of each category the caller sees."""
    counts: dict[str, int] = {}
    for s in list_skills(db, visibility, limit=100_000):
        if s.skill_category:
            counts[s.skill_category] = counts.get(s.skill_category, 0) + 1
    return counts


def listing(db: Database, skill: Skill, visibility: Visibility, counts: dict[str, int] | None = None) -> Listing:
    """The skill's price, its scarcity counted among the skills of its category the caller sees."""
    category = skill.skill_category
    same = (counts if counts is not None else category_counts(db, visibility)).get(category, 1) if category else 1
    return pricing.price(skill.model_dump(), in_category=same)


def listed(db: Database, skill: Skill, visibility: Visibility, counts: dict[str, int] | None = None) -> ListedSkill:
    """The skill's version with its listing (as stored: what it does not have is not in the answer)."""
    return ListedSkill.model_validate({**skill.model_dump(exclude_unset=True),
                                       "listing": listing(db, skill, visibility, counts)})


def listed_skills(db: Database, visibility: Visibility, *, category: str | None = None, tag: str | None = None,
                  include_deprecated: bool = False, limit: int = 100) -> list[ListedSkill]:
    """The skills the caller sees, each at its newest version, with its listing."""
    found = list_skills(db, visibility, category=category, tag=tag, include_deprecated=include_deprecated,
                        limit=limit)
    counts = category_counts(db, visibility)
    return [listed(db, s, visibility, counts) for s in found]


def chain(db: Database, stable_id: str, visibility: Visibility) -> SkillVersions:
    """The skill's versions, newest first, and the newest one's listing."""
    found = versions(db, stable_id, visibility)
    return SkillVersions(stable_skill_id=stable_id, latest=found[0], versions=found,
                         listing=listing(db, found[0], visibility))


def list_skills(db: Database, visibility: Visibility, *, category: str | None = None, tag: str | None = None,
                include_deprecated: bool = False, limit: int = 100) -> list[Skill]:
    return [r.skill for r in db.typed(SkillsRow, category=category, tag=tag, include_deprecated=include_deprecated,
                                      limit=limit, **visibility.params())]


def search(db: Database, embedder: Embedder, query: str, perspective: Perspective, visibility: Visibility,
           k: int = 10) -> list[FoundSkill]:
    vector = embedder.embed([query])[0].tolist()
    return [FoundSkill.model_validate({**r.skill.model_dump(exclude_unset=True), "cosine": r.cosine})
            for r in db.typed(SkillSearchRow, index=INDEX[perspective], embedding=vector,
                              candidates=max(100, k * 10), k=k, **visibility.params())]


def latest(tx: Tx, stable_id: str, visibility: Visibility) -> tuple[Skill, list[str]]:
    """The skill's newest version the caller owns, locked, and its kinds."""
    row = tx.run(cypher.query("crystals/skill_latest_lock"), stable_id=stable_id, viewer=visibility.viewer,
                 admin=visibility.admin).single()
    if row is None:
        raise SkillNotFound(stable_id)
    found = LatestSkillRow.model_validate(dict(row))
    return found.skill, found.kinds


def record_execution(db: Database, stable_id: str, *, success: bool, reward: float, actor: str,
                     visibility: Visibility) -> ListedSkill:
    """An execution of the skill's newest version: its record and steering reward (the owner's key)."""
    if not -1.0 <= reward <= 1.0:
        raise Invalid("an execution's reward is between -1 and 1")
    now = now_ms()

    def work(tx: Tx) -> None:
        skill, kinds = latest(tx, stable_id, visibility)
        audit = Audit(action="skill.execution", actor=actor, agent_id=skill.agent_id, at=now)
        steps = store.keep(tx, {skill.id: kinds}, audit, "executed")
        tx.run(cypher.query("crystals/skill_execution"), stable_id=stable_id, version=skill.skill_version,
               success=success, reward=reward, now=now).consume()
        audit.write(
            tx, [skill.id], f"{stable_id} v{skill.skill_version} executed: "
                            f"{'success' if success else 'failure'}, reward {reward:+.2f}",
            [SetProperties(label=store.label_of(kinds),
                           id=skill.id, before={k: getattr(skill, k) for k in (
                               "execution_count", "success_count", "reward_sum", "steering_reward",
                               "last_executed_at")})], steps)

    db.write(work)
    return listed(db, versions(db, stable_id, visibility)[0], visibility)


def deprecate(db: Database, stable_id: str, replaced_by: str, *, actor: str,
              visibility: Visibility) -> Deprecated:
    if replaced_by == stable_id:
        raise Invalid("a skill is not replaced by itself")
    versions(db, replaced_by, visibility)  # the replacement: a skill the caller sees
    now = now_ms()

    def work(tx: Tx) -> Deprecated:
        skill, kinds = latest(tx, stable_id, visibility)
        audit = Audit(action="skill.deprecate", actor=actor, agent_id=skill.agent_id, at=now)
        steps = store.keep(tx, {skill.id: kinds}, audit, "deprecated")
        tx.run(cypher.query("crystals/skill_deprecate"), stable_id=stable_id, version=skill.skill_version,
               replaced_by=replaced_by, now=now).consume()
        audit.write(
            tx, [skill.id], f"{stable_id} deprecated in favour of {replaced_by}",
            [SetProperties(label=store.label_of(kinds),
                           id=skill.id, before={"deprecated": skill.deprecated,
                                                "deprecated_by": skill.deprecated_by,
                                                "deprecated_at": skill.deprecated_at})], steps)
        return Deprecated(id=skill.id, stable_skill_id=stable_id, deprecated_by=replaced_by, at=now)

    return db.write(work)
