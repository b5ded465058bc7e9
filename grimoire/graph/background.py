"""The Curator's cycles in a child process of the service (GRIMOIRE_CURATOR_PROCESS, on by default).

A cycle is tens of seconds of Python beside the database's work: planning hundreds of clusters,
reading and comparing tens of thousands of vectors, judging thousands of candidates, embedding
lessons. On a thread of the service that Python shares one interpreter lock, one garbage collector
and the embedder's thread pool with the requests, and a request waits behind it however nice the
thread is (bench/results/curator.json: p95 2.3x idle that way). In a child process the kernel
schedules it at the lowest priority against the requests, and its statements still give way to the
requests the service is serving: the middleware's counters (graph/foreground.py) are in shared memory.

The child is started on the first cycle (spawned: its own interpreter, its own driver and embedder),
runs one cycle at a time, and is stopped with the service (a cycle under way is stopped, and resumed by
the next one; a child whose service is gone ends itself). A child that dies mid-cycle (killed, out of
memory) leaves the cycle open: the next call starts a new child, which resumes it
(graph/learning/cycle.py)."""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace

from grimoire.graph import logs, tracing
from grimoire.graph.audit import channel as channels
from grimoire.graph.db import fencing
from grimoire.graph.db.connection import Database, Target
from grimoire.graph.db.fencing import Fence
from grimoire.graph.embeddings import Embedder, get_embedder
from grimoire.graph.errors import Unavailable
from grimoire.graph.foreground import Counters, Foreground, PacedDatabase
from grimoire.graph.knowledge.entries import Knowledge
from grimoire.graph.learning.config import LearningConfig
from grimoire.graph.learning.cycle import Curator, CycleReport, RunsCycles
from grimoire.graph.learning.state import Learning
from grimoire.graph.settings import Settings

log = logging.getLogger(__name__)
KnowledgeFactory = Callable[[Settings, Database, Embedder], Knowledge]

class CuratorProcessDied(Unavailable):
    """The child stopped in the middle of a cycle (killed, out of memory): the next cycle asked for starts a
    new child, which resumes the open cycle (503: retrying helps)."""


_curator: Curator | None = None  # the child's own, on its own driver and embedder


def paced_curator(knowledge: Knowledge, foreground: Foreground, config: LearningConfig,
                  elsewhere: RunsCycles | None = None) -> Curator:
    """A Curator whose statements give way to the requests `foreground` counts: the service's (whose cycles
    then run `elsewhere`, in the child) and the child's own."""
    paced = replace(knowledge, db=PacedDatabase(knowledge.db, foreground, config.yield_seconds, config.pause_ratio))
    return Curator(Learning(paced, config), elsewhere)


def _start(settings: Settings, target: Target, counters: Counters, knowledge: KnowledgeFactory) -> None:
    """In the child: the lowest CPU priority, then a Curator like the service's (`knowledge` builds it from
    the settings as the service does: services.build_knowledge, passed by name)."""
    global _curator
    logs.configure(settings.log_level, settings.log_format)  # the cycle's records go where the service's go
    tracing.configure(settings.tracing_enabled)  # the cycle's trace, exported as the service's are
    threading.Thread(target=_exit_with, args=(os.getppid(),), daemon=True, name="parent-watch").start()
    try:
        os.nice(19 - os.nice(0))
    except OSError as exc:  # not permitted: the child keeps the service's priority, and still its own lock
        log.warning("the Curator's process keeps the service's priority: %s", exc)
    embedder = get_embedder(settings.embedding_model, settings.embedding_batch_size, settings.embedding_options())
    built = knowledge(settings, Database(target, slow_ms=settings.slow_query_ms), embedder)
    _curator = paced_curator(built, Foreground(counters), settings.learning)


def _exit_with(parent: int) -> None:
    """In the child: ends it when the service is gone (killed without closing it), so that no orphan goes on
    writing a cycle the next service resumes."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)


def _cycle(agent_id: str, clade: str | None, actor: str, trigger: str, now: int | None,
           channel: str = channels.Channel.rest.value, fences: tuple[Fence, ...] = ()) -> CycleReport:
    assert _curator is not None, "the child was not started"
    # The asker's channel on the cycle's audit records; the leases the asker runs it under (a scheduler's job, an
    # agent's lease: graph/leases.py) fence the child's writes as they would the service's (graph/db/fencing.py).
    with channels.through(channels.Channel(channel)), fencing.under(*fences):
        return _curator.run(agent_id, clade=clade, actor=actor, trigger=trigger, now=now)


def _pid() -> int:
    return os.getpid()


class CycleProcess:
    """Runs cycles in the child; `Curator.run` hands them here (graph/learning/cycle.py, `elsewhere`)."""

    def __init__(self, settings: Settings, target: Target, counters: Counters, knowledge: KnowledgeFactory) -> None:
        self._args = (settings, target, counters, knowledge)
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._closed = False

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._closed:
                raise Unavailable("the service is stopping: no new Curator cycle")
            if self._pool is None:
                self._pool = ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn"),
                                                 initializer=_start, initargs=self._args)
            return self._pool

    def __call__(self, agent_id: str, clade: str | None, actor: str, trigger: str, now: int | None) -> CycleReport:
        pool = self._executor()
        try:
            return pool.submit(_cycle, agent_id, clade, actor, trigger, now, channels.current.get().value,
                               fencing.current.get()).result()
        except BrokenProcessPool as exc:
            with self._lock:  # the next cycle starts a new child, which resumes the open cycle
                if self._pool is pool:
                    self._pool = None
            pool.shutdown(wait=False)
            log.warning("the Curator's process died during a cycle of %s: %s", agent_id, exc)
            raise CuratorProcessDied(f"the Curator's process stopped during the cycle of {agent_id}; "
                                     "asking again resumes it") from exc

    def pid(self) -> int:
        """The child's process id (starting it when it is not running)."""
        return self._executor().submit(_pid).result()

    def close(self) -> None:
        """Stops the child without waiting for its cycle: a cycle resumes where it stopped, and a service
        stopping should not wait minutes for one (the open transaction is rolled back)."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is None:
            return
        children = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for child in children:
            child.terminate()
        for child in children:
            child.join(10)
