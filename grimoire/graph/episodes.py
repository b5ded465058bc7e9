"""Writing and reading episodes.

Ingest is batched (one transaction per chunk of about 1,000), idempotent (MERGE on the id the
client supplies, a UUIDv7 otherwise), embeds before any transaction opens, and writes an audit
record in each transaction. While one chunk is written, the next one is embedded.
"""

from __future__ import annotations

import contextvars
import json
import logging
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from grimoire.graph import enrichment
from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel
from grimoire.graph.crystals import hormonal_state
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.embeddings import Embedder
from grimoire.graph.errors import Invalid
from grimoire.graph.events import episodes_written
from grimoire.graph.events import write as write_events
from grimoire.graph.ids import now_ms, uuid7
from grimoire.graph.model.common import to_ms
from grimoire.graph.model.crystal import fields
from grimoire.graph.model.crystal.fields import SemanticType
from grimoire.graph.model.crystal.governance import govern
from grimoire.graph.model.crystal.privacy import MemoryScope
from grimoire.graph.model.enums import EpisodeType
from grimoire.graph.model.episode import EpisodeIn, EpisodeOut, MentionOut
from grimoire.graph.model.rows import Properties, Row
from grimoire.graph.visibility import Visibility

CHUNK = 1_000

log = logging.getLogger(__name__)


class DuplicateIds(Invalid):
    """One batch names the same episode id twice (422)."""


@dataclass
class IngestResult:
    ids: list[str]                        # every episode of the request, in order
    created: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)
    audit_ids: list[str] = field(default_factory=list)


def with_ids(episodes: Sequence[EpisodeIn]) -> list[EpisodeIn]:
    """Give every episode an id (UUIDv7 where the client sent none); refuse repeats in one batch."""
    out = [ep if ep.id else ep.model_copy(update={"id": uuid7()}) for ep in episodes]
    counts = Counter(str(ep.id) for ep in out)
    dupes = sorted(i for i, n in counts.items() if n > 1)
    if dupes:
        raise DuplicateIds(f"the batch repeats ids: {', '.join(dupes[:10])}")
    return out


def episode_properties(ep: EpisodeIn, recorded_at: int, clade: str | None = None,
                       memory_scope: MemoryScope = MemoryScope.private) -> Properties:
    valid_from = to_ms(ep.valid_from) or recorded_at
    from_block = ep.valid_from_block if ep.valid_from_block is not None else ep.block
    props: dict[str, Any] = {
        "agent_id": ep.agent_id, "clade": clade, "scope": ep.scope.value, "type": ep.type.value, "text": ep.text,
        "tool": ep.tool, "outcome": ep.outcome.value, "outcome_detail": ep.outcome_detail, "chain": ep.chain,
        "token_pair": ep.token_pair, "tick": ep.tick, "block": ep.block, "importance": ep.importance.value,
        "regime": ep.regime.value if ep.regime else None, "actions": list(ep.actions), "gain": ep.gain,
        "consolidated": ep.consolidated, "strategy": ep.strategy, "confidence": ep.confidence,
        "interrupted": ep.interrupted or None, "decision_id": ep.decision_id,
        "causal_link_id": ep.causal_link_id,
        "valid_from": valid_from, "valid_until": to_ms(ep.valid_until),
        "valid_from_block": from_block, "valid_until_block": ep.valid_until_block,
        "time_axis": "block" if from_block is not None else "timestamp",
        "recorded_at": recorded_at, "recorded_until": None,
        "last_accessed_at": recorded_at, "provenance_chain": [ep.agent_id],
        **fields.for_episode(ep.type.value, ep.text, recorded_at),
        # an episode is a memory crystal: private under the document's rule (graph/model/crystal/privacy.py)
        **govern(ep.text, ep.scope.value, ep.governance, recorded_at, semantic_type=SemanticType.episode,
                 memory_scope=memory_scope),
    }
    if ep.emotional_tag:
        props.update(ep.emotional_tag.as_properties())
    if ep.prediction:
        pr = ep.prediction
        props.update(prediction_metric=pr.metric, prediction_expected=pr.expected, prediction_actual=pr.actual,
                     prediction_tolerance=pr.tolerance, informed_by=list(pr.informed_by))
    # Reflexion's snapshots and invariants, as JSON (a property cannot be a map; EpisodeOut reads them back)
    if ep.pre_state is not None:
        props["pre_state"] = json.dumps(ep.pre_state, sort_keys=True)
    if ep.post_state is not None:
        props["post_state"] = json.dumps(ep.post_state, sort_keys=True)
    if ep.invariants:
        props["invariants"] = json.dumps([i.model_dump(exclude_none=True) for i in ep.invariants])
    return {k: v for k, v in props.items() if v is not None}


def _rows(chunk: list[EpisodeIn], vectors: np.ndarray, recorded_at: int, clade: str | None,
          memory_scope: MemoryScope, lazy: bool = False) -> list[Properties]:
    """Lazy: the episode's derived work (its mentions, its FOLLOWS) rides on it as pending properties for the
    enrichment job (graph/enrichment.py); otherwise the ingest's statement does it."""
    rows = []
    for ep, vec in zip(chunk, vectors, strict=True):
        mentions = [{"id": m.canonical_id, "kind": m.kind.value,
                     "props": {k: v for k, v in {"kind": m.kind.value, "name": m.name, "chain_id": m.chain_id,
                                                 "address": m.address.lower() if m.address else None}.items()
                               if v is not None}}
                    for m in ep.mentions]
        props = episode_properties(ep, recorded_at, clade, memory_scope)
        if lazy:
            props.update(enrichment=enrichment.PENDING, pending_mentions=json.dumps(mentions, sort_keys=True))
            if ep.follows is not None:
                props["pending_follows"] = ep.follows
            mentions, follows = [], None
        else:
            props["enrichment"], follows = enrichment.DONE, ep.follows
        rows.append({"id": ep.id, "props": props, "embedding": vec.tolist(), "mentions": mentions,
                     "follows": follows})
    return rows


def _write_chunk(tx: Tx, rows: list[dict[str, Any]], audit: Audit) -> list[str]:
    created = [r["id"] for r in tx.run(cypher.query("episodes/ingest"), rows=rows, audit_id=audit.id, now=audit.at)]
    # Deleting the episodes takes their MENTIONS and FOLLOWS; entities a mention created stay (no record says which).
    audit.write(tx, created, f"ingested {len(created)} of {len(rows)} episodes",
                [DeleteNodes(label=NodeLabel.Episode, ids=created)])
    made = set(created)  # one GrimoireWrite per owner of the episodes created (one per chunk, as a rule)
    owners = Counter((r["props"].get("agent_id"), r["props"].get("clade")) for r in rows if r["id"] in made)
    write_events(tx, [episodes_written(agent, clade, n) for (agent, clade), n in owners.items()])
    # ExpeL's trigger (graph/learning/expel.py): the created episodes counted per agent and strategy, in this
    # transaction, so a re-sent episode counts nothing and every replica sees the count.
    strategies = Counter((r["props"].get("agent_id"), r["props"].get("strategy")) for r in rows if r["id"] in made)
    counts = [{"agent_id": a, "strategy": s, "n": n} for (a, s), n in sorted(strategies.items()) if a and s]
    if counts:
        tx.run(cypher.query("learning/count_strategy_episodes"), counts=counts, now=audit.at).consume()
    for agent, _ in owners:  # the hormonal events the new episodes show spike their agent (knowledge crystals)
        texts = [r["props"]["text"] for r in rows if r["id"] in made and r["props"].get("agent_id") == agent]
        if agent:
            hormonal_state.spike_in(tx, agent, hormonal_state.events_of(texts), audit.at, audit.actor)
    return created


def _chunks(items: list[EpisodeIn], size: int) -> Iterator[list[EpisodeIn]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


INCIDENT_PREFIX = "safety-incident:"   # Reflexion's own episodes (graph/learning/reflexion.py): never a writer's


def ingest(db: Database, embedder: Embedder, episodes: Sequence[EpisodeIn], *, actor: str,
           clade: str | None = None, chunk_size: int = CHUNK,
           memory_scope: MemoryScope = MemoryScope.private, lazy: bool = False) -> IngestResult:
    """`clade` is the owner's, kept on each episode so visibility filters need no join. A safety incident is
    Reflexion's to record: an episode of that type, or under its ids, is refused (a 422), so none can pre-empt one.
    `lazy` (the API's GRIMOIRE_EPISODE_ENRICHMENT=lazy): the episodes are stored, embedded and full-text searchable
    at once, `enrichment: pending`; their mentions and FOLLOWS are left to graph/enrichment.py. The loaders, which
    hand over a whole world, keep the default: everything in the ingest's transaction."""
    for ep in episodes:
        if ep.type == EpisodeType.safety_incident or (ep.id or "").startswith(INCIDENT_PREFIX):
            raise Invalid(f"episode {ep.id or ''}: safety_incident episodes (ids {INCIDENT_PREFIX}…) are recorded "
                          "by Reflexion when an invariant breaks, not written")
    items = with_ids(episodes)
    result = IngestResult(ids=[ep.id for ep in items])  # type: ignore[misc]
    pending: Future[tuple[list[str], str]] | None = None

    def write(rows: list[dict[str, Any]], agent_id: str | None) -> tuple[list[str], str]:
        audit = Audit(action="episode.ingest", actor=actor, agent_id=agent_id)
        written = db.write(lambda tx: _write_chunk(tx, rows, audit))
        for owner in {r["props"].get("agent_id") for r in rows} - {None}:
            hormonal_state.drop_levels(owner)  # committed: a retrieval meanwhile may have held the levels before
        return written, audit.id

    def collect(f: Future[tuple[list[str], str]]) -> None:
        created, audit_id = f.result()
        result.created.extend(created)
        result.audit_ids.append(audit_id)

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="episode-writer") as writer:
        for chunk in _chunks(items, chunk_size):
            recorded_at = now_ms()
            vectors = embedder.embed([ep.text for ep in chunk])  # before the transaction opens
            rows = _rows(chunk, vectors, recorded_at, clade, memory_scope, lazy)
            if pending is not None:
                collect(pending)
            owners = {ep.agent_id for ep in chunk}
            # In the request's context (its id for the logs, its channel for the audit record).
            pending = writer.submit(contextvars.copy_context().run, write, rows,
                                    owners.pop() if len(owners) == 1 else None)
        if pending is not None:
            collect(pending)
    created = set(result.created)
    result.existing = [i for i in result.ids if i not in created]
    log.info("episodes by %s: %d created, %d already stored, in %d transactions", actor, len(result.created),
             len(result.existing), len(result.audit_ids))
    return result


class EpisodeRow(Row):
    """One episode read by id (cypher/episodes/get.cypher): its properties and the entities it mentions."""

    query = "episodes/get"
    episode: EpisodeOut
    mentions: list[MentionOut]

    def answer(self) -> EpisodeOut:
        return self.episode.model_copy(update={"mentions": self.mentions})


class EpisodeListRow(EpisodeRow):
    query = "episodes/list"


def get(db: Database, episode_id: str, visibility: Visibility) -> EpisodeOut | None:
    rows = db.typed(EpisodeRow, id=episode_id, **visibility.params())
    return rows[0].answer() if rows else None


def list_episodes(db: Database, visibility: Visibility, **filters: Any) -> list[EpisodeOut]:
    params = {"agent_id": None, "type": None, "regime": None, "valid_from": None, "valid_to": None,
              "recorded_from": None, "recorded_to": None, "offset": 0, "limit": 50}
    params.update(filters)
    params.update(visibility.params())
    return [r.answer() for r in db.typed(EpisodeListRow, **params)]
