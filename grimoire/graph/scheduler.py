"""One scheduler for every periodic job the service runs, on one daemon thread inside the API's own
process (`grimoire serve` and `grimoire up`, hence `make up`): no extra process, no cron.

Jobs run one at a time on that thread, so the service's two cores are never shared by two jobs and no
job (the Curator's cycle above all) ever runs twice at once. A job runs every `every_seconds` on a
fixed grid (the first run `first_after_seconds` after the scheduler starts, one interval by default);
a run that overruns skips the grid points it missed instead of running back to back. A failing job
logs its exception, records it (`last_error`, `failures`) and keeps its schedule. `trigger(name)`
runs a job as soon as the thread is free; triggers that arrive before it starts are one run, and a
trigger during a run asks for exactly one more after it.

Composition-level infrastructure, like graph/services.py: Services builds the scheduler and adds the
jobs (one line each); subsystems never import this module, they expose plain functions it calls.
The clock is injectable: unit tests drive the schedule with a fake one and `run_due()`.

Across replicas (graph/leases.py). Every replica of the service (`grimoire up --workers N`, replicas on other
hosts on the same Neo4j) runs its own scheduler; given `leases`, a job runs once per period across all of them: a
`once` job only under its lease, and skipped when another replica completed the period's run; a `per_agent` job on
every replica, each agent's unit under that agent's lease; a `local` job on every replica, on its own state. A job
whose lease (or an agent's) another replica holds is tried again soon after that lease expires, not a period later,
so a replica killed mid-job leaves its work to the next one within the lease time. The job runs with its fencing
token set (graph/db/fencing.py): its writes commit only while its lease is this replica's. Without `leases` (tests,
one-off runs) every job runs on this scheduler alone, as before.

The jobs the service has today are at the end of this module: pruning the access log.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Literal

from grimoire.graph import leases as leasing
from grimoire.graph import logs, meters, observe
from grimoire.graph.audit import channel as channels
from grimoire.graph.audit.access import PRUNE_BATCH, prune
from grimoire.graph.db.connection import Database
from grimoire.graph.db.fencing import LeaseLost
from grimoire.graph.errors import NotFound
from grimoire.graph.ids import now_ms

log = logging.getLogger(__name__)

Clock = Callable[[], float]
"""Seconds since the epoch (time.time); a test passes a fake."""

DAY_SECONDS = 86_400.0
MAX_ERROR_CHARS = 2_000
LeaseMode = Literal["once", "per_agent", "local"]
LEASE_MODES: tuple[LeaseMode, ...] = ("once", "per_agent", "local")
Outcome = Literal["ran", "done_elsewhere", "held_elsewhere", "lease_lost"]


@dataclass(frozen=True)
class Job:
    """A periodic job: `run` is called with no arguments on the scheduler's thread; what it returns
    is logged (a count, a summary), what it raises is recorded as the run's error."""

    name: str
    every_seconds: float
    run: Callable[[], object]
    description: str = ""
    first_after_seconds: float | None = None  # None: one interval after the scheduler starts
    # Across replicas (graph/leases.py): `once` per period under the job's lease; `per_agent` on every replica, each
    # agent's unit under its own lease; `local` on every replica, on the replica's own state.
    lease: LeaseMode = "once"

    def __post_init__(self) -> None:
        if self.lease not in LEASE_MODES:
            raise ValueError(f"job {self.name}: lease must be one of {', '.join(LEASE_MODES)}, not {self.lease!r}")
        if not self.name:
            raise ValueError("a job needs a name")
        if not self.every_seconds > 0:
            raise ValueError(f"job {self.name}: every_seconds must be positive, not {self.every_seconds}")
        if self.first_after_seconds is not None and self.first_after_seconds < 0:
            raise ValueError(f"job {self.name}: first_after_seconds must not be negative")


@dataclass(frozen=True)
class JobState:
    """A job as the scheduler sees it now. Times are the clock's (epoch seconds); `next_run_at` is
    None while the scheduler is not started; `last_error` is the last run's (None when it succeeded)."""

    name: str
    description: str
    every_seconds: float
    next_run_at: float | None
    last_run_at: float | None
    last_duration_ms: float | None
    last_error: str | None
    last_result: str | None  # what the last successful run returned (a count, a summary), shortened
    runs: int
    failures: int
    running: bool
    triggered: bool  # a run was asked for (trigger) and has not started yet
    # Across replicas (graph/leases.py); all None/0 on a scheduler without leases.
    lease: LeaseMode | None = None       # how the job is shared between replicas
    last_outcome: Outcome | None = None  # the last attempt: ran here, skipped (done or held elsewhere), lease lost
    lease_holder: str | None = None      # who held the job's lease at the last attempt (or last completed a period)
    lease_token: int | None = None       # its fencing token then
    period: int | None = None            # the job's current period on the epoch grid (floor(now / every_seconds))
    period_done: int | None = None       # the last period whose run completed, on any replica, as last seen
    skipped: int = 0                     # attempts this replica left to another (done or held elsewhere)
    retry_at: float | None = None        # when a lease held elsewhere is looked at again (its expiry)
    units_here: int = 0                  # per-agent units the last run did here ...
    units_elsewhere: int = 0             # ... and left to other replicas (done or held there)


@dataclass
class _Facts:
    """The lease facts of a job's JobState, as this scheduler last saw them."""

    last_outcome: Outcome | None = None
    lease_holder: str | None = None
    lease_token: int | None = None
    period_done: int | None = None
    skipped: int = 0
    units_here: int = 0
    units_elsewhere: int = 0


@dataclass
class _Attempt:
    """What one turn of a job on this scheduler came to."""

    ran: bool = False
    period: int | None = None  # the period it ran for (None: asked for by hand, or a local job)
    result: object = None
    error: str | None = None
    outcome: Outcome | None = None
    seen: leasing.Seen | None = None
    units: leasing.Units | None = None
    retry_in: float | None = None
    late: bool = False  # a retry of a period found held elsewhere


@dataclass
class _Slot:
    job: Job
    order: int
    next_run_at: float | None = None
    last_run_at: float | None = None
    last_duration_ms: float | None = None
    last_error: str | None = None
    last_result: str | None = None
    runs: int = 0
    failures: int = 0
    running: bool = False
    triggered: bool = False
    this_triggered: bool = False  # the run under way was asked for (trigger)
    retry_at: float | None = None
    retry_period: int | None = None  # the period a retry is for: the one found held, even once the clock passed it
    facts: _Facts = field(default_factory=_Facts)

    def state(self, leased: bool = False, now: float | None = None) -> JobState:
        period = leasing.period_of(now, self.job.every_seconds) if leased and now is not None else None
        return JobState(
            name=self.job.name, description=self.job.description, every_seconds=self.job.every_seconds,
            next_run_at=self.next_run_at, last_run_at=self.last_run_at, last_duration_ms=self.last_duration_ms,
            last_error=self.last_error, last_result=self.last_result, runs=self.runs, failures=self.failures,
            running=self.running, triggered=self.triggered, lease=self.job.lease if leased else None,
            retry_at=self.retry_at, period=period, **asdict(self.facts),
        )

    def schedule_first(self, now: float) -> None:
        first = self.job.first_after_seconds
        self.next_run_at = now + (self.job.every_seconds if first is None else first)

    def due(self, now: float) -> bool:
        if self.running:
            return False
        if self.retry_at is not None:  # a lease held elsewhere: looked at again when it expires
            return self.retry_at <= now or (self.next_run_at is not None and self.next_run_at <= now)
        return self.triggered or (self.next_run_at is not None and self.next_run_at <= now)

    def advance(self, finished: float) -> None:
        """The next grid point after `finished` (the grid: the first run time plus whole intervals)."""
        if self.next_run_at is not None and self.next_run_at <= finished:
            missed = math.floor((finished - self.next_run_at) / self.job.every_seconds) + 1
            self.next_run_at += missed * self.job.every_seconds


class Scheduler:
    """Runs its jobs one at a time on one daemon thread (`start`, `stop`), or on the caller's thread
    (`run_due`, for tests and one-off runs); both never overlap."""

    def __init__(self, clock: Clock = time.time, *, max_wait_seconds: float = 60.0,
                 long_run_seconds: float = 1.0, leases: leasing.Leases | None = None):
        """`max_wait_seconds`: the longest the idle thread sleeps before it looks at the clock again
        (a wall clock may jump; a test's fake clock advances without telling). `long_run_seconds`:
        a run at least this long is logged at INFO, shorter ones at DEBUG. `leases`: this replica's leases,
        shared with the other replicas' schedulers on the same database (graph/leases.py); None: alone."""
        self._clock = clock
        self._leases = leases
        self._max_wait = max_wait_seconds
        self._long_run = long_run_seconds
        self._slots: dict[str, _Slot] = {}
        self._cond = threading.Condition()
        self._run_lock = threading.Lock()  # one job at a time, whichever thread runs it
        self._thread: threading.Thread | None = None
        self._stopping = False

    # -- the jobs

    def add(self, job: Job) -> Job:
        """Schedule `job` (its first run `first_after_seconds` after start, or after now when the
        scheduler already runs). Names are unique."""
        with self._cond:
            if job.name in self._slots:
                raise ValueError(f"a job named {job.name!r} is already scheduled")
            slot = _Slot(job, order=len(self._slots))
            if self.running:
                slot.schedule_first(self._clock())
            self._slots[job.name] = slot
            self._cond.notify_all()
        return job

    def jobs(self) -> list[JobState]:
        """Every job's state, in the order they were added."""
        with self._cond:
            now, leased = self._clock(), self._leases is not None
            return [slot.state(leased, now) for slot in sorted(self._slots.values(), key=lambda s: s.order)]

    def job(self, name: str) -> JobState:
        with self._cond:
            return self._slot(name).state(self._leases is not None, self._clock())

    @property
    def replica(self) -> str | None:
        """This replica's id, the holder its leases name (None without leases)."""
        return self._leases.holder if self._leases is not None else None

    @property
    def leases(self) -> leasing.Leases | None:
        """This replica's leases (None without them): work asked for outside a job takes an agent's lease here."""
        return self._leases

    def lease_lost(self) -> bool:
        """A lease a job of this scheduler holds failed to renew: the job should stop (its writes would fail)."""
        return self._leases is not None and self._leases.lost()

    def trigger(self, name: str) -> bool:
        """Run `name` as soon as the thread is free. False when a run was already asked for and has
        not started (the triggers coalesce into it); a trigger during a run asks for one more."""
        with self._cond:
            slot = self._slot(name)
            if slot.triggered:
                return False
            slot.triggered = True
            self._cond.notify_all()
            return True

    def _slot(self, name: str) -> _Slot:
        slot = self._slots.get(name)
        if slot is None:
            raise NotFound(f"no scheduled job named {name!r}")
        return slot

    # -- the thread

    @property
    def running(self) -> bool:
        """The thread is started and not asked to stop."""
        return self._thread is not None and self._thread.is_alive() and not self._stopping

    @property
    def stopping(self) -> bool:
        """Asked to stop: a long job may check this between its bounded steps and return early."""
        return self._stopping

    def start(self) -> None:
        """Start the thread (a daemon: it never keeps the process alive). The jobs' grids start now."""
        with self._cond:
            if self._thread is not None and self._thread.is_alive():
                raise RuntimeError("the scheduler is already running")
            self._stopping = False
            now = self._clock()
            for slot in self._slots.values():
                slot.schedule_first(now)
            self._thread = threading.Thread(target=self._loop, name="grimoire-scheduler", daemon=True)
            self._thread.start()
        log.info("scheduler started: %s", ", ".join(
            f"{s.job.name} every {s.job.every_seconds:g}s" for s in self._slots.values()) or "no jobs")

    def stop(self, timeout: float = 30.0) -> bool:
        """Ask the thread to stop and wait for it (a job that is running finishes first). True when
        it has stopped, False when a job still runs after `timeout` seconds."""
        with self._cond:
            self._stopping = True
            thread = self._thread
            self._cond.notify_all()
        if thread is None:
            return True
        thread.join(timeout)
        if thread.is_alive():
            busy = [s.job.name for s in self._slots.values() if s.running]
            log.warning("scheduler: still running %s after %.0f s; not waiting longer", busy, timeout)
            return False
        with self._cond:
            self._thread = None
            for slot in self._slots.values():
                slot.next_run_at = None
        log.info("scheduler stopped")
        return True

    def _loop(self) -> None:
        logs.request_id.set("scheduler")
        while True:
            with self._cond:
                slot = None
                while slot is None:
                    if self._stopping:
                        return
                    slot = self._take_due()
                    if slot is None:
                        self._cond.wait(self._wait_seconds())
            self._execute(slot)

    def _take_due(self, skip: frozenset[str] = frozenset()) -> _Slot | None:
        """The job to run now, marked running (under the lock): triggered ones first, then the most
        overdue, then the first added."""
        now = self._clock()
        due = [s for s in self._slots.values() if s.due(now) and s.job.name not in skip]
        if not due:
            return None
        slot = min(due, key=lambda s: (not s.triggered, s.next_run_at if s.next_run_at is not None else now, s.order))
        slot.running, slot.this_triggered, slot.triggered = True, slot.triggered, False
        return slot

    def _wait_seconds(self) -> float:
        now = self._clock()
        idle = [s for s in self._slots.values() if not s.running]
        nexts = [s.next_run_at - now for s in idle if s.next_run_at is not None]
        nexts += [s.retry_at - now for s in idle if s.retry_at is not None]
        return max(0.0, min([self._max_wait, *nexts]))

    # -- running a job

    def run_due(self) -> list[str]:
        """Run every job due now, one at a time, on the caller's thread, each at most once (a trigger
        during its run makes it due again: once more); the names run, in order. For tests with a
        fake clock and one-off runs; the thread does the same, continuously."""
        tried: list[str] = []
        ran: list[str] = []
        while True:
            with self._cond:
                done = frozenset(n for n in tried if not self._slots[n].triggered or tried.count(n) > 1)
                slot = self._take_due(done)
            if slot is None:
                return ran
            if self._execute(slot):
                ran.append(slot.job.name)
            tried.append(slot.job.name)

    def _execute(self, slot: _Slot) -> bool:
        """Run the job (marked running by the caller) when this replica may, and record the outcome; whether it
        ran (or failed trying)."""
        job = slot.job
        with self._run_lock:
            started = self._clock()
            token = logs.request_id.set(f"job:{job.name}")
            via = channels.current.set(channels.Channel.scheduler)
            attempt = _Attempt()
            log.debug("job %s started", job.name)
            try:
                with observe.span("job", job.name):  # on the monotonic clock: the schedule's may be a test's
                    self._attempt(slot, started, attempt)
            except Exception as exc:  # a failing job must not stop the others
                attempt.error = f"{type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS]
                attempt.outcome = "lease_lost" if isinstance(exc, LeaseLost) else attempt.outcome
                log.exception("job %s failed", job.name)
            finally:
                finished = self._clock()
                logs.request_id.reset(token)
                channels.current.reset(via)
        ms = max(0.0, (finished - started) * 1000)
        ran = attempt.ran or attempt.error is not None
        meters.job_turn(job.name, attempt.outcome, ms / 1000, attempt.error is not None, ran)
        with self._cond:
            slot.running = False
            if ran:
                slot.runs += 1
                slot.failures += attempt.error is not None
                slot.last_error = attempt.error
                slot.last_result = (None if attempt.error is not None or attempt.result is None
                                    else str(attempt.result)[:MAX_ERROR_CHARS])
                slot.last_run_at = started
                slot.last_duration_ms = ms
            self._note_lease(slot, attempt, finished)
            slot.advance(finished)
            if (attempt.late and slot.retry_at is None and attempt.period is not None
                    and attempt.period < leasing.period_of(finished, job.every_seconds)):
                slot.next_run_at = finished  # an earlier period settled late: the current one is still to do
            self._cond.notify_all()
        if ran and attempt.error is None:
            level = logging.INFO if ms >= self._long_run * 1000 else logging.DEBUG
            log.log(level, "job %s done in %.0f ms%s", job.name, ms,
                    "" if attempt.result is None else f": {attempt.result}")
        elif not ran:
            log.debug("job %s left to another replica: %s", job.name, attempt.outcome)
        return ran

    def _note_lease(self, slot: _Slot, attempt: _Attempt, finished: float) -> None:
        """What the attempt found of the leases, for JobState; a trigger that could not run yet stays asked for."""
        if self._leases is None:
            return
        facts = slot.facts
        facts.last_outcome = attempt.outcome
        facts.skipped += attempt.outcome in ("done_elsewhere", "held_elsewhere")
        if attempt.seen is not None:
            seen = attempt.seen
            facts.lease_holder, facts.lease_token = seen.holder or seen.last_holder, seen.token
            facts.period_done = seen.period
        if attempt.ran and attempt.error is None and attempt.retry_in is None and attempt.period is not None:
            facts.period_done = max(attempt.period, facts.period_done or attempt.period)  # completed here
        if attempt.units is not None:
            facts.units_here = attempt.units.here
            facts.units_elsewhere = attempt.units.done_elsewhere + len(attempt.units.held_elsewhere)
        slot.retry_at = None if attempt.retry_in is None else finished + attempt.retry_in
        slot.retry_period = None if attempt.retry_in is None else attempt.period
        if attempt.outcome == "held_elsewhere" and slot.this_triggered:
            slot.triggered = True  # asked for by hand: it runs once the other replica's run is over
        slot.this_triggered = False

    def _attempt(self, slot: _Slot, now: float, attempt: _Attempt) -> None:
        """Run the job when this replica may (graph/leases.py), noting in `attempt` what it came to."""
        job, leases = slot.job, self._leases
        if leases is None:
            attempt.ran, attempt.outcome = True, "ran"
            attempt.result = job.run()
            return
        period = None if slot.this_triggered or job.lease == "local" else (
            # A retry is for the period it found held: a holder that died near the period's end leaves that
            # period to this replica, which would otherwise skip it for the next one.
            slot.retry_period if slot.retry_period is not None else leasing.period_of(now, job.every_seconds))
        attempt.period, attempt.late = period, slot.retry_period is not None and period == slot.retry_period
        if job.lease == "once":
            self._once(job, leases, period, attempt)
        else:
            self._per_agent(job, leases, period, attempt)

    def _once(self, job: Job, leases: leasing.Leases, period: int | None, attempt: _Attempt) -> None:
        """Under the job's lease, for `period` (None: asked for by hand): run, or leave it to the replica that
        completed the period or holds the lease (and look again when that lease expires)."""
        with leases.hold(job.name, period) as seen:
            attempt.seen = seen
            if seen.held:
                attempt.ran, attempt.outcome = True, "ran"
                attempt.result = job.run()
                return
        if seen.done(period):
            attempt.outcome = "done_elsewhere"
            return
        attempt.outcome = "held_elsewhere"
        attempt.retry_in = max(0.0, seen.expires_in or 0.0) + leasing.RETRY_MARGIN_SECONDS

    def _per_agent(self, job: Job, leases: leasing.Leases, period: int | None, attempt: _Attempt) -> None:
        """On this replica, each agent's unit under its own lease for `period`; the period marked done when no unit
        was left held elsewhere, and looked at again when the first such lease expires otherwise."""
        if period is not None:
            seen = leases.seen([job.name]).get(job.name)
            if seen is not None and seen.done(period):
                attempt.seen, attempt.outcome = seen, "done_elsewhere"
                return
        units = leasing.Units(leases, period)
        attempt.units, attempt.ran, attempt.outcome = units, True, "ran"
        with leasing.running(units):
            attempt.result = job.run()
        attempt.retry_in = units.retry_in()
        if period is not None and attempt.retry_in is None and not self._stopping and not leases.lost():
            leases.complete(job.name, period)


# -- the jobs the service runs today (Services.build adds them)

def access_log_pruning(db: Database, retention_days: float, *, cancelled: Callable[[], bool] = lambda: False,
                       every_seconds: float = DAY_SECONDS, first_after_seconds: float = 60.0) -> Job:
    """Daily: delete access records older than `retention_days` (graph/audit/access.py)."""
    retention_ms = int(retention_days * DAY_SECONDS * 1000)

    def run() -> str:
        deleted = prune(db, now_ms() - retention_ms, cancelled=cancelled)
        if deleted:
            log.info("access log: %d records older than %g days pruned", deleted, retention_days)
        return f"{deleted} access records pruned"

    return Job("access_log.prune", every_seconds, run,
               f"delete access records older than {retention_days:g} days, {PRUNE_BATCH} per transaction",
               first_after_seconds=first_after_seconds)
