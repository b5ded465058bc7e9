"""Relations inferred from episodes (grimoire.md, "Graph Maintenance", source 2), on the scheduler
(`topology.cooccurrence`): protocols whose episodes consistently co-occur within a few blocks
(graph/topology/cooccurrence.py says what counts) get a TokenFlow fact, through the one assert path
(graph/topology/facts.py: batched, audited in the same transaction).

Visibility: episodes feed an inference only within their partition — an agent's private episodes, a clade's
shared ones, the public ones — never mixed, and the fact takes that partition: private to the agent, shared
in the clade, or a public world fact. So an inferred fact is never visible wider than its sources, and a
private episode never informs a shared fact. Confidential episodes feed nothing.

Idempotent: a fact's id is derived from its partition, chain and protocols, and a run only creates what
is not there (no reinforcement: a re-run over the same episodes is no new evidence, and an existing fact
another writer holds is left alone). A fact its owner invalidated stays invalidated. The counts kept on a
fact (`co_occurrences`) are those of the run that inferred it.
"""

from __future__ import annotations

import hashlib
import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from grimoire.graph.db.connection import Database
from grimoire.graph.model.enums import Predicate, Scope
from grimoire.graph.topology import facts as fact_ops
from grimoire.graph.topology.cooccurrence import Episode, Pair, consistent
from grimoire.graph.topology.facts import Owner
from grimoire.graph.topology.freshness import FactConfig
from grimoire.graph.topology.model import FactIn
from grimoire.graph.visibility import Visibility

log = logging.getLogger(__name__)

ACTOR = "co-occurrence"
SOURCE = "inferred: co_occurrence"
PAGE = 1_000


@dataclass(frozen=True)
class Partition:
    """Who may see the episodes, hence the fact: `agent_id` for private, `clade` for shared, neither for public."""

    scope: Scope
    agent_id: str | None
    clade: str | None

    def owner(self) -> Owner:
        if self.scope is Scope.private:
            return Owner(self.agent_id or "", self.clade or "")
        if self.scope is Scope.shared:
            return Owner(ACTOR, self.clade or "")
        return Owner(ACTOR, world=True)

    def visibility(self) -> Visibility:
        """What the partition sees: the entities its episodes mention, and the facts it would duplicate."""
        if self.scope is Scope.private:
            return Visibility.of(self.agent_id, self.clade)
        return Visibility.of(None, self.clade if self.scope is Scope.shared else None)


class InferredFact(FactIn):
    """A fact with its inference's provenance, kept as properties of the fact."""

    inferred: str = "co_occurrence"
    co_occurrences: int = 0
    share: float = 0.0

    def extra_properties(self) -> dict[str, str | int | float | bool]:
        return {"inferred": self.inferred, "co_occurrences": self.co_occurrences, "co_occurrence_share": self.share}


@dataclass
class InferenceReport:
    episodes: int = 0
    partitions: int = 0
    pairs: int = 0
    created: int = 0

    def __str__(self) -> str:
        return (f"{self.episodes} episodes in {self.partitions} partitions: {self.pairs} consistent pairs, "
                f"{self.created} facts inferred")


def read_episodes(db: Database, config: FactConfig) -> dict[tuple[Partition, str], list[Episode]]:
    """Every episode that can feed an inference, by partition and chain, read a page at a time."""
    kinds = [k.value for k in config.co_occurrence.kinds]
    groups: dict[tuple[Partition, str], list[Episode]] = defaultdict(list)
    after = ""
    while True:
        rows = db.fetch("topology/cooccurrence_episodes", kinds=kinds, after=after, limit=PAGE)
        for r in rows:
            if not r["protocols"]:
                continue
            scope = Scope(r["scope"])
            part = Partition(scope, r["agent_id"] if scope is Scope.private else None,
                             r["clade"] if scope is not Scope.public else None)
            if (scope is Scope.private and not part.agent_id) or (scope is Scope.shared and not part.clade):
                continue  # shared without a clade is seen by its owner alone: no partition to infer for
            groups[(part, str(r["chain"] or ""))].append(Episode(r["id"], int(r["block"]), frozenset(r["protocols"])))
        if len(rows) < PAGE:
            return groups
        after = rows[-1]["id"]


def fact_for(part: Partition, chain: str, pair: Pair, config: FactConfig) -> InferredFact:
    key = "|".join((part.scope.value, part.agent_id or "", part.clade or "", chain, pair.a, pair.b))
    return InferredFact(
        id="cooc-" + hashlib.sha1(key.encode()).hexdigest()[:24], subject=pair.a, predicate=Predicate.TokenFlow,
        object=pair.b, valid_from=pair.first_block or 0, exclusive=False, scope=part.scope,
        confidence=config.co_occurrence.confidence, valid_from_source=SOURCE, co_occurrences=pair.count,
        share=round(pair.share, 4))


def infer(db: Database, config: FactConfig | None = None,
          cancelled: Callable[[], bool] = lambda: False) -> InferenceReport:
    """One pass over every partition's episodes: the consistent pairs asserted as facts of that partition."""
    cfg = config or FactConfig()
    report = InferenceReport()
    groups = read_episodes(db, cfg)
    report.episodes = sum(len(v) for v in groups.values())
    report.partitions = len({p for p, _ in groups})
    by_partition: dict[Partition, list[InferredFact]] = defaultdict(list)
    for (part, chain), episodes in groups.items():
        pairs = consistent(episodes, cfg.co_occurrence)
        report.pairs += len(pairs)
        by_partition[part] += [fact_for(part, chain, p, cfg) for p in pairs]
    for part, facts in by_partition.items():
        if cancelled():
            break
        if facts:
            report.created += _assert(db, part, facts, cfg)
    return report


def _assert(db: Database, part: Partition, facts: list[InferredFact], cfg: FactConfig) -> int:
    owner, seen = part.owner(), part.visibility()
    known = {r["fact_id"] for r in db.fetch("topology/inferred_known", **seen.params(), rows=[
        {"fact_id": f.id, "subject": f.subject, "object": f.object} for f in facts])}
    facts = [f for f in facts if f.id not in known]
    if not facts:
        return 0
    result = fact_ops.assert_facts(db, facts, owner=owner, actor=ACTOR, visibility=seen, freshness=cfg,
                                   reinforce=False)
    if result.missing_entities:  # an entity its episodes no longer make visible (archived since the read)
        gone = set(result.missing_entities)
        rest = [f for f in facts if f.subject not in gone and f.object not in gone]
        log.info("co-occurrence: %d facts skipped, their entities are no longer visible", len(facts) - len(rest))
        if not rest:
            return 0
        result = fact_ops.assert_facts(db, rest, owner=owner, actor=ACTOR, visibility=seen, freshness=cfg,
                                       reinforce=False)
    return len(result.created)
