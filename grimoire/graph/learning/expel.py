"""ExpeL's outer loop (../shared/spec/grimoire.md:1386-1395): after every `expel_every` episodes (10) recorded
within a strategy, the strategy's episodes since its last distillation are clustered (tool, chain, token pair) and
a cluster of `min_cluster` (3) or more teaches: ADD a new Insight at `lesson_confidence` (0.5) for a novel pattern,
UPVOTE or DOWNVOTE an Insight an earlier distillation of the strategy added, EDIT one a regime contradicts
(graph/learning/distill.py's planning, the Curator's DISTILL, shared).

The count is a StrategyCounter node per agent and strategy, raised in the transaction that creates the episodes
(graph/episodes.py): it is the graph's, so every replica sees it, and a re-sent episode counts nothing; a
rollback that deletes or brings back episodes recounts their strategies from the live episodes in its transaction
(graph/audit/rollback.py), so a rolled-back ingest no longer counts. The
distillation runs on the scheduler (`run_due`, job `curator.expel`, each agent under its lease `expel:<agent>`),
not inline after the ingest commits: it reads the strategy's episodes, asks the Reasoner (a language model when one
is configured) and goes through the Admission Gate, seconds that the ingest's caller would otherwise wait for; the
ingest only asks the scheduler for a run when a count reached the threshold.

A distillation is a CuratorCycle of kind `expel` (its operations hang off it as a cycle's do, each applied once and
audited in its transaction), opened with its watermark and the count it takes off; a run stopped midway is resumed.
It does not consolidate the episodes: the 50-tick Curator cycle still distils them into the Heuristics and Warnings
PLAYBOOK.md is compiled from (its pipeline's "heuristic extraction", line 1420); ExpeL's own lessons are keyed by
strategy, so neither votes on the other's. It reads only the agent's own episodes and writes private entries: never
wider than a source, and a confidential episode never feeds a shared entry."""

from __future__ import annotations

import hashlib
import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel, SetProperties
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.ids import now_ms
from grimoire.graph.learning import clusters, distill, operations
from grimoire.graph.learning.clusters import Episode
from grimoire.graph.learning.operations import PHASE_BASE, Cycle
from grimoire.graph.learning.state import Learning
from grimoire.graph.learning.sweep import Claim, alone
from grimoire.graph.model.enums import EntryCategory
from grimoire.graph.model.rows import Record, Row

log = logging.getLogger(__name__)
ACTOR = "curator"
KIND = "expel"
TRIGGER = "episodes"


def lease_name(agent_id: str) -> str:
    """Its own lease, not the cycle's (`curator:<agent>`): the two share no episode marks, keys or ids, and a lease
    records the period of the job that completed it, which would tell the sweep an agent was done."""
    return f"expel:{agent_id}"


def counter_id(agent_id: str, strategy: str) -> str:
    return f"{agent_id}|{strategy}"


class StrategyDue(Row):
    """A strategy past the count (or with a distillation left open), and its agent's clade."""

    query = "learning/strategies_due"
    agent_id: str
    strategy: str
    clade: str | None


@dataclass
class ExpelReport:
    status: str                      # complete, not_due
    cycle_id: str | None = None
    restarts_at: int | None = None   # the strategy's count after it (episodes recorded meanwhile)
    counts: dict[str, int] = field(default_factory=dict)
    episodes: int = 0
    clusters: int = 0
    resumed: bool = False


def due(db: Database, every: int, agent_id: str | None = None) -> list[StrategyDue]:
    """The strategies past the count (or with a distillation left open)."""
    return db.typed(StrategyDue, every=every, agent_id=agent_id)


def key_of(strategy: str, ep: Episode) -> str:
    """ExpeL's lesson key: the cluster's within the strategy (the Curator cycle's keys carry no strategy)."""
    return f"expel|{strategy}|{clusters.key_of(ep)}"


def distill_strategy(learning: Learning, agent_id: str, strategy: str, *, clade: str | None, actor: str = ACTOR,
                     now: int | None = None) -> ExpelReport:
    """One ExpeL distillation of the agent's strategy when its count reached `expel_every` (or one left open)."""
    rows = learning.db.fetch("learning/strategy_counter", agent_id=agent_id, strategy=strategy)
    if not rows:
        return ExpelReport("not_due")
    counter, latest = rows[0]["counter"], rows[0]["latest"]
    if counter.get("open"):  # stopped midway: resumed with its clock and watermark (the count is not closed yet)
        cycle, resumed = Cycle.of(learning.db.fetch("learning/cycle", id=counter["open"])[0]["cycle"]), True
    elif counter["episodes"] >= learning.config.expel_every:
        cycle, resumed = _open(learning, counter, latest, clade, actor, now), False
    else:
        return ExpelReport("not_due")
    # Since the last distillation's watermark (the counter's until this one closes).
    eps = [Episode.of(r) for r in learning.db.rows("learning/strategy_episodes", agent_id=agent_id,
                                                   strategy=strategy, since=counter["through"],
                                                   through=cycle.through)]
    groups: dict[str, list[Episode]] = defaultdict(list)
    for ep in eps:
        groups[key_of(strategy, ep)].append(ep)
    cfg = learning.config
    groups = {k: v for k, v in sorted(groups.items()) if len(v) >= cfg.min_cluster}
    plans = _plans(learning, cycle, groups)
    distill._admit(learning, cycle, plans)
    seq = PHASE_BASE["distill"]
    for chunk in distill._transactions(plans, cfg.batch):
        distill._record(learning, cycle, chunk, seq, consolidate=False, action="curator.expel")
        seq += sum(len(plan.ops) + len(plan.adds) + len(plan.edits) for plan in chunk)
    restarts_at = _finish(learning, cycle, counter, {"episodes_read": len(eps), "clusters": len(groups)})
    report = ExpelReport("complete", cycle.id, restarts_at, operations.stored(learning.db, cycle.id), len(eps),
                         len(groups), resumed)
    log.info("ExpeL %s: %d episodes of %s, %d clusters: %s", cycle.id, len(eps), strategy, len(groups), report.counts)
    return report


def _plans(learning: Learning, cycle: Cycle, groups: dict[str, list[Episode]]) -> list[distill.Planned]:
    if not groups:
        return []
    standing = [r["lesson"] for r in learning.db.rows("learning/lessons", agent_id=cycle.agent_id,
                                                      keys=list(groups))]
    # What this distillation itself added (a resumed run's) is not standing: the re-run plans as the first did.
    lessons: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for lesson in standing:
        if lesson.get("created_in") != cycle.id and lesson.get("polarity") is not None:
            lessons[lesson["lesson_key"]].append(lesson)
    # The document's ADD writes an Insight; `expel_add: lesson` writes the Reasoner's Heuristic or Warning instead.
    category = EntryCategory.Insight if learning.config.expel_add == "insight" else None
    return [distill.plan_cluster(learning, cycle, key, eps, lessons.get(key, []), category=category, tags=["expel"])
            for key, eps in groups.items()]


def _open(learning: Learning, counter: Record, latest: int | None, clade: str | None, actor: str,
          now: int | None) -> Cycle:
    agent_id, strategy = counter["agent_id"], counter["strategy"]
    seq = int(counter.get("distillations") or 0) + 1
    digest = hashlib.sha1(strategy.encode()).hexdigest()[:12]
    props = {"id": f"{agent_id}:expel:{digest}:{seq}", "agent_id": agent_id, "clade": clade, "seq": seq,
             "kind": KIND, "strategy": strategy, "now": now if now is not None else now_ms(),
             "since": counter["through"], "through": latest if latest is not None else counter["through"],
             "counted": counter["episodes"], "new_episodes": counter["episodes"], "trigger": TRIGGER,
             "actor": actor, "status": "running", "started_at": now_ms()}
    audit = Audit(action="curator.expel_open", actor=actor, agent_id=agent_id)

    def work(tx: Tx) -> Cycle:
        row = tx.run(cypher.query("learning/open_distillation"), counter_id=counter["id"], props=props).single()
        assert row is not None
        audit.write(tx, [props["id"], counter["id"]], f"ExpeL distillation {props['id']} of strategy {strategy!r} "
                    f"opened after {counter['episodes']} episodes",
                    [DeleteNodes(label=NodeLabel.CuratorCycle, ids=[props["id"]]),
                     SetProperties(label=NodeLabel.StrategyCounter, id=counter["id"], before={"open": None})])
        return Cycle.of(row["cycle"])

    opened: Cycle = learning.db.write(work)
    return opened


def _finish(learning: Learning, cycle: Cycle, counter: Record, extra: dict[str, Any]) -> int | None:
    """Closes the distillation; the strategy's count it restarts at (None: closed already)."""
    done = {"status": "complete", "finished_at": now_ms(), **extra}
    before = {k: counter.get(k) for k in ("episodes", "through", "distillations", "distilled_at")}
    audit = Audit(action="curator.expel_complete", actor=cycle.actor, agent_id=cycle.agent_id)

    def work(tx: Tx) -> int | None:
        row = tx.run(cypher.query("learning/finish_distillation"), counter_id=counter["id"], id=cycle.id,
                     props=done).single()
        if row is None:  # finished already (a concurrent run by hand): nothing to close
            return None
        audit.write(tx, [cycle.id, counter["id"]], f"ExpeL distillation {cycle.id} complete; the count of "
                    f"{counter['strategy']!r} restarts at {row['counter']['episodes']}",
                    [SetProperties(label=NodeLabel.CuratorCycle, id=cycle.id,
                                   before={"status": "running", "finished_at": None,
                                           **{k: None for k in extra}}),
                     SetProperties(label=NodeLabel.StrategyCounter, id=counter["id"],
                                   before={**before, "open": cycle.id})])
        return int(row["counter"]["episodes"])

    restarts_at: int | None = learning.db.write(work)
    return restarts_at


def run_due(learning: Learning, *, cancelled: Callable[[], bool] = lambda: False, claim: Claim = alone,
            order: Callable[[list[str]], list[str]] = list) -> str:
    """The scheduler's job: a distillation for every strategy past the count, each agent under its lease."""
    by_agent: dict[str, list[StrategyDue]] = defaultdict(list)
    for row in due(learning.db, learning.config.expel_every):
        by_agent[row.agent_id].append(row)
    ran = elsewhere = 0
    for agent_id in order(sorted(by_agent)):
        if cancelled():
            break
        with claim(lease_name(agent_id)) as mine:
            if not mine:  # another replica distils (or distilled) this agent's strategies
                elsewhere += 1
                continue
            for row in by_agent[agent_id]:
                if cancelled():
                    break
                report = distill_strategy(learning, agent_id, row.strategy, clade=row.clade)
                ran += report.status == "complete"
    return f"{ran} distillations" + (f", {elsewhere} agents on other replicas" if elsewhere else "")
