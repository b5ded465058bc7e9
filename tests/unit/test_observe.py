"""graph/observe.py: spans and stopwatch laps reach every registered observer, with their kind, name, duration and
error; an observer that fails never breaks the work; unregistering stops the calls."""

from __future__ import annotations

import time

import pytest

from grimoire.graph import observe
from grimoire.graph.observe import Observer, Stopwatch, Timing
from grimoire.graph.scheduler import Job, Scheduler
from tests.conftest import Recorder


class Broken(Observer):
    def began(self, kind: str, name: str) -> object:
        raise RuntimeError("began")

    def ended(self, timing: Timing, handle: object = None) -> None:
        raise RuntimeError("ended")


def test_a_span_is_told_when_it_begins_and_ends(recorder: Recorder) -> None:
    with observe.span("cypher", "retrieval/fulltext") as s:
        time.sleep(0.01)
    assert recorder.began_with == [("cypher", "retrieval/fulltext")]
    [(timing, handle)] = recorder.timings
    assert (timing.kind, timing.name, timing.error, handle) == ("cypher", "retrieval/fulltext", None,
                                                                "handle:retrieval/fulltext")
    assert timing.seconds >= 0.01 and s.seconds == timing.seconds and timing.ms == pytest.approx(s.ms)


def test_a_span_ended_by_an_error_says_so_and_the_error_goes_on(recorder: Recorder) -> None:
    with pytest.raises(ValueError, match="boom"), observe.span("job", "ttl_purge"):
        raise ValueError("boom")
    [(timing, _)] = recorder.timings
    assert isinstance(timing.error, ValueError) and timing.name == "ttl_purge"


def test_stopwatch_laps_are_consecutive_add_up_by_stage_and_are_told(recorder: Recorder) -> None:
    watch = Stopwatch("retrieval")
    time.sleep(0.01)
    first = watch.lap("vector")
    watch.lap("bm25")
    time.sleep(0.005)
    watch.lap("vector")
    assert list(watch.laps) == ["vector", "bm25"]
    assert first >= 10 and watch.laps["vector"] >= first + 5
    assert watch.total_ms() >= sum(watch.laps.values()) - 0.05  # rounding only
    assert watch.seconds("vector") == round(watch.laps["vector"] / 1000, 3)
    assert [(t.kind, t.name) for t, _ in recorder.timings] == [("retrieval", "vector"), ("retrieval", "bm25"),
                                                               ("retrieval", "vector")]
    starts = [t.started for t, _ in recorder.timings]
    assert starts == sorted(starts)  # each lap starts where the one before ended
    assert recorder.began_with == []  # a lap is known only once it ends


def test_a_failing_observer_never_breaks_the_work(recorder: Recorder, caplog: pytest.LogCaptureFixture) -> None:
    unregister = observe.register(Broken())
    try:
        with observe.span("cypher", "x"):
            pass
        Stopwatch("context").lap("fetch")
    finally:
        unregister()
    assert [t.name for t, _ in recorder.timings] == ["x", "fetch"]  # the other observer still told
    assert sum("observer failed" in r.getMessage() for r in caplog.records) == 3


def test_unregistered_observers_are_told_nothing() -> None:
    r = Recorder()
    observe.register(r)()
    with observe.span("cypher", "x"):
        pass
    Stopwatch("retrieval").lap("final")
    assert r.timings == [] and r.began_with == []


def test_a_scheduled_job_reaches_the_observer_with_its_error(recorder: Recorder) -> None:
    def fails() -> None:
        raise RuntimeError("the job broke")

    scheduler = Scheduler()
    scheduler.add(Job("observed_ok", 3600, lambda: "done"))
    scheduler.add(Job("observed_broken", 3600, fails))
    scheduler.trigger("observed_ok")
    scheduler.trigger("observed_broken")
    scheduler.run_due()
    jobs = {t.name: t for t in recorder.of("job")}
    assert jobs["observed_ok"].error is None
    assert isinstance(jobs["observed_broken"].error, RuntimeError)
