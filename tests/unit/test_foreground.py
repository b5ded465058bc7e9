"""Requests first (graph/foreground.py): background work waits for the requests in flight, at most
`max_wait`, and never for the request it is part of."""

from __future__ import annotations

import threading
import time

from grimoire.graph.foreground import Foreground


def test_background_work_waits_until_the_requests_in_flight_are_served() -> None:
    fg = Foreground()
    served = threading.Event()
    entered = threading.Event()

    def request() -> None:
        with fg.serving():
            entered.set()
            time.sleep(0.3)
            served.set()

    t = threading.Thread(target=request)
    t.start()
    entered.wait(5)
    assert fg.in_flight == 1
    fg.yield_to(10)
    assert served.is_set() and fg.in_flight == 0
    assert fg.waited_seconds > 0
    t.join()


def test_it_waits_no_longer_than_max_wait() -> None:
    fg = Foreground()
    release = threading.Event()
    entered = threading.Event()

    def endless() -> None:
        with fg.serving():
            entered.set()
            release.wait(10)

    t = threading.Thread(target=endless)
    t.start()
    entered.wait(5)
    fg.yield_to(0.05)
    assert fg.in_flight == 1  # it went ahead while the request was still in flight
    release.set()
    t.join()


def test_a_requests_own_work_does_not_wait_for_requests() -> None:
    fg = Foreground()
    with fg.serving():
        fg.yield_to(10)  # would wait for itself
    assert fg.waited_seconds == 0


def test_idle_it_does_not_wait() -> None:
    fg = Foreground()
    fg.yield_to(10)
    assert fg.waited_seconds == 0
