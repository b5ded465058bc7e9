"""The learned rerank of the head (issue 41, "reranking"; the model in bench/learned_rerank.py) on the five LoCoMo dev
conversations. Writes bench/results/reranker.json.

What there is: no PyPI package ships a cross-encoder's weights (flashrank, rerankers, swiftrank, mxbai-rerank,
kjarni, candding, convmemory, ... fetch them from the Hugging Face hub or a bucket on first use; the hub is unreachable
here: `not_installable` below lists what was checked). The one neural reranker that ships its weights inside its
package is nanoranker 1.2 (Universal Sentence Encoder multilingual and hashed character n-grams for the query and
for the text, an MLP over the pair), run here from the package's files with nothing reaching the network.

- recall: the full pipeline (`hybrid`, the shipped configuration) asked for each question's first max(HEADS)
  results, once; each variant reorders that head itself (bench/learned_rerank.py), at head 20 and 30, the model's
  order alone (model_weight 1) and half the model's, half the pipeline's (0.5), and recall@5/@10 is read from the
  reordered list. The recorded numbers were measured with the model as a stage at the pipeline's end (since
  removed), which is the same as reordering the head the pipeline returns. Recall@5/@10 overall and by category
  per conversation (the mean and the spread over the five), each variant's gain over the shipped order
  conversation by conversation (kept only if the mean gain exceeds its spread), and leave-one-conversation-out
  among them all (bench/locomo_loo.py).
- latency: what the stage adds to a request on these two cores. The model alone, on the heads the shipped pipeline
  returned for QUESTIONS questions, at head 20 and 30, measured in alternation: CPU ms (this process, every thread)
  and wall ms, p50 and p95, with every head text new to the model (`cold`: as for items it has not seen) and with
  the texts' encodings kept (`warm`: the query alone encoded, then the MLP); and the model's scoring of each
  question's head over the recall run (`latency_in_pipeline_wall`), where a text is encoded the first time a
  question brings it into a head. The issue's goal is a p95 of 25 ms for the whole of /retrieve.

`python -m bench reranker`. The machine's two cores are shared: `load_average` is recorded before and after."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Mapping, Sequence
from typing import Any

from bench import locomo_loo
from bench.embedders import per_conversation
from bench.learned_rerank import Scorer, reorder
from bench.locomo_eval import KS, Asked
from bench.retrieval import LOCOMO
from grimoire.graph.retrieval.filters import RetrievalFilters
from grimoire.graph.retrieval.pipeline import RetrievalRequest, Retriever
from grimoire.graph.visibility import Visibility
from grimoire.loaders.locomo import CATEGORIES, Conversation

QUESTIONS = 120   # timed questions (every conversation's, spread over it)
HEADS = (20, 30)
VARIANTS: dict[str, dict[str, Any]] = {
    locomo_loo.SHIPPED: {},
    "head 20, model alone": {"head": 20, "model_weight": 1.0},
    "head 30, model alone": {"head": 30, "model_weight": 1.0},
    "head 20, half model": {"head": 20, "model_weight": 0.5},
    "head 30, half model": {"head": 30, "model_weight": 0.5},
}
NOT_INSTALLABLE = {
    "flashrank 0.1.1-0.2.10": "14 kB wheel, code only: ms-marco-TinyBERT-L-2-v2 / MiniLM-L-12-v2 ONNX fetched from a "
                              "bucket (0.1.x) or the Hugging Face hub (0.2.x) into a cache directory on first use",
    "rerankers 0.0.1, 0.10.0": "code only: every backend loads its model by hub name",
    "sentence-transformers CrossEncoder": "code only: cross-encoder/ms-marco-* from the hub",
    "swiftrank 0.1.0, 1.3.0": "code only: flashrank's ONNX files downloaded into ~/.cache/swiftrank",
    "mxbai-rerank 0.1.6": "code only: mixedbread-ai models from the hub",
    "kjarni 0.2.5": "a 21 MB native library, no weights: 'the model downloads on first use'",
    "candding 0.1.0": "a 19 MB native library, no weights: models by hub name",
    "convmemory 0.7.0": "56 kB, code only: its 14 MB reranker from the hub (convmemory/hub.py)",
    "small-hybrid-reranker 0.2.1": "ships a LightGBM ranker, but its features need model2vec's "
                                   "cnmoro/static-nomic-384-pten-v2 from the hub (StaticModel.from_pretrained)",
    "tinyintent 0.1.1, gatrag-context-classifier 1.0.0, inranker 1.1.0, local-reranker 0.1.1, "
    "bert-reranker 0.2.1": "code only (2-30 kB)",
    "flash-rerank 0.2.0": "a Windows wheel only: nothing installs on Linux",
}


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _request(text: str, agent_id: str) -> RetrievalRequest:
    return RetrievalRequest(text=text, mode="hybrid", k=max(max(HEADS), max(KS)), no_budget=True,
                            filters=RetrievalFilters(kinds=["episodes"], agent_id=agent_id))


def ask(retriever: Retriever, model: Scorer, conversations: Sequence[Conversation],
        heads: dict[str, list[str]]) -> tuple[dict[str, list[Asked]], list[float]]:
    """Each variant's recall per question (as bench/locomo_eval.ask) on the shipped pipeline's head reordered as
    the variant says, and the model's wall ms per question; `heads` gets each question's head texts (for the
    latency)."""
    out: dict[str, list[Asked]] = {name: [] for name in VARIANTS}
    laps: list[float] = []
    for n, conv in enumerate(conversations):
        view = Visibility(conv.agent_id, "")
        for q in conv.questions:
            if q.category not in (1, 2, 3, 4):
                continue
            res = retriever.retrieve(_request(q.question, conv.agent_id), view, conv.agent_id)
            ids = [r.id for r in res.results]
            texts = heads[q.question] = [r.text or "" for r in res.results[:max(HEADS)]]
            started = time.perf_counter()
            scores = model.score(q.question, texts)  # a pair's score does not depend on the rest of the head
            laps.append(1000 * (time.perf_counter() - started))
            evidence = set(q.evidence)
            for name, over in VARIANTS.items():
                got = reorder(ids, scores[:over["head"]], over["model_weight"]) if over else ids
                out[name].append(Asked(n, CATEGORIES[q.category],
                                       {k: len(evidence & set(got[:k])) / len(evidence) for k in KS}))
    return out, laps


def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _summary(pairs: Sequence[tuple[float, float]]) -> dict[str, float]:
    walls, cpus = [w for w, _ in pairs], [c for _, c in pairs]
    return {"wall_p50_ms": round(statistics.median(walls), 2), "wall_p95_ms": round(_pct(walls, 0.95), 2),
            "cpu_p50_ms": round(statistics.median(cpus), 2), "cpu_p95_ms": round(_pct(cpus, 0.95), 2),
            "requests": len(pairs)}


def latency(heads: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """The model alone on the shipped heads, cold (nothing kept) and warm (the texts kept), at each head size, in
    alternation so that each sees the same load."""
    from bench.learned_rerank import NanoRanker

    cold, warm = NanoRanker(cache_texts=0), NanoRanker()
    questions = list(heads)
    step = max(1, len(questions) // QUESTIONS)
    timed = questions[::step][:QUESTIONS]
    for q in timed[:3]:  # warm up: a session's first calls allocate
        cold.score(q, heads[q][:max(HEADS)])
    for q in timed:  # the warm model has seen every head's texts before it is timed
        warm.score(q, heads[q][:max(HEADS)])
    got: dict[str, list[tuple[float, float]]] = {f"{kind} head {h}": [] for h in HEADS for kind in ("cold", "warm")}
    for i, q in enumerate(timed):
        runs = [(kind, h) for h in HEADS for kind in ("cold", "warm")]
        for kind, h in (runs if i % 2 else list(reversed(runs))):
            model = cold if kind == "cold" else warm
            wall, cpu = time.perf_counter(), time.process_time()
            model.score(q, heads[q][:h])
            got[f"{kind} head {h}"].append((1000 * (time.perf_counter() - wall), 1000 * (time.process_time() - cpu)))
        if (i + 1) % 40 == 0:
            print(f"  latency: {i + 1}/{len(timed)} questions", flush=True)
    return {name: _summary(pairs) for name, pairs in got.items()}


def run() -> dict[str, Any]:
    from bench.learned_rerank import scorer
    from bench.server import bench_database
    from grimoire.graph.embeddings import Embedder
    from grimoire.graph.retrieval.config import RetrievalConfig
    from grimoire.graph.retrieval.pipeline import build
    from grimoire.graph.schema import apply_schema
    from grimoire.loaders import locomo

    load_before = _load()
    embedder = Embedder()
    heads: dict[str, list[str]] = {}
    with bench_database() as db:
        apply_schema(db, embedder.dimension, embedder.model_name)
        print("  loading the five conversations", flush=True)
        conversations = locomo.load(db, embedder, LOCOMO)
        ids = [c.sample_id for c in conversations]
        model = scorer()  # loaded before the first question, not in its lap
        started = time.perf_counter()
        asked, laps = ask(build(db, embedder, RetrievalConfig()), model, conversations, heads)
        print(f"  {len(laps)} questions asked and reranked ({time.perf_counter() - started:.0f} s)", flush=True)
    for name in VARIANTS:
        s = per_conversation(asked[name], ids)
        print(f"  {name}: recall@10 {s['recall@10']['mean']:.3f} ± {s['recall@10']['spread']:.3f}, recall@5 "
              f"{s['recall@5']['mean']:.3f}", flush=True)
    load_after_recall = _load()
    print("  latency of the model alone", flush=True)
    spent = latency(heads)
    for name, v in spent.items():
        print(f"  {name}: CPU p50 {v['cpu_p50_ms']} / p95 {v['cpu_p95_ms']} ms, wall p50 {v['wall_p50_ms']} / p95 "
              f"{v['wall_p95_ms']} ms", flush=True)
    verdicts = locomo_loo.verdicts(asked, len(ids))
    for name, v in verdicts.items():
        print(f"  {name}: recall@10 gain {v['gain_mean']:+.3f} ± {v['gain_spread']:.3f} "
              f"({'kept' if v['kept'] else 'not kept'})", flush=True)
    in_pipeline = {f"head {max(HEADS)} scored, texts kept once seen": {
        "wall_p50_ms": round(statistics.median(laps), 2), "wall_p95_ms": round(_pct(laps, 0.95), 2),
        "requests": len(laps)}} if laps else {}
    return {
        "unit": "recall as a fraction of evidence turns (mean and spread over the five conversations); ms per request",
        "data": LOCOMO.name, "conversations": ids,
        "model": "nanoranker 1.2 (MIT): universal-sentence-encoder-multilingual.onnx (512) + 64 hashed character "
                 "n-grams for query and text, reranker_nn_v2.onnx (an MLP over the 1,152, sigmoid); both ONNX files "
                 "inside the wheel, run on one onnxruntime thread each; not a cross-encoder",
        "not_installable": NOT_INSTALLABLE,
        "variants": {n: dict(o) for n, o in VARIANTS.items()},
        "per_variant": {n: per_conversation(a, ids) for n, a in asked.items()},
        "against_shipped": verdicts,
        "leave_one_out": locomo_loo.report(asked, ids, VARIANTS),
        "latency_model_alone": spent,
        "latency_in_pipeline_wall": in_pipeline,
        "goal": "kept on only if its held-out recall@10 gain exceeds the gain's spread and the stage fits inside the "
                "issue's 25 ms p95 for the whole of /retrieve",
        "load_average": {"before": load_before, "after_recall": load_after_recall, "after": _load()},
        "method": __doc__.split("\n\n", 1)[1] if __doc__ else "",
    }
