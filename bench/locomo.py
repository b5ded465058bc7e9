"""LoCoMo turn-level recall@5/10/20 (question categories 1-4, one memory per conversation) for
vector only, BM25 only, vector+BM25 fused by RRF, and the full pipeline, through the retrieval code
the API serves. Writes bench/results/locomo.json (by `make bench`) and locomo.png beside it.

Reference points measured outside the project with the same model on these five conversations:
BM25 recall@10 0.526, vector 0.511, their RRF 0.580. `python -m bench locomo [FILE]` takes any
file in the LoCoMo format (default ../shared/data/locomo/locomo-dev.json)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from bench import locomo_loo
from bench.common import RESULTS
from bench.locomo_eval import KS, ask, evaluate
from bench.locomo_tune import VARIANTS, config_of
from bench.server import bench_database
from grimoire.graph.embeddings import get_embedder
from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.retrieval.pipeline import build
from grimoire.graph.schema import apply_schema
from grimoire.graph.settings import PROJECT_ROOT
from grimoire.loaders import locomo

DEFAULT = PROJECT_ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
REFERENCE = {"bm25": 0.526, "vector": 0.511, "vector+bm25 (RRF)": 0.580}
# The full pipeline as it was before issue 22 (MMR reading relevance as score / best, no query understanding),
# measured beside today's on the same store: `before` in locomo.json.
BEFORE = {"mmr_relevance": "ratio",
          "query": {"time_windows": False, "time_telling": False, "short_context": False}}
# The candidates leave-one-out chooses among (issue 41): the shipped configuration and each of its parts taken out
# or a measured alternative put in (bench/locomo_tune.py's catalogue).
CANDIDATES = ("no MMR reorder", "graph weight 0.5", "fused order only", "no query understanding (before issue 22 "
              "point 2)", "without time windows", "without time telling", "without short-turn context",
              "with entity focus", "with entity lists, two or more entities", "short-turn context 100 chars")


def chart(results: dict[str, Any], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(results)
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=120)
    width = 0.8 / len(KS)
    for i, k in enumerate(KS):
        values = [results[name][f"recall@{k}"] for name in labels]
        bars = ax.bar([x + i * width for x in range(len(labels))], values, width, label=f"recall@{k}")
        ax.bar_label(bars, fmt="%.3f", fontsize=7)
    ax.set_xticks([x + width for x in range(len(labels))], labels)
    ax.set_ylim(0, 1)
    ax.set_ylabel("evidence turns retrieved")
    ax.set_title("LoCoMo turn-level recall (categories 1-4, 5 conversations)")
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def run(path: str | None = None) -> dict[str, Any]:
    source = Path(path or os.environ.get("GRIMOIRE_LOCOMO", DEFAULT))
    embedder = get_embedder()
    with bench_database() as db:
        apply_schema(db, embedder.dimension, embedder.model_name)
        conversations = locomo.load(db, embedder, source)
        evaluated = evaluate(build(db, embedder), conversations)
        print("  the full pipeline as before issue 22", flush=True)
        before = evaluate(build(db, embedder, RetrievalConfig.model_validate(BEFORE)), conversations,
                          {"full pipeline": "hybrid"})
        asked = {locomo_loo.SHIPPED: ask(build(db, embedder), conversations, "hybrid")}
        for i, name in enumerate(CANDIDATES, start=1):
            print(f"  leave-one-out candidate {i}/{len(CANDIDATES)}: {name}", flush=True)
            asked[name] = ask(build(db, embedder, config_of(VARIANTS[name])), conversations, "hybrid")
    results = evaluated["results"]
    ids = [c.sample_id for c in conversations]
    loo = locomo_loo.report(asked, ids, {locomo_loo.SHIPPED: {}, **{n: VARIANTS[n] for n in CANDIDATES}})
    held = loo["held_out"]
    print(f"  leave-one-out held-out R@10 {held['recall@10']['mean']:.3f} ± {held['recall@10']['spread']:.3f}, "
          f"gap {held['gap_recall@10']:.3f}", flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    png = chart(results, RESULTS / "locomo.png")
    loo_png = locomo_loo.chart(loo, RESULTS / "locomo_loo.png")
    full, fused = results["full pipeline"]["recall@10"], results["vector+bm25 (RRF)"]["recall@10"]
    return {
        "data": str(source.name), "conversations": len(conversations),
        "results": results,
        "leave_one_out": {**loo, "chart": loo_png.name},
        "before": {"config": BEFORE, "results": before["results"]},
        "reference_recall@10": REFERENCE,
        "full_minus_fusion_recall@10_points": round(100 * (full - fused), 1),
        "goal": "full pipeline recall@10 at least 5 points above vector+BM25 fusion",
        "met": full - fused >= 0.05,
        "chart": png.name,
        "episode_text": "'<speaker>: <turn>' (the dialogue only; no observations, summaries or captions)",
    }
