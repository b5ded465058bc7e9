"""Relations inferred from episodes (grimoire.md, "Graph Maintenance", source 2), on the scheduler
(`topology.cooccurrence`): protocols whose episodes consistently co-occur within a few blocks
(graph/topology/cooccurrence.py says what counts) get a TokenFlow fact, through the one assert path
(graph/topology/facts.py: batched, audited in the same transaction).

A period counts only what is new: the counts are kept in the graph with a watermark, the last episode counted
(graph/topology/cooccurrence_counts.py), and each run adds the episodes recorded since. The pairs whose counts reach
'consistently' are counted again exactly, from the episodes as they are then, before their fact is made.

Visibility: episodes feed an inference only within their partition — an agent's private episodes, a clade's
shared ones, the public ones — never mixed, and the fact takes that partition: private to the agent, shared
in the clade, or a public world fact. So an inferred fact is never visible wider than its sources, and a
private episode never informs a shared fact. Confidential episodes feed nothing.

Idempotent: a fact's id is derived from its partition, chain and protocols, and a run only creates what
is not there (no reinforcement: a re-run over the same episodes is no new evidence, and an existing fact
another writer holds is left alone). A fact its owner invalidated stays invalidated. The counts kept on a
fact (`co_occurrences`) are those of the run that inferred it. A run with nothing new writes nothing.
"""

from __future__ import annotations

import hashlib
import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from grimoire.graph.db.connection import Database
from grimoire.graph.model.enums import Predicate, Scope
from grimoire.graph.topology import cooccurrence_counts as kept
from grimoire.graph.topology import facts as fact_ops
from grimoire.graph.topology.cooccurrence import Pair, PairCount
from grimoire.graph.topology.cooccurrence_counts import Candidate, Partition
from grimoire.graph.topology.facts import Owner
from grimoire.graph.topology.freshness import FactConfig
from grimoire.graph.topology.model import FactIn
from grimoire.graph.visibility import Visibility

log = logging.getLogger(__name__)

ACTOR = "co-occurrence"
SOURCE = "inferred: co_occurrence"


def owner(part: Partition) -> Owner:
    if part.scope is Scope.private:
        return Owner(part.agent_id or "", part.clade or "")
    if part.scope is Scope.shared:
        return Owner(ACTOR, part.clade or "")
    return Owner(ACTOR, world=True)


def seen_by(part: Partition) -> Visibility:
    """What the partition sees: the entities its episodes mention, and the facts it would duplicate."""
    if part.scope is Scope.private:
        return Visibility.of(part.agent_id, part.clade)
    return Visibility.of(None, part.clade if part.scope is Scope.shared else None)


class InferredFact(FactIn):
    """A fact with its inference's provenance, kept as properties of the fact."""

    inferred: str = "co_occurrence"
    co_occurrences: int = 0
    share: float = 0.0

    def extra_properties(self) -> dict[str, str | int | float | bool]:
        return {"inferred": self.inferred, "co_occurrences": self.co_occurrences, "co_occurrence_share": self.share}


@dataclass
class InferenceReport:
    episodes: int = 0    # new episodes counted this run
    partitions: int = 0  # partitions (and chains) they fed
    pairs: int = 0       # pairs found consistent this run, counted exactly
    created: int = 0
    recounted: bool = False  # everything counted again: the window or the kinds changed, or recount_hours passed

    def __str__(self) -> str:
        again = " (counted again from the start)" if self.recounted else ""
        return (f"{self.episodes} new episodes in {self.partitions} partitions{again}: {self.pairs} consistent "
                f"pairs, {self.created} facts inferred")


def fact_for(part: Partition, chain: str, pair: Pair, config: FactConfig) -> InferredFact:
    key = "|".join((part.scope.value, part.agent_id or "", part.clade or "", chain, pair.a, pair.b))
    return InferredFact(
        id="cooc-" + hashlib.sha1(key.encode()).hexdigest()[:24], subject=pair.a, predicate=Predicate.TokenFlow,
        object=pair.b, valid_from=pair.first_block or 0, exclusive=False, scope=part.scope,
        confidence=config.co_occurrence.confidence, valid_from_source=SOURCE, co_occurrences=pair.count,
        share=round(pair.share, 4))


def infer(db: Database, config: FactConfig | None = None, cancelled: Callable[[], bool] = lambda: False, *,
          now: int | None = None) -> InferenceReport:
    """One period: the episodes recorded since the watermark counted, then the pairs that now co-occur
    consistently checked exactly and asserted as facts of their partition."""
    cfg = config or FactConfig()
    cooc = cfg.co_occurrence
    counted = kept.count_new(db, cooc, now=now, cancelled=cancelled)
    report = InferenceReport(episodes=counted.episodes, partitions=len(counted.groups), recounted=counted.reset)
    if cancelled():
        return report
    at, _ = kept.mark(db, cooc)
    checked: list[tuple[Candidate, PairCount, dict[str, int]]] = []
    by_partition: dict[Partition, list[InferredFact]] = defaultdict(list)
    pair_of: dict[str, int] = {}  # a fact's id: its candidate's place in `checked`
    for c in kept.candidates(db, cooc):
        count, share, mentions = kept.exact(db, c, at, cooc)
        checked.append((c, count, mentions))
        if count.count >= cooc.min_count and share >= cooc.min_share:
            fact = fact_for(c.part, c.chain, Pair(c.a, c.b, count.count, first_block=count.first_block, share=share),
                            cfg)
            by_partition[c.part].append(fact)
            pair_of[fact.id or ""] = len(checked) - 1
    report.pairs = len(pair_of)
    there: set[str] = set()  # fact ids made now or there already
    for part, facts in by_partition.items():
        if cancelled():
            break
        created, present = _assert(db, part, facts, cfg)
        report.created += created
        there |= present
    inferred = {pair_of[f] for f in there if f in pair_of}
    kept.settle(db, [(c, count, mentions, i in inferred) for i, (c, count, mentions) in enumerate(checked)])
    return report


def _assert(db: Database, part: Partition, facts: list[InferredFact], cfg: FactConfig) -> tuple[int, set[str]]:
    """The partition's facts asserted, those there already left alone: how many were made, and the ids of those
    made or there."""
    who, seen = owner(part), seen_by(part)
    known = {r["fact_id"] for r in db.fetch("topology/inferred_known", **seen.params(), rows=[
        {"fact_id": f.id, "subject": f.subject, "object": f.object} for f in facts])}
    facts = [f for f in facts if f.id not in known]
    if not facts:
        return 0, known
    result = fact_ops.assert_facts(db, facts, owner=who, actor=ACTOR, visibility=seen, freshness=cfg,
                                   reinforce=False)
    if result.missing_entities:  # an entity its episodes no longer make visible (archived since the read)
        gone = set(result.missing_entities)
        rest = [f for f in facts if f.subject not in gone and f.object not in gone]
        log.info("co-occurrence: %d facts skipped, their entities are no longer visible", len(facts) - len(rest))
        if not rest:
            return 0, known
        result = fact_ops.assert_facts(db, rest, owner=who, actor=ACTOR, visibility=seen, freshness=cfg,
                                       reinforce=False)
    return len(result.created), known | set(result.created) | set(result.unchanged)
