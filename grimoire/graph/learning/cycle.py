"""The Curator cycle (../shared/spec/grimoire.md, "Curator Cycle Pipeline"): per agent, Reflexion's
catch-up, then DISTILL (graph/learning/distill.py, netting.py), PROMOTE (promote.py) and DECAY
(decay.py), each in transactions of at most `batch` rows, then the cycle's events.

A cycle is a CuratorCycle node: it fixes its clock (`now`) and its watermark (`through`: the newest
episode it works on) when it opens, and every decision inside it uses them, so a cycle interrupted
anywhere and run again (it resumes the open cycle) ends where an uninterrupted one ends; operations
already applied are skipped by id (graph/learning/operations.py). A cycle with no episode recorded
since the last one's watermark changes nothing: there is nothing to learn from."""

from __future__ import annotations

import contextvars
import logging
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from grimoire.graph import events, foreground, observe
from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel, SetProperties
from grimoire.graph.db import cypher
from grimoire.graph.db.tx import Tx
from grimoire.graph.ids import now_ms
from grimoire.graph.learning import decay, distill, netting, operations, promote, reflexion
from grimoire.graph.learning.operations import Cycle
from grimoire.graph.learning.state import Learning
from grimoire.graph.model.rows import Properties, Record

log = logging.getLogger(__name__)
PHASES = ("reflexion", "distill", "net", "promote", "decay")


class Interrupted(RuntimeError):
    """Raised by a test's `stop_after` hook: the cycle stops as a killed process would."""


@dataclass
class CycleReport:
    status: str                       # complete, up_to_date (nothing new since the last cycle)
    cycle: dict[str, Any] | None
    counts: dict[str, int] = field(default_factory=dict)
    resumed: bool = False
    seconds: float = 0.0


class RunsCycles(Protocol):
    """Runs a cycle somewhere else (another process) and returns its report."""

    def __call__(self, agent_id: str, clade: str | None, actor: str, trigger: str, now: int | None) -> CycleReport: ...

    def close(self) -> None: ...


class Curator:
    """Runs cycles, one at a time (a second caller waits for the first), on a background thread: a
    cycle is hundreds of transactions and thousands of rows of Python, and requests served beside it
    come first (the thread is `niceness` nicer; the cycle takes longer on a busy machine instead)."""

    def __init__(self, learning: Learning, elsewhere: RunsCycles | None = None) -> None:
        self.learning = learning
        # Where the service's cycles run instead of this thread: a child process (graph/background.py).
        self.elsewhere = elsewhere
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="curator",
                                          initializer=_background, initargs=(learning.config.niceness,))
        self.due: set[str] = set()  # agents whose ticks called for a cycle (the scheduler runs them)

    def close(self) -> None:
        if self.elsewhere is not None:
            self.elsewhere.close()
        self._worker.shutdown(wait=True)

    def _lock(self, agent_id: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(agent_id, threading.Lock())

    # ------------------------------------------------------------------ triggers

    def after_ingest(self, agent_id: str, predicted: list[str], *, ticked: bool, actor: str) -> bool:
        """Reflexion on the new episodes that carry a verified prediction or a post_state (`predicted`), and whether
        the agent's ticks call for a cycle (every `every_ticks`); the caller asks the scheduler to run it. New
        episodes without a tick cannot move the agent's latest tick (`ticked` false): neither question is asked of
        the graph then, which is most batches (each question reads every episode of the agent's)."""
        if predicted:
            reflexion.reflect(self.learning, agent_id, actor=actor, ids=predicted)
        if not ticked:
            return False
        last = self.last(agent_id)
        row = self.learning.db.fetch("learning/cycle_input", agent_id=agent_id, since=last["through"] if last else -1)
        tick = row[0]["tick"] if row else None
        if tick is None:
            return False
        since = (last.get("tick") or 0) if last else 0
        if tick - since >= self.learning.config.every_ticks:
            self.due.add(agent_id)
            return True
        return False

    def last(self, agent_id: str) -> Record | None:
        rows = self.learning.db.fetch("learning/last_cycle", agent_id=agent_id)
        return rows[0]["cycle"] if rows else None

    # ------------------------------------------------------------------ a cycle

    def run(self, agent_id: str, *, clade: str | None, actor: str, trigger: str = "manual", now: int | None = None,
            stop_after: str | None = None, on_phase: Callable[[str], None] | None = None) -> CycleReport:
        """One cycle of the agent's, on the Curator's thread (or `elsewhere`: the test hooks need this
        thread); returns when it is done (or raises what it raised)."""
        if self.elsewhere is not None and stop_after is None and on_phase is None:
            return self.elsewhere(agent_id, clade, actor, trigger, now)
        # In the caller's context: its request id in the logs, its channel (rest, mcp) on the audit records; but
        # not as a request being served: the cycle is background work and yields to requests (graph/foreground.py).
        context = contextvars.copy_context()
        context.run(foreground.background)
        return self._worker.submit(context.run, self._run, agent_id, clade, actor, trigger, now, stop_after,
                                   on_phase).result()

    def _run(self, agent_id: str, clade: str | None, actor: str, trigger: str, now: int | None,
             stop_after: str | None, on_phase: Callable[[str], None] | None) -> CycleReport:
        with observe.span("learning", "cycle") as timed, self._lock(agent_id):
            cycle, resumed = self._open(agent_id, clade, actor, trigger, now)
            if cycle is None:
                return CycleReport("up_to_date", self.last(agent_id))
            for phase in PHASES:
                if phase in cycle_done(self.learning, cycle.id):
                    continue
                log.info("cycle %s: %s", cycle.id, phase)
                result = self._phase(phase, cycle)
                self.learning.db.run("learning/finish_cycle", id=cycle.id,
                                     props={f"done_{phase}": True, **_flat(phase, result)})
                if on_phase:
                    on_phase(phase)
                if stop_after == phase:
                    raise Interrupted(f"stopped after {phase}")
            props = self._finish(cycle)
        report = CycleReport("complete", props, operations.stored(self.learning.db, cycle.id), resumed,
                             round(timed.ms / 1000, 3))
        log.info("cycle %s complete in %.1f s: %s", cycle.id, report.seconds, report.counts)
        return report

    def _open(self, agent_id: str, clade: str | None, actor: str, trigger: str,
              now: int | None) -> tuple[Cycle | None, bool]:
        last = self.last(agent_id)
        if last and last["status"] == "running":
            return Cycle.of(last), True
        row = self.learning.db.fetch("learning/cycle_input", agent_id=agent_id, since=last["through"] if last else -1)
        if not row or not row[0]["new_episodes"]:
            return None, False
        seq = (last["seq"] if last else 0) + 1
        props = {"id": f"{agent_id}:cycle:{seq}", "agent_id": agent_id, "clade": clade, "seq": seq,
                 "now": now if now is not None else now_ms(), "through": row[0]["latest"], "tick": row[0]["tick"],
                 "trigger": trigger, "actor": actor, "status": "running", "started_at": now_ms(),
                 "new_episodes": row[0]["new_episodes"]}
        audit = Audit(action="curator.open", actor=actor, agent_id=agent_id)

        def work(tx: Tx) -> Record:
            row = tx.run(cypher.query("learning/create_cycle"), props=props).single()
            assert row is not None
            made: Record = row["cycle"]
            audit.write(tx, [props["id"]], f"cycle {props['id']} opened",
                        [DeleteNodes(label=NodeLabel.CuratorCycle, ids=[props["id"]])])
            return made

        return Cycle.of(self.learning.db.write(work)), False

    def _phase(self, phase: str, cycle: Cycle) -> Any:
        if phase == "reflexion":
            return reflexion.reflect(self.learning, cycle.agent_id, actor=cycle.actor, through=cycle.through)
        if phase == "distill":
            return distill.run(self.learning, cycle)
        if phase == "net":
            return netting.run(self.learning, cycle)
        if phase == "promote":
            return promote.run(self.learning, cycle)
        return decay.run(self.learning, cycle)

    def _finish(self, cycle: Cycle) -> Record:
        counts = operations.stored(self.learning.db, cycle.id)
        state = self.learning.db.fetch("learning/last_cycle", agent_id=cycle.agent_id)[0]["cycle"]
        done = {"status": "complete", "finished_at": now_ms(),
                **{f"ops_{k.lower().replace(':', '_')}": v for k, v in counts.items()}}
        decayed = events.Event(events.EventType.GrimoireDecay, cycle.agent_id, cycle.clade, {
            "cycle_id": cycle.id, "entries_decayed": state.get("decay_decayed", 0),
            "entries_reviewed": state.get("decay_reviewed", 0),
            "avg_confidence_before": state.get("decay_before"), "avg_confidence_after": state.get("decay_after")})
        complete = events.Event(events.EventType.CuratorCycleComplete, cycle.agent_id, cycle.clade, {
            "cycle_id": cycle.id, "entries_pruned": counts.get("PRUNE", 0) + counts.get("ARCHIVE", 0),
            "entries_promoted": counts.get("PROMOTE", 0), "heuristics_proposed": counts.get("ADD:Heuristic", 0),
            "added": counts.get("ADD", 0), "compressed": counts.get("COMPRESS", 0),
            "demoted": counts.get("DEMOTE", 0), "edited": counts.get("EDIT", 0), "trigger": cycle.trigger,
            # Which Reasoner distilled, and why the rules ran instead when a language model is configured.
            "reasoner": state.get("reasoner"),
            "reasoner_fallbacks": sorted({*state.get("distill_fallbacks", []), *state.get("reflexion_fallbacks", [])})})
        audit = Audit(action="curator.complete", actor=cycle.actor, agent_id=cycle.agent_id)

        def work(tx: Tx) -> Record:
            row = tx.run(cypher.query("learning/finish_cycle"), id=cycle.id, props=done).single()
            assert row is not None
            events.write(tx, [decayed, complete])
            audit.write(tx, [cycle.id], f"cycle {cycle.id} complete",
                        [SetProperties(label=NodeLabel.CuratorCycle, id=cycle.id,
                                       before={"status": "running", "finished_at": None})])
            result: Record = row["cycle"]
            return result

        return self.learning.db.write(work)


def _background(niceness: int) -> None:
    """Makes the calling thread nicer (Linux nices threads one by one; elsewhere it would be the process)."""
    if niceness and sys.platform == "linux":
        try:
            me = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, me, min(19, os.getpriority(os.PRIO_PROCESS, me) + niceness))
        except OSError as exc:  # not permitted here: the cycle runs at the service's priority
            log.warning("the Curator's thread keeps the service's priority: %s", exc)


def cycle_done(learning: Learning, cycle_id: str) -> set[str]:
    rows = learning.db.fetch("learning/cycle", id=cycle_id)
    if not rows:
        return set()
    c = rows[0]["cycle"]
    return {p for p in PHASES if c.get(f"done_{p}")}


def _flat(phase: str, result: Any) -> Properties:
    """A phase's result as properties of the cycle node (numbers only)."""
    if isinstance(result, int):
        return {f"{phase}_count": result}
    if isinstance(result, decay.DecayReport):
        return {f"decay_{k}": v for k, v in asdict(result).items() if v is not None}
    if isinstance(result, reflexion.ReflexionReport):
        return {"reflexion_reflections": len(result.reflections), "reflexion_insights": len(result.insights),
                "reflexion_fallbacks": sorted(set(result.fallbacks))[:10]}
    if isinstance(result, distill.DistillReport):
        return {"distill_clusters": result.clusters, "distill_consolidated": result.consolidated,
                "reasoner": result.reasoner, "distill_fallbacks": sorted(set(result.fallbacks))[:10]}
    return {}
