"""The bounty board (knowledge-crystals.md, "Verification & Bounties (Phase 3)": a crystal's `bountyMatchId`, "ID of
the bounty this crystal fulfilled", and `bountyPriorityBoost`, "Reward multiplier from the matched bounty"; the
demand multiplier's `bountyMatches`, "Marketplace Pricing").

An agent posts a bounty: what it wants (text), a reward multiplier (at least 1; at most 10, the project's own
bound) and a scope, governed like any item it writes (graph/model/crystal/governance.py: a confidential text is
stored private, the scope asked for kept as requested_scope). Who sees it is the one visibility rule
(graph/visibility.py): a private bounty is its poster's alone, a shared one its clade's, a public one everyone's.

A skill's owner fulfils an open bounty it can see with its skill (the newest version): in one transaction with one
audit record, the bounty closes (its valid time ends and its open state is kept as a version: closed, never
overwritten) and the skill's version names the bounty (bounty_match_id), takes its reward multiplier as its
bounty_priority_boost (the larger, when it fulfilled one before) and counts one more bounty match — so pricing's
demand 1 + ln(buyers + bounty matches + 1) x 0.1 moves. The boost weighs in retrieval's final score
(graph/retrieval/governance.py). A poster does not fulfil its own bounty: demand is other agents' (409)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel, SetProperties, versions
from grimoire.graph.audit.versions import Versioned
from grimoire.graph.crystals import skills, store
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import Conflict, Invalid, NotFound
from grimoire.graph.ids import now_ms, uuid7
from grimoire.graph.model.crystal.fields import MAX_BOUNTY_BOOST, NO_BOUNTY_BOOST
from grimoire.graph.model.crystal.governance import govern
from grimoire.graph.model.rows import Row
from grimoire.graph.visibility import Visibility

MIN_MULTIPLIER = NO_BOUNTY_BOOST
MAX_MULTIPLIER = MAX_BOUNTY_BOOST
Status = Literal["open", "closed"]
StatusFilter = Literal["open", "closed", "all"]  # the list's: a state, or both
STATUSES: dict[str, list[str]] = {"open": ["open"], "closed": ["closed"], "all": ["open", "closed"]}


class Bounty(BaseModel):
    """A bounty as stored: open from valid_from until a skill fulfils it (valid_until, closed_at and the match)."""

    id: str
    agent_id: str
    clade: str | None = None
    scope: str
    requested_scope: str | None = None
    sensitivity: str | None = None
    text: str
    reward_multiplier: float
    status: Status
    valid_from: int
    valid_until: int | None = None
    recorded_at: int
    closed_at: int | None = None
    matched_crystal_id: str | None = None
    matched_skill_id: str | None = None
    matched_by: str | None = None
    audit_id: str | None = None


class BountyRow(Row):
    query = "crystals/bounty_get"
    bounty: Bounty


class BountiesRow(BountyRow):
    query = "crystals/bounties_list"


class Matched(BaseModel):
    """A bounty fulfilled: the bounty (closed), the skill's version that fulfilled it and what it now carries."""

    bounty: Bounty
    crystal_id: str
    stable_skill_id: str
    bounty_match_id: str
    bounty_priority_boost: float
    bounty_matches: int
    audit_id: str


class BountyNotFound(NotFound):
    def __init__(self, bounty_id: str) -> None:
        super().__init__(f"no bounty {bounty_id} that this key may see")


class BountyClosed(Conflict):
    """A match of a bounty fulfilled already (409)."""


def post(db: Database, text: str, reward_multiplier: float, scope: str, *, agent_id: str, clade: str | None,
         actor: str) -> Bounty:
    if not MIN_MULTIPLIER <= reward_multiplier <= MAX_MULTIPLIER:
        raise Invalid(f"a bounty's reward multiplier is between {MIN_MULTIPLIER:g} and {MAX_MULTIPLIER:g}")
    now = now_ms()
    governed = govern(text, scope, None, now)  # a confidential text stays its poster's
    audit = Audit(action="bounty.post", actor=actor, agent_id=agent_id, at=now)
    props = {"id": uuid7(now), "agent_id": agent_id, "clade": clade, "scope": governed["scope"],
             "requested_scope": governed.get("requested_scope"), "sensitivity": governed["sensitivity"],
             "text": text, "reward_multiplier": float(reward_multiplier), "status": "open", "valid_from": now,
             "recorded_at": now, "audit_id": audit.id}

    def work(tx: Tx) -> Bounty:
        row = tx.run(cypher.query("crystals/bounty_post"), props=props).single()
        assert row is not None
        audit.write(tx, [props["id"]], f"bounty {props['id']} posted (x{reward_multiplier:g}, {props['scope']})",
                    [DeleteNodes(label=NodeLabel.Bounty, ids=[props["id"]])])
        return BountyRow.model_validate(dict(row)).bounty

    return db.write(work)


def get(db: Database, bounty_id: str, visibility: Visibility) -> Bounty:
    rows = db.typed(BountyRow, id=bounty_id, **visibility.params())
    if not rows:
        raise BountyNotFound(bounty_id)
    return rows[0].bounty


def list_bounties(db: Database, visibility: Visibility, *, status: StatusFilter = "open",
                  limit: int = 100) -> list[Bounty]:
    """The bounties the caller sees, newest first: open ones, closed ones (their valid time ended on a match) or
    all."""
    return [r.bounty for r in db.typed(BountiesRow, statuses=STATUSES[status], limit=limit,
                                       **visibility.params())]


def poster_sees(skill: skills.Skill, bounty: Bounty) -> bool:
    """Whether the bounty's poster may see the skill (the one visibility rule): a match shows the skill's ids to
    everyone who sees the bounty, so a skill narrower than its poster's view (a private one, or shared with another
    clade) does not fulfil it; a confidential one is stored private and never does."""
    if skill.sensitivity == "confidential":
        return False
    return skill.scope == "public" or (skill.scope == "shared" and skill.clade is not None
                                       and skill.clade == bounty.clade)


def match(db: Database, bounty_id: str, stable_id: str, *, actor: str, visibility: Visibility) -> Matched:
    """The caller's skill (its newest version) fulfils an open bounty the caller sees."""

    def work(tx: Tx) -> Matched:
        row = tx.run(cypher.query("crystals/bounty_lock"), id=bounty_id, **visibility.params()).single()
        if row is None:
            raise BountyNotFound(bounty_id)
        bounty = BountyRow.model_validate(dict(row)).bounty
        if bounty.status != "open":
            raise BountyClosed(f"bounty {bounty_id} was fulfilled already (by {bounty.matched_skill_id} at "
                               f"{bounty.closed_at})")
        skill, kinds = skills.latest(tx, stable_id, visibility)
        if skill.deprecated:
            raise Invalid(f"{stable_id} is deprecated (in favour of {skill.deprecated_by}): it is offered no more")
        if skill.agent_id == bounty.agent_id:
            raise Conflict(f"bounty {bounty_id} is {bounty.agent_id}'s own: a bounty is fulfilled by another "
                           f"agent's skill (its demand is other agents')")
        if not poster_sees(skill, bounty):
            raise Invalid(f"{stable_id} is {skill.scope or 'private'}"
                          f"{' to ' + skill.clade if skill.scope == 'shared' and skill.clade else ''}: bounty "
                          f"{bounty_id}'s poster {bounty.agent_id} may not see it, and a match names the skill to "
                          f"whoever sees the bounty; share it with the poster first")
        audit = Audit(action="bounty.match", actor=actor, agent_id=skill.agent_id)
        steps = [*versions.keep(tx, Versioned.Bounty, [bounty_id], now=audit.at, actor=actor, reason="fulfilled",
                                audit_id=audit.id),
                 *store.keep(tx, {skill.id: kinds}, audit, f"fulfilled bounty {bounty_id}")]
        done = tx.run(cypher.query("crystals/bounty_match"), bounty_id=bounty_id, stable_id=stable_id,
                      version=skill.skill_version, matcher=skill.agent_id, now=audit.at).single()
        assert done is not None  # both locked above
        closed = Bounty.model_validate(done["bounty"])
        audit.write(
            tx, [bounty_id, skill.id],
            f"bounty {bounty_id} (x{bounty.reward_multiplier:g}) fulfilled by {stable_id} v{skill.skill_version}",
            [SetProperties(label=NodeLabel.Bounty, id=bounty_id,
                           before={"status": "open", "valid_until": None, "closed_at": None,
                                   "matched_crystal_id": None, "matched_skill_id": None, "matched_by": None}),
             SetProperties(label=store.label_of(kinds), id=skill.id,
                           before={"bounty_match_id": skill.bounty_match_id,
                                   "bounty_priority_boost": skill.bounty_priority_boost,
                                   "bounty_matches": skill.bounty_matches})], steps)
        return Matched(bounty=closed, crystal_id=done["crystal_id"], stable_skill_id=stable_id,
                       bounty_match_id=bounty_id, bounty_priority_boost=done["bounty_priority_boost"],
                       bounty_matches=done["bounty_matches"], audit_id=audit.id)

    return db.write(work)
