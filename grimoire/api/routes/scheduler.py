"""The periodic jobs over REST (graph/scheduler.py), for the admin only: a job's error may name
agents. List them with their last runs; ask for a run now."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request

from grimoire.api.auth import Admin
from grimoire.api.deps import get_services
from grimoire.api.schemas.scheduler import JobOut, Jobs, RunAccepted
from grimoire.graph.errors import Conflict
from grimoire.graph.scheduler import Scheduler

router = APIRouter(tags=["scheduler"])


def _scheduler(request: Request) -> Scheduler:
    return get_services(request).scheduler


SchedulerDep = Annotated[Scheduler, Depends(_scheduler)]


@router.get("/scheduler/jobs", response_model=Jobs,
            summary="The periodic jobs: schedule, last run, duration and error (admin)")
def list_jobs(scheduler: SchedulerDep, who: Admin) -> Jobs:
    return Jobs(scheduler_running=scheduler.running, replica=scheduler.replica,
                jobs=[JobOut.of(state) for state in scheduler.jobs()])


@router.post("/scheduler/jobs/{name}/run", response_model=RunAccepted, status_code=202,
             responses={404: {"description": "no such job"},
                        409: {"description": "the scheduler is off (GRIMOIRE_SCHEDULER=false)"}},
             summary="Run a periodic job now, on the scheduler's thread; repeated requests coalesce (admin)")
def run_job(name: Annotated[str, Path(max_length=200)], scheduler: SchedulerDep, who: Admin) -> RunAccepted:
    scheduler.job(name)  # NotFound: a 404
    if not scheduler.running:
        raise Conflict("the scheduler is off (GRIMOIRE_SCHEDULER=false): no job runs in this process")
    queued = scheduler.trigger(name)
    return RunAccepted(job=JobOut.of(scheduler.job(name)), queued=queued)
