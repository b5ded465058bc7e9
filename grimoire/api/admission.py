"""Overload is answered, not queued (issue 37, section 5): a bound on the requests this replica works on at once,
a short deadline for a request waiting for one of those places (past it: 503 with Retry-After, and the request never
runs), a fair share of the places for every agent with requests waiting, and per-key limits on concurrency and rate
(429 with Retry-After).

`Admission` is the logic alone (no ASGI, no clock of its own: tests drive it under asyncio); `AdmissionControl` is
the middleware that asks it, on the event loop, never blocking it. Every limit here is per replica: N replicas
admit N times as much (README, "Overload").

- The bound: `max_in_flight` places. A request takes one before it runs and gives it back when its answer is sent.
- The deadline: a request that finds no place waits at most `deadline` seconds for one, then is refused (503);
  at once, without waiting, when the requests ahead of it in the order places are handed out are at least as many
  as the places expected to free within the deadline (from how long requests have held their places lately): a
  wait that cannot end in a place only delays the 503, and its timer fires late on a busy interpreter.
- Fair share: a freed place goes to the waiting lane (an agent; a key not yet verified; requests without a key)
  with the fewest requests in flight, and among those to the one served least recently: one agent flooding the
  replica waits behind every other agent's next request, never in front of it. And a place is kept free for each
  other agent seen in the last `recent` seconds that holds none now (up to half the places): an agent that already
  holds a place takes another only beyond them, so a quiet agent's next request finds a place at once instead of
  waiting for one to free behind a flood. An agent alone on the replica keeps nothing back (its own concurrent
  requests take every place).
- Per key: at most `concurrency` requests in flight or waiting, and a token bucket of `burst` tokens refilled at
  `rate_per_s`; over either, 429 at once (Retry-After: the seconds until a token, or 1 for concurrency).

Not admitted (they hold a connection, not work; what they do inside is admitted on its own): /health (a load
balancer must reach it while the replica is full) and the admin's Prometheus scrape (likewise: a full replica is
when its metrics matter most; api/prom.py), the event stream (it waits on the graph for as long as a client
listens), the MCP endpoints and the console's pages (each tool call or page makes its route requests in-process,
through this middleware, with the caller's key: counting the outer request too would let it hold a place while its
inner requests wait for one)."""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import anyio
from neo4j.exceptions import DatabaseUnavailable, ServiceUnavailable, SessionExpired
from starlette.types import ASGIApp, Receive, Scope, Send

from grimoire.api.auth import CARRIED, looked_up
from grimoire.api.errors import PROBLEM, RETRY_AFTER_SECONDS, problem_body
from grimoire.graph import meters
from grimoire.graph.agents import Limits, Principal, admin_principal
from grimoire.graph.db import bookmarks
from grimoire.graph.db.bookmarks import BookmarkRefused
from grimoire.graph.errors import Unavailable
from grimoire.graph.replica import usable_cores
from grimoire.graph.settings import Settings

log = logging.getLogger(__name__)

RECENT_SECONDS = 1.0  # an agent seen this recently is kept a place (a quiet agent asks about every 0.1-0.5 s)
HOLD_WEIGHT = 0.1  # the moving average's weight for each request's hold: about the last ten
HOLD_CAP = 1.0  # seconds: the most one request's hold counts for in that average
OVERLOAD_RETRY_AFTER = 1  # seconds: a place frees in well under a second when requests take ~0.1 s
CONCURRENCY_RETRY_AFTER = 1  # seconds: when one of the key's own requests ends is not known ahead
# An operator's probes, deliberately outside admission and answered on a full replica, since then is when they
# matter: the load balancer's health check (a refused one takes a busy replica out of rotation) and the admin's
# Prometheus scrape (an overload is what the dashboards are for). Both stay cheap, so they cannot be a way round the
# bound: /health reads nothing per agent, and a scrape runs a fixed set of short reads that do not grow with the
# store (graph/prometheus_state.py; tests/integration/test_prometheus.py checks their work stays flat).
OPERATOR_PATHS = frozenset({"/health", "/metrics/prometheus"})
# Connections that hold no place themselves: what they do inside is admitted on its own (see the module's doc).
PASS_THROUGH_PATHS = frozenset({"/events/stream", "/mcp", "/mcp/full"})
EXEMPT_PATHS = OPERATOR_PATHS | PASS_THROUGH_PATHS
EXEMPT_PREFIXES = ("/console",)
THREADS = 40  # Starlette's worker threads (anyio's default): beyond them, a request waits for a thread, undeadlined
ANONYMOUS = "anonymous"
UNVERIFIED = "unverified"  # every key this replica has not verified yet (its first request, then cached)
DOWN = (ServiceUnavailable, SessionExpired, DatabaseUnavailable, Unavailable)  # what api/errors.py answers 503


def default_max_in_flight(cores: int | None = None, workers: int = 1) -> int:
    """4 per core, the cores shared between this machine's replicas (`workers`), 4 to 40. A request alternates
    between this interpreter (one core at a time) and Neo4j, so a few per core keep both busy; more only lengthen
    each one's time (at the ~34 requests/s two cores serve, 8 in flight take ~0.25 s each, 64 would take ~1.9 s:
    the issue's median). 40: the worker threads' pool."""
    per_machine = 4 * (cores or usable_cores())
    return max(4, min(THREADS, per_machine // max(1, workers)))


@dataclass(frozen=True)
class Refusal:
    status: int  # 503: no place in time; 429: the key's own limit; 400: the request's bookmark refused
    retry_after: int  # seconds
    detail: str
    reason: str = "capacity"  # what refused it, the label of grimoire_http_requests_refused_total (graph/meters.py)


@dataclass(frozen=True)
class KeyLimits:
    """A key's effective limits (0: none)."""

    concurrency: int = 0
    rate_per_s: float = 0.0
    burst: int = 0

    def resolved(self, own: Limits) -> KeyLimits:
        """An agent's own limits over these (the service's)."""
        rate = own.rate_per_s if own.rate_per_s is not None else self.rate_per_s
        burst = own.burst if own.burst is not None else (self.burst if own.rate_per_s is None else 0)
        return KeyLimits(own.concurrency if own.concurrency is not None else self.concurrency, rate,
                         burst or max(1, math.ceil(rate)))


@dataclass
class _Bucket:
    tokens: float
    at: float


@dataclass
class _Lane:
    in_flight: int = 0
    served_at: int = -1  # the grant counter when this lane was last given a place
    waiters: deque[asyncio.Future[None]] = field(default_factory=deque)


class Admission:
    """The replica's places and the keys' limits. Used from one event loop; nothing here blocks."""

    def __init__(self, max_in_flight: int, deadline: float, *, clock: Callable[[], float] = time.monotonic,
                 recent: float = RECENT_SECONDS):
        self.max_in_flight = max_in_flight
        self.deadline = deadline
        self.clock = clock
        self.recent = recent
        self._seen: dict[str, float] = {}  # agent lanes: when each last asked for a place
        self.hold: float | None = None  # seconds a request holds its place, a moving average (None: not measured)
        self.in_flight = 0
        self.waiting = 0  # requests waiting for a place, in every lane
        self._lanes: dict[str, _Lane] = {}
        self._grants = 0
        self._key_active: dict[str, int] = {}
        self._buckets: dict[str, _Bucket] = {}

    # ------------------------------------------------------------------------------ places, shared fairly
    async def acquire(self, lane: str) -> Refusal | None:
        """A place for a request of `lane`, or the 503 refusal when none frees within the deadline."""
        self._saw(lane)
        if self.in_flight < self.max_in_flight and self._may_take(lane, self.max_in_flight - self.in_flight):
            self.in_flight += 1
            self._grant(lane)
            return None
        if self.deadline > 0 and self._hopeless(lane):
            return Refusal(503, OVERLOAD_RETRY_AFTER,
                           f"the service is at capacity ({self.max_in_flight} requests in flight on this replica) and "
                           f"more requests wait ahead of this one than places are expected to free within "
                           f"{self.deadline * 1000:.0f} ms; retry after {OVERLOAD_RETRY_AFTER} s")
        if self.deadline > 0:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._lanes.setdefault(lane, _Lane()).waiters.append(waiter)
            self.waiting += 1
            try:
                async with asyncio.timeout(self.deadline):
                    await waiter
                return None
            except TimeoutError:
                if self._given(waiter):  # handed a place just as the deadline passed: keep it
                    return None
                self._forget(lane, waiter)
            except asyncio.CancelledError:
                if self._given(waiter):
                    self.release(lane)
                else:
                    self._forget(lane, waiter)
                raise
        return Refusal(503, OVERLOAD_RETRY_AFTER,
                       f"the service is at capacity ({self.max_in_flight} requests in flight on this replica) and no "
                       f"place freed within {self.deadline * 1000:.0f} ms; retry after {OVERLOAD_RETRY_AFTER} s")

    def release(self, lane: str, held: float | None = None) -> None:
        """A request's place given back: to the next waiting lane, by fair share, or freed. `held`: the seconds the
        request held it (the moving average the early refusal reads)."""
        if held is not None:  # capped: one long request (a bulk write) must not make every wait look hopeless
            held = min(held, HOLD_CAP)
            self.hold = held if self.hold is None else self.hold + HOLD_WEIGHT * (held - self.hold)
        here = self._lanes.get(lane)
        if here is not None:
            here.in_flight -= 1
            self._tidy(lane, here)
        while (chosen := self._next_lane()) is not None:
            if not self._may_take(chosen, self.max_in_flight - self.in_flight + 1):
                break  # kept for an agent seen recently that holds none: the flood's waiter waits on
            waiting = self._lanes[chosen]
            waiter = waiting.waiters.popleft()
            self.waiting -= 1
            if waiter.done():  # cancelled at its deadline, its request not yet gone from the queue
                self._tidy(chosen, waiting)
                continue
            self._grant(chosen)
            waiter.set_result(None)
            return
        self.in_flight -= 1

    def _hopeless(self, lane: str) -> bool:
        """Whether a wait for a place would outlast the deadline: as many requests would be handed a place before this
        one (`_next_lane`'s order, played forward: each grant moves its lane back) as places are expected to free
        within it. A lane served before the others (one holding fewer places) has none of theirs ahead: a quiet agent
        still waits."""
        if not self.hold:
            return False
        frees = self.in_flight * self.deadline / self.hold  # each place frees once per hold, on average
        if self.waiting < frees:
            return False  # even every request now waiting would be served in time
        # Each waiting lane as [places held, when last served, requests waiting]; this request last of its own.
        lanes = {name: [other.in_flight, other.served_at, len(other.waiters)]
                 for name, other in self._lanes.items() if other.waiters}
        here = self._lanes.get(lane)
        lanes.setdefault(lane, [here.in_flight, here.served_at, 0] if here is not None else [0, -1, 0])[2] += 1
        ahead, grants = 0, self._grants
        while ahead < frees:
            name = min((v[0], v[1], k) for k, v in lanes.items() if v[2])[2]
            chosen = lanes[name]
            if name == lane and chosen[2] == 1:
                return False  # its turn comes within the places expected to free
            chosen[0], chosen[1], chosen[2] = chosen[0] + 1, grants, chosen[2] - 1
            grants += 1
            ahead += 1
        return True

    def _saw(self, lane: str) -> None:
        if not lane.startswith("agent:"):
            return
        now = self.clock()
        if lane not in self._seen and len(self._seen) >= 1024:  # many agents: the ones not seen lately go
            self._seen = {k: t for k, t in self._seen.items() if now - t <= self.recent}
        self._seen[lane] = now

    def _may_take(self, lane: str, free: int) -> bool:
        """Whether `lane` may take one of `free` places: always when it holds none; else only beyond the places kept
        for the other agents seen recently that hold none now (at most half the places)."""
        here = self._lanes.get(lane)
        if here is None or here.in_flight == 0 or not self._seen:
            return True
        now = self.clock()
        kept = 0
        for other, at in self._seen.items():
            if other != lane and now - at <= self.recent:
                held = self._lanes.get(other)
                kept += held is None or held.in_flight == 0
        return free - 1 >= min(kept, self.max_in_flight // 2)

    def _grant(self, lane: str) -> None:
        here = self._lanes.setdefault(lane, _Lane())
        here.in_flight += 1
        here.served_at = self._grants
        self._grants += 1

    def _next_lane(self) -> str | None:
        waiting = [(lane.in_flight, lane.served_at, name) for name, lane in self._lanes.items() if lane.waiters]
        return min(waiting)[2] if waiting else None

    @staticmethod
    def _given(waiter: asyncio.Future[None]) -> bool:
        return waiter.done() and not waiter.cancelled()

    def _forget(self, lane: str, waiter: asyncio.Future[None]) -> None:
        here = self._lanes.get(lane)
        if here is not None:
            if waiter in here.waiters:
                here.waiters.remove(waiter)
                self.waiting -= 1
            self._tidy(lane, here)

    def _tidy(self, name: str, lane: _Lane) -> None:
        if lane.in_flight <= 0 and not lane.waiters:
            del self._lanes[name]

    # ------------------------------------------------------------------------------ a key's own limits
    def check_key(self, key_id: str, limits: KeyLimits) -> Refusal | None:
        """Counts the request against its key (end it with `release_key`), or the 429 refusal (nothing counted)."""
        active = self._key_active.get(key_id, 0)
        if limits.concurrency and active >= limits.concurrency:
            return Refusal(429, CONCURRENCY_RETRY_AFTER,
                           f"this key has {active} requests in flight or waiting on this replica, its limit; retry "
                           f"after {CONCURRENCY_RETRY_AFTER} s", "key_concurrency")
        if limits.rate_per_s:
            wait = self._take(key_id, limits)
            if wait is not None:
                return Refusal(429, wait, f"this key's rate limit on this replica ({limits.rate_per_s:g} requests/s, "
                                          f"{limits.burst} at once) is spent; retry after {wait} s", "key_rate")
        self._key_active[key_id] = active + 1
        return None

    def release_key(self, key_id: str) -> None:
        left = self._key_active.get(key_id, 0) - 1
        if left > 0:
            self._key_active[key_id] = left
        else:
            self._key_active.pop(key_id, None)

    def _take(self, key_id: str, limits: KeyLimits) -> int | None:
        """One token from the key's bucket, or the whole seconds until there is one."""
        now = self.clock()
        bucket = self._buckets.get(key_id)
        if bucket is None:
            self._prune(now)
            bucket = self._buckets[key_id] = _Bucket(float(limits.burst), now)
        bucket.tokens = min(float(limits.burst), bucket.tokens + (now - bucket.at) * limits.rate_per_s)
        bucket.at = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return None
        return max(1, math.ceil((1.0 - bucket.tokens) / limits.rate_per_s))

    def _prune(self, now: float, keep: int = 4096) -> None:
        """Buckets idle long enough to be full again are as good as none: dropped once there are many."""
        if len(self._buckets) >= keep:
            stale = [k for k, b in self._buckets.items() if now - b.at > 3600]
            for k in stale or list(self._buckets)[: len(self._buckets) // 2]:
                del self._buckets[k]


# ---------------------------------------------------------------------------------------------- the middleware
def _raw_key(scope: Scope) -> str | None:
    headers = dict(scope.get("headers") or [])
    raw = headers.get(b"x-api-key")
    if raw is None:
        auth = headers.get(b"authorization", b"")
        raw = auth[7:] if auth[:7].lower() == b"bearer " else None
    key = raw.decode("latin-1").strip() if raw else ""
    return key or None


def exempt(path: str) -> bool:
    return path in EXEMPT_PATHS or path.startswith(EXEMPT_PREFIXES)


class AdmissionControl:
    """The ASGI middleware: per-key limits for a known key, then a place (fairly shared), then the request."""

    def __init__(self, app: ASGIApp, settings: Settings):
        self.app = app
        self.settings = settings
        self.admission = Admission(settings.max_in_flight or default_max_in_flight(workers=max(1, settings.workers)),
                                   settings.queue_deadline_ms / 1000)
        self.defaults = KeyLimits(settings.key_concurrency, settings.key_rate_per_s, settings.key_burst)
        meters.CAPACITY.set(self.admission.max_in_flight)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or exempt(scope.get("path") or ""):
            await self.app(scope, receive, send)
            return
        raw = _raw_key(scope)
        who = self._known(scope, raw)
        counted: str | None = None  # the key the request is counted against
        if who is not None and not who.is_admin:
            refusal = self.admission.check_key(who.key_id, self.defaults.resolved(who.limits))
            if refusal is not None:
                await self._refuse(scope, send, refusal)
                return
            counted = who.key_id
        lane = self._lane(who, raw)
        try:
            refusal = await self.admission.acquire(lane)
            if refusal is not None:
                await self._refuse(scope, send, refusal)
                return
            granted = time.monotonic()
            try:
                if who is None and raw is not None:  # a key not in the cache: looked up now, in its place
                    refusal, counted = await self._verify(scope, raw)
                    if refusal is not None:
                        await self._refuse(scope, send, refusal)
                        return
                await self.app(scope, receive, send)
            finally:
                self.admission.release(lane, time.monotonic() - granted)
        finally:
            if counted is not None:
                self.admission.release_key(counted)

    def _known(self, scope: Scope, raw: str | None) -> Principal | None:
        """The key's principal without a database read: the admin's, or one the key cache holds."""
        inside = (scope.get("state") or {}).get(CARRIED)  # the console's in-process calls carry no key
        if isinstance(inside, Principal):
            return inside
        if raw is None:
            return None
        admin_key = self.settings.admin_key
        if admin_key and hmac.compare_digest(raw.encode(), admin_key.encode()):
            return admin_principal()
        cache = getattr(scope["app"].state, "key_cache", None)
        found: Principal | None = cache.get(raw) if cache is not None else None
        return found

    @staticmethod
    def _lane(who: Principal | None, raw: str | None) -> str:
        if who is not None:
            return f"agent:{who.agent_id}" if who.agent_id else f"key:{who.key_id}"
        # Keys not yet verified share one lane with requests without a key: a lane per claimed key id would let a
        # flood of made-up keys (each a fresh, never-served lane) take every freed place before the real agents.
        return UNVERIFIED if raw else ANONYMOUS

    async def _verify(self, scope: Scope, raw: str) -> tuple[Refusal | None, str | None]:
        """The key looked up (and cached, as the route's own check would) on a worker thread; its limits applied."""
        services = getattr(scope["app"].state, "services", None)
        cache = getattr(scope["app"].state, "key_cache", None)
        if services is None or cache is None:
            return None, None
        try:
            who = await anyio.to_thread.run_sync(looked_up, services, cache, raw)  # the route's check is the span
        except BookmarkRefused as exc:  # the request's own bookmark refused by Neo4j (the lookup runs in its chain)
            chain = bookmarks.current.get()
            if chain is not None:
                chain.refused = True  # answered as the route's own refusal is: no bookmark echoed back
            return Refusal(400, 0, str(exc), "bookmark"), None
        except DOWN as exc:  # the database is down: answered here (503), not looked up a second time by the route
            log.warning("503 for %s %s: %s", scope.get("method"), scope.get("path"), exc)
            return Refusal(503, RETRY_AFTER_SECONDS, str(exc) if isinstance(exc, Unavailable)
                           else f"Neo4j is unavailable: {exc}", "database"), None
        if who is None or who.is_admin:
            return None, None  # unknown or revoked: the route answers 401
        refusal = self.admission.check_key(who.key_id, self.defaults.resolved(who.limits))
        return refusal, (who.key_id if refusal is None else None)

    @staticmethod
    async def _refuse(scope: Scope, send: Send, refusal: Refusal) -> None:
        meters.REFUSED.labels(str(refusal.status), refusal.reason).inc()
        body = json.dumps(problem_body(refusal.status, refusal.detail, scope.get("path"))).encode()
        headers = [(b"content-type", PROBLEM.encode()), (b"content-length", str(len(body)).encode())]
        if refusal.retry_after:
            headers.append((b"retry-after", str(refusal.retry_after).encode()))
        await send({"type": "http.response.start", "status": refusal.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
