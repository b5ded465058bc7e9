"""The Curator's periodic runs: a sweep over every agent with episodes since its last cycle (on an
interval), and the agents whose ticks called for a cycle (`Curator.due`, run as soon as the scheduler
is asked). The scheduler (graph/scheduler.py) calls these; they know nothing of it."""

from __future__ import annotations

import logging
from collections.abc import Callable

from graph.learning.cycle import Curator

log = logging.getLogger(__name__)
ACTOR = "curator"


def sweep(curator: Curator, *, cancelled: Callable[[], bool] = lambda: False) -> str:
    agents = curator.learning.db.fetch("learning/agents_with_new_episodes")
    ran = 0
    for i, row in enumerate(agents, start=1):
        if cancelled():
            break
        curator.due.discard(row["agent_id"])
        report = curator.run(row["agent_id"], clade=row["clade"], actor=ACTOR, trigger="interval")
        ran += report.status == "complete"
        log.info("curator sweep: %d of %d agents", i, len(agents))
    return f"{ran} cycles"


def run_due(curator: Curator, *, cancelled: Callable[[], bool] = lambda: False) -> str:
    ran = 0
    while curator.due and not cancelled():
        agent_id = curator.due.pop()
        rows = curator.learning.db.fetch("agents/get", id=agent_id)
        clade = rows[0]["agent"].get("clade") if rows else None
        report = curator.run(agent_id, clade=clade, actor=ACTOR, trigger="ticks")
        ran += report.status == "complete"
    return f"{ran} cycles"
