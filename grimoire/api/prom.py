"""Prometheus (issue 40, section 2): the request meters' middleware, the exposition a scrape gets, the separate
unauthenticated port, and the multiprocess directory `grimoire up --workers N` shares. The meters themselves are
graph/meters.py; what is read from the graph at scrape time, graph/prometheus_state.py.

Where a scrape is answered (README, Metrics): `GET /metrics/prometheus` on the API's port for the admin's key
(routes/prometheus.py; not admitted, like /health: a scrape must reach a full replica), and, with
GRIMOIRE_PROMETHEUS_PORT, prometheus_client's own server on that port without a key. With several workers each
tries to bind that port and the first one does (a worker that restarts takes it over when its holder is gone);
whichever process answers, the multiprocess directory holds every process's meters."""

from __future__ import annotations

import glob
import logging
import os
import re
import tempfile
import threading
from collections.abc import Iterator
from wsgiref.simple_server import WSGIServer

from prometheus_client import REGISTRY, CollectorRegistry, multiprocess, start_http_server
from prometheus_client.core import Metric
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from grimoire.graph import meters, observe
from grimoire.graph.db.connection import Database
from grimoire.graph.prometheus_state import GraphState
from grimoire.graph.settings import Settings

log = logging.getLogger(__name__)

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"  # prometheus_client's own variable: read when it is imported
UNMATCHED = "unmatched"  # the route label of a path no route has: a scan of made-up paths adds one series, not many
_LIVE_FILE = re.compile(r"gauge_live\w*?_(\d+)\.db$")


# ---------------------------------------------------------------------------------------------- the middleware
class PrometheusMetrics:
    """Counts every HTTP request by method, route template and status, times it, and keeps the in-flight gauge.
    Outside admission control (api/admission.py), so its 503s and 429s are counted under the route they were for."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500  # what an exception before the answer becomes (api/errors.py answers it so)
        root = scope.get("root_path", "")

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        started = observe.now()
        meters.IN_FLIGHT.inc()
        try:
            await self.app(scope, receive, sending)
        finally:
            meters.IN_FLIGHT.dec()
            method, route = scope.get("method", ""), route_template(scope, root)
            meters.REQUESTS.labels(method, route, str(status)).inc()
            meters.LATENCY.labels(method, route, str(status)).observe(observe.now() - started)


def route_template(scope: Scope, root: str = "") -> str:
    """The template of the route that answered (`/agents/{agent_id}`; a mounted app's own under its mount), or, for
    a request answered before routing (refused by admission), the template of the documented path it names, or
    `unmatched`."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    if isinstance(path, str):
        mounted = str(scope.get("root_path", ""))[len(root):]  # a Mount's prefix (/console, /mcp)
        return f"{mounted}{path}" or "/"
    return _documented(scope.get("app")).get(str(scope.get("path", "")))


class _Templates:
    """The OpenAPI document's path templates as patterns (FastAPI's own router keeps its routes privately)."""

    def __init__(self, templates: list[str]) -> None:
        exact = [t for t in templates if "{" not in t]
        self.exact = set(exact)
        self.patterns = [(re.compile("^" + re.sub(r"\\{\w+\\}", "[^/]+", re.escape(t)) + "$"), t)
                         for t in templates if "{" in t]

    def get(self, path: str) -> str:
        if path in self.exact:
            return path
        return next((t for pattern, t in self.patterns if pattern.match(path)), UNMATCHED)


def _documented(app: object) -> _Templates:
    found = getattr(getattr(app, "state", None), "prometheus_templates", None)
    if isinstance(found, _Templates):
        return found
    openapi = getattr(app, "openapi", None)
    try:
        paths = list(openapi()["paths"]) if callable(openapi) else []
    except Exception:  # no schema to read: every such request is `unmatched`
        paths = []
    templates = _Templates(paths)
    if hasattr(app, "state"):
        app.state.prometheus_templates = templates
    return templates


# ---------------------------------------------------------------------------------------------- the exposition
class Exported(Collector):
    """Everything a scrape gets: this process's meters (or, in multiprocess mode, every process's, from the shared
    directory) and the graph's state read now."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.state = GraphState(db)

    def collect(self) -> Iterator[Metric]:
        self.db.pool.refresh()
        path = multiprocess_dir()
        if path is not None:
            forget_dead(path)
            yield from multiprocess.MultiProcessCollector(None, path=path).collect()
        else:
            yield from REGISTRY.collect()
        yield from self.state.collect()


def registry(db: Database) -> CollectorRegistry:
    """A registry for one app's scrapes (its route and its port)."""
    out = CollectorRegistry(auto_describe=False)
    out.register(Exported(db))
    return out


# ---------------------------------------------------------------------------------------------- several workers
def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


def share_between_workers() -> str:
    """For `--workers N`, before the workers start: the directory their meters share (PROMETHEUS_MULTIPROC_DIR when
    the operator set it, else a new temporary one), emptied of an earlier run's files, and set in the environment
    the workers inherit (each imports prometheus_client afresh: uvicorn spawns them)."""
    path = multiprocess_dir() or tempfile.mkdtemp(prefix="grimoire-prometheus-")
    os.makedirs(path, exist_ok=True)
    for stale in glob.glob(os.path.join(path, "*.db")):
        os.remove(stale)
    os.environ[MULTIPROC_ENV] = path
    return path


def forget_dead(path: str) -> None:
    """The live gauges (in flight, pool, capacity) of processes that are gone: a worker uvicorn replaced, a Curator
    child that finished. Their counters and histograms stay (what they counted happened)."""
    for file in os.listdir(path):
        found = _LIVE_FILE.match(file)
        if found is None:
            continue
        pid = int(found.group(1))
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            multiprocess.mark_process_dead(pid, path)
        except PermissionError:  # alive, someone else's
            pass


# ---------------------------------------------------------------------------------------------- the separate port
class Port:
    """prometheus_client's HTTP server on GRIMOIRE_PROMETHEUS_PORT (no key), while the app runs. With several
    workers the first to bind it serves; the others log it and go on (any one of them answers for all)."""

    def __init__(self, settings: Settings, exported: CollectorRegistry) -> None:
        self.server: WSGIServer | None = None
        self.thread: threading.Thread | None = None
        if not settings.prometheus_port:
            return
        try:
            self.server, self.thread = start_http_server(settings.prometheus_port, settings.prometheus_host,
                                                         registry=exported)
        except OSError as exc:
            log.info("metrics port %s:%d not bound here (%s): another worker serves it", settings.prometheus_host,
                     settings.prometheus_port, exc)
            return
        log.info("Prometheus metrics on http://%s:%d/metrics (no key)", settings.prometheus_host,
                 settings.prometheus_port)

    def close(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
        if self.thread is not None:
            self.thread.join(5)
