"""The request middleware's labels (api/prom.py) and the worker processes' meters added up (multiprocess mode): no
database here; the scrape after real traffic is tests/integration/test_prometheus.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient
from prometheus_client import multiprocess
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from grimoire.api import prom
from grimoire.graph import meters

WORKER = """
from grimoire.graph import meters
meters.REQUESTS.labels("GET", "/things/{thing_id}", "200").inc()
meters.IN_FLIGHT.inc()
meters.JOB_LAST_SUCCESS.labels("a.job").set(float(__import__("sys").argv[1]))
"""


class RefuseFirst:
    """Stands for admission control: answers 429 before routing."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].endswith("/refuse-me"):
            await JSONResponse({"status": 429}, status_code=429)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def count(method: str, route: str, status: str) -> float:
    return float(meters.REQUESTS.labels(method, route, status)._value.get())


def test_requests_are_labelled_by_route_template_also_when_refused_before_routing() -> None:
    app = FastAPI()

    @app.get("/things/{thing_id}")
    def thing(thing_id: str) -> dict[str, str]:
        return {"id": thing_id}

    app.add_middleware(RefuseFirst)
    app.add_middleware(prom.PrometheusMetrics)
    before = {key: count(*key) for key in (("GET", "/things/{thing_id}", "200"), ("GET", "/things/{thing_id}", "429"),
                                           ("GET", prom.UNMATCHED, "404"), ("POST", "/things/{thing_id}", "405"))}
    with TestClient(app) as client:
        assert client.get("/things/a").status_code == 200
        assert client.get("/things/b").status_code == 200
        assert client.get("/things/refuse-me").status_code == 429
        assert client.get("/no/such/path").status_code == 404
        assert client.post("/things/a").status_code == 405
    after = {key: count(*key) for key in before}
    assert [after[k] - before[k] for k in before] == [2, 1, 1, 1]
    assert meters.REQUESTS.labels("GET", "/things/a", "200")._value.get() == 0  # never a path


def test_the_workers_meters_add_up_and_a_dead_workers_live_gauges_go(tmp_path: Path) -> None:
    env = {**os.environ, prom.MULTIPROC_ENV: str(tmp_path), "PYTHONPATH": os.pathsep.join(sys.path)}
    for stamp in ("100", "250"):  # two workers, each counting one request and one in flight, then exiting
        subprocess.run([sys.executable, "-c", WORKER, stamp], env=env, check=True, timeout=120)

    def scraped() -> dict[str, float]:
        out: dict[str, float] = {}
        for metric in multiprocess.MultiProcessCollector(None, path=str(tmp_path)).collect():
            for s in metric.samples:
                if s.name in ("grimoire_http_requests_total", "grimoire_http_requests_in_flight",
                              "grimoire_scheduler_job_last_success_timestamp_seconds"):
                    out[s.name] = out.get(s.name, 0.0) + s.value
        return out

    assert scraped() == {"grimoire_http_requests_total": 2.0, "grimoire_http_requests_in_flight": 2.0,
                         "grimoire_scheduler_job_last_success_timestamp_seconds": 250.0}  # summed; the latest
    prom.forget_dead(str(tmp_path))  # both exited: what they had in flight is not in flight any more
    assert scraped() == {"grimoire_http_requests_total": 2.0,
                         "grimoire_scheduler_job_last_success_timestamp_seconds": 250.0}
