"""What the scheduler routes answer (api/routes/scheduler.py): the periodic jobs and their last runs."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel, Field

from graph.scheduler import JobState


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

    @classmethod
    def of(cls, state: JobState) -> JobOut:
        return cls(
            name=state.name, description=state.description, every_seconds=state.every_seconds,
            next_run_at=_when(state.next_run_at), last_run_at=_when(state.last_run_at),
            last_duration_ms=state.last_duration_ms, last_error=state.last_error,
            last_result=state.last_result, runs=state.runs,
            failures=state.failures, running=state.running, triggered=state.triggered,
        )


class Jobs(BaseModel):
    scheduler_running: bool = Field(description="whether the scheduler's thread runs in this process")
    jobs: list[JobOut]


class RunAccepted(BaseModel):
    """POST /scheduler/jobs/{name}/run: the job runs as soon as the scheduler's thread is free."""

    job: JobOut
    queued: bool = Field(description="false when a run was already asked for and not started: the two are one run")
