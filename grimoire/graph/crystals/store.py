"""The lifecycle in the graph: a crystal read as its caller may see it, moved from state to state (only along the
state diagram of lifecycle.py, each move audited in its own transaction), expired for good (out of every read
path), its time to live enforced by the scheduler, and purged — physically deleted with its kept versions — once
expired or archived for longer than the retention."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from grimoire.graph.audit import Audit, NodeLabel, Noop, SetProperties, versions
from grimoire.graph.audit.versions import Step, Versioned
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.db.vector_epoch import vectors_changed
from grimoire.graph.errors import NotFound
from grimoire.graph.ids import now_ms
from grimoire.graph.model.crystal.lifecycle import Lifecycle, check
from grimoire.graph.model.rows import Row
from grimoire.graph.visibility import Visibility

log = logging.getLogger(__name__)

BATCH = 1_000
DAY_MS = 86_400_000


class CrystalNotFound(NotFound):
    def __init__(self, crystal_id: str) -> None:
        super().__init__(f"no crystal {crystal_id} that this key may see")


class CrystalFields(BaseModel):
    """A crystal's properties as stored (knowledge-crystals.md, "Crystal Anatomy"; times in epoch ms, as stored),
    without its embeddings: the crystal's fields, governance, lifecycle, skill record and the item fields the
    crystal services read are declared. A crystal is an episode, a memory or an entry, each with fields of its own
    kind (an episode's type and outcome, a memory's store, ...): those are kept as they are stored (extra), so the
    answer shows the whole item, as it always has; a property an item does not have is not in the answer."""

    model_config = ConfigDict(extra="allow")

    id: str
    agent_id: str | None = None
    scope: str | None = None
    clade: str | None = None
    requested_scope: str | None = None
    sensitivity: str | None = None
    lifespan: str | None = None
    priority: int | None = None
    ttl_ms: int | None = None
    expires_at: int | None = None
    lifecycle: str | None = None
    lifecycle_at: int | None = None
    lifecycle_reason: str | None = None
    parent_id: str | None = None
    semantic_type: str | None = None
    origin: str | None = None
    epistemic_layer: str | None = None
    importance_score: float | None = None
    access_count: int | None = None
    last_accessed_at: int | None = None
    emotional_valence: float | None = None
    hormone_dopamine: float | None = None
    hormone_cortisol: float | None = None
    hormone_oxytocin: float | None = None
    steering_reward: float | None = None
    is_verified: bool | None = None
    dream_count: int | None = None
    last_dreamed_at: int | None = None
    last_ripple_count: int | None = None      # Poisson-sampled when the dream path last replayed it
    curiosity_boost: float | None = None      # set at indexing: an entry's novelty, 0 otherwise
    verified_by: str | None = None            # the management node's key (base64) that endorsed it
    verified_key_id: str | None = None        # that node's id (graph/crystals/endorsements.py)
    verified_at: int | None = None
    bounty_match_id: str | None = None        # the bounty it fulfilled
    bounty_priority_boost: float | None = None  # that bounty's reward multiplier (1.0 without one)
    provenance_chain: list[str] | None = None  # the agents it passed through, its author first
    peer_origin: str | None = None            # the peer it came from, when not its owner's own
    provenance_operation: str | None = None
    provenance_actor: str | None = None
    stable_skill_id: str | None = None
    skill_version: int | None = None
    previous_version_id: str | None = None
    deprecated: bool | None = None
    deprecated_by: str | None = None
    deprecated_at: int | None = None
    skill_tags: list[str] | None = None
    skill_category: str | None = None
    execution_count: int | None = None
    success_count: int | None = None
    reward_sum: float | None = None
    unique_buyers: int | None = None
    bounty_matches: int | None = None
    last_executed_at: int | None = None
    text: str | None = None
    content: str | None = None
    memory_source: str | None = None   # the payload: memory, sessions or skills
    source_path: str | None = None     # the file and lines it was read from, when a writer imported it from one
    start_line: int | None = None
    end_line: int | None = None
    content_hash: str | None = None    # sha-256 of the normalised text: dedup before cosine
    recorded_at: int | None = None
    valid_from: int | None = None
    valid_until: int | None = None
    category: str | None = None
    status: str | None = None
    provenance: str | None = None
    confidence: float | None = None
    market_regime: str | None = None
    strategy: str | None = None
    tags: list[str] | None = None
    decay_class: str | None = None


class Crystal(CrystalFields):
    """A crystal as GET /crystals/{id} answers it: its properties and its kinds (Episode, Memory, Entry, Skill)."""

    kinds: list[str] = []


class CrystalRow(Row):
    query = "crystals/get"
    crystal: CrystalFields
    kinds: list[str]


class LockedCrystal(BaseModel):
    """What a change reads of the crystal it locks (crystals/lock)."""

    id: str
    agent_id: str | None = None
    clade: str | None = None
    scope: str | None = None
    lifecycle: str
    lifecycle_at: int | None = None
    semantic_type: str | None = None
    status: str | None = None
    stable_skill_id: str | None = None
    deprecated: bool | None = None
    sensitivity: str | None = None
    # its endorsement as it stands under the lock (an endorsement's idempotence and revert image read these)
    is_verified: bool | None = None
    verified_by: str | None = None
    verified_key_id: str | None = None
    verified_at: int | None = None


class Locked(Row):
    query = "crystals/lock"
    crystal: LockedCrystal
    kinds: list[str]


class Transition(BaseModel):
    """A lifecycle move made: from a state to another, when (ms), and its audit record."""

    model_config = ConfigDict(populate_by_name=True)

    id: str
    from_: Lifecycle = Field(alias="from")
    to: Lifecycle
    at: int
    audit_id: str


def label_of(kinds: list[str]) -> NodeLabel:
    """The one label a crystal is named by — in statements (ids are unique per label only), revert operations and
    version chains: an entry, a memory (searchable or archived: Memory always), else an episode."""
    for name in ("Entry", "Memory", "Episode"):
        if name in kinds:
            return NodeLabel(name)
    return NodeLabel.Episode


def keep(tx: Tx, items: dict[str, list[str]], audit: Audit, reason: str) -> list[Step]:
    """Each crystal's state (id → its kinds) kept as a version before it changes in place."""
    steps: list[Step] = []
    chains = {i: Versioned(label_of(k).value) for i, k in items.items()}
    for label in set(chains.values()):
        ids = [i for i, chain in chains.items() if chain is label]
        steps += versions.keep(tx, label, ids, now=audit.at, actor=audit.actor, reason=reason, audit_id=audit.id)
    return steps


def get(db: Database, crystal_id: str, visibility: Visibility) -> Crystal:
    rows = db.typed(CrystalRow, id=crystal_id, **visibility.params())
    if not rows:
        raise CrystalNotFound(crystal_id)
    return Crystal.model_validate({**rows[0].crystal.model_dump(exclude_unset=True), "kinds": rows[0].kinds})


def lock(tx: Tx, crystal_id: str, visibility: Visibility) -> tuple[LockedCrystal, list[str]]:
    """The crystal, locked, if the caller owns it (or is the admin)."""
    row = tx.run(cypher.query("crystals/lock"), id=crystal_id, viewer=visibility.viewer,
                 admin=visibility.admin).single()
    if row is None:
        raise CrystalNotFound(crystal_id)
    locked = Locked.model_validate(dict(row))
    return locked.crystal, locked.kinds


def is_skill(crystal: LockedCrystal | CrystalFields, kinds: list[str]) -> bool:
    return "Skill" in kinds or crystal.semantic_type == "skill"


def expire_in(tx: Tx, rows: list[dict[str, Any]], now: int, reason: str) -> list[str]:
    """Rows of {id, label}: the generated crystals among them (not skills) expire. The ids expired."""
    expired = [r["id"] for r in tx.run(cypher.query("crystals/expire"), rows=rows, now=now, reason=reason)]
    if expired:
        vectors_changed(tx)  # their relationships go (a turn's FOLLOWS among them): held items drop
    return expired


def move_in(tx: Tx, rows: list[dict[str, Any]], now: int, reason: str) -> list[str]:
    """Rows of {id, label, from, to, parent_id}: states other than expired, each applied only while the crystal is
    still in `from`. The ids moved."""
    return [r["id"] for r in tx.run(cypher.query("crystals/transition"), rows=rows, now=now, reason=reason)]


def transition(db: Database, crystal_id: str, target: Lifecycle, *, actor: str, visibility: Visibility,
               reason: str) -> Transition:
    """Move one crystal the caller owns to `target`: a 409 naming both states for a move the lifecycle does not
    have. Audited in the move's own transaction."""

    def work(tx: Tx) -> Transition:
        crystal, kinds = lock(tx, crystal_id, visibility)
        current = Lifecycle(crystal.lifecycle)
        check(current, target, skill=is_skill(crystal, kinds))
        now = now_ms()
        audit = Audit(action="crystal.expire" if target is Lifecycle.expired else "crystal.transition",
                      actor=actor, agent_id=crystal.agent_id, at=now)
        steps: list[Step] = []
        label = label_of(kinds).value
        if target is Lifecycle.expired:
            expire_in(tx, [{"id": crystal_id, "label": label}], now, reason)
            revert: list[Any] = [Noop(reason="expired is the end of a crystal's lifecycle: only the purge follows")]
        elif current is target:  # frozen → frozen: immutable, nothing to change
            revert = [Noop(reason="frozen → frozen changes nothing: a frozen crystal is immutable")]
        else:
            steps = keep(tx, {crystal_id: kinds}, audit, f"{current.value} → {target.value}")
            move_in(tx, [{"id": crystal_id, "label": label, "from": current.value, "to": target.value,
                          "parent_id": None}], now, reason)
            before: dict[str, Any] = {"lifecycle": current.value, "lifecycle_at": crystal.lifecycle_at}
            if target is Lifecycle.archived and "Entry" in kinds:
                before["status"] = crystal.status
            revert = [SetProperties(label=label_of(kinds), id=crystal_id, before=before)]
        audit.write(tx, [crystal_id], f"{crystal_id}: {current.value} → {target.value} ({reason})", revert,
                    steps)
        return Transition(id=crystal_id, from_=current, to=target, at=now, audit_id=audit.id)

    return db.write(work)


@dataclass
class Swept:
    expired: int = 0
    archived: int = 0
    transactions: int = 0

    def __str__(self) -> str:
        return f"{self.expired} expired, {self.archived} archived in {self.transactions} transactions"


def enforce_lifespan(db: Database, now: int | None = None, *, batch: int = BATCH,
                     cancelled: Callable[[], bool] = lambda: False) -> Swept:
    """The TTL policy (the scheduler's crystals.lifespan job): each crystal past its expires_at leaves — a
    generated one expires, an activated one (which the state diagram does not let expire) is archived. One
    audited transaction per batch, per owner."""
    at = now if now is not None else now_ms()
    out = Swept()
    while not cancelled():
        due = db.fetch("crystals/ttl_due", now=at, limit=batch)
        if not due:
            break
        owners = {r["agent_id"] for r in due}

        def work(tx: Tx, due: list[dict[str, Any]] = due, owners: set[Any] = owners) -> None:
            for owner in owners:
                mine = [r for r in due if r["agent_id"] == owner]
                audit = Audit(action="crystal.lifespan", actor="scheduler", agent_id=owner, at=at)
                gone = expire_in(tx, [{"id": r["id"], "label": label_of(r["kinds"]).value} for r in mine
                                      if r["lifecycle"] == Lifecycle.generated.value], at, "time to live ran out")
                active = [r for r in mine if r["lifecycle"] == Lifecycle.activated.value]
                steps = keep(tx, {r["id"]: r["kinds"] for r in active}, audit, "time to live")
                kept = move_in(tx, [{"id": r["id"], "label": label_of(r["kinds"]).value, "from": r["lifecycle"],
                                     "to": Lifecycle.archived.value, "parent_id": None} for r in active], at,
                               "time to live ran out")
                if not gone and not kept:
                    continue
                audit.write(tx, gone + kept, f"time to live ran out: {len(gone)} expired, {len(kept)} archived",
                            [Noop(reason="a crystal's time to live ran out: expired and archived are final")],
                            [st for st in steps if st.item in kept])
                out.expired += len(gone)
                out.archived += len(kept)

        db.write(work)
        out.transactions += 1
    if out.transactions:
        log.info("crystal lifespans: %s", out)
    return out


@dataclass
class Purged:
    crystals: int = 0
    versions: int = 0
    transactions: int = 0

    def __str__(self) -> str:
        return f"{self.crystals} crystals and {self.versions} versions deleted in {self.transactions} transactions"


def purge(db: Database, retention_days: float, now: int | None = None, *, batch: int = BATCH,
          cancelled: Callable[[], bool] = lambda: False) -> Purged:
    """Physically delete expired and archived crystals older than the retention, with their kept versions; one
    audited transaction per batch."""
    before = (now if now is not None else now_ms()) - int(retention_days * DAY_MS)
    out = Purged()
    while not cancelled():
        due = db.fetch("crystals/purge_due", before=before, limit=batch)
        if not due:
            break

        def work(tx: Tx, due: list[dict[str, Any]] = due) -> None:
            rows = list(tx.run(cypher.query("crystals/purge"),
                              rows=[{"id": r["id"], "label": r["label"]} for r in due], before=before))
            for owner in {r["agent_id"] for r in due}:
                ids = [r["id"] for r in due if r["agent_id"] == owner]
                Audit(action="crystal.purge", actor="scheduler", agent_id=owner).write(
                    tx, ids, f"purged {len(ids)} expired or archived crystals past the retention",
                    [Noop(reason="a purge is physical deletion past the retention: nothing to restore")])
            vectors_changed(tx)  # deleted with their relationships: held items drop
            out.crystals += len(rows)
            out.versions += sum(r["versions"] for r in rows)

        db.write(work)
        out.transactions += 1
    if out.crystals:
        log.info("crystal purge: %s", out)
    return out
