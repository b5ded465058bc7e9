"""The Curator's periodic runs: a sweep over every agent with episodes since its last cycle (on an
interval), and the agents whose ticks called for a cycle (`Curator.due`, run as soon as the scheduler
is asked). The scheduler (graph/scheduler.py) calls these; they know nothing of it.

Across replicas the service passes `claim`, an agent's lease (graph/leases.py `unit`, named `curator:<agent>`):
each agent's cycle runs only on the replica that holds it, so sweeps running on several replicas at once split the
agents between them (`order`: each replica starts at its own place in the list) and none is done twice."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from grimoire.graph.learning.cycle import Curator

log = logging.getLogger(__name__)
ACTOR = "curator"
Claim = Callable[[str], AbstractContextManager[bool]]
"""An agent's unit of work under its lease: the block does the agent's cycle only when it yields True."""


@contextmanager
def alone(agent_id: str) -> Iterator[bool]:
    """No other replica to share with: every agent is this one's."""
    yield True


def lease_name(agent_id: str) -> str:
    return f"curator:{agent_id}"


def sweep(curator: Curator, *, cancelled: Callable[[], bool] = lambda: False, claim: Claim = alone,
          order: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] = list) -> str:
    agents = order(curator.learning.db.fetch("learning/agents_with_new_episodes"))
    ran = elsewhere = 0
    for i, row in enumerate(agents, start=1):
        if cancelled():
            break
        with claim(row["agent_id"]) as mine:
            if not mine:  # another replica runs (or ran) this agent's cycle
                elsewhere += 1
                continue
            curator.due.discard(row["agent_id"])
            report = curator.run(row["agent_id"], clade=row["clade"], actor=ACTOR, trigger="interval")
        ran += report.status == "complete"
        log.info("curator sweep: %d of %d agents", i, len(agents))
    return f"{ran} cycles" + (f", {elsewhere} agents on other replicas" if elsewhere else "")


def run_due(curator: Curator, *, cancelled: Callable[[], bool] = lambda: False, claim: Claim = alone) -> str:
    ran = 0
    held: set[str] = set()  # an agent whose cycle another replica is running: asked for again next time
    while curator.due and not cancelled():
        agent_id = curator.due.pop()
        rows = curator.learning.db.fetch("agents/get", id=agent_id)
        clade = rows[0]["agent"].get("clade") if rows else None
        with claim(agent_id) as mine:
            if not mine:
                held.add(agent_id)
                continue
            report = curator.run(agent_id, clade=clade, actor=ACTOR, trigger="ticks")
        ran += report.status == "complete"
    curator.due |= held
    return f"{ran} cycles"
