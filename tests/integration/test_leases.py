"""Background work across replicas (issue 37, section 2; graph/leases.py): several schedulers with distinct holder ids
on one Neo4j, as replicas of the service would be.

- Two and three schedulers running the same jobs on a shared fake clock (each started at its own time, the first
  two in a race at every grid point): every job runs exactly once in every period, never twice; a per-agent job
  does every agent exactly once per period.
- Per-agent leases split the agents between replicas running the same job at once, and none is done twice; so
  does the Curator's real sweep on two Services.
- A holder paused past its lease's expiry, whose lease another replica then took, gets LeaseLost on its next write
  and writes nothing.
- A replica killed with SIGKILL mid-cycle while it holds the agent's lease: another replica's scheduler comes back
  as soon as the lease expires (not a period later), resumes the cycle and completes it, and the audit trail holds
  each Curator operation exactly once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from neo4j import ManagedTransaction

from grimoire.graph import leases
from grimoire.graph.audit.revert import DeleteNodes, NodeLabel, parse_revert
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.fencing import LeaseLost
from grimoire.graph.embeddings import Embedder
from grimoire.graph.leases import Leases, period_of
from grimoire.graph.scheduler import Job, Scheduler
from grimoire.graph.services import Services, schedule
from tests.conftest import Api, Neo4jUnderTest

ROOT = Path(__file__).resolve().parents[2]
START = 1_700_000_000.0
AGENTS = [f"golem-{i}" for i in range(6)]


class FakeClock:
    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def marks(db: Database) -> list[dict[str, Any]]:
    return db.fetch("testing/lease_marks")


def mark(db: Database, job: str, period: int, by: str, agent: str | None = None) -> None:
    db.run("testing/lease_mark", id=f"{job}:{period}:{agent}:{by}", job=job, period=period, agent=agent, by=by)


def pause_past_the_lease(db: Database, name: str) -> None:
    """The holder's time runs out now, as when a pause outlasts the lease, without waiting for it."""
    db.run("testing/lease_expire", name=name)


def until(condition: Callable[[], Any], seconds: float = 120.0, what: str = "") -> Any:
    """Poll `condition` until it is truthy (a guard against hanging, not a timing claim)."""
    deadline = time.monotonic() + seconds
    while not (value := condition()):
        assert time.monotonic() < deadline, f"still waiting: {what}"
        time.sleep(0.1)
    return value


# ------------------------------------------------------------------ the lease itself

def test_of_many_replicas_taking_one_lease_at_once_exactly_one_gets_it(db: Database) -> None:
    replicas = [Leases(db, f"replica-{i}") for i in range(6)]
    for period in range(1, 6):
        barrier = threading.Barrier(len(replicas))
        seen: list[leases.Seen] = []

        def take(r: Leases, period: int = period, barrier: threading.Barrier = barrier,
                 seen: list[leases.Seen] = seen) -> None:
            barrier.wait(30)
            seen.append(r.take("race", period))

        threads = [threading.Thread(target=take, args=(r,)) for r in replicas]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        [winner] = [s for s in seen if s.held]
        assert winner.token == period  # one new token per take
        assert {s.holder for s in seen} == {winner.holder}  # the losers saw the winner
        by = next(r for r in replicas if r.holder == winner.holder)
        assert by.release(leases.Fence("race", by.holder, winner.token), period)
        assert not any(r.take("race", period).held for r in replicas)  # this period is done


# ------------------------------------------------------------------ schedulers sharing jobs

def _replicas(db: Database, clock: FakeClock, n: int, calls: list[tuple[str, str]]) -> list[Scheduler]:
    """`n` schedulers with the same jobs: `a` and `b` once per period, `c` per agent; each unit of work writes a
    mark through Database (fenced with its lease)."""
    schedulers = []
    for i in range(n):
        by = f"replica-{i}"
        scheduler = Scheduler(clock, leases=Leases(db, by))

        def once(job: str, every: float, by: str = by) -> Callable[[], str]:
            def run() -> str:
                calls.append((job, by))
                mark(db, job, period_of(clock(), every), by)
                return "done"
            return run

        def per_agent(by: str = by) -> str:
            done = 0
            for agent in leases.holder_order(AGENTS):
                with leases.unit(f"c:{agent}") as mine:
                    if mine:
                        mark(db, "c", period_of(clock(), 20), by, agent)
                        time.sleep(0.02)  # long enough for the other replicas to meet this one at work
                        done += 1
            return f"{done} agents"

        scheduler.add(Job("a", 10, once("a", 10)))
        scheduler.add(Job("b", 25, once("b", 25)))
        scheduler.add(Job("c", 20, per_agent, lease="per_agent"))
        schedulers.append(scheduler)
    return schedulers


def _run_together(schedulers: list[Scheduler]) -> None:
    threads = [threading.Thread(target=s.run_due) for s in schedulers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
        assert not t.is_alive()


@pytest.mark.parametrize("n", [2, 3])
def test_every_job_runs_once_in_every_period_across_replicas(db: Database, n: int) -> None:
    clock = FakeClock()
    calls: list[tuple[str, str]] = []
    schedulers = _replicas(db, clock, n, calls)
    offsets = [0.0, 0.0, 5.0][:n]  # the first two race at every grid point; the third starts 5 s later
    for scheduler, offset in zip(schedulers, offsets, strict=True):
        for slot in scheduler._slots.values():
            slot.schedule_first(START + offset)
    end = START + 65  # every replica reaches each period's grid point, the one 5 s behind too
    while clock.now < end:
        clock.now += 1
        _run_together(schedulers)

    rows = marks(db)
    for job, every in (("a", 10), ("b", 25)):
        periods = Counter(r["period"] for r in rows if r["job"] == job)
        expected = range(period_of(START + every, every), period_of(end, every) + 1)
        assert periods == Counter(expected), (job, periods)  # every period, once
        assert sum(s.job(job).runs for s in schedulers) == len(expected) == len([c for c in calls if c[0] == job])
        assert sum(s.job(job).skipped for s in schedulers) >= len(expected) * (n - 1)  # the others left it
    units = Counter((r["period"], r["agent"]) for r in rows if r["job"] == "c")
    expected_c = range(period_of(START + 20, 20), period_of(end, 20) + 1)
    assert units == Counter((p, a) for p in expected_c for a in AGENTS), units  # every agent once a period

    # What the list shows: how the job is shared, who ran it, the period done.
    a = [s.job("a") for s in schedulers]
    assert {x.lease for x in a} == {"once"} and max(x.period_done or 0 for x in a) == period_of(end, 10)
    assert {x.lease_holder for x in a} <= {f"replica-{i}" for i in range(n)}
    assert {x.last_outcome for x in a} <= {"ran", "done_elsewhere", "held_elsewhere"}
    if n == 3:  # five seconds behind the others at every grid point: it always finds the period done
        assert schedulers[2].job("a").last_outcome == "done_elsewhere" and schedulers[2].job("a").runs == 0
    assert schedulers[0].replica == "replica-0"


def test_per_agent_leases_split_the_agents_between_replicas_and_none_is_done_twice(db: Database) -> None:
    clock = FakeClock()
    n = 3
    barrier = threading.Barrier(n)
    done: list[tuple[str, str]] = []
    schedulers = []
    for i in range(n):
        by = f"replica-{i}"

        def sweep(by: str = by) -> str:
            first = True
            for agent in leases.holder_order(AGENTS):
                with leases.unit(f"work:{agent}") as mine:
                    if not mine:
                        continue
                    done.append((agent, by))
                    mark(db, "sweep", period_of(clock(), 60), by, agent)
                    if first:  # every replica holds its first agent at the same time: they must differ
                        barrier.wait(60)
                        first = False
            return "swept"

        scheduler = Scheduler(clock, leases=Leases(db, by))
        scheduler.add(Job("sweep", 60, sweep, lease="per_agent"))
        scheduler._slots["sweep"].schedule_first(START - 60)  # due now
        schedulers.append(scheduler)
    _run_together(schedulers)

    assert sorted(a for a, _ in done) == sorted(AGENTS)  # each agent once
    by_replica = Counter(by for _, by in done)
    assert len(by_replica) == n, by_replica  # spread over every replica, not done by one leader
    states = [s.job("sweep") for s in schedulers]
    assert sum(s.units_here for s in states) == len(AGENTS)
    assert all(s.units_here + s.units_elsewhere >= 1 for s in states)
    # A replica coming to the job later in the same period does no agent again. The period is marked done by the
    # first walk that found no agent held elsewhere: one of the three when it was alone at the end, else this one.
    again: list[str] = []

    def late_sweep() -> str:
        for agent in AGENTS:
            with leases.unit(f"work:{agent}") as mine:
                if mine:
                    again.append(agent)
        return "late"

    late = Scheduler(clock, leases=Leases(db, "replica-late"))
    late.add(Job("sweep", 60, late_sweep, lease="per_agent"))
    late._slots["sweep"].schedule_first(START - 60)
    late.run_due()
    assert again == []
    # After it, the period is done: the next replica skips the job without listing its agents.
    later = Scheduler(clock, leases=Leases(db, "replica-later"))
    later.add(Job("sweep", 60, lambda: pytest.fail("the period is done"), lease="per_agent"))
    later._slots["sweep"].schedule_first(START - 60)
    assert later.run_due() == []
    assert later.job("sweep").last_outcome == "done_elsewhere" and later.job("sweep").skipped == 1


def test_a_run_asked_for_by_hand_waits_for_another_replicas_run_and_then_runs_once(db: Database) -> None:
    clock = FakeClock()
    runs: list[str] = []
    scheduler = Scheduler(clock, leases=Leases(db, "replica-asked"))
    scheduler.add(Job("j", 3_600, lambda: runs.append("asked") or "ran"))
    elsewhere = Leases(db, "replica-busy")
    busy = elsewhere.take("j", period_of(clock(), 3_600))  # another replica's scheduled run is under way
    assert busy.held

    assert scheduler.trigger("j")
    assert scheduler.run_due() == [] and runs == []  # never beside the other replica's run
    state = scheduler.job("j")
    assert state.last_outcome == "held_elsewhere" and state.lease_holder == "replica-busy" and state.triggered
    assert state.retry_at is not None and state.retry_at <= clock() + elsewhere.lease_seconds + 1
    clock.now = state.retry_at - 0.01
    assert scheduler.run_due() == []  # not before the other's lease could have run out

    # The other replica's run completes its period; the run asked for here still runs (once), after it.
    assert elsewhere.release(leases.Fence("j", "replica-busy", busy.token), period_of(clock(), 3_600))
    clock.now = state.retry_at
    assert scheduler.run_due() == ["j"] and runs == ["asked"]
    assert scheduler.run_due() == [] and not scheduler.job("j").triggered
    assert scheduler.job("j").last_outcome == "ran" and scheduler.job("j").lease_token == busy.token + 1


# ------------------------------------------------------------------ fencing

def test_a_period_left_by_a_holder_that_died_near_its_end_is_still_run(db: Database) -> None:
    """A replica retries the period it found held, even once the clock has passed into the next: the period is run
    (not skipped for the next one), and the current period after it."""
    clock = FakeClock()
    period = period_of(START, 10)
    dead = Leases(db, "replica-dead")
    assert dead.take("late", period).held  # took the period, then died without running it
    runs: list[float] = []
    survivor = Scheduler(clock, leases=Leases(db, "replica-b"))
    survivor.add(Job("late", 10.0, lambda: runs.append(clock()), first_after_seconds=0.0))
    for slot in survivor._slots.values():
        slot.schedule_first(START)
    survivor.run_due()
    assert runs == [] and survivor.job("late").last_outcome == "held_elsewhere"
    pause_past_the_lease(db, "late")  # the dead holder's lease runs out...
    clock.now = START + 35  # ...and the survivor looks again three periods later
    survivor.run_due()
    survivor.run_due()
    assert len(runs) == 2  # the period it found held, then the current one
    assert survivor.job("late").period_done == period_of(START + 35, 10)


def test_a_paused_holder_whose_lease_was_taken_cannot_write(db: Database) -> None:
    paused = Leases(db, "replica-paused", heartbeat_seconds=3_600)  # its heartbeat never comes: a pause
    other = Leases(db, "replica-awake")

    def write_mark(tx: ManagedTransaction) -> None:
        tx.run(cypher.query("testing/lease_mark"), id="in-a-transaction", job="j", period=1, agent=None,
               by=paused.holder).consume()

    with paused.hold("j", period=1) as mine:
        assert mine.held
        mark(db, "j", 1, paused.holder, "before")  # fenced, and still its own: written
        # The pause outlasts the lease: its time runs out, and another replica takes the lease with the next token.
        assert not other.take("j", period=1).held  # not before
        pause_past_the_lease(db, "j")
        taken = other.take("j", period=1)
        assert taken.held and taken.token == mine.token + 1 and taken.holder == "replica-awake"
        with pytest.raises(LeaseLost, match="replica-paused"):
            mark(db, "j", 1, paused.holder, "after")
        with pytest.raises(LeaseLost):
            db.write(write_mark)
        with pytest.raises(LeaseLost):
            db.run_all("testing/lease_mark", id="all", job="j", period=1, agent=None, by=paused.holder)
    assert [r["agent"] for r in marks(db)] == ["before"]  # nothing after the lease was lost
    assert not paused.release(leases.Fence("j", paused.holder, mine.token), 1)
    assert other.seen(["j"])["j"].holder == "replica-awake"  # the paused one's release changed nothing


def test_a_job_that_lost_its_lease_records_it_and_the_period_stays_open(db: Database) -> None:
    clock = FakeClock()
    other = Leases(db, "replica-awake")
    scheduler = Scheduler(clock, leases=Leases(db, "replica-paused", heartbeat_seconds=3_600))

    def job() -> str:
        mark(db, "j", 1, "replica-paused", "before")
        pause_past_the_lease(db, "j")  # paused past its lease; another replica took it meanwhile
        assert other.take("j").held
        mark(db, "j", 1, "replica-paused", "after")
        return "never"

    scheduler.add(Job("j", 10, job))
    scheduler._slots["j"].schedule_first(START - 10)
    assert scheduler.run_due() == ["j"]
    state = scheduler.job("j")
    assert state.last_outcome == "lease_lost" and state.failures == 1 and "LeaseLost" in (state.last_error or "")
    assert [r["agent"] for r in marks(db)] == ["before"]
    assert other.seen(["j"])["j"].period is None  # the period was not recorded as done


# ------------------------------------------------------------------ the Curator across replicas

LIFE = [("uniswap-swap", "WETH/USDC", "positive", 10.0, "filled with a gain", 5),
        ("aave-borrow", "WETH/DAI", "negative", -8.0, "lost money", 4)]


def _life(api: Api, agent: str) -> None:
    """Episodes a cycle learns from: five swaps that gained, four borrows that lost."""
    h = api.headers(agent, "clade-lease")
    eps = [{"id": f"{agent}-{tool}-{i}", "type": "action", "tool": tool, "chain": "1", "token_pair": pair, "tick": i,
            "regime": "bull", "outcome": outcome, "gain": gain,
            "text": f"{tool} on {pair} at tick {i} in a bull market: the action {verb}"}
           for tool, pair, outcome, gain, verb, n in LIFE for i in range(1, n + 1)]
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": eps})
    assert r.status_code == 201, r.text


def _replica(db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder, holder: str,
             lease_seconds: float = 30.0) -> Services:
    """Services as another replica builds them, its scheduler's leases under `holder`."""
    services = Services.build(neo4j_server.settings(), db, embedder)
    services = replace(services, scheduler=Scheduler(leases=Leases(db, holder, lease_seconds)))
    schedule(services)
    return services


def _sweep_now(services: Services) -> None:
    services.scheduler._slots["curator.sweep"].next_run_at = time.time()  # the sweep's grid point is now


def test_two_replicas_sweeping_at_once_run_each_agents_cycle_once(api: Api, db: Database,
                                                                  neo4j_server: Neo4jUnderTest,
                                                                  embedder: Embedder) -> None:
    agents = [f"golem-sweep-{i}" for i in range(4)]
    for agent in agents:
        _life(api, agent)
    replicas = [_replica(db, neo4j_server, embedder, f"replica-{i}") for i in range(2)]
    try:
        for r in replicas:
            _sweep_now(r)
        _run_together([r.scheduler for r in replicas])
        states = [r.scheduler.job("curator.sweep") for r in replicas]
    finally:
        for r in replicas:
            r.curator.close()
    opened = [x for x in db.fetch("testing/audit_records") if x["action"] == "curator.open"]
    assert Counter(x["agent_id"] for x in opened) == Counter(agents), opened  # one cycle per agent, no agent twice
    assert sum(s.units_here for s in states) == len(agents)
    assert all(s.last_error is None for s in states), states
    assert all(_cycles(db, agent)[0]["status"] == "complete" for agent in agents)


def test_a_replica_killed_mid_cycle_leaves_it_to_another_within_the_lease_time(
        api: Api, db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder) -> None:
    agent, lease_seconds = "golem-killed", 20.0
    _life(api, agent)
    survivor = _replica(db, neo4j_server, embedder, "replica-survivor", lease_seconds)
    args = {"uri": neo4j_server.uri, "user": neo4j_server.user, "password": neo4j_server.password,
            "database": neo4j_server.database, "holder": "replica-killed", "lease_seconds": lease_seconds,
            "pause_seconds": 1.0}
    child = subprocess.Popen([sys.executable, str(ROOT / "tests/integration/lease_replica.py"), json.dumps(args)],
                             cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        ready = json.loads(child.stdout.readline())
        assert ready["pid"] == child.pid
        # It has applied at least one Curator operation of the cycle, and holds the agent's lease: kill it.
        applied = until(lambda: _operations(db, agent), 180, "an operation applied by the replica")
        os.kill(child.pid, signal.SIGKILL)
        child.wait(30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(30)
    [cycle] = [c for c in _cycles(db, agent)]
    assert cycle["status"] == "running"  # killed mid-cycle
    dead = Leases(db, "observer").seen([f"curator:{agent}"])[f"curator:{agent}"]
    assert dead.holder == "replica-killed"

    try:
        scheduler = survivor.scheduler
        _sweep_now(survivor)
        scheduler.run_due()
        # The dead replica's lease has not run out yet: the sweep left its agent, and comes back right after the
        # lease expires, not at its next grid point a period later.
        first = scheduler.job("curator.sweep")
        assert first.units_elsewhere == 1 and first.units_here == 0 and first.last_error is None
        assert first.retry_at is not None and first.retry_at <= time.time() + lease_seconds + 1
        assert first.next_run_at is not None and first.next_run_at - time.time() > 10 * lease_seconds
        until(lambda: (scheduler.run_due(), _cycles(db, agent)[0]["status"] == "complete")[1], 120,
              "the survivor to complete the cycle")
        assert scheduler.job("curator.sweep").units_here == 1
    finally:
        survivor.curator.close()
    [done] = _cycles(db, agent)
    assert done["id"] == cycle["id"] and done["status"] == "complete"  # the same cycle, resumed and completed
    now = Leases(db, "observer").seen([f"curator:{agent}"])[f"curator:{agent}"]
    assert now.token == dead.token + 1 and now.last_holder == "replica-survivor"

    # Every operation once in the audit trail: the killed replica's, and the survivor's after it.
    operations = {o["id"] for o in _operations(db, agent)}
    assert {o["id"] for o in applied} <= operations  # what the killed replica applied is kept, not redone
    audited = [op_id for record in db.fetch("testing/audit_records")
               if record["action"].startswith("curator.") and record["agent_id"] == agent
               for op in parse_revert(record["revert"])
               if isinstance(op, DeleteNodes) and op.label == NodeLabel.CuratorOperation for op_id in op.ids]
    assert Counter(audited) == Counter(operations), Counter(audited)
    actions = Counter(r["action"] for r in db.fetch("testing/audit_records") if r["agent_id"] == agent)
    assert actions["curator.open"] == 1 and actions["curator.complete"] == 1


def _cycles(db: Database, agent: str) -> list[dict[str, Any]]:
    return [r["cycle"] for r in db.fetch("learning/last_cycle", agent_id=agent)]


def _operations(db: Database, agent: str) -> list[dict[str, Any]]:
    cycles = _cycles(db, agent)
    if not cycles:
        return []
    return [r["operation"] for r in db.fetch("learning/cycle_operations", admin=True, viewer="",
                                             cycle_id=cycles[0]["id"])]


@pytest.fixture(autouse=True)
def _no_leftover_context() -> Iterator[None]:
    yield
    from grimoire.graph.db import fencing
    assert fencing.current.get() == ()  # no test leaves a fence set on the thread


def test_a_cycle_asked_for_by_hand_waits_for_the_replica_running_that_agents_cycle(api: Api, db: Database) -> None:
    """POST /curator/cycles takes the agent's lease as the sweep does: while another replica holds `curator:<agent>`
    it answers 503 with Retry-After (the open cycle's operations are never applied by two replicas at once)."""
    h = api.headers("golem-1")
    other = Leases(db, "replica-other")
    assert other.take("curator:golem-1").held
    busy = api.client.post("/curator/cycles", headers=h, json={})
    assert busy.status_code == 503 and busy.headers["Retry-After"], busy.text
    assert "replica-other" in busy.json()["detail"]
    pause_past_the_lease(db, "curator:golem-1")
    done = api.client.post("/curator/cycles", headers=h, json={})
    assert done.status_code == 200, done.text
