"""Knowledge crystals as the service holds them (a field of graph/services.py Services): the consolidation engine
with its configuration, one pass at a time, and the periodic jobs the scheduler runs — the consolidation pass, TTL
expiry and the purge."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from grimoire.graph.crystals import store
from grimoire.graph.crystals.config import CrystalsConfig
from grimoire.graph.crystals.consolidation import ConsolidationEngine, PassReport, PassRunning
from grimoire.graph.crystals.pipeline import MemoryPipeline
from grimoire.graph.db.connection import Database
from grimoire.graph.retrieval import Retriever
from grimoire.graph.visibility import Visibility

__all__ = ["Crystals", "PassRunning"]


@dataclass
class Crystals:
    db: Database
    retriever: Retriever
    config: CrystalsConfig = field(default_factory=CrystalsConfig)
    engine: ConsolidationEngine = field(init=False)
    _running: threading.Lock = field(default_factory=threading.Lock, init=False)

    def __post_init__(self) -> None:
        self.engine = ConsolidationEngine(self.db, self.config.consolidation(), batch=self.config.batch,
                                          neighbours=self.config.merge_neighbours,
                                          single_below=self.config.single_transaction_below,
                                          max_attempts=self.config.consolidation_max_attempts)

    def consolidate(self, cancelled: Callable[[], bool] = lambda: False, now: int | None = None) -> PassReport:
        if not self._running.acquire(blocking=False):
            raise PassRunning("a consolidation pass is running; try again when it is done")
        try:
            return self.engine.run(now, cancelled)
        finally:
            self._running.release()

    def lifespan(self, cancelled: Callable[[], bool] = lambda: False, now: int | None = None) -> store.Swept:
        return store.enforce_lifespan(self.db, now, batch=self.config.batch, cancelled=cancelled)

    def purge(self, cancelled: Callable[[], bool] = lambda: False, now: int | None = None) -> store.Purged:
        return store.purge(self.db, self.config.purge_retention_days, now, batch=self.config.batch,
                           cancelled=cancelled)

    def pipeline(self, visibility: Visibility, *, agent_id: str | None, actor: str) -> MemoryPipeline:
        return MemoryPipeline.create(self.retriever, self.db, visibility, agent_id=agent_id, actor=actor)
