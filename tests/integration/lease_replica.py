"""A replica of the service for tests/integration/test_leases.py, in its own process so that the test can kill it
with SIGKILL while it holds a lease mid-cycle.

It builds Services on the test's database (argv[1]: JSON with the server, the holder's id and the lease time), gives
its scheduler leases under that holder, and runs the Curator's sweep now as the scheduler would at a grid point.
Each write transaction of the Curator is followed by a pause (`pause_seconds`) so that the test can see an operation
applied and kill the process before the cycle ends. It prints one JSON line when ready ({"pid": ...}) and one per
committed Curator write ({"writes": n}); it never ends by itself before the cycle is done."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from grimoire.graph.db.connection import Database, Target
from grimoire.graph.embeddings import get_embedder
from grimoire.graph.foreground import PacedDatabase
from grimoire.graph.leases import Leases
from grimoire.graph.scheduler import Scheduler
from grimoire.graph.services import Services, schedule
from grimoire.graph.settings import DEFAULT_MODEL, Settings


def slow_curator_writes(pause_seconds: float) -> None:
    """The Curator's database pauses after each committed write transaction and says so."""
    original = PacedDatabase.write
    writes = 0

    def write(self: PacedDatabase, work: Callable[[Any], Any]) -> Any:
        nonlocal writes
        result = original(self, work)
        writes += 1
        print(json.dumps({"writes": writes}), flush=True)
        time.sleep(pause_seconds)
        return result

    PacedDatabase.write = write  # type: ignore[method-assign]


def main() -> None:
    args = json.loads(sys.argv[1])
    settings = Settings(neo4j_uri=args["uri"], neo4j_user=args["user"], neo4j_password=args["password"],
                        neo4j_database=args["database"], scheduler_enabled=False, seed_mental_models=False,
                        curator_process=False, learning={"batch": 1, "yield_seconds": 0, "pause_ratio": 0})
    db = Database(Target(args["uri"], args["user"], args["password"], args["database"]))
    slow_curator_writes(args["pause_seconds"])
    services = Services.build(settings, db, get_embedder(DEFAULT_MODEL))
    services = replace(services, scheduler=Scheduler(leases=Leases(db, args["holder"], args["lease_seconds"])))
    schedule(services)
    print(json.dumps({"pid": os.getpid()}), flush=True)
    slot = services.scheduler._slots["curator.sweep"]
    slot.next_run_at = time.time()  # the sweep's grid point is now
    services.scheduler.run_due()
    print(json.dumps({"done": services.scheduler.job("curator.sweep").last_result}), flush=True)


if __name__ == "__main__":
    main()
