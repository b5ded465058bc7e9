"""Each GDS analysis's duration, end to end (projection of the topology valid at the block, the
algorithm, the projection dropped, ids mapped back) and the algorithm alone, on the loaded Aave
graph and on the same graph plus 100,000 generated facts (bench/topology.py's generator), plus the
failure cascade of the oracle most reserves depend on. Medians and p95 over repeated runs."""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from bench.common import summary
from bench.server import bench_database
from bench.topology import BLOCK, DATA, GENERATED, _generate
from grimoire.graph.analytics import runs
from grimoire.graph.analytics.algorithms import Algorithm, AlgorithmParams
from grimoire.graph.analytics.cascade import cascade
from grimoire.graph.analytics.client import gds_for
from grimoire.graph.analytics.projections import GraphKind, ProjectionSpec, leftover
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import get_embedder
from grimoire.graph.schema import apply_schema
from grimoire.graph.settings import get_settings
from grimoire.loaders.aave.load import load

REPEATS = 5
EVERYONE = runs.EVERYONE


def _path_ends(db: Database) -> tuple[str, str]:
    """The oracle most reserves depend on at BLOCK, and one of those reserves."""
    by_oracle: dict[str, list[str]] = {}
    for f in db.rows("topology/facts_at_block", block=BLOCK, types=["ORACLE_DEPENDENCY"]):
        by_oracle.setdefault(f["object"], []).append(f["subject"])
    oracle = max(by_oracle, key=lambda o: (len(by_oracle[o]), o))
    return oracle, sorted(by_oracle[oracle])[0]


def _measure(db: Database, label: str) -> dict[str, Any]:
    oracle, reserve = _path_ends(db)
    out: dict[str, Any] = {}
    for algorithm in Algorithm:
        params = AlgorithmParams(source=reserve, target=oracle) if algorithm == Algorithm.shortest_path \
            else AlgorithmParams()
        analysis = runs.Analysis(algorithm, ProjectionSpec(GraphKind.topology, block=BLOCK), params, limit=10)
        runs.run(db, analysis, actor="bench")  # warm-up: plans, JIT
        total, algo = [], []
        for _ in range(REPEATS):
            result = runs.run(db, analysis, actor="bench")
            total.append(result.run.duration_ms or 0.0)
            algo.append(result.run.algorithm_ms or 0.0)
        out[algorithm.value] = {"end_to_end_ms": summary(total), "algorithm_ms": summary(algo),
                                "nodes": result.run.node_count, "relationships": result.run.relationship_count}
        print(f"  {label} {algorithm.value}: median {statistics.median(total):.0f} ms end to end, "
              f"{statistics.median(algo):.0f} ms algorithm", flush=True)
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        c = cascade(db, oracle, BLOCK, visibility=EVERYONE, actor="bench")
        times.append((time.perf_counter() - t0) * 1000)
    out["cascade"] = {"end_to_end_ms": summary(times), "entity": oracle, "affected": c.affected_count}
    print(f"  {label} cascade: median {statistics.median(times):.0f} ms", flush=True)
    assert leftover(gds_for(db)) == [], "projections left in the catalogue"
    return out


def run() -> dict[str, Any]:
    embedder = get_embedder()
    with bench_database() as db:
        apply_schema(db, embedder.dimension, embedder.model_name)
        load(db, embedder, DATA, freshness=get_settings().facts)
        loaded = {**db.run("testing/count_facts")[0], "analyses": _measure(db, "loaded graph")}
        _generate(db, random.Random(2026), GENERATED)
        larger = {**db.run("testing/count_facts")[0], "analyses": _measure(db, "larger graph")}
    return {
        "projection": f"the topology valid at block {BLOCK:,} (cypher/analytics/project_topology.cypher)",
        "loaded": {"graph": "Aave address book, Chainlink feeds, governance v3 and history (loaders/aave)", **loaded},
        "larger": {"graph": f"the loaded graph plus {GENERATED:,} generated facts between its real entities "
                            "(bench/topology.py)", **larger},
        "statistic": f"median and p95 of {REPEATS} runs after one warm-up; end to end includes projecting and "
                     "dropping the graph and mapping ids; algorithm_ms is the GDS call alone",
        "left_in_catalogue": 0,
    }
