"""What the scheduler routes answer (api/routes/scheduler.py): the periodic jobs and their last runs."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, Field

from grimoire.graph.scheduler import JobState


def _when(seconds: float | None) -> datetime | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC)


class JobOut(BaseModel):
    """A periodic job (graph/scheduler.py); times in ISO 8601 (UTC)."""

    name: str
    description: str
    every_seconds: float
    next_run_at: datetime | None = Field(description="null while the scheduler is off (GRIMOIRE_SCHEDULER=false)")
    last_run_at: datetime | None
    last_duration_ms: float | None
    last_error: str | None = Field(description="the last run's exception; null when it succeeded")
    last_result: str | None = Field(default=None, description="what the last successful run reported (a count, "
                                                               "a summary); null after a failure")
    runs: int
    failures: int
    running: bool
    triggered: bool = Field(description="a run was asked for (POST .../run) and has not started yet")
    lease: Literal["once", "per_agent", "local"] | None = Field(
        default=None, description="how replicas share the job (graph/leases.py): once per period under the job's "
                                  "lease; on every replica, each agent under its own lease; on every replica alone")
    last_outcome: Literal["ran", "done_elsewhere", "held_elsewhere", "lease_lost"] | None = Field(
        default=None, description="this replica's last turn of the job: ran it here; skipped, another replica "
                                  "completed the period (or holds the lease); its lease was lost mid-run")
    lease_holder: str | None = Field(
        default=None, description="the replica holding the job's lease at the last turn, or the last to complete it")
    lease_token: int | None = Field(default=None, description="that lease's fencing token")
    period: int | None = Field(default=None, description="the job's current period: floor(epoch seconds / every)")
    period_done: int | None = Field(default=None, description="the last period whose run completed, on any replica")
    skipped: int = Field(default=0, description="turns this replica left to another (done or held elsewhere)")
    retry_at: datetime | None = Field(default=None, description="when a lease held elsewhere is looked at again "
                                                                "(soon after it expires)")
    units_here: int = Field(default=0, description="agents the last run did on this replica")
    units_elsewhere: int = Field(default=0, description="agents the last run left to other replicas")

    @classmethod
    def of(cls, state: JobState) -> JobOut:
        return cls(
            name=state.name, description=state.description, every_seconds=state.every_seconds,
            next_run_at=_when(state.next_run_at), last_run_at=_when(state.last_run_at),
            last_duration_ms=state.last_duration_ms, last_error=state.last_error,
            last_result=state.last_result, runs=state.runs,
            failures=state.failures, running=state.running, triggered=state.triggered,
            lease=state.lease, last_outcome=state.last_outcome, lease_holder=state.lease_holder,
            lease_token=state.lease_token, period=state.period, period_done=state.period_done,
            skipped=state.skipped, retry_at=_when(state.retry_at), units_here=state.units_here,
            units_elsewhere=state.units_elsewhere,
        )


class Jobs(BaseModel):
    scheduler_running: bool = Field(description="whether the scheduler's thread runs in this process")
    replica: str | None = Field(default=None, description="this replica's id (host:pid:random), the holder its "
                                                          "leases name")
    jobs: list[JobOut]


class RunAccepted(BaseModel):
    """POST /scheduler/jobs/{name}/run: the job runs as soon as the scheduler's thread is free."""

    job: JobOut
    queued: bool = Field(description="false when a run was already asked for and not started: the two are one run")
