"""The service keeps its episode and entry vector indexes compact, so that retrieval as the data was written
is as fast as after `grimoire schema rebuild-vectors`, and nobody has to know that command.

Why: a vector search visits every Lucene segment of its index, and vectors written batch after batch leave
several (9 for 100,000 episodes written 1,000 at a time: /retrieve p95 51.8 ms, against 39.0 ms once the index
was built from scratch in one). Neo4j exposes no segment count and no merge, so the upkeep judges an index
fragmented by what was written into it since it was last built (`Writes`), and rebuilds it from scratch.

A job on the service's scheduler (`vectors.upkeep`, every GRIMOIRE_VECTOR_UPKEEP interval) runs `VectorUpkeep.run`:
- an index with a rebuild under way: when online, the build is recorded (`VectorIndexBuild`); else it waits;
- an index that is `fragmented` (at least `min_vectors`, and `written_ratio` of its size written since its
  last build, or grown by that much: an import keeps its items' recorded times) once the bulk write is over
  (nothing written for `quiet_seconds`): the rebuild starts (drop and create, one schema transaction, then its
  audit record and the node saying so) and the job returns at once. Neo4j populates the index in the
  background. A population that failed is tried again hourly.

Meanwhile the service does not ask the index: `Database.rebuilding` names it, so a statement searching it is
answered with IndexOffline at once rather than after Neo4j's 30 s wait, and each caller's exact path answers
(retrieval and search from the exact scan over what the caller sees, admission from its scan). Writes go on;
the index takes them in as it populates."""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

from grimoire.graph.audit import Audit, Noop
from grimoire.graph.db import ogm
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.ids import now_ms
from grimoire.graph.schema import start_vector_rebuild, vector_index_states
from grimoire.graph.upkeep import models
from grimoire.graph.upkeep.config import UpkeepConfig

log = logging.getLogger(__name__)

KEPT = ("episode_embedding", "entry_embedding")  # the indexes the bulk writes go to (skills' are small)
RETRY_FAILED_MS = 3_600_000  # an index whose population failed is rebuilt again at most hourly


@dataclass(frozen=True)
class Writes:
    """An index's vectors now, those written since its last build, and when the newest was written."""

    name: str
    size: int
    written: int
    newest: int | None
    size_at_build: int = 0

    @property
    def fresh(self) -> int:
        """What came in since its build: written since (recorded then), or grown by (an import keeps the items'
        own, older recorded times)."""
        return max(self.written, self.size - self.size_at_build)

    def fragmented(self, config: UpkeepConfig) -> bool:
        return self.size >= max(1, config.min_vectors) and self.fresh >= config.written_ratio * self.size

    def quiet(self, config: UpkeepConfig, now: int) -> bool:
        return self.newest is None or now - self.newest >= config.quiet_seconds * 1000


class VectorUpkeep:
    """The job's state lives in the graph (`VectorIndexBuild`), so a restart picks up a rebuild under way."""

    def __init__(self, db: Database, dimension: int, config: UpkeepConfig, quantization: bool = False) -> None:
        self.db = db
        self.dimension = dimension
        self.config = config
        self.quantization = quantization

    def run(self, now: int | None = None) -> str:
        """One look at the kept indexes; what it did, for the scheduler's log."""
        at = now_ms() if now is None else now
        builds = ogm.read(self.db, lambda tx: models.builds())
        states = vector_index_states(self.db, KEPT)
        sizes = {r["name"]: r for r in self.db.rows("upkeep/vector_sizes")}
        done: list[str] = []
        rebuilding: set[str] = set()
        since = {name: (b.built_at or 0) if (b := builds.get(name)) else 0 for name in KEPT}
        base = {name: (b.size_at_build or 0) if (b := builds.get(name)) else 0 for name in KEPT}
        for name in KEPT:
            build = builds.get(name)
            state, percent = states.get(name, ("MISSING", 0.0))
            if build is not None and build.rebuilding_since is not None:
                if state == "ONLINE":
                    base[name] = int(sizes[name]["size"])
                    self._finished(name, build.rebuilding_since, at, base[name])
                    since[name] = build.rebuilding_since
                    done.append(f"{name} rebuilt")
                elif state == "POPULATING":
                    rebuilding.add(name)
                    done.append(f"{name} populating {percent:.0f}%")
                elif at - build.rebuilding_since >= RETRY_FAILED_MS:  # failed, or dropped under us
                    self._start(name, at, f"its rebuild ended {state}")
                    rebuilding.add(name)
                    done.append(f"{name} rebuild restarted")
                else:
                    done.append(f"{name} rebuild ended {state}: tried again an hour after it started")
            elif state == "POPULATING":  # a rebuild by hand elsewhere, or ours not recorded: recorded now
                self._record_start(name, at)
                rebuilding.add(name)
                done.append(f"{name} populating {percent:.0f}%")
        self.db.rebuilding = frozenset(rebuilding)
        looked = [name for name in KEPT if name not in rebuilding and states.get(name, ("",))[0] == "ONLINE"
                  and int(sizes[name]["size"]) >= max(1, self.config.min_vectors)]
        if not looked:
            return "; ".join(done) or "compact"
        caps = {name: math.ceil(self.config.written_ratio * int(sizes[name]["size"])) for name in KEPT}
        quiet = [n for n in looked if Writes(n, 0, 0, sizes[n]["newest"]).quiet(self.config, at)]
        # Counting what was written since a build walks an index range: only once the writes stopped, and no
        # further than the share that decides; while they go on, the growth since the build stands for it.
        counted = ({r["name"]: int(r["written"]) for r in self.db.rows(
            "upkeep/vector_written", episode_since=since["episode_embedding"], entry_since=since["entry_embedding"],
            episode_cap=caps["episode_embedding"], entry_cap=caps["entry_embedding"])} if quiet else {})
        for name in looked:
            size = int(sizes[name]["size"])
            writes = Writes(name, size, counted.get(name, max(0, size - base[name])), sizes[name]["newest"],
                            base[name])
            if not writes.fragmented(self.config):
                continue
            if name not in quiet:
                done.append(f"{name} fragmented, still being written")
                continue
            self._start(name, at, f"{writes.fresh:,}+ of its {size:,} vectors came in since it was built")
            done.append(f"{name} rebuild started ({writes.fresh:,}+ of {size:,} new since its build)")
        return "; ".join(done) or "compact"

    def _start(self, name: str, at: int, why: str) -> None:
        """Drop and re-create the index, then record it (a crash between leaves it POPULATING unrecorded, which
        the next look records); no search waits on it meanwhile."""
        self.db.rebuilds.add(name)
        try:
            start_vector_rebuild(self.db, self.dimension, [name], self.quantization)
        except Exception:
            self.db.rebuilds.discard([name])
            raise
        audit = Audit(action="schema.rebuild_vector_indexes", actor="upkeep", agent_id=None, at=at)

        def record(tx: Tx) -> None:
            models.mark(name, at, rebuilding_since=at)
            audit.write(tx, [name], f"rebuilding vector index {name}: {why}",
                        [Noop(reason="an index rebuilt as it was: no data changed")])

        ogm.write(self.db, record)
        log.info("vector index %s: rebuild started (%s)", name, why)

    def _record_start(self, name: str, at: int) -> None:
        def record(tx: Tx) -> None:
            models.mark(name, at, rebuilding_since=at)

        ogm.write(self.db, record)

    def _finished(self, name: str, started: int, at: int, size: int) -> None:
        """Record the build of `size` vectors."""
        seconds = round((at - started) / 1000, 1)
        audit = Audit(action="schema.rebuild_vector_indexes", actor="upkeep", agent_id=None, at=at)

        def record(tx: Tx) -> None:
            models.built(name, at, started, size, seconds)
            audit.write(tx, [name], f"vector index {name} rebuilt: online within {seconds:.0f} s with {size:,} "
                                    f"vectors", [Noop(reason="an index rebuilt as it was: no data changed")])

        ogm.write(self.db, record)
        log.info("vector index %s: rebuilt, online within %.0f s (%d vectors)", name, seconds, size)
