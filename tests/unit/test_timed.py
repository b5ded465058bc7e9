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
