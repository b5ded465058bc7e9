"""Load: throughput and latency under concurrent users (locust, headless, in its own process), this tree's
replicas beside the commit before issue 37, on one machine in one run (issue 37 §6).

The store: 100,000 episodes and 10,000 entries spread over 100 agents (each ranked on its own small reach, the
path most agents of a fleet take), LoCoMo turns with a suffix and their real embeddings nudged by noise
(bench/retrieval.py `perturbed`: no hour of embedding). It is loaded once into a Neo4j home of its own
(.neo4j/bench-load-<episodes>-<entries>-<agents>/, kept between runs) and reused when its counts match;
every node written during a run is deleted before the next profile (the seeded ones are marked bench_seed).

Profiles (closed loop, users spread over the agents' keys): `retrieval` (POST /retrieve), `mixed` (4 retrievals,
then one POST /episodes/batch of 20), `memory` (POST /agents/{id}/messages in bench/memory.py's mix). The texts
asked are the dev LoCoMo questions, each at most once per level and profile (bench/load_parts.QuestionPool; a
level that needs more says so: `questions.repeated`). Levels of 1, 4, 16 and 64 users, each held
BENCH_LOAD_SECONDS after BENCH_LOAD_WARMUP seconds not counted. Fairness: one agent floods with 64 users while a
second runs 1 user of retrieval; its p95 beside its p95 alone. `lost`: episodes a 201 acknowledged that the graph
does not hold afterwards; `server_errors`: 5xx other than 503.

The trees: `before` is 3160390 (main before issue 37) in a git worktree (/work/load-before, BENCH_LOAD_BEFORE_TREE;
created when missing) served by `python -m api.cli serve` (its layout then) with its defaults (one process;
BENCH_LOAD_BEFORE_WORKERS=N serves it with `--workers N`, for an A/B between two commits that both have replicas);
`after` is this tree with `--workers` BENCH_LOAD_WORKERS (2: one replica per core). Both with the Curator's sweep
and consolidation put off and the vector upkeep off (the store is compacted once after the load), the same for both.

Knobs (env): BENCH_LOAD_EPISODES, BENCH_LOAD_ENTRIES, BENCH_LOAD_AGENTS, BENCH_LOAD_LEVELS ("1,4,16,64"),
BENCH_LOAD_SECONDS (60), BENCH_LOAD_WARMUP (15), BENCH_LOAD_PROFILES, BENCH_LOAD_SKIP_BEFORE=1,
BENCH_LOAD_SKIP_FAIRNESS=1, BENCH_LOAD_HEAP / BENCH_LOAD_PAGECACHE, BENCH_RESULTS_DIR (bench/common.py: where
load.json and load.png go). Resumable: each measured phase is kept in <results>/load.partial.tmp as it ends and
skipped when the same run (scale, timings, commits) is started again; the file is deleted once load.json is written.
`make bench` runs it at full scale (over an hour: `BENCH_LOAD_SECONDS` and the scale knobs shorten it)."""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from bench import load_parts as parts
from bench.common import RESULTS, machine

PROJECT = Path(__file__).resolve().parents[1]
LOCUSTFILE = Path(__file__).resolve().parent / "load_locust.py"
BEFORE_COMMIT = "3160390"
NO_SWEEP = {"GRIMOIRE_LEARNING": '{"interval_seconds": 86400}',
            "GRIMOIRE_CRYSTALS": '{"consolidation_interval_minutes": 1440}',
            "GRIMOIRE_VECTOR_UPKEEP": '{"enabled": false}', "GRIMOIRE_SLOW_QUERY_MS": "1000000"}
CHUNK = 2_000
WARM_REQUESTS = 40
RETRY_AFTER_CAP = float(os.environ.get("BENCH_LOAD_RETRY_AFTER_CAP", "2"))  # s a refused user waits


def _env_int(name: str, default: int) -> int:
    return int(os.environ.get(name) or default)


@dataclass(frozen=True)
class Scale:
    episodes: int = 100_000
    entries: int = 10_000
    agents: int = 100
    levels: tuple[int, ...] = parts.LEVELS
    profiles: tuple[str, ...] = parts.PROFILES
    seconds: int = 60
    warmup: int = 15
    workers: int = 2
    before: bool = True
    fairness: bool = True
    flood_users: int = 64

    @classmethod
    def from_env(cls) -> Scale:
        return cls(episodes=_env_int("BENCH_LOAD_EPISODES", 100_000), entries=_env_int("BENCH_LOAD_ENTRIES", 10_000),
                   agents=_env_int("BENCH_LOAD_AGENTS", 100),
                   levels=tuple(int(x) for x in os.environ.get("BENCH_LOAD_LEVELS", "1,4,16,64").split(",")),
                   profiles=tuple(os.environ.get("BENCH_LOAD_PROFILES", ",".join(parts.PROFILES)).split(",")),
                   seconds=_env_int("BENCH_LOAD_SECONDS", 60), warmup=_env_int("BENCH_LOAD_WARMUP", 15),
                   workers=_env_int("BENCH_LOAD_WORKERS", 2),
                   before=os.environ.get("BENCH_LOAD_SKIP_BEFORE") != "1",
                   fairness=os.environ.get("BENCH_LOAD_SKIP_FAIRNESS") != "1",
                   flood_users=_env_int("BENCH_LOAD_FLOOD_USERS", 64))

    @property
    def home(self) -> Path:
        return PROJECT / ".neo4j" / f"bench-load-{self.episodes}-{self.entries}-{self.agents}"


# ---------------------------------------------------------------- the store


@contextmanager
def load_database(scale: Scale) -> Iterator[Any]:
    """NEO4J_URI when set (a scratch database), else a local server in the scale's own home, kept between runs
    (the data stays; the server is stopped afterwards)."""
    from bench.server import bench_database

    home = None if os.environ.get("NEO4J_URI") else scale.home
    with bench_database(os.environ.get("BENCH_LOAD_HEAP", "2g"), os.environ.get("BENCH_LOAD_PAGECACHE", "1g"),
                        home=home) as db:
        yield db


def _agents(scale: Scale) -> list[str]:
    return [f"load-{i:03d}" for i in range(scale.agents)]


def _bulk(db: Any, label: str, count: int, agents: list[str], texts: list[str], vectors: np.ndarray) -> None:
    from bench.retrieval import bulk_row, perturbed
    from grimoire.graph.ids import now_ms

    rng = np.random.default_rng(37 if label == "Episode" else 38)
    started = time.monotonic()
    for s in range(0, count, CHUNK):
        now = now_ms()
        idx = np.arange(s, min(s + CHUNK, count))
        base = perturbed(vectors, idx, rng)
        rows = []
        for j, i in enumerate(idx.tolist()):
            rows.append(bulk_row(label, f"load-{label.lower()}-{i}", f"{texts[i % len(texts)]} (#{i})",
                                 agents[i % len(agents)], "load", now - i * 60_000, now, base[j]))
        db.run("testing/bulk_items", label=label, rows=rows)
        done = s + len(idx)
        if done % 20_000 == 0 or done == count:
            print(f"  {label}: {done:,}/{count:,} ({time.monotonic() - started:.0f} s)", flush=True)


def _keys(db: Any, scale: Scale) -> list[list[str]]:
    """One read-write key per agent, kept (0600) in the home so a later run reuses them."""
    from grimoire.graph.agents import KeyIn, create_key
    from grimoire.graph.model.enums import KeyScope

    path = scale.home / "keys.json"
    if path.exists():
        keys: list[list[str]] = json.loads(path.read_text())
        if len(keys) == scale.agents:
            return keys
    keys = [[a, create_key(db, a, KeyIn(scopes=[KeyScope.read, KeyScope.write]), actor="bench")[0]]
            for a in _agents(scale)]
    scale.home.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(keys, fh)
    return keys


def ensure_store(db: Any, scale: Scale, texts: list[str]) -> tuple[list[list[str]], dict[str, Any]]:
    """The seeded store (loaded when its counts differ from the scale's) and the agents' keys."""
    from grimoire.graph.agents import AgentIn, register
    from grimoire.graph.embeddings import get_embedder
    from grimoire.graph.schema import apply_schema
    from grimoire.graph.upkeep.rebuild import rebuild_vector_indexes

    embedder = get_embedder()
    apply_schema(db, embedder.dimension, embedder.model_name)
    db.run("testing/bench_delete_unseeded")  # what an earlier run wrote (or an interrupted load)
    counts = db.rows("testing/bench_load_counts")[0]
    if counts["episodes"] == scale.episodes and counts["entries"] == scale.entries:
        print(f"  reusing the store: {scale.episodes:,} episodes, {scale.entries:,} entries", flush=True)
        keys = _keys(db, scale)
        db.run("testing/bench_mark_seed")
        return keys, {"loaded_seconds": None, "reused": True}
    started = time.monotonic()
    if counts["episodes"] or counts["entries"]:
        db.run("testing/delete_all")
    (scale.home / "keys.json").unlink(missing_ok=True)
    print(f"  embedding {len(texts):,} LoCoMo turns once", flush=True)
    vectors = embedder.embed(texts)
    agents = _agents(scale)
    for a in agents:
        register(db, AgentIn(id=a, name=a, clade="load"), actor="bench")
    _bulk(db, "Episode", scale.episodes, agents, texts, vectors)
    _bulk(db, "Entry", scale.entries, agents, texts, vectors)
    db.run("schema/await_indexes", seconds=3_600)
    print("  compacting the vector indexes once (grimoire schema rebuild-vectors)", flush=True)
    rebuild_vector_indexes(db, embedder.dimension, actor="bench")
    keys = _keys(db, scale)
    db.run("testing/bench_mark_seed")  # last: an interrupted load counts as none
    return keys, {"loaded_seconds": round(time.monotonic() - started, 1), "reused": False}


# ---------------------------------------------------------------- the servers


@dataclass
class Tree:
    name: str  # "after" | "before"
    path: Path
    workers: int | None  # None: the tree's defaults (no --workers)

    def command(self, port: int) -> list[str]:
        cmd = [sys.executable, "-m", cli_module(self.path), "serve", "--host", "127.0.0.1", "--port", str(port)]
        return cmd + (["--workers", str(self.workers)] if self.workers else [])

    def described(self) -> str:
        return f"python -m {cli_module(self.path)} serve --workers {self.workers}" if self.workers else \
            f"python -m {cli_module(self.path)} serve (its defaults: one process)"


def cli_module(tree: Path) -> str:
    """The tree's command line: under grimoire/ since the namespace moved (issue 38), top-level before."""
    return "grimoire.api.cli" if (tree / "grimoire" / "api" / "cli.py").exists() else "api.cli"


def before_tree() -> Path:
    """The commit before issue 37 in a worktree: reused when present, created when missing."""
    path = Path(os.environ.get("BENCH_LOAD_BEFORE_TREE", "/work/load-before"))
    if not (path / ".git").exists():
        print(f"  git worktree add {path} {BEFORE_COMMIT}", flush=True)
        subprocess.run(["git", "worktree", "add", "--detach", str(path), BEFORE_COMMIT], cwd=PROJECT, check=True)
    return path


def _commit(path: Path) -> str:
    out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=path, capture_output=True, text=True, check=False)
    return out.stdout.strip()


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


_FULLTEXT_MADE = re.compile(r"CREATE FULLTEXT INDEX (\w+) IF NOT EXISTS")


def foreign_fulltext(tree: Path, present: list[dict[str, Any]]) -> list[str]:
    """The full-text indexes in the database that the tree's schema files do not create: the other tree's (the
    scoped episode_search beside an older tree's episode_text). A tree's server creates its own when it starts
    and drops only those its own retired list names, so without this the older tree would keep both up to date
    on every write."""
    made = {m.group(1) for f in (tree / "cypher" / "schema").glob("*.cypher")
            for m in _FULLTEXT_MADE.finditer(f.read_text())}
    return sorted(ix["name"] for ix in present if ix["type"] == "FULLTEXT" and ix["name"] not in made)


@contextmanager
def serve(db: Any, tree: Tree, admin: str, log: Path) -> Iterator[tuple[str, list[str]]]:
    """The tree's API (`python -m grimoire.api.cli serve`, `api.cli` in a tree from before the namespace; its own
    code imported: cwd and PYTHONPATH) on the bench database, in a process group of its own, stopped (SIGTERM,
    then SIGKILL) however the block ends; the other tree's full-text indexes dropped first (`foreign_fulltext`).
    Yields the base URL and the replicas seen answering."""
    from grimoire.graph.db.local_server import free_port

    for name in foreign_fulltext(tree.path, db.fetch("schema/show_indexes")):
        print(f"    dropping {name}: not an index of {tree.name}'s schema", flush=True)
        db.run("schema/drop_index", name=name)

    port = free_port()
    t = db.target
    env = {**os.environ, "NEO4J_URI": t.uri, "NEO4J_USER": t.user, "NEO4J_PASSWORD": t.password,
           "NEO4J_DATABASE": t.database, "GRIMOIRE_ADMIN_KEY": admin, "PYTHONPATH": str(tree.path), **NO_SWEEP}
    with log.open("ab") as out:
        proc = subprocess.Popen(tree.command(port), cwd=tree.path, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        replicas = _wait_up(proc, base, tree, log)
        yield base, replicas
    finally:
        _stop(proc)


def _wait_up(proc: subprocess.Popen[bytes], base: str, tree: Tree, log: Path, limit: float = 300.0) -> list[str]:
    deadline = time.monotonic() + limit
    seen: set[str] = set()
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the {tree.name} server exited ({proc.returncode}); log: {log}")
        with contextlib.suppress(httpx.HTTPError):
            r = httpx.get(f"{base}/health", timeout=5)
            if r.status_code == 200:
                seen.add(r.headers.get("X-Grimoire-Replica", "one"))
                if len(seen) >= (tree.workers or 1):
                    return sorted(seen)
        time.sleep(0.5)
    if seen:  # answering, though not every replica was seen
        return sorted(seen)
    raise RuntimeError(f"the {tree.name} server did not answer within {limit:.0f} s; log: {log}")


# ---------------------------------------------------------------- locust


@dataclass
class Workload:
    keys: list[list[str]]
    questions: list[str]
    turns: list[str]
    tmp: Path
    log: Path
    phases: dict[str, Any] = field(default_factory=dict)


def memory_messages(questions: list[str], turns: list[str], seed: int) -> list[list[str]]:
    """bench/memory.py's mix, with each recall a LoCoMo question (all of them, each once) and each remember or
    chat message a LoCoMo turn, so that no message repeats before the pool is spent."""
    from bench.memory import MIX

    rng = np.random.default_rng(seed)
    bounds = np.cumsum([share for share, _, _ in MIX])
    qs, ts = iter(questions), iter(turns * (1 + 4 * len(questions) // max(len(turns), 1)))
    out: list[list[str]] = []
    while True:
        _, kind, make = MIX[min(int(np.searchsorted(bounds, rng.random(), side="right")), len(MIX) - 1)]
        if kind.startswith("recall"):
            q = next(qs, None)
            if q is None:
                return out
            out.append([kind, q])
        else:
            out.append([kind, make(rng, next(ts))])


def run_locust(base: str, w: Workload, profile: str, users: int, seconds: int, tag: str,
               flood: dict[str, Any] | None = None) -> dict[str, Any]:
    """One locust run (a subprocess): `users` users for `seconds`, then its samples."""
    seed = random.Random(tag).randrange(1 << 30)
    items: list[Any] = memory_messages(w.questions, w.turns, seed) if profile == "memory" else w.questions
    samples = w.tmp / f"{tag.replace('/', '-')}.json"
    config = {"samples": str(samples), "profile": profile, "keys": w.keys, "items": items, "turns": w.turns,
              "seed": seed, "tag": f"{tag.replace('/', '-')}-{secrets.token_hex(3)}", "flood": flood,
              "retry_after_cap": RETRY_AFTER_CAP}
    cfg = w.tmp / "config.json"
    cfg.write_text(json.dumps(config))
    classes = ["FloodUser", "QuietUser"] if flood and users > 1 else (
        ["QuietUser"] if flood else [{"retrieval": "RetrievalUser", "mixed": "MixedUser",
                                      "memory": "MemoryUser"}[profile]])
    cmd = [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--headless", "-u", str(users), "-r", str(users),
           "--run-time", f"{seconds}s", "--stop-timeout", "120", "--host", base, "--only-summary",
           "--loglevel", "WARNING", "--csv", str(w.tmp / tag.replace("/", "-")), *classes]
    env = {**os.environ, "BENCH_LOAD_CONFIG": str(cfg), "PYTHONPATH": str(PROJECT)}
    samples.unlink(missing_ok=True)
    with w.log.open("ab") as out:
        proc = subprocess.Popen(cmd, cwd=PROJECT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    started = time.monotonic()
    shown = 0.0
    try:
        while proc.poll() is None:
            time.sleep(1)
            elapsed = time.monotonic() - started
            if elapsed - shown >= 15 and elapsed < seconds:
                shown = elapsed
                print(f"      {tag}: {elapsed:.0f}/{seconds} s", flush=True)
    finally:
        _stop(proc)
    if not samples.exists():
        raise RuntimeError(f"locust wrote no samples (exit {proc.returncode}); log: {w.log}")
    data: dict[str, Any] = json.loads(samples.read_text())
    return data


def warm(base: str, w: Workload, requests: int = WARM_REQUESTS) -> None:
    """A fresh server's first requests compile Neo4j's plans and load the model's pages: a few retrievals of
    LoCoMo turns (never the questions, which the levels ask) over a few agents, 4 at a time, before any level."""
    started = time.monotonic()

    def one(i: int) -> None:
        agent, key = w.keys[i % len(w.keys)]
        with contextlib.suppress(httpx.HTTPError):
            httpx.post(f"{base}/retrieve", json={"text": w.turns[i % len(w.turns)], "k": 10},
                       headers={"X-API-Key": key}, timeout=120)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(one, range(requests)))
    print(f"    warmed the server with {requests} retrievals in {time.monotonic() - started:.0f} s", flush=True)


def measure(db: Any, base: str, w: Workload, scale: Scale, tree: str, profile: str, users: int) -> dict[str, Any]:
    tag = parts.phase_key(tree, profile, users)
    data = run_locust(base, w, profile, users, scale.warmup + scale.seconds, tag)
    samples = data["samples"]
    first = min((s["t"] for s in samples), default=0.0)
    stats = parts.level_stats(parts.window(samples, first + scale.warmup, scale.seconds), scale.seconds)
    stats["questions"] = data["pool"]
    acked = data["acked"]
    found = sum(int(db.rows("testing/bench_found_episodes", ids=acked[i:i + 5_000])[0]["found"])
                for i in range(0, len(acked), 5_000))
    stats["episodes_acknowledged"] = len(acked)
    print(f"    {tree} {profile} {users:>2} users: {stats['throughput_per_s']:.1f}/s served, p50 {stats['p50_ms']} ms, "
          f"p95 {stats['p95_ms']} ms, refused {stats['refused_share']:.1%}, 5xx {stats['server_errors']}, "
          f"lost {len(acked) - found}", flush=True)
    return {"stats": stats, "lost": len(acked) - found}


def fairness(base: str, w: Workload, scale: Scale) -> dict[str, Any]:
    """The second agent's retrieval p95 alone, then while the first floods with 64 users."""
    flood = {"agent": w.keys[0], "quiet": w.keys[1], "users": scale.flood_users}
    out: dict[str, Any] = {}
    for name, users in (("alone", 1), ("during_flood", scale.flood_users + 1)):
        data = run_locust(base, w, "retrieval", users, scale.warmup + scale.seconds, f"fairness/{name}", flood)
        samples = data["samples"]
        first = min((s["t"] for s in samples), default=0.0)
        measured = parts.window(samples, first + scale.warmup, scale.seconds)
        quiet = parts.level_stats([s for s in measured if s["user"] == -1], scale.seconds)
        flooding = parts.level_stats([s for s in measured if s["user"] != -1], scale.seconds)
        out[name] = {"quiet": quiet, "flood": flooding if name != "alone" else None}
        print(f"    fairness {name}: quiet p95 {quiet['p95_ms']} ms"
              + (f", flood {flooding['throughput_per_s']:.1f}/s refused {flooding['refused_share']:.1%}"
                 if name != "alone" else ""), flush=True)
    return {"quiet_p95_alone_ms": out["alone"]["quiet"]["p95_ms"],
            "quiet_p95_during_flood_ms": out["during_flood"]["quiet"]["p95_ms"],
            "flood_users": scale.flood_users, "quiet_agent": w.keys[1][0], "flood_agent": w.keys[0][0],
            "alone": out["alone"], "during_flood": out["during_flood"],
            "server_errors": out["alone"]["quiet"]["server_errors"]
            + out["during_flood"]["quiet"]["server_errors"] + out["during_flood"]["flood"]["server_errors"]}


# ---------------------------------------------------------------- the run


class Partial:
    """Measured phases kept as they end (<results>/load.partial.tmp), for a run that is started again."""

    def __init__(self, fingerprint: dict[str, Any]) -> None:
        self.path = RESULTS / "load.partial.tmp"
        self.fingerprint = fingerprint
        self.phases: dict[str, Any] = {}
        if self.path.exists():
            kept = json.loads(self.path.read_text())
            if kept.get("fingerprint") == fingerprint:
                self.phases = kept["phases"]
                print(f"  resuming: {len(self.phases)} phases kept from an earlier run ({self.path})", flush=True)

    def put(self, key: str, value: Any) -> None:
        self.phases[key] = value
        RESULTS.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps({"fingerprint": self.fingerprint, "phases": self.phases}))

    def done(self) -> None:
        self.path.unlink(missing_ok=True)


def _profile_phases(db: Any, tree: Tree, w: Workload, scale: Scale, partial: Partial, admin: str) -> None:
    for profile in scale.profiles:
        todo = [n for n in scale.levels if parts.phase_key(tree.name, profile, n) not in partial.phases]
        if not todo:
            continue
        db.run("testing/bench_delete_unseeded")  # every profile starts from the seeded store
        print(f"  [{tree.name}] {profile}: levels {todo}, {scale.warmup} s warm-up + {scale.seconds} s each",
              flush=True)
        with serve(db, tree, admin, w.log) as (base, replicas):
            print(f"    serving {tree.path} at {base}: replicas {replicas}", flush=True)
            warm(base, w)
            for users in todo:
                phase = measure(db, base, w, scale, tree.name, profile, users)
                phase["stats"]["replicas"] = len(replicas)
                partial.put(parts.phase_key(tree.name, profile, users), phase)


def chart(result: dict[str, Any], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    profiles = list(result["profiles"])
    before = result["trees"]["before"]
    serve = re.sub(r"^python -m (grimoire[.])?api[.]cli ", "", before["serve"])
    before_label = f"before ({(before['commit'] or '?')[:7]}, {serve})"
    fig, axes = plt.subplots(2, len(profiles), figsize=(4.5 * len(profiles), 7), squeeze=False)
    for col, name in enumerate(profiles):
        p = result["profiles"][name]
        for row, (key, label) in enumerate((("throughput_per_s", "served requests/s"), ("p95_ms", "p95 ms"))):
            ax = axes[row][col]
            for series, levels in ((before_label, p["before"]["levels"]),
                                   (f"after ({result['scale']['workers']} replicas)", p["levels"])):
                xs = [int(n) for n in levels if levels[n].get(key) is not None]
                ax.plot(xs, [levels[str(n)][key] for n in xs], marker="o", label=series)
            ax.set_xscale("log", base=2)
            ax.set_xticks(result["scale"]["levels"], [str(n) for n in result["scale"]["levels"]])
            ax.set_xlabel("concurrent users")
            ax.set_ylabel(label)
            ax.set_ylim(bottom=0)
            ax.set_title(f"{name}: {label}")
            if row == 0 and col == 0:
                ax.legend(fontsize=8)
    s = result["scale"]
    fig.suptitle(f"Grimoire under load: {s['episodes']:,} episodes, {s['entries']:,} entries, {s['agents']} agents")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def run() -> dict[str, Any]:
    from bench.ingest import locomo_texts
    from bench.retrieval import LOCOMO
    from grimoire.loaders.locomo import read

    scale = Scale.from_env()
    wall = time.monotonic()
    questions = sorted({q.question for c in read(LOCOMO) for q in c.questions})
    turns = locomo_texts()
    trees = [Tree("after", PROJECT, scale.workers)]
    if scale.before:
        # BENCH_LOAD_BEFORE_WORKERS: an A/B between two commits that both serve replicas, like for like
        trees.insert(0, Tree("before", before_tree(), _env_int("BENCH_LOAD_BEFORE_WORKERS", 0) or None))
    fingerprint = {"scale": vars(scale) | {"levels": list(scale.levels), "profiles": list(scale.profiles)},
                   "commits": {t.name: _commit(t.path) for t in trees},
                   "serve": {t.name: t.described() for t in trees}}
    partial = Partial(fingerprint)
    admin = secrets.token_hex(16)
    print(f"  scale: {scale.episodes:,} episodes, {scale.entries:,} entries, {scale.agents} agents; levels "
          f"{list(scale.levels)}; {scale.warmup}+{scale.seconds} s each; {len(questions)} questions", flush=True)
    tmp = tempfile.mkdtemp(prefix="grimoire-load-")  # the servers' and locust's logs: kept when the run fails
    with load_database(scale) as db:
        db.slow_ms = float("inf")
        keys, store = ensure_store(db, scale, turns)
        w = Workload(keys, questions, turns, Path(tmp), Path(tmp) / "servers.log")
        print(f"  logs: {w.log}", flush=True)
        from bench.server import settle

        settle(db, limit=120)
        for tree in trees:
            _profile_phases(db, tree, w, scale, partial, admin)
        if scale.fairness and "fairness" not in partial.phases:
            db.run("testing/bench_delete_unseeded")
            print(f"  [after] fairness: {scale.flood_users} users flood {keys[0][0]}, 1 user of {keys[1][0]}",
                  flush=True)
            with serve(db, trees[-1], admin, w.log) as (base, _):
                warm(base, w)
                partial.put("fairness", fairness(base, w, scale))
        db.run("testing/bench_delete_unseeded")
    shutil.rmtree(tmp, ignore_errors=True)
    result = assemble(partial.phases, scale, trees, fingerprint["commits"], store)
    result["wall_seconds"] = round(time.monotonic() - wall, 1)
    RESULTS.mkdir(parents=True, exist_ok=True)
    result["chart"] = str(chart(result, RESULTS / "load.png").name)
    partial.done()
    return result


def assemble(phases: dict[str, Any], scale: Scale, trees: list[Tree], commits: dict[str, str],
             store: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = parts.shape(phases, scale.levels, scale.profiles)
    fair = phases.get("fairness")
    if fair is not None:
        result["fairness"] = fair
        result["server_errors"] += fair["server_errors"]
    result["ratios"] = parts.ratios(result["profiles"])
    result["goals"] = parts.goals(result)
    result["machine"] = machine()
    result["scale"] = {"episodes": scale.episodes, "entries": scale.entries, "agents": scale.agents,
                       "levels": list(scale.levels), "warmup_seconds": scale.warmup,
                       "held_seconds": scale.seconds, "workers": scale.workers, "store": store}
    result["trees"] = {t.name: {"commit": commits.get(t.name), "serve": t.described()} for t in trees}
    result["trees"].setdefault("before", {"commit": None, "serve": "not run (BENCH_LOAD_SKIP_BEFORE=1)"})
    result["unit"] = ("served requests/s and ms per request over HTTP, closed loop (locust, headless, on the same "
                      "machine); p50/p95/p99 of served (2xx) requests; refused: 503/429 (the user then waits its "
                      f"Retry-After, at most {RETRY_AFTER_CAP:g} s, as the typed client does)")
    return result
