"""The pure rules of leases (graph/leases.py): a job's period on the epoch grid, the same whenever a replica
started; the holder's id; the order each replica walks the agents in; what an attempt's findings mean; and
that outside a job run with leases an agent's unit is always this process's."""

from __future__ import annotations

import os
import socket

import pytest

from grimoire.graph import leases
from grimoire.graph.leases import Seen, Units, period_of, spread
from grimoire.graph.replica import replica_id
from grimoire.graph.scheduler import Job


def test_a_period_is_the_epoch_grid_the_same_on_every_replica() -> None:
    assert period_of(1_700_000_000.0, 10) == 170_000_000
    assert period_of(1_700_000_009.999, 10) == 170_000_000
    assert period_of(1_700_000_010.0, 10) == 170_000_001
    assert period_of(0.0, 86_400) == 0 and period_of(86_399.9, 86_400) == 0 and period_of(86_400.0, 86_400) == 1
    assert period_of(7.5, 2.5) == 3  # fractional intervals too
    # Two replicas started 3 s apart, each running on its own grid of 10 s from its start: each grid point
    # falls in a distinct period, one per period, and both grids visit the same periods.
    a = [period_of(1_700_000_000.0 + 10 + 10 * k, 10) for k in range(6)]
    b = [period_of(1_700_000_003.0 + 10 + 10 * k, 10) for k in range(6)]
    assert a == b == list(range(170_000_001, 170_000_007))
    with pytest.raises(ValueError):
        period_of(1.0, 0)


def test_the_holder_is_host_pid_and_a_random_part_made_once_per_process() -> None:
    holder = replica_id()
    host, pid, random = holder.rsplit(":", 2)
    assert host == socket.gethostname() and pid == str(os.getpid()) and len(random) >= 4
    assert replica_id() == holder  # once per process


def test_each_replica_walks_the_agents_from_its_own_place() -> None:
    agents = [f"golem-{i}" for i in range(12)]
    orders = {h: spread(agents, h) for h in ("host-a:1:aa", "host-b:2:bb", "host-c:3:cc")}
    for order in orders.values():
        assert sorted(order) == sorted(agents)  # every agent, once
        start = agents.index(order[0])
        assert order == agents[start:] + agents[:start]  # the same cycle, rotated
    assert len({order[0] for order in orders.values()}) > 1
    assert spread(agents, "host-a:1:aa") == orders["host-a:1:aa"]  # stable
    assert spread([], "host-a:1:aa") == []


def test_what_an_attempt_found() -> None:
    free = Seen.of("job", {"held": True, "holder": "me", "token": 3, "period": None, "expires_in_ms": 30_000})
    assert free.held and free.token == 3 and free.expires_in == 30.0 and not free.done(5)
    done = Seen.of("job", {"held": False, "holder": None, "token": 3, "period": 5, "expires_in_ms": None})
    assert done.done(5) and done.done(4) and not done.done(6) and not done.done(None)


def test_a_run_comes_back_soon_after_the_first_lease_held_elsewhere_expires() -> None:
    units = Units(leases=None, period=7)  # type: ignore[arg-type]
    assert units.retry_in() is None
    units.held_elsewhere += [12.0, 3.5, -1.0]
    assert units.retry_in() == leases.RETRY_MARGIN_SECONDS  # one already expired: at once
    units.held_elsewhere.remove(-1.0)
    assert units.retry_in() == 3.5 + leases.RETRY_MARGIN_SECONDS


def test_outside_a_job_run_every_unit_is_this_process() -> None:
    with leases.unit("curator:golem-1") as mine:
        assert mine
    assert leases.holder_order(["b", "a"]) == ["b", "a"]


def test_a_job_says_how_replicas_share_it() -> None:
    assert Job("a", 10, lambda: None).lease == "once"
    assert Job("a", 10, lambda: None, lease="per_agent").lease == "per_agent"
    with pytest.raises(ValueError, match="lease must be one of"):
        Job("a", 10, lambda: None, lease="sometimes")  # type: ignore[arg-type]
