"""Knowledge entries: admission and writing, reading, votes and outcomes.

Every candidate goes through the Admission Gate (graph/knowledge/admission.py). The write of a batch is
one transaction per chunk: new entries, merges into existing ones, every decision (rejected
and skipped ones too, so each can be explained) and the audit record. A dry run returns the
decisions and writes nothing.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from grimoire.graph.audit import Audit, MergeUndo, NodeLabel, RevertAdmission, SetProperties, versions
from grimoire.graph.audit.versions import Versioned
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.embeddings import Embedder
from grimoire.graph.errors import Invalid, NotFound
from grimoire.graph.events import entry_written
from grimoire.graph.events import write as write_events
from grimoire.graph.ids import now_ms, uuid7
from grimoire.graph.knowledge import neighbours, quality
from grimoire.graph.knowledge.admission import AdmissionConfig, AdmissionResult, Neighbour, evaluate, hash_duplicate
from grimoire.graph.knowledge.answers import DecisionRow, EntryListRow, EntryOut, EntryRow, StoredDecisionOut
from grimoire.graph.knowledge.decay import DecayConfig, confirmed, half_life_ms
from grimoire.graph.knowledge.llm import ChatClient
from grimoire.graph.knowledge.reasoner import Candidate, Reasoner, RuleBasedReasoner
from grimoire.graph.model.common import to_ms
from grimoire.graph.model.crystal import fields
from grimoire.graph.model.crystal.governance import govern
from grimoire.graph.model.crystal.payload import content_hash
from grimoire.graph.model.crystal.privacy import MemoryScope, category_type
from grimoire.graph.model.crystal.ripples import ripple_count
from grimoire.graph.model.entry import EntryIn, EntryOutcomeIn
from grimoire.graph.model.enums import AdmissionOutcome, DecayClass, Outcome, VoteDirection
from grimoire.graph.model.governance import Lifespan
from grimoire.graph.model.rows import Properties, Record
from grimoire.graph.visibility import Visibility

CHUNK = 1_000


log = logging.getLogger(__name__)


class EntryNotFound(NotFound):
    """No such entry, or one the caller may not see (404)."""

    def __init__(self, entry_id: str) -> None:
        super().__init__(f"not found: {entry_id}")
        self.entry_id = entry_id


class InvalidReference(Invalid):
    """The request names episodes or entries that do not exist (or that its agent cannot use)."""


@dataclass
class Knowledge:
    """What entry operations need: the database, the embedder and the tunable rules."""

    db: Database
    embedder: Embedder
    reasoner: Reasoner = field(default_factory=RuleBasedReasoner)
    admission: AdmissionConfig = field(default_factory=AdmissionConfig)
    decay: DecayConfig = field(default_factory=DecayConfig)
    memory_scope: MemoryScope = MemoryScope.private  # a memory crystal's scope (graph/model/crystal/privacy.py)
    model: ChatClient | None = None  # the cheap-tier model, for the Curator's consistency check (None: not configured)


@dataclass
class EntryDecision:
    candidate_id: str
    decision_id: str
    result: AdmissionResult
    entry_id: str | None          # the entry written, or merged into / duplicated
    existing: bool = False        # the id was already stored: nothing was decided again
    quality: quality.QualityScore | None = None


def _check_parents(k: Knowledge, entries: Sequence[EntryIn], clade: str | None) -> dict[str, Record]:
    wanted = sorted({pid for e in entries for pid in e.parent_episode_ids})
    found = {r["id"]: r for r in k.db.rows("episodes/existing", ids=wanted)} if wanted else {}
    for e in entries:
        view = Visibility.of(e.agent_id, clade)  # the owner's view: the gate compares with that only
        unusable = [pid for pid in e.parent_episode_ids if pid not in found or not view.sees(found[pid])]
        if unusable:
            raise InvalidReference(f"entry {e.id or e.content[:40]!r}: unknown parent episodes {unusable[:10]}")
    return found


def _entry_properties(k: Knowledge, e: EntryIn, res: AdmissionResult, q: quality.QualityScore, now: int,
                      decision_id: str, clade: str | None) -> Properties:
    props: dict[str, Any] = {
        "agent_id": e.agent_id, "clade": clade, "scope": e.scope.value, "category": e.category.value,
        "content": e.content,
        "confidence": res.confidence, "status": res.status.value if res.status else None,
        "validated_count": 0, "contradicted_count": 0,
        "decay_class": e.decay_class.value if e.decay_class else None,
        "half_life_ms": half_life_ms(e.category, e.decay_class, provenance=e.provenance,
                                     dream_validated=e.dream_validated, is_bloodstain=e.is_bloodstain,
                                     quality=q.score, config=k.decay),
        "market_regime": e.market_regime.value if e.market_regime else None, "strategy": e.strategy,
        "consecutive_low_confidence": 0, "revision": 1,
        "valid_from": to_ms(e.valid_from) or now, "valid_until": to_ms(e.valid_until),
        "recorded_at": now, "tags": list(e.tags), "provenance": e.provenance.value,
        "source_golem_id": e.source.golem_id or e.agent_id, "source_generation": e.source.generation_number,
        "source_owner_address": e.source.owner_address, "is_bloodstain": e.is_bloodstain,
        "dream_validated": e.dream_validated, "last_accessed_at": now, "strength": 1.0,
        "admission_id": decision_id, **q.as_properties(),
        **fields.for_entry(e.category.value, e.provenance.value, e.content, now, file=e.source_file),
        # set at indexing: how novel the entry was against what its owner sees (the Admission Gate's measure)
        "curiosity_boost": round(float(res.factors.get("semantic_novelty", 0.0)), 6),
        # the agents it passed through, its author first; the peer it came from when that is not its owner
        "provenance_chain": list(dict.fromkeys([e.source.golem_id or e.agent_id, e.agent_id])),
        "peer_origin": e.source.golem_id if e.source.golem_id not in (None, e.agent_id) else None,
        # a structural entry does not decay (grimoire.md): its crystal is permanent unless the writer says otherwise
        **govern(e.content, e.scope.value, e.governance, now,
                 default_lifespan=Lifespan.permanent if e.decay_class is DecayClass.structural else Lifespan.decay,
                 semantic_type=category_type(e.category.value), memory_scope=k.memory_scope),
    }
    if e.emotional_tag:
        props.update(e.emotional_tag.as_properties())
    return {key: v for key, v in props.items() if v is not None}


def _decision_properties(e: EntryIn, d: EntryDecision, now: int) -> Properties:
    r = d.result
    props: dict[str, Any] = {
        "id": d.decision_id, "agent_id": e.agent_id, "at": now, "candidate_id": d.candidate_id,
        "candidate_category": e.category.value, "candidate_content": e.content, "outcome": r.outcome.value,
        "composite": r.composite, **{f"factor_{name}": v for name, v in r.factors.items()},
        "confidence": r.confidence, "status": r.status.value if r.status else None, "target_id": r.target_id,
        "entry_id": d.entry_id, "flags": list(r.flags), "contradicted": list(r.contradicted),
        "aligned": list(r.aligned), "max_similarity": r.max_similarity, "reasoner": r.reasoner,
        "explanation": r.explanation,
    }
    return {key: v for key, v in props.items() if v is not None}


def admit(k: Knowledge, entries: Sequence[EntryIn], *, actor: str, clade: str | None = None,
          dry_run: bool = False, merge: bool = True, extra: dict[str, dict[str, Any]] | None = None,
          embeddings: dict[str, np.ndarray] | None = None, chunk: int = CHUNK,
          copy_of: dict[str, str] | None = None) -> list[EntryDecision]:
    """Judge each candidate and (unless dry_run) write entries, merges, decisions and an audit record.
    `clade` is the owner's: it decides what the candidate is compared with, and is kept on the entry.
    `merge=False` for candidates known to be distinct from their neighbours (the Curator's lessons,
    one per cluster key); `extra`: properties by entry id the model does not carry (the Curator's
    lesson key, polarity, level); `embeddings`: vectors by entry id the caller already has (a cluster
    summary's is its episodes' centroid), the rest are embedded from their content; `chunk`: candidates
    written per transaction (each writes an entry, a decision and an event); `copy_of`: the entry each candidate
    (by id) copies — a fork's source, a frozen crystal's version before — which is not its neighbour: a copy is
    never a duplicate of what it copies, and is weighed against everything else the owner sees."""
    items = [e if e.id else e.model_copy(update={"id": uuid7()}) for e in entries]
    ids = [e.id for e in items]
    if len(set(ids)) != len(ids):
        raise InvalidReference("the batch repeats entry ids")
    parents = _check_parents(k, items, clade)
    existing = {r["id"] for r in k.db.rows("entries/existing", ids=ids)}
    hashes = [content_hash(e.content) for e in items]
    scopes = [_stored_scope(e, k.memory_scope) for e in items]
    # Dedup by hash before cosine: an exact twin in the candidate's own partition is a duplicate, decided without
    # embedding it or searching its neighbours.
    twins = _hash_twins(k, items, hashes, scopes, existing, clade, copy_of or {}) if merge else {}
    vectors = _vectors(k, items, embeddings or {}, skip=set(twins))  # before any transaction opens
    now = now_ms()
    stored = neighbours.find(k.db, vectors, [e.agent_id for e in items], clade, now, k.decay.floor,
                             skip=[e.id in existing or i in twins for i, e in enumerate(items)])
    if copy_of:
        stored = [[n for n in near if n.id != copy_of.get(str(e.id))] for e, near in zip(items, stored, strict=True)]
    decisions: list[EntryDecision] = []
    rows = _similarity_rows(vectors)
    written: dict[str | None, list[int]] = defaultdict(list)  # positions of the candidates written, by owner
    written_hashes: dict[tuple[str | None, str, str], str] = {}   # (owner, scope, hash) -> the candidate written
    for (i, e), row in zip(enumerate(items), rows, strict=True):
        assert e.id is not None
        if e.id in existing:
            decisions.append(EntryDecision(e.id, "", _existing_result(), e.id, existing=True))
            continue
        twin = twins.get(i) or (written_hashes.get((e.agent_id, scopes[i], hashes[i])) if merge else None)
        if twin is not None:
            decisions.append(EntryDecision(e.id, uuid7(), hash_duplicate(twin), twin))
            continue
        near = stored[i]
        # Earlier candidates of this batch that will be written count as neighbours too: the nearest
        # NEIGHBOURS of them, as the stored ones are.
        for j in _nearest(row, written[e.agent_id], neighbours.NEIGHBOURS):
            d = decisions[j]
            near = [*near, Neighbour(d.candidate_id, items[j].content, float(row[j]), d.result.confidence or 0.0,
                                     items[j].agent_id, scopes[j])]
        event = max([to_ms(e.valid_from) or 0] + [parents[p]["valid_from"] for p in e.parent_episode_ids]) or now
        hl = half_life_ms(e.category, e.decay_class, provenance=e.provenance, dream_validated=e.dream_validated,
                          is_bloodstain=e.is_bloodstain, config=k.decay)
        candidate = Candidate(e.content, e.category, e.decay_class, e.market_regime, len(e.parent_episode_ids),
                              tuple(e.tags))
        result = evaluate(candidate, near, provenance=e.provenance, requested_confidence=e.confidence,
                          now_ms=now, event_ms=event, half_life_ms=hl, reasoner=k.reasoner, config=k.admission,
                          merge=merge, source=(e.agent_id, scopes[i]))
        q = quality.score(e.content, result.factors["semantic_novelty"], evidence=len(e.parent_episode_ids))
        entry_id = e.id if result.writes_entry else result.target_id
        decisions.append(EntryDecision(e.id, uuid7(), result, entry_id, quality=q))
        if result.writes_entry:
            written[e.agent_id].append(i)
            written_hashes.setdefault((e.agent_id, scopes[i], hashes[i]), e.id)
    if not dry_run:
        for start in range(0, len(items), chunk):
            _write(k, items[start:start + chunk], decisions[start:start + chunk],
                   vectors[start:start + chunk], now, actor, clade, extra or {})
    log.info("admission%s of %d candidates by %s: %s", " (dry run)" if dry_run else "", len(items), actor,
             dict(Counter(d.result.outcome.value for d in decisions)))
    return decisions


def _hash_twins(k: Knowledge, items: Sequence[EntryIn], hashes: list[str], scopes: list[str], existing: set[str],
                clade: str | None, copy_of: dict[str, str]) -> dict[int, str]:
    """Each candidate's (by position) stored entry with its content hash in its own partition (owner, stored scope
    and clade), other than the entry it copies."""
    rows = [{"i": i, "hash": hashes[i], "agent_id": e.agent_id, "scope": scopes[i], "clade": clade or "",
             "except": copy_of.get(str(e.id), "")} for i, e in enumerate(items) if e.id not in existing]
    found: dict[int, str] = {}
    for start in range(0, len(rows), CHUNK):
        part = rows[start:start + CHUNK]
        found.update({int(r["i"]): str(r["twin"]) for r in k.db.rows("entries/hash_twins", rows=part)})
    return found


def _stored_scope(e: EntryIn, memory_scope: MemoryScope) -> str:
    """The scope the entry is stored with (a confidential one, or a memory crystal under the private rule, is
    private whatever was asked: governance)."""
    return str(govern(e.content, e.scope.value, None, 0, semantic_type=category_type(e.category.value),
                      memory_scope=memory_scope)["scope"])


def _similarity_rows(vectors: np.ndarray, block: int = 1_000) -> Iterator[np.ndarray]:
    """Each candidate's cosine similarity with the candidates before it (rows are L2-normalised), computed
    `block` rows at a time: a batch of n holds block x n numbers, not n x n."""
    for start in range(0, len(vectors), block):
        end = min(start + block, len(vectors))
        yield from vectors[start:end] @ vectors[:end].T


def _nearest(row: np.ndarray, among: list[int], k: int) -> list[int]:
    """The k positions of `among` most similar by `row`, most similar first (ties: earlier first)."""
    earlier = np.asarray(among, dtype=np.int64)
    if len(earlier) > k:
        earlier = np.sort(earlier[np.argpartition(-row[earlier], k - 1)[:k]])
    picked: list[int] = earlier[np.argsort(-row[earlier], kind="stable")].tolist()
    return picked


def _vectors(k: Knowledge, items: Sequence[EntryIn], given: dict[str, np.ndarray],
             skip: set[int] | frozenset[int] = frozenset()) -> np.ndarray:
    """The candidates' vectors; `skip`: positions decided without one (hash duplicates), left zero."""
    missing = [i for i, e in enumerate(items) if e.id not in given and i not in skip]
    out = np.zeros((len(items), k.embedder.dimension), dtype=np.float32)
    if missing:
        out[missing] = k.embedder.embed([items[i].content for i in missing])
    for i, e in enumerate(items):
        if e.id in given:
            v = np.asarray(given[str(e.id)], dtype=np.float32)
            out[i] = v / max(float(np.linalg.norm(v)), 1e-12)
    return out


def _existing_result() -> AdmissionResult:
    return AdmissionResult(AdmissionOutcome.skipped, 0.0, {}, None, None, None, (), (), 1.0, ("already_stored",),
                           "none", "an entry with this id is already stored; nothing was decided again")


def _write(k: Knowledge, items: list[EntryIn], decisions: list[EntryDecision], vectors: np.ndarray, now: int,
           actor: str, clade: str | None, extra: dict[str, dict[str, Any]]) -> None:
    creates: list[dict[str, Any]] = []
    merges: list[dict[str, Any]] = []
    records: list[dict[str, Any]] = []
    for e, d, vec in zip(items, decisions, vectors, strict=True):
        if d.existing:
            continue
        if d.result.writes_entry:
            assert d.quality is not None
            creates.append({"id": e.id, "category": e.category.value, "embedding": vec.tolist(),
                            "props": {**_entry_properties(k, e, d.result, d.quality, now, d.decision_id, clade),
                                      **extra.get(str(e.id), {})},
                            "parent_episode_ids": list(e.parent_episode_ids)})
        elif d.result.outcome == AdmissionOutcome.merged:
            merges.append({"target_id": d.result.target_id, "tags": list(e.tags),
                           "parent_episode_ids": list(e.parent_episode_ids)})
        records.append({"entry_id": d.entry_id, "props": _decision_properties(e, d, now)})
    if not records:
        return
    owners = {e.agent_id for e in items}
    audit = Audit(action="entry.admit", actor=actor, agent_id=owners.pop() if len(owners) == 1 else None, at=now)

    def work(tx: Tx) -> None:
        created = [r["id"] for r in tx.run(cypher.query("entries/create"), rows=creates, audit_id=audit.id, now=now)]
        targets = {r["id"]: {"tags": list(r["tags"]), "episodes": list(r["episodes"])} for r in (
            tx.run(cypher.query("audit/lock_merge_targets"), ids=[m["target_id"] for m in merges]) if merges else [])}
        steps = versions.keep(tx, Versioned.Entry, list(targets), now=now, actor=actor, reason="evidence merged",
                              audit_id=audit.id) + versions.created(Versioned.Entry, created)
        tx.run(cypher.query("entries/merge_evidence"), rows=merges, now=now).consume()
        tx.run(cypher.query("entries/record_decisions"), decisions=records).consume()
        audit.write(tx, created + [r["target_id"] for r in merges],
                    f"{len(created)} entries written, {len(merges)} merged, {len(records)} decisions",
                    [RevertAdmission(decision_ids=[r["props"]["id"] for r in records], created=created,
                                     merged=_merge_undos(merges, targets))], steps)
        written = {c["id"]: c["props"] for c in creates}
        write_events(tx, [entry_written(i, written[i]) for i in created])

    k.db.write(work)


def _merge_undos(merges: list[dict[str, Any]], targets: dict[str, dict[str, list[str]]]) -> list[MergeUndo]:
    """What each merge adds to its entry (tags and source episodes it lacked), in order: for the audit record."""
    undos = []
    for m in merges:
        if (t := targets.get(m["target_id"])) is None:
            continue  # merge_evidence finds no entry either
        tags = [x for x in dict.fromkeys(m["tags"]) if x not in t["tags"]]
        episodes = [x for x in dict.fromkeys(m["parent_episode_ids"]) if x not in t["episodes"]]
        t["tags"] += tags
        t["episodes"] += episodes
        undos.append(MergeUndo(entry_id=m["target_id"], added_tags=tags, added_episodes=episodes))
    return undos


# ---------------------------------------------------------------- reading


def get(k: Knowledge, entry_id: str, visibility: Visibility, now: int | None = None) -> EntryOut:
    rows = k.db.typed(EntryRow, id=entry_id, now=now or now_ms(), floor=k.decay.floor, **visibility.params())
    if not rows:
        raise EntryNotFound(entry_id)
    return rows[0].answer()


def list_entries(k: Knowledge, visibility: Visibility, now: int | None = None, **filters: Any) -> list[EntryOut]:
    params = {"agent_id": None, "category": None, "status": None, "regime": None, "valid_at": None,
              "known_at": None, "min_confidence": None, "offset": 0, "limit": 50}
    params.update(filters)
    params.update(visibility.params())
    return [r.answer() for r in k.db.typed(EntryListRow, now=now or now_ms(), floor=k.decay.floor, **params)]


def effective_confidences(k: Knowledge, ids: list[str], now: int) -> dict[str, float]:
    return {r["id"]: r["effective_confidence"]
            for r in k.db.fetch("entries/effective_confidence", ids=ids, now=now, floor=k.decay.floor)}


# ---------------------------------------------------------------- votes and outcomes


def _read_modify_write(k: Knowledge, entry_id: str, action: str, actor: str, visibility: Visibility,
                       change: Callable[[dict[str, Any], int], dict[str, Any]]) -> EntryOut:
    """Lock the entry, compute the change in Python, write it and its audit record: one transaction."""

    def work(tx: Tx) -> EntryOut:
        rows = list(tx.run(cypher.query("entries/lock"), id=entry_id, **visibility.params()))
        if not rows:
            raise EntryNotFound(entry_id)
        before = rows[0]["entry"]
        now = now_ms()
        changes = change(before, now)
        changes["updated_at"] = now
        audit = Audit(action=action, actor=actor, agent_id=before.get("agent_id"), at=now)
        steps = versions.keep(tx, Versioned.Entry, [entry_id], now=now, actor=actor, reason=action, audit_id=audit.id)
        tx.run(cypher.query("entries/update"), id=entry_id, changes=changes).consume()
        audit.write(tx, [entry_id], f"{action} on {entry_id}",
                    [SetProperties(label=NodeLabel.Entry, id=entry_id,
                                   before={key: before.get(key) for key in changes})], steps)
        return EntryOut.model_validate({**before, **changes})

    return k.db.write(work)


def vote(k: Knowledge, entry_id: str, direction: VoteDirection, *, actor: str,
         visibility: Visibility) -> EntryOut:
    """Asymmetric: +0.1 and a reset decay clock up, -0.15 down (never below the floor)."""
    up, down = k.decay.upvote_step, k.decay.downvote_step

    def change(e: dict[str, Any], now: int) -> Properties:
        if direction == VoteDirection.up:
            return {"confidence": min(1.0, e["confidence"] + up), "validated_count": e["validated_count"] + 1,
                    "last_accessed_at": now, **confirmed(e, k.decay)}
        return {"confidence": max(k.decay.floor, e["confidence"] - down),
                "contradicted_count": e["contradicted_count"] + 1}

    return _read_modify_write(k, entry_id, f"entry.{direction.value}vote", actor, visibility, change)


def record_outcome(k: Knowledge, entry_id: str, outcome: EntryOutcomeIn, *, actor: str,
                   visibility: Visibility) -> EntryOut:
    """Strength grows only when the entry was used in a decision that went well (+1), or a dream
    validated it (+0.5, and half the decay rate from then on); never on retrieval alone. A verified
    outcome of a decision it informed also moves its confidence (reconsolidation): +0.1 when it went
    well, -0.15 when it did not, as a vote would."""
    up, down = k.decay.upvote_step, k.decay.downvote_step

    def change(e: dict[str, Any], now: int) -> Properties:
        changes: dict[str, Any] = {}
        strength = e["strength"]
        if outcome.used_in_decision and outcome.outcome == Outcome.positive:
            strength += 1.0
            changes.update(validated_count=e["validated_count"] + 1, last_accessed_at=now,
                           confidence=min(1.0, e["confidence"] + up), **confirmed(e, k.decay))
        elif outcome.used_in_decision and outcome.outcome == Outcome.negative:
            changes.update(contradicted_count=e["contradicted_count"] + 1,
                           confidence=max(k.decay.floor, e["confidence"] - down))
        if outcome.dream_validated:  # the dream path (knowledge-crystals.md: dreamCount, lastDreamedAt)
            strength += k.decay.dream_strength_step
            dreams = int(e.get("dream_count") or 0) + 1
            changes.update(dream_count=dreams, last_dreamed_at=now, last_ripple_count=ripple_count(e["id"], dreams))
            if not e.get("dream_validated"):
                changes["dream_validated"] = True
                changes["half_life_ms"] = half_life_ms(
                    e["category"], e.get("decay_class"), provenance=e.get("provenance"), dream_validated=True,
                    is_bloodstain=e.get("is_bloodstain", False), quality=e.get("quality_score"), config=k.decay)
        if strength != e["strength"]:
            changes["strength"] = strength
        return changes

    return _read_modify_write(k, entry_id, "entry.outcome", actor, visibility, change)


def get_decision(k: Knowledge, decision_id: str, visibility: Visibility) -> StoredDecisionOut | None:
    rows = k.db.typed(DecisionRow, id=decision_id, viewer=visibility.viewer, admin=visibility.admin)
    return rows[0].decision if rows else None
