"""The service's Prometheus meters (issue 40, section 2), counted where the work happens, with the official client
library (prometheus_client). The exposition, its route and its port are api/prom.py; what is read from the graph at
scrape time (leases, vector indexes, the last Curator cycle and consolidation) is graph/prometheus_state.py.

Several worker processes (`grimoire up --workers N`) answer on one socket, so a scrape reaches any of them: with
PROMETHEUS_MULTIPROC_DIR set (the CLI sets it for N > 1) every meter here is kept in that directory's memory-mapped
files and a scrape adds up every process's (prometheus_client's multiprocess mode). Each gauge says how its
processes' values combine (`multiprocess_mode`): `livesum` for what is in use now (summed over the live processes),
`max` for a last-run time. Labels are bounded: a route is its template (`/agents/{agent_id}`), never its path; a
job its name; nothing here names an agent or carries an item's text."""

from __future__ import annotations

import threading
import time
from typing import Any

from prometheus_client import Counter, Gauge, Histogram

PREFIX = "grimoire_"

# --------------------------------------------------------------------------------------------- requests
REQUESTS = Counter("grimoire_http_requests", "HTTP requests answered, by method, route template and status",
                   ["method", "route", "status"])
LATENCY = Histogram("grimoire_http_request_duration_seconds",
                    "Time from a request's arrival to its answer's last byte, by method, route template and status",
                    ["method", "route", "status"],
                    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0))
IN_FLIGHT = Gauge("grimoire_http_requests_in_flight", "HTTP requests being answered now (waiting for a place or "
                  "working)", multiprocess_mode="livesum")
REFUSED = Counter("grimoire_http_requests_refused", "Requests refused by admission control (api/admission.py): 503 "
                  "no place within the queue deadline, 429 a key's own limit, 400 a bookmark refused",
                  ["status", "reason"])
CAPACITY = Gauge("grimoire_admission_capacity", "Places for requests in flight (GRIMOIRE_MAX_IN_FLIGHT), summed over "
                 "this machine's live replicas", multiprocess_mode="livesum")

# --------------------------------------------------------------------------------------------- Neo4j
POOL = Gauge("grimoire_neo4j_pool_connections", "The driver's pooled connections to Neo4j by state (in_use, idle), "
             "summed over the live replicas", ["state"], multiprocess_mode="livesum")
POOL_MAX = Gauge("grimoire_neo4j_pool_max_connections", "The driver's pool size limit, summed over the live replicas",
                 multiprocess_mode="livesum")
SESSIONS = Counter("grimoire_neo4j_sessions", "Driver sessions opened (each borrows a pooled connection while it "
                   "works)")
SESSIONS_OPEN = Gauge("grimoire_neo4j_sessions_open", "Driver sessions open now", multiprocess_mode="livesum")
SESSION_SECONDS = Histogram("grimoire_neo4j_session_duration_seconds",
                            "How long a driver session (one statement or transaction, with its retries) was open",
                            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0, 30.0))

# --------------------------------------------------------------------------------------------- the embedder
BATCH_SIZE = Histogram("grimoire_embedder_batch_size", "Texts per model call (the micro-batcher's shared batches, "
                       "a bulk write's calls)", buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096))
BATCH_SECONDS = Histogram("grimoire_embedder_batch_duration_seconds", "Time of one model call",
                          buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0, 60.0))

# --------------------------------------------------------------------------------------------- the scheduler
JOB_RUNS = Counter("grimoire_scheduler_job_runs", "Turns of a periodic job on this machine's schedulers by outcome: "
                   "ran, failed, lease_lost, or left to another replica (done_elsewhere, held_elsewhere)",
                   ["job", "outcome"])
JOB_FAILURES = Counter("grimoire_scheduler_job_failures", "Runs of a periodic job that raised", ["job"])
JOB_SECONDS = Histogram("grimoire_scheduler_job_duration_seconds", "Time of a periodic job's runs (failed ones too)",
                        ["job"], buckets=(0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0))
JOB_LAST_SUCCESS = Gauge("grimoire_scheduler_job_last_success_timestamp_seconds",
                         "When a periodic job last completed without error on this machine (epoch seconds)",
                         ["job"], multiprocess_mode="max")

# The families the graph is read for at scrape time (graph/prometheus_state.py), declared here so that one list
# names everything the endpoint exports (the dashboard's test reads it).
STATE_FAMILIES: dict[str, str] = {
    "grimoire_lease_held": "gauge",
    "grimoire_lease_token": "gauge",
    "grimoire_lease_last_released_timestamp_seconds": "gauge",
    "grimoire_vector_index_state": "gauge",
    "grimoire_vector_index_population_percent": "gauge",
    "grimoire_vector_index_rebuilding": "gauge",
    "grimoire_vector_index_rebuilds": "counter",
    "grimoire_curator_last_cycle_timestamp_seconds": "gauge",
    "grimoire_consolidation_last_run_timestamp_seconds": "gauge",
    "grimoire_graph_state_up": "gauge",
}

METERS: tuple[Any, ...] = (REQUESTS, LATENCY, IN_FLIGHT, REFUSED, CAPACITY, POOL, POOL_MAX, SESSIONS, SESSIONS_OPEN,
                           SESSION_SECONDS, BATCH_SIZE, BATCH_SECONDS, JOB_RUNS, JOB_FAILURES, JOB_SECONDS,
                           JOB_LAST_SUCCESS)


def families() -> dict[str, str]:
    """Every metric family the endpoint exports, by name (as exposed: a counter's without `_total`), and its type."""
    out = {m._name: m._type for m in METERS}
    return out | STATE_FAMILIES


# --------------------------------------------------------------------------------------------- recording
def job_turn(job: str, outcome: str | None, seconds: float, failed: bool, ran: bool) -> None:
    """One turn of a scheduled job (graph/scheduler.py): its outcome, and its time when it ran here."""
    JOB_RUNS.labels(job, "failed" if failed and outcome != "lease_lost" else (outcome or "ran")).inc()
    if ran:
        JOB_SECONDS.labels(job).observe(seconds)
    if failed:
        JOB_FAILURES.labels(job).inc()
    elif ran:
        JOB_LAST_SUCCESS.labels(job).set(time.time())


def embedded(texts: int, seconds: float) -> None:
    """One model call of `texts` texts (graph/embeddings.py)."""
    BATCH_SIZE.observe(texts)
    BATCH_SECONDS.observe(seconds)


class PoolWatch:
    """The driver's pool, counted by state. The Python driver keeps its pool private (no public metrics, unlike the
    Java driver's): its connections are read from `driver._pool.connections` under the pool's own lock, and when
    that shape is not there (another driver version) the pool's gauges are simply not set. Refreshed when a session
    closes, at most every `every` seconds, and at each scrape."""

    def __init__(self, driver: object, every: float = 1.0) -> None:
        self.driver = driver
        self.every = every
        self._at = 0.0
        self._guard = threading.Lock()

    def session_closed(self) -> None:
        now = time.monotonic()
        if now - self._at >= self.every and self._guard.acquire(blocking=False):
            try:
                self._at = now
                self.refresh()
            finally:
                self._guard.release()

    def refresh(self) -> None:
        pool = getattr(self.driver, "_pool", None)
        connections = getattr(pool, "connections", None)
        lock = getattr(pool, "lock", None)
        if pool is None or connections is None or lock is None:
            return
        try:
            with lock:
                states = [bool(getattr(c, "in_use", False)) for queue in list(connections.values()) for c in queue]
            limit = getattr(getattr(pool, "pool_config", None), "max_connection_pool_size", None)
        except Exception:  # a private shape changed under us: no pool gauges rather than a failed session
            return
        in_use = sum(states)
        POOL.labels("in_use").set(in_use)
        POOL.labels("idle").set(len(states) - in_use)
        if isinstance(limit, int):
            POOL_MAX.set(limit)
