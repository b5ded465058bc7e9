"""Episode ingest throughput (batches of 1,000, embeddings included) beside the bare embedder's
throughput on the same texts. Goal: the graph write costs under 15% (ratio >= 0.85).

Texts are real dialogue turns from ../shared/data/locomo; each run ingests a fresh batch of
1,000 (new ids) into a database that grows run by run, as a live service's would.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from bench.common import summary
from bench.server import bench_database
from grimoire.graph.embeddings import get_embedder
from grimoire.graph.episodes import ingest
from grimoire.graph.model.episode import EpisodeIn
from grimoire.graph.schema import apply_schema
from grimoire.graph.settings import PROJECT_ROOT

LOCOMO = PROJECT_ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
BATCH = 1_000
RUNS = 7


def locomo_texts(path: Path = LOCOMO) -> list[str]:
    texts = []
    for conversation in json.loads(path.read_text()):
        for key, turns in conversation["conversation"].items():
            if key.startswith("session_") and isinstance(turns, list):
                texts += [t["text"] for t in turns]
    return texts


def run() -> dict[str, Any]:
    texts = locomo_texts()
    embedder = get_embedder()
    embed_eps: list[float] = []
    ingest_eps: list[float] = []
    with bench_database() as db:
        apply_schema(db, embedder.dimension, embedder.model_name)
        warm = [EpisodeIn(id=f"warm-{i}", agent_id="bench", type="conversation", text=t)
                for i, t in enumerate(texts[:200])]
        embedder.embed([e.text for e in warm])
        ingest(db, embedder, warm, actor="bench")
        for r in range(RUNS):
            start = (r * BATCH) % (len(texts) - BATCH)
            batch_texts = texts[start:start + BATCH]
            t0 = time.perf_counter()
            embedder.embed(batch_texts)
            embed_eps.append(BATCH / (time.perf_counter() - t0))
            episodes = [EpisodeIn(id=f"run{r}-{i}", agent_id="bench", type="conversation", text=t,
                                  mentions=[{"kind": "Person", "name": f"speaker {i % 2}"}])
                        for i, t in enumerate(batch_texts)]
            t0 = time.perf_counter()
            result = ingest(db, embedder, episodes, actor="bench")
            ingest_eps.append(BATCH / (time.perf_counter() - t0))
            assert len(result.created) == BATCH
            print(f"  run {r + 1}/{RUNS}: embedder {embed_eps[-1]:.0f}/s, ingest {ingest_eps[-1]:.0f}/s "
                  f"(ratio {ingest_eps[-1] / embed_eps[-1]:.3f})", flush=True)
    ratios = [i / e for i, e in zip(ingest_eps, embed_eps, strict=True)]
    embed_s, ingest_s, ratio_s = summary(embed_eps), summary(ingest_eps), summary(ratios)
    return {
        "unit": "episodes per second",
        "batch": BATCH,
        "model": embedder.model_name,
        "embedder": embed_s,
        "ingest": ingest_s,
        "ratio_of_medians": ingest_s["median"] / embed_s["median"],
        "ratio_per_run": ratio_s,
        "goal": "ratio >= 0.85",
        "met": ingest_s["median"] / embed_s["median"] >= 0.85,
        "texts": "LoCoMo dialogue turns (../shared/data/locomo/locomo-dev.json)",
    }
