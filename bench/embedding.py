"""The embedding per core (issue 37 §4): the float model beside the int8-quantized one (speed, and vector recall on
the LoCoMo dev file), onnxruntime's thread settings for a bulk call, and the micro-batcher under concurrent
single-text callers. Writes bench/results/embedding.json.

- speed: ms per query and its CPU (one text, the single-threaded query session, a distinct LoCoMo question each
  time), texts/s and CPU ms per text for a bulk call (128 LoCoMo turns, the bulk session), both models measured
  in alternation so that both see the same load (CPU per text is the figure the load disturbs least).
- recall: turn-level recall@5/10/20 of the vector ranking alone (exact cosine over a conversation's turns,
  what Neo4j's exact ranking returns for a small reach), categories 1-4, every conversation of the dev file
  (tune: the first three, check: the last two, as bench/locomo_eval.py splits them); and how close the int8
  vectors are to the float ones.
- threads: 128 LoCoMo turns (batches of 32) on sessions of 1 thread, 2 spinning threads (onnxruntime's default)
  and 2 threads that do not spin (the service's setting), in alternating rounds: texts/s and the process's CPU
  per text, medians over the rounds.
- batcher: N threads each embedding distinct single questions back to back (the pattern of concurrent
  retrievals), the batcher off (GRIMOIRE_EMBED_BATCH_WAIT_MS=0) and on (2 ms) in alternating rounds: texts/s,
  p50/p95 per call, the process's CPU per text and the model calls made, medians over the rounds.

The machine's two cores are shared with whatever else runs: `load_average` is recorded before and after."""

from __future__ import annotations

import os
import statistics
import threading
import time
from typing import Any

import numpy as np

from bench.common import summary
from bench.ingest import locomo_texts
from bench.locomo_eval import KS
from bench.retrieval import LOCOMO
from grimoire.graph.embedding_batcher import MicroBatcher
from grimoire.graph.embeddings import Embedder, EmbeddingOptions
from grimoire.loaders.locomo import read

QUERIES = 200
BULK = 128
ROUNDS = 4
LEVELS = (1, 4, 16)
PER_THREAD = 32
WAIT_MS = 2.0
TUNE_CONVERSATIONS = 3  # its recall's tune/check halves: the 3/2 split bench/locomo_eval.py kept until issue 41


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def speed(models: dict[str, Embedder], questions: list[str], turns: list[str]) -> dict[str, Any]:
    """Both models measured in alternation (query by query, round by round), so that both see the same load."""
    encs = {name: m._onnx for name, m in models.items()}
    assert all(e is not None for e in encs.values())
    one: dict[str, list[float]] = {n: [] for n in encs}
    one_cpu: dict[str, list[float]] = {n: [] for n in encs}
    for i, q in enumerate(questions[:QUERIES]):
        for name in (list(encs) if i % 2 else list(reversed(encs))):
            wall, cpu = time.perf_counter(), time.thread_time()
            encs[name].encode([q], 64)  # type: ignore[union-attr]
            one[name].append(1000 * (time.perf_counter() - wall))
            one_cpu[name].append(1000 * (time.thread_time() - cpu))
    bulk: dict[str, list[tuple[float, float]]] = {n: [] for n in encs}
    for r in range(ROUNDS):
        chunk = turns[r * BULK:(r + 1) * BULK]
        for name in (list(encs) if r % 2 else list(reversed(encs))):
            wall, cpu = time.perf_counter(), time.process_time()
            encs[name].encode(chunk, models[name].batch_size)  # type: ignore[union-attr]
            bulk[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    out: dict[str, Any] = {}
    for name, enc in encs.items():
        walls, cpus = [w for w, _ in bulk[name]], [c for _, c in bulk[name]]
        out[name] = {"query_ms": summary(one[name]), "query_cpu_ms": summary(one_cpu[name]),
                     "bulk_texts_per_s": round(BULK / statistics.median(walls), 1),
                     "bulk_cpu_ms_per_text": round(1000 * statistics.median(cpus) / BULK, 3),
                     "bulk_threads": enc.threads,  # type: ignore[union-attr]
                     "model_file_mb": round(enc.path.stat().st_size / 1e6, 1)}  # type: ignore[union-attr]
    return out


def recall(embedder: Embedder, conversations: list[Any]) -> tuple[dict[str, Any], list[np.ndarray]]:
    """Vector-only turn recall per k, overall and on the tune and check conversations; the turn vectors too."""
    got: dict[str, list[dict[int, float]]] = {"all": [], "tune": [], "check": []}
    kept = []
    for n, conv in enumerate(conversations):
        ids = [e.id for e in conv.episodes]
        vectors = embedder.embed([e.text for e in conv.episodes])
        kept.append(vectors)
        asked = [q for q in conv.questions if q.category in (1, 2, 3, 4)]
        queries = embedder.embed([q.question for q in asked]) if asked else np.zeros((0, vectors.shape[1]))
        order = np.argsort(-(queries @ vectors.T), axis=1)[:, :max(KS)]
        for q, row in zip(asked, order, strict=True):
            top = [ids[i] for i in row]
            evidence = set(q.evidence)
            r = {k: len(evidence & set(top[:k])) / len(evidence) for k in KS}
            got["all"].append(r)
            got["tune" if n < TUNE_CONVERSATIONS else "check"].append(r)
    out = {part: {f"recall@{k}": round(float(np.mean([r[k] for r in rs])), 4) for k in KS} | {"questions": len(rs)}
           for part, rs in got.items()}
    return out, kept


def thread_settings(embedder: Embedder, turns: list[str]) -> dict[str, Any]:
    import onnxruntime as ort

    assert embedder._onnx is not None
    enc = embedder._onnx
    configs = {"1 thread": (1, "0"), "2 threads, spinning (onnxruntime's default)": (2, "1"),
               "2 threads, not spinning (the service's)": (2, "0")}
    sessions = {}
    for label, (threads, spin) in configs.items():
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
        options.add_session_config_entry("session.intra_op.allow_spinning", spin)
        sessions[label] = ort.InferenceSession(str(enc.path), options, providers=["CPUExecutionProvider"])
    feeds = []
    for start in range(0, 128, 32):
        tok = enc.tokenizer(turns[start:start + 32], padding=True, truncation=True, max_length=enc.max_length,
                            return_tensors="np")
        feeds.append({k: tok[k].astype(np.int64) for k in enc.inputs})
    took: dict[str, list[tuple[float, float]]] = {label: [] for label in configs}
    for r in range(ROUNDS + 1):
        for label in (list(configs) if r % 2 else list(reversed(configs))):
            wall, cpu = time.perf_counter(), time.process_time()
            for feed in feeds:
                sessions[label].run(None, feed)
            if r:  # the first round warms up
                took[label].append((time.perf_counter() - wall, time.process_time() - cpu))
    return {label: {"texts_per_s": round(128 / statistics.median(w for w, _ in v), 1),
                    "cpu_ms_per_text": round(1000 * statistics.median(c for _, c in v) / 128, 3)}
            for label, v in took.items()}


def concurrent(embedder: Embedder, questions: list[str], threads: int, wait_ms: float) -> dict[str, Any]:
    calls = [0]
    inner = embedder._embed

    def counted(texts: list[str]) -> np.ndarray:
        calls[0] += 1
        return inner(texts)

    embedder.batcher = MicroBatcher(counted, wait_ms=wait_ms, max_batch=embedder.options.max_batch)
    latencies: list[float] = []
    lock = threading.Lock()
    start = threading.Barrier(threads + 1)

    def work(t: int) -> None:
        mine = [questions[(t * PER_THREAD + i) % len(questions)] + f" ({t}.{i})" for i in range(PER_THREAD)]
        start.wait()
        for q in mine:
            began = time.perf_counter()
            embedder.embed([q])
            with lock:
                latencies.append(1000 * (time.perf_counter() - began))

    pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for p in pool:
        p.start()
    start.wait()
    wall, cpu = time.perf_counter(), time.process_time()
    for p in pool:
        p.join()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    n = threads * PER_THREAD
    return {"texts_per_s": round(n / wall, 1), "p50_ms": round(float(np.percentile(latencies, 50)), 2),
            "p95_ms": round(float(np.percentile(latencies, 95)), 2), "cpu_ms_per_text": round(1000 * cpu / n, 3),
            "model_calls": calls[0], "texts_per_model_call": round(n / calls[0], 2)}


def batcher(embedder: Embedder, questions: list[str]) -> dict[str, Any]:
    """Off and on in alternation, ROUNDS each per level; each figure the median over its rounds."""
    saved = embedder.batcher
    out: dict[str, Any] = {}
    try:
        for threads in LEVELS:
            runs: dict[str, list[dict[str, Any]]] = {"off": [], "on": []}
            for r in range(ROUNDS):
                for label in (("off", "on") if r % 2 else ("on", "off")):
                    runs[label].append(concurrent(embedder, questions, threads, WAIT_MS if label == "on" else 0.0))
            level = {label: {k: statistics.median(x[k] for x in rs) for k in rs[0]} for label, rs in runs.items()}
            off, on = level["off"], level["on"]
            out[str(threads)] = {**level, "throughput_ratio": round(on["texts_per_s"] / off["texts_per_s"], 2),
                                 "cpu_per_text_ratio": round(on["cpu_ms_per_text"] / off["cpu_ms_per_text"], 2)}
            print(f"  {threads} threads: {off['texts_per_s']} -> {on['texts_per_s']} texts/s, p95 "
                  f"{off['p95_ms']} -> {on['p95_ms']} ms, CPU/text {off['cpu_ms_per_text']} -> "
                  f"{on['cpu_ms_per_text']} ms, {on['texts_per_model_call']} texts per call", flush=True)
    finally:
        embedder.batcher = saved
    return out


def run() -> dict[str, Any]:
    load_before = _load()
    conversations = read(LOCOMO)
    questions = [q.question for c in conversations for q in c.questions]
    turns = locomo_texts()
    float_model = Embedder(options=EmbeddingOptions(cache_size=0))
    int8_model = Embedder(options=EmbeddingOptions(cache_size=0, quantized=True))
    models = {"float32": float_model, "int8": int8_model}
    out: dict[str, Any] = {"speed": speed(models, questions, turns), "recall": {}}
    vectors = {}
    for name, model in models.items():
        out["recall"][name], vectors[name] = recall(model, conversations)
        print(f"  {name}: {out['speed'][name]['query_ms']['median']:.2f} ms per query "
              f"({out['speed'][name]['query_cpu_ms']['median']:.2f} ms CPU), {out['speed'][name]['bulk_texts_per_s']} "
              f"texts/s in bulk ({out['speed'][name]['bulk_cpu_ms_per_text']} ms CPU per text), recall@10 "
              f"{out['recall'][name]['all']['recall@10']:.3f}", flush=True)
    cos = np.concatenate([(a * b).sum(axis=1) for a, b in zip(vectors["float32"], vectors["int8"], strict=True)])
    f, q = out["recall"]["float32"]["all"], out["recall"]["int8"]["all"]
    out["recall"]["int8_minus_float32_points"] = {k: round(100 * (q[k] - f[k]), 2) for k in f if k != "questions"}
    out["recall"]["cosine_int8_to_float32"] = {"mean": round(float(cos.mean()), 4), "min": round(float(cos.min()), 4)}
    sp = out["speed"]
    sp["int8_query_speedup"] = round(sp["float32"]["query_ms"]["median"] / sp["int8"]["query_ms"]["median"], 2)
    sp["int8_query_cpu_ratio"] = round(sp["int8"]["query_cpu_ms"]["median"] / sp["float32"]["query_cpu_ms"]["median"],
                                       2)
    sp["int8_bulk_speedup"] = round(sp["int8"]["bulk_texts_per_s"] / sp["float32"]["bulk_texts_per_s"], 2)
    sp["int8_bulk_cpu_ratio"] = round(sp["int8"]["bulk_cpu_ms_per_text"] / sp["float32"]["bulk_cpu_ms_per_text"], 2)
    print("  thread settings", flush=True)
    out["threads"] = thread_settings(float_model, turns)
    print("  the micro-batcher", flush=True)
    out["batcher"] = {"levels": batcher(float_model, questions), "wait_ms": WAIT_MS,
                      "max_batch": float_model.options.max_batch, "texts_per_thread": PER_THREAD}
    return {
        "unit": "ms, texts/s, CPU ms per text (this process), recall as a fraction of evidence turns",
        "data": LOCOMO.name, "conversations": len(conversations),
        **out,
        "default": "float32: the quantized model is an option (GRIMOIRE_EMBEDDING_QUANTIZED) until its recall holds",
        "load_average": {"before": load_before, "after": _load()},
        "method": __doc__.split("\n\n", 1)[1] if __doc__ else "",
    }
