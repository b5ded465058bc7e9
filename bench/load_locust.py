"""The load benchmark's locustfile, run by bench/load.py as a subprocess (`locust --headless`), so gevent's
monkey-patching stays in this process. It reads its run from the JSON file named by BENCH_LOAD_CONFIG:

  {"samples": path, "profile": "retrieval" | "mixed" | "memory", "keys": [[agent, key], ...], "items": [...],
   "turns": [...], "seed": n, "tag": "...", "flood": {"agent": [agent, key], "quiet": [agent, key]} | absent}

and writes every request it made to `samples` when it quits: {t (its start, epoch s), kind, status, ms, user},
with the episode ids each 201 acknowledged and the question pool's report. Closed loop: each user sends its
next request as soon as the last is answered, or after the Retry-After of a 503/429 (capped, as the typed client
waits). Users are spread over the agents' keys in turn."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import time
from typing import Any

from locust import FastHttpUser, constant, events, task

from bench.load_parts import QuestionPool

CONFIG: dict[str, Any] = json.loads(open(os.environ["BENCH_LOAD_CONFIG"]).read())  # noqa: SIM115
POOL = QuestionPool(CONFIG["items"], seed=CONFIG["seed"])
TURNS = QuestionPool(CONFIG["turns"], seed=CONFIG["seed"] + 1)
SAMPLES: list[dict[str, Any]] = []
ACKED: list[str] = []
USERS = itertools.count()
BATCH = 20
RETRIEVALS_PER_BATCH = 4
RETRY_AFTER_CAP = float(CONFIG.get("retry_after_cap", 2.0))  # seconds a refused user waits at most


class _LoadUser(FastHttpUser):
    abstract = True
    wait_time = constant(0)
    network_timeout = 300.0
    connection_timeout = 60.0

    def on_start(self) -> None:
        self.n = next(USERS)
        self.agent, self.key = self.pick()
        self.sent = 0

    def pick(self) -> tuple[str, str]:
        keys = CONFIG["keys"]
        agent, key = keys[self.n % len(keys)]
        return agent, key

    def send(self, kind: str, path: str, body: dict[str, Any]) -> int:
        started = time.time()
        t0 = time.perf_counter()
        with self.client.post(path, json=body, headers={"X-API-Key": self.key}, name=kind,
                              catch_response=True) as resp:
            status = int(resp.status_code or 0)
            if status in (200, 201, 429, 503):
                resp.success()
            else:
                resp.failure(f"{status}")
            retry_after = resp.headers.get("Retry-After") if status in (429, 503) else None
        SAMPLES.append({"t": started, "kind": kind, "status": status, "user": self.n,
                        "ms": round((time.perf_counter() - t0) * 1000, 2)})
        self.sent += 1
        if retry_after is not None:  # as the typed client does: wait what the service asks (capped)
            with contextlib.suppress(ValueError):
                time.sleep(min(float(retry_after), RETRY_AFTER_CAP))
        return status

    def retrieve(self) -> None:
        self.send("retrieve", "/retrieve", {"text": POOL.next(), "k": 10})


class RetrievalUser(_LoadUser):
    @task
    def one(self) -> None:
        self.retrieve()


class MixedUser(_LoadUser):
    """4 retrievals, then one batch of 20 episodes: one request per task, so a stopping run waits for it."""

    @task
    def one(self) -> None:
        if self.sent % (RETRIEVALS_PER_BATCH + 1) < RETRIEVALS_PER_BATCH:
            self.retrieve()
            return
        ids = [f"load-{CONFIG['tag']}-{self.n}-{self.sent}-{i}" for i in range(BATCH)]
        episodes = [{"id": eid, "type": "conversation", "text": f"{TURNS.next()} ({eid})"} for eid in ids]
        if self.send("batch", "/episodes/batch", {"episodes": episodes}) == 201:
            ACKED.extend(ids)


class MemoryUser(_LoadUser):
    """POST /agents/{id}/messages with the next message of the mix (bench/memory.py's shares)."""

    @task
    def one(self) -> None:
        kind, text = POOL.next()
        self.send(f"message.{kind}", f"/agents/{self.agent}/messages",
                  {"text": text, "session_id": f"load-{CONFIG['tag']}-{self.n}"})


class FloodUser(RetrievalUser):
    """Fairness: every flooding user on one agent's key."""

    fixed_count = int((CONFIG.get("flood") or {}).get("users", 64))

    def pick(self) -> tuple[str, str]:
        agent, key = CONFIG["flood"]["agent"]
        return agent, key


class QuietUser(RetrievalUser):
    """Fairness: one user of a second agent, timed beside the flood (or alone)."""

    fixed_count = 1

    def on_start(self) -> None:
        super().on_start()
        self.n = -1  # its samples are told apart by user -1

    def pick(self) -> tuple[str, str]:
        agent, key = CONFIG["flood"]["quiet"]
        return agent, key


@events.quitting.add_listener
def _write_samples(environment: Any, **_kw: Any) -> None:
    with open(CONFIG["samples"], "w") as fh:
        json.dump({"samples": SAMPLES, "acked": ACKED, "pool": POOL.report()}, fh)
