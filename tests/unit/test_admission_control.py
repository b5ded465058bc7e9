"""The admission controller alone (api/admission.py), under asyncio: the bound on requests in flight with its
deadline (503), the fair share of freed places between agents, and a key's own limits (429 with Retry-After).
No timed assertion: places are given back by the test, and the token bucket reads a clock the test moves."""

from __future__ import annotations

import asyncio

from grimoire.api.admission import Admission, KeyLimits, default_max_in_flight
from grimoire.graph.agents import Limits


def test_a_waiter_past_the_deadline_is_refused_and_never_holds_a_place() -> None:
    async def run() -> None:
        gate = Admission(max_in_flight=1, deadline=0.01)
        assert await gate.acquire("agent:a") is None  # the one place, never given back here
        refused = await gate.acquire("agent:b")
        assert refused is not None and refused.status == 503 and refused.retry_after >= 1
        assert "capacity" in refused.detail and gate.in_flight == 1 and gate.waiting == 0
        gate.release("agent:a")
        assert gate.in_flight == 0
        assert await gate.acquire("agent:b") is None  # a free place is taken at once

    asyncio.run(run())


def test_no_deadline_means_no_wait() -> None:
    async def run() -> None:
        gate = Admission(max_in_flight=1, deadline=0)
        assert await gate.acquire("x") is None
        refused = await gate.acquire("y")
        assert refused is not None and refused.status == 503 and gate.waiting == 0

    asyncio.run(run())


def test_a_freed_place_goes_to_the_other_agent_before_the_flooders_next() -> None:
    async def run() -> None:
        gate = Admission(max_in_flight=1, deadline=60)
        order: list[str] = []
        assert await gate.acquire("agent:a") is None  # A holds the place

        async def request(lane: str) -> None:
            assert await gate.acquire(lane) is None
            order.append(lane)

        flood = [asyncio.create_task(request("agent:a")) for _ in range(10)]
        await asyncio.sleep(0)  # A's ten are waiting, in front
        quiet = asyncio.create_task(request("agent:b"))
        await asyncio.sleep(0)
        assert gate.waiting == 11
        gate.release("agent:a")  # the place A held: to B, not to A's next
        await asyncio.sleep(0)
        assert order == ["agent:b"]
        for _ in range(10):  # then A's, one by one, as each place is given back
            gate.release(order[-1])
            await asyncio.sleep(0)
        await asyncio.gather(quiet, *flood)
        assert order == ["agent:b"] + ["agent:a"] * 10 and gate.in_flight == 1 and gate.waiting == 0

    asyncio.run(run())


def test_places_alternate_between_waiting_agents_by_their_share() -> None:
    async def run() -> None:
        gate = Admission(max_in_flight=2, deadline=60)
        order: list[str] = []
        assert await gate.acquire("agent:a") is None and await gate.acquire("agent:a") is None  # A holds both

        async def request(lane: str) -> None:
            assert await gate.acquire(lane) is None
            order.append(lane)

        tasks = [asyncio.create_task(request("agent:a")) for _ in range(4)]
        await asyncio.sleep(0)
        tasks += [asyncio.create_task(request("agent:b")) for _ in range(2)]
        await asyncio.sleep(0)
        gate.release("agent:a")  # A 1 in flight, B 0: B
        await asyncio.sleep(0)
        gate.release("agent:a")  # A 0, B 1: A
        await asyncio.sleep(0)
        gate.release("agent:a")  # A 0, B 1: A
        await asyncio.sleep(0)
        gate.release("agent:b")  # A 1, B 0: B
        await asyncio.sleep(0)
        assert order == ["agent:b", "agent:a", "agent:a", "agent:b"]
        for lane in ("agent:a", "agent:a"):
            gate.release(lane)
            await asyncio.sleep(0)
        await asyncio.gather(*tasks)
        assert order[4:] == ["agent:a", "agent:a"]

    asyncio.run(run())


def test_a_cancelled_waiter_gives_its_place_on() -> None:
    async def run() -> None:
        gate = Admission(max_in_flight=1, deadline=60)
        assert await gate.acquire("a") is None
        gone = asyncio.create_task(gate.acquire("b"))
        after = asyncio.create_task(gate.acquire("c"))
        await asyncio.sleep(0)
        gone.cancel()
        await asyncio.gather(gone, return_exceptions=True)
        gate.release("a")
        assert await after is None and gate.in_flight == 1 and gate.waiting == 0

    asyncio.run(run())


def test_a_keys_concurrency_limit_answers_429_until_one_ends() -> None:
    gate = Admission(max_in_flight=8, deadline=0)
    limits = KeyLimits(concurrency=2)
    assert gate.check_key("k1", limits) is None and gate.check_key("k1", limits) is None
    refused = gate.check_key("k1", limits)
    assert refused is not None and refused.status == 429 and refused.retry_after == 1
    assert "2 requests in flight" in refused.detail
    assert gate.check_key("k2", limits) is None  # another key has its own count
    gate.release_key("k1")
    assert gate.check_key("k1", limits) is None


def test_a_keys_token_bucket_answers_429_with_the_seconds_until_a_token() -> None:
    now = [100.0]
    gate = Admission(max_in_flight=8, deadline=0, clock=lambda: now[0])
    limits = KeyLimits(rate_per_s=0.5, burst=2)  # a token every 2 s, 2 at once
    for _ in range(2):
        assert gate.check_key("k", limits) is None
        gate.release_key("k")
    refused = gate.check_key("k", limits)
    assert refused is not None and refused.status == 429 and refused.retry_after == 2
    now[0] += 1.0  # half a token
    refused = gate.check_key("k", limits)
    assert refused is not None and refused.retry_after == 1
    now[0] += 1.0
    assert gate.check_key("k", limits) is None  # a token again
    gate.release_key("k")
    fast = KeyLimits(rate_per_s=4, burst=1)
    assert gate.check_key("f", fast) is None
    gate.release_key("f")
    refused = gate.check_key("f", fast)
    assert refused is not None and refused.retry_after == 1  # a quarter second, said as 1 (whole seconds)


def test_an_agents_own_limits_override_the_services() -> None:
    service = KeyLimits(concurrency=16, rate_per_s=0.0, burst=0)
    assert service.resolved(Limits()) == KeyLimits(16, 0.0, 1)
    assert service.resolved(Limits(concurrency=2, rate_per_s=5.0)) == KeyLimits(2, 5.0, 5)
    assert service.resolved(Limits(rate_per_s=0.5, burst=3)) == KeyLimits(16, 0.5, 3)
    assert KeyLimits(4, 10.0, 30).resolved(Limits(concurrency=1)) == KeyLimits(1, 10.0, 30)


def test_the_default_bound_is_four_per_core_shared_by_the_replicas_between_4_and_40() -> None:
    assert [default_max_in_flight(c) for c in (1, 2, 4, 8, 64)] == [4, 8, 16, 32, 40]
    assert [default_max_in_flight(2, workers=w) for w in (1, 2, 4)] == [8, 4, 4]  # --workers on one machine


def test_mcp_over_http_retries_429_and_503_then_says_when() -> None:
    """`grimoire mcp --url`: a refused call is retried as the typed client retries it; the last refusal becomes the
    tool's error, with the seconds to wait."""
    import httpx

    from grimoire.api.mcp.calls import OverHttp, RouteError

    answers = [(429, "1"), (503, "0"), (200, None)]
    seen: list[int] = []

    def service(request: httpx.Request) -> httpx.Response:
        status, after = answers[min(len(seen), len(answers) - 1)]
        seen.append(status)
        headers = {"Retry-After": after} if after else {}
        return httpx.Response(status, json={"detail": "over the key's limit"} if status >= 400 else {"ok": True},
                              headers=headers)

    async def run() -> None:
        remote = OverHttp("http://grimoire", retries=3)
        remote.client = httpx.AsyncClient(base_url="http://grimoire", transport=httpx.MockTransport(service))
        reply = await remote.call("k", "GET", "/agents/me")
        assert reply.status == 200 and seen == [429, 503, 200]
        answers[:] = [(429, "0")]
        seen.clear()
        refused = await remote.call("k", "GET", "/agents/me")
        assert seen == [429] * 4 and refused.status == 429
        assert str(RouteError(refused)) == "429: over the key's limit (retry after 0 s)"
        await remote.aclose()

    asyncio.run(run())


def test_keys_not_yet_verified_share_one_lane() -> None:
    """A flood of made-up keys would otherwise be a fresh, never-served lane each, first in line for every place."""
    from grimoire.api.admission import AdmissionControl

    made_up = {AdmissionControl._lane(None, f"gk_{i:04d}.secret-{i}") for i in range(50)}
    assert made_up == {AdmissionControl._lane(None, "gk_real.secret")}
    assert AdmissionControl._lane(None, None) != AdmissionControl._lane(None, "gk_real.secret")


def test_a_place_is_kept_for_an_agent_seen_recently_and_none_for_an_agent_alone() -> None:
    async def run() -> None:
        now = [0.0]
        gate = Admission(max_in_flight=4, deadline=0.01, clock=lambda: now[0], recent=1.0)
        for _ in range(4):  # alone on the replica: every place
            assert await gate.acquire("agent:a") is None
        for _ in range(4):
            gate.release("agent:a")
        assert await gate.acquire("agent:b") is None  # B asks once, and is done
        gate.release("agent:b")
        now[0] = 0.5
        for _ in range(3):
            assert await gate.acquire("agent:a") is None
        flood = await gate.acquire("agent:a")  # the fourth place is B's while B was seen within the second
        assert flood is not None and flood.status == 503 and gate.in_flight == 3
        assert await gate.acquire("agent:b") is None  # B's next request finds its place at once
        gate.release("agent:b")
        gate.release("agent:a")  # a place A gives back while B is recent: kept, not given to A's next
        assert gate.in_flight == 2
        now[0] = 2.0  # B not seen for 1.5 s: nothing kept
        assert await gate.acquire("agent:a") is None and await gate.acquire("agent:a") is None
        assert gate.in_flight == 4

    asyncio.run(run())


def test_a_freed_place_kept_for_a_recent_agent_is_not_handed_to_the_flood() -> None:
    async def run() -> None:
        now = [0.0]
        gate = Admission(max_in_flight=2, deadline=60, clock=lambda: now[0], recent=1.0)
        assert await gate.acquire("agent:a") is None and await gate.acquire("agent:a") is None
        flood = asyncio.create_task(gate.acquire("agent:a"))
        await asyncio.sleep(0)
        quiet = asyncio.create_task(gate.acquire("agent:b"))
        await asyncio.sleep(0)
        gate.release("agent:a")  # to B, who holds none (A's waiter was first in line)
        await asyncio.sleep(0)
        assert quiet.done() and quiet.result() is None and not flood.done()
        gate.release("agent:b")  # B, seen just now, holds none: its place is kept, A's waiter waits on
        await asyncio.sleep(0)
        assert not flood.done() and gate.in_flight == 1
        now[0] = 1.5
        gate.release("agent:a")  # A holds none now: its waiter takes a place
        await asyncio.sleep(0)
        assert flood.done() and flood.result() is None and gate.in_flight == 1

    asyncio.run(run())


def test_a_wait_that_cannot_end_in_a_place_is_refused_at_once() -> None:
    """Requests have lately held their places twice as long as the deadline: half a place is expected to free within
    it, so a request with another already waiting ahead of it is refused without waiting, while a quiet agent, whose
    request a freed place goes to first, still waits."""
    async def run() -> None:
        gate = Admission(max_in_flight=1, deadline=0.5)
        assert await gate.acquire("agent:a") is None
        gate.release("agent:a", held=1.0)  # measured: a place is held for a second
        assert gate.hold == 1.0
        assert await gate.acquire("agent:a") is None  # A holds the one place again
        first = asyncio.create_task(gate.acquire("agent:a"))  # nobody ahead: it waits
        await asyncio.sleep(0)
        assert not first.done() and gate.waiting == 1
        refused = await gate.acquire("agent:a")  # one ahead: refused at once, its own wording
        assert refused is not None and refused.status == 503 and gate.waiting == 1
        assert "capacity" in refused.detail and "wait ahead" in refused.detail
        quiet = asyncio.create_task(gate.acquire("agent:b"))  # A's waiter is not ahead of B: B waits
        await asyncio.sleep(0)
        assert not quiet.done() and gate.waiting == 2
        gate.release("agent:a")  # the place goes to B, then A's waiter
        assert await quiet is None
        gate.release("agent:b")
        assert await first is None and gate.in_flight == 1 and gate.waiting == 0

    asyncio.run(run())


def test_holds_shorter_than_the_deadline_let_several_wait_and_the_average_follows_the_holds() -> None:
    async def run() -> None:
        gate = Admission(max_in_flight=2, deadline=1.0)
        for _ in range(50):
            assert await gate.acquire("agent:a") is None
            gate.release("agent:a", held=0.5)
        assert gate.hold is not None and abs(gate.hold - 0.5) < 1e-9
        assert await gate.acquire("agent:a") is None and await gate.acquire("agent:a") is None
        # two places, each expected to free twice within the deadline: four may wait, the fifth is refused at once
        waiters = [asyncio.create_task(gate.acquire("agent:a")) for _ in range(4)]
        await asyncio.sleep(0)
        assert gate.waiting == 4
        refused = await gate.acquire("agent:a")
        assert refused is not None and refused.status == 503
        for _ in range(4):
            gate.release("agent:a", held=0.5)
            await asyncio.sleep(0)
        assert await asyncio.gather(*waiters) == [None] * 4
        gate.release("agent:a", held=30.0)  # one long request counts as a second, no more
        assert gate.hold is not None and abs(gate.hold - 0.55) < 1e-9  # 0.5 + 0.1 * (1.0 - 0.5)

    asyncio.run(run())


def test_the_requests_ahead_follow_the_order_places_are_handed_out() -> None:
    """A lane holding none with several waiting has only its first ahead of a lane holding one: each grant moves
    the lane it went to back (its places held, its turn). Lanes of no agent: no place is kept for a recent one."""
    async def run() -> None:
        gate = Admission(max_in_flight=3, deadline=0.5)
        assert await gate.acquire("a") is None and await gate.acquire("b") is None
        assert await gate.acquire("b") is None  # A holds one, B two; the replica is full
        gate.release("b", held=0.5)
        assert await gate.acquire("b") is None
        assert gate.hold == 0.5  # three places, a second each: three expected to free within the deadline
        tasks = [asyncio.create_task(gate.acquire("c")) for _ in range(2)]  # C holds none: first in line
        tasks += [asyncio.create_task(gate.acquire("a"))]  # handed out: C, then A (1) before C again (1, later)
        await asyncio.sleep(0)
        assert gate.waiting == 3
        # A's next: C's first, A's first, then C's second (A 2 now) before it: three ahead, refused at once
        refused = await gate.acquire("a")
        assert refused is not None and refused.status == 503 and gate.waiting == 3
        for lane in ("b", "b", "a"):
            gate.release(lane)
            await asyncio.sleep(0)
        assert await asyncio.gather(*tasks) == [None] * 3

    asyncio.run(run())


def test_the_operators_probes_are_answered_on_a_full_replica_and_other_routes_are_refused() -> None:
    """/health and the Prometheus scrape are outside admission alike (api/admission.py OPERATOR_PATHS): with every
    place held they are still answered and hold no place, while any other route is refused with 503."""
    from starlette.types import Message, Receive, Scope, Send

    from grimoire.api.admission import OPERATOR_PATHS, AdmissionControl
    from grimoire.graph.settings import Settings

    assert {"/health", "/metrics/prometheus"} == OPERATOR_PATHS

    async def run() -> None:
        held = asyncio.Event()
        release = asyncio.Event()

        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["path"] == "/slow":
                held.set()
                await release.wait()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})

        gate = AdmissionControl(app, Settings(max_in_flight=1, queue_deadline_ms=0))

        async def status(path: str) -> int:
            sent: list[Message] = []

            async def send(message: Message) -> None:
                sent.append(message)

            async def receive() -> Message:
                return {"type": "http.request", "body": b""}

            await gate({"type": "http", "path": path, "method": "GET", "headers": [], "app": None}, receive, send)
            return int(sent[0]["status"])

        slow = asyncio.create_task(status("/slow"))  # takes the one place and keeps it
        await held.wait()
        assert gate.admission.in_flight == 1
        assert await status("/episodes") == 503
        assert await status("/health") == 200 and await status("/metrics/prometheus") == 200
        assert gate.admission.in_flight == 1  # the probes took no place
        release.set()
        assert await slow == 200 and gate.admission.in_flight == 0

    asyncio.run(run())
