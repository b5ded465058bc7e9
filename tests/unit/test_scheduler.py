"""The scheduler's rules on a fake clock: intervals on a fixed grid, triggers that coalesce, a failing
job that keeps its schedule, one job at a time, and a stop that waits for the running job."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import pytest

from grimoire.graph.errors import NotFound
from grimoire.graph.scheduler import Job, JobState, Scheduler
from grimoire.graph.settings import Settings

START = 1_700_000_000.0


class FakeClock:
    def __init__(self, now: float = START):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def counter(calls: list[str], name: str, then: Callable[[], object] | None = None) -> Callable[[], object]:
    def run() -> object:
        calls.append(name)
        return then() if then else None

    return run


def state(scheduler: Scheduler, name: str) -> JobState:
    return next(s for s in scheduler.jobs() if s.name == name)


def wait_until(condition: Callable[[], bool], seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def begin(scheduler: Scheduler, clock: FakeClock) -> None:
    """What start() does to the schedule, without the thread."""
    for slot in scheduler._slots.values():
        slot.schedule_first(clock())


def test_a_job_runs_every_interval_on_a_fixed_grid(clock: FakeClock) -> None:
    calls: list[str] = []
    scheduler = Scheduler(clock)
    scheduler.add(Job("a", 10, counter(calls, "a"), "every ten seconds"))
    assert state(scheduler, "a").next_run_at is None  # not started: nothing scheduled
    begin(scheduler, clock)
    assert state(scheduler, "a").next_run_at == START + 10

    clock.advance(9.9)
    assert scheduler.run_due() == []
    clock.advance(0.1)
    assert scheduler.run_due() == ["a"]
    assert scheduler.run_due() == []  # once per grid point
    a = state(scheduler, "a")
    assert (a.runs, a.failures, a.last_run_at, a.next_run_at) == (1, 0, START + 10, START + 20)
    assert a.description == "every ten seconds" and a.every_seconds == 10 and not a.running

    clock.advance(13)  # late: runs once, and the grid stays where it was
    assert scheduler.run_due() == ["a"]
    assert state(scheduler, "a").next_run_at == START + 30
    assert calls == ["a", "a"]


def test_first_after_seconds_and_a_run_that_overruns_skips_the_points_it_missed(clock: FakeClock) -> None:
    scheduler = Scheduler(clock)
    scheduler.add(Job("now", 10, lambda: clock.advance(25), first_after_seconds=0))
    begin(scheduler, clock)
    assert scheduler.run_due() == ["now"]  # due at once, takes 25 s
    now = state(scheduler, "now")
    assert now.last_duration_ms == 25_000
    assert now.next_run_at == START + 30  # 10 and 20 were missed: no catching up back to back
    clock.advance(4.9)
    assert scheduler.run_due() == []


def test_the_most_overdue_runs_first_one_at_a_time(clock: FakeClock) -> None:
    calls: list[str] = []
    scheduler = Scheduler(clock)
    seen: list[list[str]] = []

    def busy(name: str) -> Callable[[], object]:
        def run() -> None:
            calls.append(name)
            seen.append([s.name for s in scheduler.jobs() if s.running])

        return run

    scheduler.add(Job("slow", 30, busy("slow")))
    scheduler.add(Job("fast", 5, busy("fast")))
    begin(scheduler, clock)
    clock.advance(30)
    assert scheduler.run_due() == ["fast", "slow"]  # fast was due at 5, slow at 30
    assert seen == [["fast"], ["slow"]]  # never two running


def test_triggers_coalesce(clock: FakeClock) -> None:
    calls: list[str] = []
    scheduler = Scheduler(clock)
    scheduler.add(Job("a", 3600, counter(calls, "a")))
    begin(scheduler, clock)
    assert scheduler.trigger("a") is True
    assert scheduler.trigger("a") is False  # already asked for: one run
    assert state(scheduler, "a").triggered
    assert scheduler.run_due() == ["a"]
    assert scheduler.run_due() == []
    a = state(scheduler, "a")
    assert a.runs == 1 and not a.triggered
    assert a.next_run_at == START + 3600  # a triggered run leaves the schedule alone


def test_a_trigger_during_a_run_asks_for_exactly_one_more(clock: FakeClock) -> None:
    scheduler = Scheduler(clock)
    calls: list[str] = []

    def run() -> None:
        calls.append("a")
        if len(calls) == 1:
            assert scheduler.trigger("a") is True
            assert scheduler.trigger("a") is False

    scheduler.add(Job("a", 3600, run))
    begin(scheduler, clock)
    scheduler.trigger("a")
    assert scheduler.run_due() == ["a", "a"]
    assert scheduler.run_due() == []


def test_unknown_jobs_and_bad_jobs(clock: FakeClock) -> None:
    scheduler = Scheduler(clock)
    scheduler.add(Job("a", 1, lambda: None))
    with pytest.raises(NotFound):
        scheduler.trigger("nope")
    with pytest.raises(ValueError, match="already scheduled"):
        scheduler.add(Job("a", 2, lambda: None))
    with pytest.raises(ValueError):
        Job("b", 0, lambda: None)
    with pytest.raises(ValueError):
        Job("", 1, lambda: None)


def test_a_failing_job_records_its_error_and_keeps_its_schedule(clock: FakeClock,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    calls: list[str] = []
    failing = [True]

    def flaky() -> None:
        calls.append("flaky")
        if failing[0]:
            raise RuntimeError("boom for golem-1")

    scheduler = Scheduler(clock)
    scheduler.add(Job("flaky", 10, flaky))
    scheduler.add(Job("other", 10, counter(calls, "other")))
    begin(scheduler, clock)
    clock.advance(10)
    with caplog.at_level(logging.ERROR, logger="grimoire.graph.scheduler"):
        assert scheduler.run_due() == ["flaky", "other"]  # the failure stops nothing
    assert "job flaky failed" in caplog.text and "boom for golem-1" in caplog.text
    flaky_state = state(scheduler, "flaky")
    assert flaky_state.last_error == "RuntimeError: boom for golem-1"
    assert (flaky_state.runs, flaky_state.failures, flaky_state.next_run_at) == (1, 1, START + 20)

    clock.advance(10)
    failing[0] = False
    assert scheduler.run_due() == ["flaky", "other"]
    flaky_state = state(scheduler, "flaky")
    assert (flaky_state.runs, flaky_state.failures, flaky_state.last_error) == (2, 1, None)


def test_a_long_run_is_logged_at_info(clock: FakeClock, caplog: pytest.LogCaptureFixture) -> None:
    scheduler = Scheduler(clock, long_run_seconds=1.0)
    scheduler.add(Job("quick", 10, lambda: "3 things", first_after_seconds=0))
    scheduler.add(Job("long", 10, lambda: clock.advance(2) or "42 things", first_after_seconds=0))
    begin(scheduler, clock)
    with caplog.at_level(logging.INFO, logger="grimoire.graph.scheduler"):
        scheduler.run_due()
    assert "job long done in 2000 ms: 42 things" in caplog.text
    assert "quick" not in caplog.text  # short runs log at DEBUG


def test_the_thread_runs_jobs_by_the_clock_and_on_trigger(clock: FakeClock) -> None:
    ran: list[str] = []
    threads: list[str] = []

    def run() -> None:
        ran.append("a")
        threads.append(threading.current_thread().name)

    scheduler = Scheduler(clock, max_wait_seconds=0.01)
    scheduler.add(Job("a", 60, run))
    scheduler.start()
    try:
        assert scheduler.running
        with pytest.raises(RuntimeError):
            scheduler.start()
        time.sleep(0.05)
        assert ran == []  # not due yet
        clock.advance(60)
        wait_until(lambda: state(scheduler, "a").runs == 1)
        scheduler.trigger("a")
        wait_until(lambda: state(scheduler, "a").runs == 2)
        scheduler.add(Job("late", 5, lambda: None))  # added while running: scheduled from now
        assert state(scheduler, "late").next_run_at == clock() + 5
    finally:
        assert scheduler.stop(5)
    assert threads == ["grimoire-scheduler"] * 2
    assert not scheduler.running
    assert all(s.next_run_at is None for s in scheduler.jobs())


def test_stop_waits_for_the_running_job(clock: FakeClock) -> None:
    entered, release, finished = threading.Event(), threading.Event(), threading.Event()

    def slow() -> None:
        entered.set()
        release.wait(5)
        finished.set()

    scheduler = Scheduler(clock)
    scheduler.add(Job("slow", 3600, slow))
    scheduler.start()
    scheduler.trigger("slow")
    assert entered.wait(5)
    assert scheduler.stop(0.05) is False  # still running: not abandoned silently
    assert scheduler.stopping and not scheduler.running
    threading.Timer(0.1, release.set).start()
    assert scheduler.stop(5) is True
    assert finished.is_set()  # stop returned after the job ended
    assert scheduler._thread is None


def test_stopping_runs_nothing_more_and_a_stopped_scheduler_stops_at_once(clock: FakeClock) -> None:
    calls: list[str] = []
    scheduler = Scheduler(clock)
    assert scheduler.stop(1) is True  # never started
    scheduler.add(Job("a", 1, counter(calls, "a")))
    scheduler.start()
    assert scheduler.stop(5)
    clock.advance(10)
    time.sleep(0.02)
    assert calls == []


def test_jobs_never_overlap_across_threads() -> None:
    active, most = [0], [0]
    lock = threading.Lock()

    def job() -> None:
        with lock:
            active[0] += 1
            most[0] = max(most[0], active[0])
        time.sleep(0.02)
        with lock:
            active[0] -= 1

    scheduler = Scheduler(max_wait_seconds=0.01)
    for name in "abc":
        scheduler.add(Job(name, 0.01, job, first_after_seconds=0))
    scheduler.start()
    try:
        for _ in range(5):
            scheduler.run_due()  # on this thread, while the scheduler's runs the same jobs
        wait_until(lambda: all(s.runs >= 3 for s in scheduler.jobs()))
    finally:
        assert scheduler.stop(5)
    assert most[0] == 1


def test_the_service_runs_its_scheduler_by_default() -> None:
    """`make up` runs `grimoire up`, which serves create_app in its own process; the lifespan starts
    the scheduler unless GRIMOIRE_SCHEDULER=false."""
    fields = Settings.model_fields
    assert fields["scheduler_enabled"].default is True and fields["scheduler_enabled"].alias == "GRIMOIRE_SCHEDULER"
    assert fields["access_log_retention_days"].default == 30
