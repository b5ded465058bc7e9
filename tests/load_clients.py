"""Clients that keep a service busy for the fault tests: each user loops over the mixed profile of the load benchmark
(four retrievals, then a batch of 20 episodes), through the typed client as an agent would use it (its retries,
honouring Retry-After), and keeps what it saw: the episodes the service acknowledged and any error that reached the
caller despite the retries."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from grimoire.client import Grimoire

QUESTIONS = ("What did the agent see about the WETH borrow rate?", "When did funding turn negative?",
             "Which pool lost liquidity first?", "What happened to the stETH peg?",
             "Who repaid the largest loan?", "Where did the gas price spike?")


@dataclass
class Load:
    url: str
    keys: list[str]
    users: int = 4
    retries: int = 12
    acknowledged: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    served: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> Load:
        for user in range(self.users):
            t = threading.Thread(target=self._user, args=(user,), name=f"load-{user}", daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def stop(self, timeout: float = 180.0) -> Load:
        self._stop.set()
        for t in self._threads:
            t.join(timeout)
        assert not any(t.is_alive() for t in self._threads), "a load client is stuck"
        return self

    def served_count(self) -> int:
        with self._lock:
            return self.served

    def wait_served(self, more: int, timeout: float = 180.0) -> None:
        """Until `more` requests past now were answered (the load is really running)."""
        target = self.served_count() + more
        deadline = time.monotonic() + timeout
        while self.served_count() < target:
            assert time.monotonic() < deadline, f"the load served {self.served_count()} of {target}"
            assert not self.errors, self.errors
            time.sleep(0.2)

    def _user(self, user: int) -> None:
        key = self.keys[user % len(self.keys)]
        with Grimoire(self.url, key, retries=self.retries, backoff=0.5, timeout=60) as client:
            batch = 0
            while not self._stop.is_set():
                try:
                    for i in range(4):
                        client.retrieve_memory({"text": QUESTIONS[(user + i + batch) % len(QUESTIONS)], "k": 5})
                        self._count()
                    ids = [f"load-u{user}-b{batch}-{i}" for i in range(20)]
                    client.record_episodes({"episodes": [self._episode(e) for e in ids]})
                    self._count()
                    with self._lock:
                        self.acknowledged.update(ids)
                    batch += 1
                except Exception as exc:  # what reached the caller despite the client's retries
                    with self._lock:
                        self.errors.append(f"user {user}: {type(exc).__name__}: {exc}")
                    return

    def _count(self) -> None:
        with self._lock:
            self.served += 1

    @staticmethod
    def _episode(episode_id: str) -> dict[str, Any]:
        return {"id": episode_id, "type": "observation",
                "text": f"Load {episode_id}: the WETH borrow rate moved while funding stayed negative"}
