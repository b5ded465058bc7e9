"""graph/timed.py: what it keeps, for how long, what a drop takes, and its bound."""

from __future__ import annotations

from grimoire.graph.timed import Timed


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_an_entry_is_current_until_its_expiry_and_a_held_none_is_a_value() -> None:
    clock = Clock()
    held: Timed[str, int | None] = Timed(1.0, clock=clock)
    held.put("a", 1)
    held.put("none", None)
    held.put("long", 3, 5.0)
    assert held.lookup("a") == (True, 1) and held.lookup("none") == (True, None) and held.lookup("b") == (False, None)
    clock.now += 1.0
    assert held.lookup("a") == (False, None) and held.get("long") == 3
    clock.now += 4.0
    assert held.get("long") is None


def test_get_or_load_loads_once_while_current() -> None:
    clock = Clock()
    held: Timed[str, int] = Timed(1.0, clock=clock)
    loads: list[int] = []

    def load() -> int:
        loads.append(1)
        return len(loads)

    assert held.get_or_load("k", load) == 1 and held.get_or_load("k", load) == 1
    clock.now += 1.5
    assert held.get_or_load("k", load) == 2 and len(loads) == 2


def test_put_for_no_time_drops_and_drop_takes_what_it_names() -> None:
    held: Timed[str, int] = Timed(1.0)
    held.put("a", 1)
    held.put("a", 2, 0.0)
    assert held.lookup("a") == (False, None) and len(held) == 0
    held.put("x1", 1)
    held.put("x2", 2)
    held.put("y", 3)
    held.drop(lambda key, value: key.startswith("x") and value > 1)
    assert held.get("x1") == 1 and held.get("x2") is None and held.get("y") == 3


def test_past_the_bound_the_expired_go_first_then_all() -> None:
    clock = Clock()
    held: Timed[str, int] = Timed(1.0, held=3, clock=clock)
    held.put("old", 0, 0.5)
    held.put("a", 1)
    held.put("b", 2)
    clock.now += 0.6
    held.put("c", 3)  # full: the expired one goes
    assert len(held) == 3 and held.get("a") == 1
    held.put("d", 4)  # full of current entries: all go
    assert len(held) == 1 and held.get("d") == 4


def _settled(held: Timed[str, int]) -> None:
    """Until no read ahead is under way (each is a function call on the module's pool: it ends)."""
    import time

    while held.reading():
        time.sleep(0.001)


def test_an_entry_asked_for_past_half_its_time_is_read_again_off_the_callers_path() -> None:
    """Issue 41: a key asked for steadily is never loaded by a caller once it is held; each caller still gets an entry
    that has not expired."""
    import threading

    clock = Clock()
    held: Timed[str, int] = Timed(1.0, clock=clock)
    loads: list[str] = []
    release = threading.Event()

    def load() -> int:
        loads.append(threading.current_thread().name)
        if len(loads) > 1:
            release.wait(5)
        return len(loads)

    assert held.get_or_load("k", load) == 1 and len(loads) == 1  # the first: read by the caller
    clock.now += 0.4
    assert held.get_or_load("k", load) == 1 and len(loads) == 1  # young: not read again
    clock.now += 0.2
    assert held.get_or_load("k", load) == 1  # past half its time: the held value, and a read begins beside
    assert held.get_or_load("k", load) == 1  # one read ahead per key at a time
    release.set()
    _settled(held)
    assert len(loads) == 2 and loads[1].startswith("timed-ahead")
    clock.now += 0.45  # past the first entry's expiry (101.0), before the new one's half (101.1): it is current
    assert held.get_or_load("k", load) == 2 and len(loads) == 2


def test_a_drop_during_a_read_ahead_wins_and_a_failed_one_leaves_the_entry_to_expire() -> None:
    import threading

    clock = Clock()
    held: Timed[str, int] = Timed(1.0, clock=clock)
    started, release = threading.Event(), threading.Event()
    value = [1]

    def load() -> int:
        if value[0] > 1:
            started.set()
            release.wait(5)
        return value[0]

    held.get_or_load("k", load)
    clock.now += 0.6
    value[0] = 2
    held.get_or_load("k", load)  # a read ahead begins, then a write drops the entry
    started.wait(5)
    held.drop(lambda key, _: key == "k")
    release.set()
    _settled(held)
    assert held.lookup("k") == (False, None)  # what the read began with is older than the drop: not kept

    def failing() -> int:
        raise RuntimeError("the database is away")

    held.put("f", 1)
    clock.now += 0.6
    assert held.get_or_load("f", failing) == 1
    _settled(held)
    assert held.get("f") == 1  # still held until its expiry
    clock.now += 0.5
    assert held.lookup("f") == (False, None)


def test_keep_sets_each_values_time_and_a_value_kept_for_no_time_is_not_held() -> None:
    clock = Clock()
    held: Timed[str, int] = Timed(1.0, clock=clock)
    assert held.get_or_load("zero", lambda: 0, lambda v: 0.0 if v == 0 else None) == 0
    assert held.lookup("zero") == (False, None)
    held.get_or_load("long", lambda: 7, lambda v: 10.0)
    clock.now += 4.0
    assert held.get("long") == 7 and not held.reading()  # 4 of 10 seconds: not read again yet


def test_a_drop_while_a_miss_loads_wins() -> None:
    """A key revoked (dropped) while a caller's miss is reading it: the caller gets what it read, nothing is held, so
    the next caller reads the key again (auth.KeyCache: a revoked key leaves this replica at once)."""
    import threading

    held: Timed[str, int] = Timed(60.0)
    started, release = threading.Event(), threading.Event()
    got: list[int] = []

    def load() -> int:
        started.set()
        release.wait(5)
        return 1

    caller = threading.Thread(target=lambda: got.append(held.get_or_load("k", load)))
    caller.start()
    assert started.wait(5)
    held.drop(lambda key, _: key == "k")
    release.set()
    caller.join(5)
    assert got == [1] and held.lookup("k") == (False, None)
    assert held.get_or_load("k", lambda: 2) == 2 and held.get("k") == 2  # no drop during this one: kept


def test_a_read_ahead_the_pool_refuses_leaves_the_key_free(monkeypatch) -> None:
    """A pool that will not take the read (shut down at interpreter exit): the caller still gets the held value, and
    the key is not left marked as being read (else it would never be read ahead again)."""
    from concurrent.futures import ThreadPoolExecutor

    from grimoire.graph import timed

    clock = Clock()
    held: Timed[str, int] = Timed(1.0, clock=clock)
    held.put("k", 1)
    clock.now += 0.6
    closed = ThreadPoolExecutor(max_workers=1)
    closed.shutdown()
    monkeypatch.setattr(timed, "_AHEAD", closed)
    assert held.get_or_load("k", lambda: 2) == 1 and held.reading() == frozenset()
    monkeypatch.undo()
    assert held.get_or_load("k", lambda: 2) == 1  # the pool takes it now: the key was free to be read ahead
    _settled(held)
    assert held.get("k") == 2
