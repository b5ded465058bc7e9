"""What the Prometheus endpoint reads from the graph at scrape time (issue 40, section 2): state shared by every
replica, so it is the same whichever worker or host a scrape reaches, where a counter kept by one process would
see only that process. The job leases (who holds each, its fencing token, when it was last released), the vector
indexes (state, population, rebuilds), and when the Curator last completed a cycle and a consolidation run last
ended. Three short reads (cypher/prometheus/, schema/index_progress); a scrape that cannot reach Neo4j exports
`grimoire_graph_state_up 0` and the meters of graph/meters.py, never an error."""

from __future__ import annotations

import logging
from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from grimoire.graph.db.connection import Database
from grimoire.graph.model.rows import Row
from grimoire.graph.schema import VECTOR_INDEXES, vector_index_states

log = logging.getLogger(__name__)

CONSOLIDATION_JOB = "crystals.consolidation"  # graph/services.py schedules it under this name
INDEX_STATES = ("ONLINE", "POPULATING", "FAILED", "MISSING")


class LeaseRow(Row):
    query = "prometheus/leases"
    name: str
    holder: str | None
    token: int | None
    expires_in_ms: int | None
    released_at: int | None


class LastRunsRow(Row):
    query = "prometheus/last_runs"
    curator_at: int | None
    consolidation_at: int | None


class VectorBuildRow(Row):
    query = "prometheus/vector_builds"
    name: str
    rebuilds: int
    rebuilding: bool


class GraphState(Collector):
    """A prometheus_client collector over the graph's shared state."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("grimoire_graph_state_up", "1 when this scrape read the graph's state (leases, "
                               "vector indexes, last runs), 0 when Neo4j did not answer")
        try:
            families = self.families()
        except Exception as exc:  # Neo4j away: the process's own meters are still worth a scrape
            log.warning("metrics: the graph's state was not read: %s", exc)
            up.add_metric([], 0)
            yield up
            return
        yield from families
        up.add_metric([], 1)
        yield up

    def families(self) -> list[Metric]:
        leases = self.db.typed(LeaseRow)
        last = self.db.typed(LastRunsRow, consolidation=CONSOLIDATION_JOB)
        builds = {b.name: b for b in self.db.typed(VectorBuildRow)}
        states = vector_index_states(self.db, VECTOR_INDEXES)

        held = GaugeMetricFamily("grimoire_lease_held", "1 for each job lease held now, labelled with its holder "
                                 "(the replica host:pid:id)", labels=["lease", "holder"])
        token = GaugeMetricFamily("grimoire_lease_token", "A job lease's fencing token: it grows by one each time a "
                                  "replica takes the lease", labels=["lease"])
        released = GaugeMetricFamily("grimoire_lease_last_released_timestamp_seconds",
                                     "When a job's lease was last released, its run over (epoch seconds)",
                                     labels=["lease"])
        for lease in leases:
            if lease.holder and (lease.expires_in_ms or 0) > 0:
                held.add_metric([lease.name, lease.holder], 1)
            if lease.token is not None:
                token.add_metric([lease.name], lease.token)
            if lease.released_at is not None:
                released.add_metric([lease.name], lease.released_at / 1000)

        state = GaugeMetricFamily("grimoire_vector_index_state", "1 for a vector index's state now (ONLINE, "
                                  "POPULATING, FAILED, MISSING), 0 for the others", labels=["index", "state"])
        percent = GaugeMetricFamily("grimoire_vector_index_population_percent", "How far a vector index is "
                                    "populated (100 once online)", labels=["index"])
        rebuilding = GaugeMetricFamily("grimoire_vector_index_rebuilding", "1 while the upkeep rebuilds a vector "
                                       "index (searches answer from the exact path meanwhile)", labels=["index"])
        rebuilds = CounterMetricFamily("grimoire_vector_index_rebuilds", "Rebuilds of a vector index completed "
                                       "(the upkeep's and `grimoire schema rebuild-vectors`)", labels=["index"])
        for name in VECTOR_INDEXES:
            now, done = states.get(name, ("MISSING", 0.0))
            for each in INDEX_STATES:
                state.add_metric([name, each], 1 if now == each else 0)
            percent.add_metric([name], done)
            build = builds.get(name)
            rebuilding.add_metric([name], 1 if (build is not None and build.rebuilding) or now == "POPULATING" else 0)
            rebuilds.add_metric([name], build.rebuilds if build is not None else 0)

        curator = GaugeMetricFamily("grimoire_curator_last_cycle_timestamp_seconds", "When the Curator last "
                                    "completed a cycle, any agent on any replica (epoch seconds; absent: never)")
        consolidation = GaugeMetricFamily("grimoire_consolidation_last_run_timestamp_seconds", "When a crystal "
                                          "consolidation run last ended on any replica (epoch seconds; absent: "
                                          "never)")
        if last and last[0].curator_at is not None:
            curator.add_metric([], last[0].curator_at / 1000)
        if last and last[0].consolidation_at is not None:
            consolidation.add_metric([], last[0].consolidation_at / 1000)
        return [held, token, released, state, percent, rebuilding, rebuilds, curator, consolidation]
