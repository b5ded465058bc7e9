"""Facts between entities with both time axes: assert (closing what they contradict), invalidate,
and read back valid at a block, as known at a time, or both.

A fact is a relationship whose type is its predicate. Each relationship is one *version*: valid
from `valid_from` to `valid_to` (blocks; open while true), believed from `recorded_at` until
`expired_at` (ms; open while believed). Closing or invalidating never edits a believed interval:
it expires the version and records a closed copy, so a query as of an earlier time still sees
what was believed then.

A fact's confidence decays unless it is reinforced: re-asserting a fact already believed moves its
`last_reinforced`, and every read returns its `effective_confidence` beside the stored one
(graph/topology/freshness.py).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from grimoire.graph.audit import Audit, DeleteRelationships, RevertOp, SetRelationshipProperties
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import NotFound
from grimoire.graph.ids import now_ms
from grimoire.graph.model.common import to_ms
from grimoire.graph.model.enums import MULTI_VALUED_BY_DEFAULT, REL_TYPES, Predicate
from grimoire.graph.model.rows import Properties, Record
from grimoire.graph.topology.answers import FactAbout, FactVersion, Invalidated
from grimoire.graph.topology.entities import visible_ids
from grimoire.graph.topology.freshness import FactConfig, with_effective_confidence
from grimoire.graph.topology.model import FactIn
from grimoire.graph.visibility import EVERYONE, Visibility

CHUNK = 1_000
ALL_TYPES = [REL_TYPES[p] for p in Predicate]


class FactNotFound(NotFound):
    """No such fact believed now, or one the caller may not see (404)."""


@dataclass
class Owner:
    """Who asserts: an agent (its clade), or the world — the admin and the loaders, whose facts are world
    facts: each world writer may close the others' (an agent closes only its own)."""

    agent_id: str
    clade: str = ""
    world: bool = False

    def fact_key(self) -> str | None:
        """What a derived fact id is scoped by: the agent's own statements are its own (two agents stating one
        triple make two facts, and neither learns of the other's); the world's are one."""
        return None if self.world else self.agent_id


@dataclass
class AssertResult:
    fact_ids: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    closed: int = 0
    missing_entities: list[str] = field(default_factory=list)
    reinforced: list[str] = field(default_factory=list)  # believed facts the assertion reinforced

    @property
    def unchanged(self) -> list[str]:
        made = set(self.created)
        return [f for f in self.fact_ids if f not in made]


def types_for(predicates: Sequence[Predicate]) -> list[str]:
    return [REL_TYPES[p] for p in predicates] or ALL_TYPES


def fact_row(f: FactIn, owner: Owner, recorded_at: int,
             multi_valued: Collection[Predicate] = MULTI_VALUED_BY_DEFAULT) -> Properties:  # Cypher parameters
    scalar = f.scalar()
    return {
        "fact_id": f.id or f.derived_id(owner.fact_key()), "type": f.rel_type, "name": f.name, "subject": f.subject,
        "object": f.object, "value_id": scalar[0] if scalar else None, "value": scalar[1] if scalar else None,
        "value_type": (f.value_type.value if f.value_type else None), "valid_from": f.valid_from,
        "valid_to": f.valid_to, "recorded_at": recorded_at, "exclusive": f.closes_others(multi_valued),
        "props": {"predicate": f.predicate.value, "confidence": f.confidence, "approximate": f.approximate,
                  "valid_from_source": f.valid_from_source, "source_episode": f.source_episode,
                  "valid_from_time": to_ms(f.valid_from_time),
                  "scope": f.scope.value, "agent_id": owner.agent_id, "clade": owner.clade,
                  **({"world": True} if owner.world else {}), **f.extra_properties()},
    }


def assert_facts(db: Database, facts: Sequence[FactIn], *, owner: Owner, actor: str,
                 recorded_at: Sequence[int] | int | None = None,
                 visibility: Visibility = EVERYONE, freshness: FactConfig | None = None,
                 reinforce: bool = True) -> AssertResult:
    """In order, in transactions of CHUNK. A fact closes the subject's active fact of its predicate with another
    object (grimoire.md's assert_fact) unless its predicate is multi-valued (`freshness.multi_valued`) or it says
    otherwise (`exclusive`); it closes only the owner's facts (a world owner's: world facts too) of no wider scope,
    and what the writer cannot see never changes the answer.
    `recorded_at` is now unless a loader replays history
    (then one time per fact: when Grimoire learned it). Entities the writer may not see (its
    `visibility`) are as missing as unknown ones: a fact shows both its ends to whoever sees it.
    A fact already believed (that the writer sees) is reinforced instead (`freshness` says how often), unless
    `reinforce` is off (an inference re-run is no new evidence, and must not touch another partition's fact)."""
    cfg = freshness or FactConfig()
    gap = cfg.reinforce_gap_ms
    times = ([recorded_at] * len(facts) if isinstance(recorded_at, int) else
             list(recorded_at) if recorded_at is not None else [now_ms()] * len(facts))
    rows = [fact_row(f, owner, t, cfg.multi_valued) for f, t in zip(facts, times, strict=True)]
    result = AssertResult(fact_ids=[r["fact_id"] for r in rows])
    ids = {r["subject"] for r in rows} | {r["object"] for r in rows if r["object"]}
    known = visible_ids(db, ids, visibility)
    result.missing_entities = sorted(ids - known)
    if result.missing_entities:
        return result
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start:start + CHUNK]
        audit = Audit(action="fact.assert", actor=actor, agent_id=owner.agent_id)

        def work(tx: Tx, chunk: list[dict[str, Any]] = chunk,
                 audit: Audit = audit) -> tuple[list[Record], list[str]]:
            again = [r.data() for r in tx.run(cypher.query("topology/reinforce_facts"), rows=chunk, min_gap=gap,
                                              **visibility.params())] if reinforce else []
            out = [r.data() for r in tx.run(cypher.query("topology/assert_facts"), rows=chunk, audit_id=audit.id,
                                            world=owner.world, **visibility.params())]
            reinforced = list(dict.fromkeys(r["fact_id"] for r in again))
            audit.write(tx, [r["fact_id"] for r in out] + reinforced,
                        f"asserted {len(out)} of {len(chunk)} facts, closed {sum(r['closed'] for r in out)}, "
                        f"reinforced {len(reinforced)}",
                        [*_assert_revert(tx, chunk, out, audit.id), *_reinforce_revert(again)])
            return out, reinforced

        out, reinforced = db.write(work)
        for r in out:
            result.created.append(r["fact_id"])
            result.closed += r["closed"]
        result.reinforced += [f for f in reinforced if f not in result.reinforced]
    return result


def _reinforce_revert(rows: list[dict[str, Any]]) -> list[RevertOp]:
    """Undoing reinforcements: each version's last_reinforced and count as before its first one here."""
    first: dict[str, dict[str, Any]] = {}
    for r in rows:
        first.setdefault(r["id"], r)
    return [SetRelationshipProperties(type=r["type"], id=r["id"],
                                      before={"last_reinforced": r["last_before"], "reinforcements": r["count_before"]})
            for r in first.values()]


def invalidate(db: Database, fact_id: str, at_block: int, *, actor: str, agent_id: str | None,
               now: int | None = None, visibility: Visibility = EVERYONE,
               freshness: FactConfig | None = None) -> Invalidated:
    """Only the fact's owner (its agent's keys or its person's: `visibility.viewer`) or the admin invalidates; a
    fact of another owner is not found, as an unknown one."""
    audit = Audit(action="fact.invalidate", actor=actor, agent_id=agent_id)

    def work(tx: Tx) -> Record:
        at = now or now_ms()
        rows = [r.data() for r in tx.run(cypher.query("topology/invalidate_fact"), fact_id=fact_id, at_block=at_block,
                                         now=at, audit_id=audit.id, **visibility.params())]
        if not rows:
            raise FactNotFound(f"no fact {fact_id!r} believed now and valid after block {at_block}")
        audit.write(tx, [fact_id], f"invalidated {fact_id} at block {at_block}",
                    _invalidate_revert(tx, rows[0]["subject"], fact_id, at, audit.id))
        return rows[0]

    db.write(work)
    return Invalidated(fact_id=fact_id, at_block=at_block, versions=versions(db, fact_id, freshness=freshness))


F = TypeVar("F", bound=FactVersion)

FACT_FIELDS = ("fact_id", "id", "version", "predicate", "name", "type", "subject", "object", "value", "valid_from",
               "valid_to", "recorded_at", "expired_at", "confidence", "effective_confidence", "last_reinforced",
               "reinforcements", "approximate", "valid_from_source", "valid_from_time", "source_episode",
               "superseded_by", "closed_by", "agent_id", "scope", "clade", "inferred", "co_occurrences")


def _assert_revert(tx: Tx, rows: list[dict[str, Any]], out: list[dict[str, Any]],
                   audit_id: str) -> list[RevertOp]:
    """Undoing an assertion: the versions it recorded (each new fact's first, the closed copies) deleted,
    the versions it expired believed again. Value nodes it made stay: shared, and harmless alone."""
    by_id = {r["fact_id"]: r for r in rows}
    recorded: dict[str, list[str]] = {}
    for r in out:
        recorded.setdefault(by_id[r["fact_id"]]["type"], []).append(f"{r['fact_id']}/v1")
    closing = [{"subject": by_id[r["fact_id"]]["subject"], "type": by_id[r["fact_id"]]["type"], "fact_id": r["fact_id"]}
               for r in out if by_id[r["fact_id"]]["exclusive"]]
    expired: list[RevertOp] = []
    for f in tx.run(cypher.query("audit/fact_closures"), rows=closing, audit_id=audit_id) if closing else []:
        if f["copy"]:
            recorded.setdefault(f["type"], []).append(f["id"])
        else:
            expired.append(SetRelationshipProperties(type=f["type"], id=f["id"],
                                                     before={"expired_at": None, "superseded_by": None}))
    return [*(DeleteRelationships(type=t, ids=ids) for t, ids in recorded.items()), *expired]


def _invalidate_revert(tx: Tx, subject: str, fact_id: str, at: int, audit_id: str) -> list[RevertOp]:
    """Undoing an invalidation: the closed copy it recorded deleted, the version it expired believed again."""
    versions = list(tx.run(cypher.query("audit/fact_versions"), subject=subject, fact_id=fact_id))
    return [*(DeleteRelationships(type=v["type"], ids=[v["id"]]) for v in versions if v["audit_id"] == audit_id),
            *(SetRelationshipProperties(type=v["type"], id=v["id"], before={"expired_at": None})
              for v in versions if v["expired_at"] == at and v["audit_id"] != audit_id)]


def _shape(model: type[F], fact: dict[str, Any], now: int, freshness: FactConfig, **extra: Any) -> F:
    """Every field, null when unset, so clients see one shape; the confidence as of `now` beside the stored one."""
    merged = with_effective_confidence({**fact, **extra}, now, freshness)
    return model.model_validate({k: merged.get(k) for k in FACT_FIELDS}
                                | {k: v for k, v in extra.items() if k not in FACT_FIELDS})


def versions(db: Database, fact_id: str, *, now: int | None = None,
             freshness: FactConfig | None = None) -> list[FactVersion]:
    at, cfg = now or now_ms(), freshness or FactConfig()
    return [_shape(FactVersion, r["fact"], at, cfg, type=r["type"], subject=r["subject"], object=r["object"],
                   value=r["value"]) for r in db.fetch("topology/find_fact", fact_id=fact_id)]


def about(db: Database, entity_id: str, *, block: int | None, known_at: int | None,
          predicates: Sequence[Predicate] = (), visibility: Visibility, now: int | None = None,
          freshness: FactConfig | None = None) -> list[FactAbout]:
    rows = db.fetch("topology/facts_about", id=entity_id, block=block, known_at=known_at,
                  types=types_for(predicates), **visibility.params())
    at, cfg = now or now_ms(), freshness or FactConfig()
    return [_shape(FactAbout, r["fact"], at, cfg, subject=r["subject"], object=r["object"], value=r["value"],
                   subject_entity=r["subject_entity"], object_entity=r["object_entity"] if r["object"] else None)
            for r in rows]
