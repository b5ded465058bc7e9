"""The Curator cycle at scale: one agent with 100,000 unconsolidated episodes and 10,000 knowledge
entries, one cycle over all of it (graph/learning/cycle.py). Goal: the cycle under 60 s on these two
cores, in bounded transactions (at most 1,000 rows), with POST /retrieve's p95 during the cycle no
worse than twice its idle p95.

The input (seeded once, deterministic, written in transactions of 1,000 rows without admission):
- episodes over 20,000 ticks and 30 days in seven regime epochs (bull, high_vol, bear, crisis,
  sideways, low_vol, bull), drawn from 600 tool/chain/token-pair keys with Zipf-like sizes (a few
  thousand episodes for the busiest, tens for the rarest); each key mostly positive, mostly negative
  or mixed, a third of them flipping sign in bear and crisis regimes (the regime change that
  contradicts a standing lesson); 60 untooled observation keys, and 1% of episodes on one-off tools
  (clusters under three, left unconsolidated); outcomes with gains, some stated confidences;
  5% carry a verified prediction informed by 1-3 entries (Reflexion's input), 0.3% name a causal link;
- entries of every category: standing lessons (ExpeL's, with lesson_key and polarity: general ones
  learnt in one regime, regime-conditioned ones, some now contradicted), level-1 summaries, and the
  rest; candidates and active ones near the promotion (0.6, 0.7) and demotion (0.4) lines, heuristics
  in the playbook, private warnings (propagated), inherited heuristics (never promoted unvalidated),
  old entries far under 0.1 (some in their third low cycle: archived), low-quality rarely-used ones
  (pruned), quarantined ones with the admission decisions that contradicted them, causal links.

Embeddings: 684 distinct texts (one per key, per regime and outcome, per category) are embedded once
with the project's embedder; an item's vector is its key's plus its regime-and-outcome's (or
category's) plus noise, normalised — coherent clusters for most keys, incoherent ones for 15%.

Each timed run starts from the same input: the reset deletes every node the cycle created (the seed
marks its own nodes), sets the episodes' consolidation back and the entries' and causal links'
properties back to their seeded values, and checks a fingerprint of the graph against the one taken
before the first run. The cycle's clock (`now`) is the same in every timed run.

Retrieval (POST /retrieve over HTTP to the API in its own process, hybrid, k 10, query embedding
included, as bench/retrieval.py measures) is measured idle and while a cycle runs where the service runs
it: POST /curator/cycles, in the service's child process (graph/background.py; the headline), and, for
comparison, the same with GRIMOIRE_CURATOR_PROCESS=false (on a thread of the API's process, as before
the child process). The load is open loop: a request every
0.2 s whatever the answers, each timed from when it was due, so a server that stalls for ten seconds
delays fifty requests, not one (a closed loop, one request after another, hides a stall behind the one
request that waited). Idle is measured the same way for 90 s right before each of those cycles and once
after (the machine's other load drifts over minutes); the closed-loop idle figures sit beside them."""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import subprocess
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from neo4j import ManagedTransaction

from bench.common import RESULTS, summary
from bench.retrieval import serve_api
from bench.server import bench_database, settle, vector_segments
from grimoire.graph.agents import AgentIn, KeyIn, create_key, register
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import get_embedder
from grimoire.graph.ids import now_ms
from grimoire.graph.knowledge import quality
from grimoire.graph.knowledge.admission import AdmissionConfig
from grimoire.graph.knowledge.decay import DAY_MS, DecayConfig, half_life_ms
from grimoire.graph.knowledge.entries import Knowledge
from grimoire.graph.knowledge.reasoner import RuleBasedReasoner
from grimoire.graph.learning.config import LearningConfig
from grimoire.graph.learning.cycle import PHASES, Curator
from grimoire.graph.learning.state import Learning
from grimoire.graph.model.enums import DecayClass, KeyScope, Provenance
from grimoire.graph.schema import apply_schema
from grimoire.graph.upkeep.rebuild import rebuild_vector_indexes

AGENT, CLADE = "bench-agent", "bench-clade"
EPISODES, ENTRIES = 100_000, 10_000
RUNS = 3                 # timed cycles (no retrieval load)
ROUNDS, QUERIES = 3, 200  # idle retrieval: rounds of the same queries
RATE, OPEN_IDLE_SECONDS = 5.0, 90.0  # open-loop retrieval: requests per second; idle measured this long
BATCH = 1_000
TICKS, SPAN_DAYS = 20_000, 30
SEED = 15
GOAL_SECONDS, GOAL_RATIO, GOAL_ROWS = 60.0, 2.0, 1_000

TOOLS = ["uniswap-swap", "uniswap-lp", "aave-supply", "aave-borrow", "compound-supply", "curve-swap", "curve-lp",
         "balancer-swap", "gmx-perp", "dydx-perp", "lido-stake", "morpho-supply", "pendle-yt", "sushi-swap",
         "oneinch-swap", "maker-vault"]
CHAINS = ["1", "10", "137", "8453", "42161"]
TOKENS = ["WETH", "USDC", "USDT", "DAI", "WBTC", "stETH", "ARB", "OP", "LINK", "UNI", "AAVE", "CRV", "GMX",
          "PENDLE", "MKR"]
REGIMES = ["bull", "bear", "sideways", "high_vol", "low_vol", "crisis"]
EPOCHS = [("bull", 0.20), ("high_vol", 0.10), ("bear", 0.20), ("crisis", 0.05), ("sideways", 0.25),
          ("low_vol", 0.10), ("bull", 0.10)]
FLIP_IN = {"bear", "crisis"}
OUTCOMES = ["positive", "negative", "neutral"]
VERBS = {"positive": "filled with a gain", "negative": "lost money", "neutral": "changed nothing"}
STRATEGIES = ["eth-dca", "stable-yield", "basis-trade", "momentum", "lp-range", None, None]
N_KEYS, N_OBSERVED = 600, 60
CATEGORY_MIX = {"Insight": 0.33, "Heuristic": 0.20, "Warning": 0.10, "CausalLink": 0.10, "StrategyFragment": 0.15,
                "DreamJournal": 0.12}


# ---------------------------------------------------------------------------------------------- the input


class Workload:
    """The benchmark's input, generated once from a fixed seed (vectors are made chunk by chunk)."""

    def __init__(self, episodes: int, entries: int, embedder: Any, now: int) -> None:
        self.rng = np.random.default_rng(SEED)
        self.n_episodes, self.n_entries, self.now = episodes, entries, now
        self._keys()
        self._embed(embedder)
        self._episodes()
        self._entries()
        self._predictions()

    # -- cluster keys and their behaviour

    def _keys(self) -> None:
        rng = self.rng
        combos = [(t, c, p) for t in TOOLS for c in CHAINS for p in self._pairs(t)]
        picked = rng.choice(len(combos), N_KEYS, replace=False)
        keys: list[tuple[str | None, str, str]] = [combos[i] for i in picked]
        pairs = [f"{a}/{b}" for i, a in enumerate(TOKENS) for b in TOKENS[i + 1:]]
        keys += [(None, str(rng.choice(CHAINS)), str(pairs[int(i)]))
                 for i in rng.choice(len(pairs), N_OBSERVED, replace=False)]
        self.keys = keys
        k = len(keys)
        kind = rng.choice(["good", "bad", "mixed"], k, p=[0.4, 0.3, 0.3])
        base = np.where(kind == "good", rng.uniform(0.8, 0.95, k),
                        np.where(kind == "bad", rng.uniform(0.05, 0.2, k), rng.uniform(0.4, 0.6, k)))
        flips = rng.random(k) < 0.33
        self.share = np.array([[1 - base[i] if flips[i] and r in FLIP_IN else base[i] for r in REGIMES]
                               for i in range(k)])
        self.observed = np.array([t is None for t, _, _ in keys])
        self.noise = np.where(rng.random(k) < 0.15, 0.09, 0.02)  # 15% of keys: incoherent clusters
        self.strategy = [STRATEGIES[int(i)] for i in rng.integers(0, len(STRATEGIES), k)]
        order = rng.permutation(k)
        weights = np.empty(k)
        weights[order] = 1.0 / np.arange(1, k + 1) ** 0.8
        weights[self.observed] *= 0.5
        self.weights = weights / weights.sum()

    @staticmethod
    def _pairs(tool: str) -> list[str]:
        if tool.split("-")[0] in ("aave", "compound", "morpho", "lido", "maker"):
            return TOKENS[:8]
        return [f"{a}/{b}" for i, a in enumerate(TOKENS[:9]) for b in TOKENS[i + 1:9]]

    def key_text(self, i: int) -> str:
        tool, chain, pair = self.keys[i]
        if tool is None:
            return f"market observation of {pair} on chain {chain}"
        return f"{tool} on {pair} on chain {chain}"

    def _embed(self, embedder: Any) -> None:
        key_texts = [self.key_text(i) for i in range(len(self.keys))]
        ro_texts = [f"in a {r.replace('_', ' ')} market the action {VERBS[o]}" for r in REGIMES for o in OUTCOMES]
        cat_texts = [f"{c}: what the agent learnt about this market" for c in CATEGORY_MIX]
        texts = key_texts + ro_texts + cat_texts
        t0 = time.perf_counter()
        vectors = embedder.embed(texts)
        self.embed_seconds = round(time.perf_counter() - t0, 1)
        self.distinct_texts = len(texts)
        k = len(key_texts)
        self.v_key = vectors[:k]
        self.v_ro = vectors[k:k + len(ro_texts)].reshape(len(REGIMES), len(OUTCOMES), -1)
        self.v_cat = vectors[k + len(ro_texts):]
        self.dim = vectors.shape[1]
        print(f"  embedded {len(texts)} distinct texts in {self.embed_seconds} s", flush=True)

    def _vectors(self, base: np.ndarray, noise: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        v = base + rng.normal(0.0, 1.0, base.shape).astype(np.float32) * noise[:, None].astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        return v.astype(np.float32)

    # -- episodes

    def _episodes(self) -> None:
        rng, n = self.rng, self.n_episodes
        one_off = rng.random(n) < 0.01
        self.ep_key = rng.choice(len(self.keys), n, p=self.weights)
        self.ep_tick = np.sort(rng.integers(0, TICKS, n))
        bounds = np.cumsum([share for _, share in EPOCHS]) * TICKS
        epoch = np.searchsorted(bounds, self.ep_tick, side="right")
        self.ep_regime = np.array([REGIMES.index(EPOCHS[min(e, len(EPOCHS) - 1)][0]) for e in epoch])
        p = self.share[self.ep_key, self.ep_regime]
        u = rng.random(n)
        outcome = np.where(u < p, 0, np.where(u < p + (1 - p) * 0.85, 1, 2))
        outcome[self.observed[self.ep_key]] = 2
        self.ep_outcome = outcome
        self.ep_gain = np.where(outcome == 0, rng.normal(12, 5, n), np.where(outcome == 1, rng.normal(-9, 4, n), 0.0))
        self.ep_conf = np.where(rng.random(n) < 0.3, rng.uniform(0.4, 0.95, n), np.nan)
        self.ep_one_off = np.where(one_off, rng.integers(0, 700, n), -1)  # one-off tools: probe-<j>
        span = SPAN_DAYS * DAY_MS
        self.ep_valid = self.now - span + (self.ep_tick * (span // TICKS)) + rng.integers(0, span // TICKS, n)
        self.ep_recorded = self.ep_valid + rng.integers(100, 5_000, n)
        self.ep_recorded = np.minimum(self.ep_recorded, self.now - 1)
        self.ep_causal = np.where(rng.random(n) < 0.003, rng.integers(0, 150, n), -1)

    def episode_rows(self, start: int, stop: int) -> list[dict[str, Any]]:
        rng = np.random.default_rng(SEED * 1_000_003 + start)
        idx = np.arange(start, stop)
        keys, regimes, outcomes = self.ep_key[idx], self.ep_regime[idx], self.ep_outcome[idx]
        base = 0.8 * self.v_key[keys] + 0.45 * self.v_ro[regimes, outcomes]
        vectors = self._vectors(base, self.noise[keys], rng)
        rows = []
        for j, i in enumerate(idx):
            tool, chain, pair = self.keys[keys[j]]
            regime, outcome = REGIMES[regimes[j]], OUTCOMES[outcomes[j]]
            if self.ep_one_off[i] >= 0:
                tool = f"probe-{self.ep_one_off[i]}"
            tick = int(self.ep_tick[i])
            gain = round(float(self.ep_gain[i]), 3)
            if tool is None:
                text = (f"Market observation at tick {tick}: {pair} on chain {chain} in a {regime.replace('_', ' ')} "
                        f"market, nothing traded.")
            else:
                text = (f"{tool} on {pair} (chain {chain}) at tick {tick} in a {regime.replace('_', ' ')} market: "
                        f"the action {VERBS[outcome]} ({gain:+.1f}).")
            props: dict[str, Any] = {
                "agent_id": AGENT, "clade": CLADE, "scope": "private",
                "type": "observation" if tool is None else "action", "text": text, "tool": tool,
                "outcome": outcome, "chain": chain, "token_pair": pair, "tick": tick,
                "importance": "routine", "regime": regime, "actions": [] if tool is None else [tool.split("-")[-1]],
                "gain": None if tool is None else gain, "consolidated": False, "strategy": self.strategy[keys[j]],
                "confidence": None if np.isnan(self.ep_conf[i]) else round(float(self.ep_conf[i]), 3),
                "valid_from": int(self.ep_valid[i]), "recorded_at": int(self.ep_recorded[i]),
                "last_accessed_at": int(self.ep_recorded[i]), "time_axis": "timestamp", "bench_seed": True,
            }
            if self.ep_causal[i] >= 0 and tool is not None and outcome != "neutral":
                props["causal_link_id"] = f"bench-link-{self.ep_causal[i]:03d}"
            props.update(self.predictions.get(int(i), {}))
            rows.append({"id": f"bench-ep-{i:06d}", "props": {k: v for k, v in props.items() if v is not None},
                         "embedding": vectors[j].tolist()})
        return rows

    # -- entries

    def _entries(self) -> None:
        rng = self.rng
        self.entry_props: dict[str, dict[str, Any]] = {}
        self.entry_cat: dict[str, str] = {}
        self.entry_key: dict[str, int] = {}
        self.lesson_of: dict[int, str] = {}
        rows: list[tuple[str, str, int, dict[str, Any]]] = []
        # Standing lessons of the busiest keys: general ones learnt in the first epoch's regime (some
        # now contradicted by a flip), a few regime-conditioned, a tenth of the wrong polarity.
        busiest = [int(i) for i in np.argsort(-self.weights) if not self.observed[i]][:self.n_entries * 45 // 1000]
        for i in busiest:
            if rng.random() > 0.85:
                continue
            share = self.share[i, REGIMES.index("bull")]
            if 0.3 < share < 0.7:
                continue
            polarity = 1 if share >= 0.7 else -1
            if rng.random() < 0.1:
                polarity = -polarity
            regimes = [None] + (["bear"] if rng.random() < 0.2 else [])
            for regime in regimes:
                pol = polarity if regime is None else (1 if self.share[i, REGIMES.index(regime)] >= 0.5 else -1)
                cat = "Heuristic" if pol > 0 else "Warning"
                tool, chain, pair = self.keys[i]
                verb = "Use" if pol > 0 else "Avoid"
                where = f" in {regime} regimes" if regime else ""
                content = f"{verb} {tool} for {pair} on chain {chain}{where}: learnt from earlier outcomes."
                extra = {"lesson_key": f"{tool}|{chain}|{pair}", "polarity": pol, "level": 0,
                         "created_in": "bench-seed", "evidence_regime": "bull", "market_regime": regime,
                         "tags": ["curator", "lesson"]}
                eid = f"bench-entry-{len(rows):05d}"
                rows.append((eid, cat, i, {"content": content, **extra}))
                if regime is None:
                    self.lesson_of[i] = eid
        # Level-1 summaries (earlier compressions).
        for i in rng.choice(busiest, self.n_entries * 3 // 100, replace=False):
            tool, chain, pair = self.keys[int(i)]
            regime = str(rng.choice(REGIMES))
            mostly = "positive" if self.share[int(i), REGIMES.index(regime)] > 0.5 else "negative"
            rows.append((f"bench-entry-{len(rows):05d}", "Insight", int(i), {
                "content": f"{int(rng.integers(5, 200))} {tool} episodes for {pair} on chain {chain} in {regime} "
                           f"regimes: mostly {mostly}.",
                "lesson_key": f"{tool}|{chain}|{pair}", "level": 1, "market_regime": regime, "created_in": "bench-seed",
                "tags": ["curator", "summary"]}))
        cats, probs = list(CATEGORY_MIX), list(CATEGORY_MIX.values())
        templates = {
            "Insight": "{pair} on chain {chain}: {tool} returns track the regime; slippage widens above 50 bps.",
            "Heuristic": "Use {tool} for {pair} on chain {chain} when gas is under 30 gwei and depth covers the size.",
            "Warning": "Avoid {tool} for {pair} on chain {chain} during oracle updates: fills lost 2% twice.",
            "CausalLink": "A funding spike on {pair} causes {tool} losses on chain {chain} within 3 blocks.",
            "StrategyFragment": "Rebalance the {pair} leg with {tool} on chain {chain} every 50 ticks.",
            "DreamJournal": "Replaying {tool} on {pair} (chain {chain}) with half the size would have lost less.",
        }
        while len(rows) < self.n_entries:
            cat = str(rng.choice(cats, p=probs))
            i = int(rng.choice(len(self.keys), p=self.weights))
            tool, chain, pair = self.keys[i]
            content = templates[cat].format(tool=tool or "market", pair=pair, chain=chain)
            rows.append((f"bench-entry-{len(rows):05d}", cat, i, {"content": content}))
        self._entry_state(rows)

    def _entry_state(self, rows: list[tuple[str, str, int, dict[str, Any]]]) -> None:
        rng, now, decay = self.rng, self.now, DecayConfig()
        n = len(rows)
        # Confidence: a fifth each near 0.4, 0.6 and 0.7, the rest spread.
        band = rng.choice(4, n, p=[0.1, 0.1, 0.1, 0.7])
        conf = np.where(band == 0, rng.uniform(0.38, 0.45, n), np.where(
            band == 1, rng.uniform(0.57, 0.63, n), np.where(band == 2, rng.uniform(0.67, 0.73, n),
                                                            rng.uniform(0.1, 0.95, n))))
        status = rng.choice(["candidate", "active", "archived", "quarantined"], n, p=[0.45, 0.46, 0.07, 0.02])
        age_kind = rng.choice(3, n, p=[0.6, 0.25, 0.15])
        age = np.where(age_kind == 0, rng.uniform(0, 1, n), np.where(age_kind == 1, rng.uniform(1, 14, n),
                                                                       rng.uniform(45, 150, n))) * DAY_MS
        prune = rng.random(n) < 0.03
        provenance = rng.choice(["SelfLearned", "Clade", "Predecessor", "Dream", "Lethe", "DeathReflection"], n,
                                p=[0.8, 0.08, 0.04, 0.04, 0.02, 0.02])
        decay_class = rng.choice(["", "structural", "regime_conditional", "tactical", "ephemeral"], n,
                                 p=[0.6, 0.1, 0.15, 0.1, 0.05])
        for j, (eid, cat, key, extra) in enumerate(rows):
            lesson = "lesson_key" in extra
            st = "active" if lesson and status[j] == "archived" else str(status[j])
            prov = "SelfLearned" if lesson else str(provenance[j])
            dc = None if lesson or not decay_class[j] else DecayClass(decay_class[j])
            bloodstain = cat == "Warning" and prov == "DeathReflection"
            q = quality.score(extra["content"], float(rng.uniform(0.2, 0.9)), evidence=int(rng.integers(0, 12)))
            qprops = q.as_properties()
            access = int(rng.poisson(3))
            if prune[j] and not lesson:
                qprops["quality_score"] = round(float(rng.uniform(0.0, 0.05)), 4)
                access = int(rng.integers(0, 2))
            old = age_kind[j] == 2
            c = round(float(conf[j]), 4)
            props: dict[str, Any] = {
                "agent_id": AGENT, "clade": CLADE, "category": cat, "confidence": c, "status": st,
                "scope": "shared" if rng.random() < 0.12 else "private",
                "validated_count": int(rng.poisson(1)), "contradicted_count": int(rng.poisson(0.5)),
                "decay_class": dc.value if dc else None,
                "half_life_ms": half_life_ms(cat, dc, provenance=Provenance(prov), is_bloodstain=bloodstain,
                                             quality=float(qprops["quality_score"]), config=decay),
                "market_regime": str(rng.choice(REGIMES)) if not lesson and rng.random() < 0.3 else None,
                "strategy": self.strategy[key], "consecutive_low_confidence": int(rng.integers(0, 3)) if old else 0,
                "revision": 1, "valid_from": int(now - age[j] - DAY_MS), "recorded_at": int(now - age[j] - DAY_MS),
                "tags": [], "provenance": prov, "source_golem_id": AGENT, "source_generation": 0,
                "is_bloodstain": bloodstain, "dream_validated": prov == "Dream",
                "last_accessed_at": int(now - age[j]), "strength": 2.0 if rng.random() < 0.1 else 1.0,
                "access_count": access, "in_playbook": cat == "Heuristic" and st == "active" and c >= 0.7,
                "bench_seed": True, **qprops, **extra,
            }
            if props["half_life_ms"] is not None:
                props["half_life_ms"] = float(props["half_life_ms"])
            self.entry_props[eid] = {k: v for k, v in props.items() if v is not None}
            self.entry_cat[eid] = cat
            self.entry_key[eid] = key
        ids = list(self.entry_props)
        self.active = [e for e in ids if self.entry_props[e]["status"] in ("candidate", "active")]
        causal = [e for e in ids if self.entry_cat[e] == "CausalLink" and self.entry_props[e]["status"] != "archived"]
        self.links = []
        for li in range(150):
            a, b = rng.choice(len(causal), 2, replace=False)
            self.links.append({"cause": causal[int(a)], "effect": causal[int(b)], "props": {
                "id": f"bench-link-{li:03d}", "weight": round(float(rng.uniform(0.3, 0.9)), 3),
                "evidence": int(rng.integers(1, 10)), "lag_blocks": int(rng.integers(1, 20)),
                "confidence": round(float(rng.uniform(0.3, 0.9)), 3), "provenance": "SelfLearned",
                "agent_id": AGENT, "scope": "private", "clade": CLADE, "created_at": now - 10 * DAY_MS,
                "updated_at": now - DAY_MS, "recorded_at": now - 10 * DAY_MS, "bench_seed": True}})
        # Quarantined entries: half contradict a standing high-confidence entry (they stay), half an
        # archived one (released).
        props = self.entry_props
        strong = [e for e in ids if props[e]["status"] == "active" and props[e]["confidence"] > 0.85
                  and props[e].get("half_life_ms") is None]
        gone = [e for e in ids if self.entry_props[e]["status"] == "archived"]
        self.decisions = []
        for j, eid in enumerate(e for e in ids if self.entry_props[e]["status"] == "quarantined"):
            pool = strong if j % 2 == 0 and strong else gone
            target = pool[j % len(pool)]
            self.decisions.append({"entry_id": eid, "props": {
                "id": f"bench-decision-{j:04d}", "agent_id": AGENT, "at": now - DAY_MS, "candidate_id": eid,
                "candidate_category": self.entry_cat[eid], "outcome": "quarantined", "entry_id": eid,
                "contradicted": [target], "flags": ["contradicts_high_confidence"], "bench_seed": True}})

    def entry_rows(self, start: int, stop: int) -> list[dict[str, Any]]:
        rng = np.random.default_rng(SEED * 7_000_003 + start)
        ids = list(self.entry_props)[start:stop]
        keys = np.array([self.entry_key[e] for e in ids])
        cats = np.array([list(CATEGORY_MIX).index(self.entry_cat[e]) for e in ids])
        vectors = self._vectors(0.75 * self.v_key[keys] + 0.45 * self.v_cat[cats], np.full(len(ids), 0.03), rng)
        return [{"id": e, "category": self.entry_cat[e], "props": self.entry_props[e], "embedding": vectors[j].tolist()}
                for j, e in enumerate(ids)]

    # -- predictions (need the entries)

    def _predictions(self) -> None:
        rng, n = self.rng, self.n_episodes
        chosen = np.flatnonzero((rng.random(n) < 0.05) & ~self.observed[self.ep_key] & (self.ep_one_off < 0))
        biased = rng.random(len(self.keys)) < 0.2  # keys whose predictions miss to one side (a pattern)
        self.predictions: dict[int, dict[str, Any]] = {}
        for i in chosen:
            key = int(self.ep_key[i])
            informed = [self.lesson_of[key]] if key in self.lesson_of else []
            informed += [self.active[int(j)] for j in rng.integers(0, len(self.active), int(rng.integers(0, 3)))]
            if not informed:
                informed = [self.active[int(rng.integers(0, len(self.active)))]]
            expected = round(float(rng.normal(20, 40)), 1)
            miss = rng.normal(80, 30) if biased[key] else rng.normal(0, 60)
            self.predictions[int(i)] = {"prediction_metric": "return_bps", "prediction_expected": expected,
                                        "prediction_actual": round(float(expected + miss), 1),
                                        "prediction_tolerance": 50.0, "informed_by": sorted(set(informed))}

    def describe(self) -> dict[str, Any]:
        cats: dict[str, int] = defaultdict(int)
        statuses: dict[str, int] = defaultdict(int)
        for e, p in self.entry_props.items():
            cats[self.entry_cat[e]] += 1
            statuses[p["status"]] += 1
        sizes = np.bincount(self.ep_key[self.ep_one_off < 0], minlength=len(self.keys))
        return {
            "episodes": self.n_episodes, "entries": len(self.entry_props), "cluster_keys": len(self.keys),
            "cluster_sizes": {"max": int(sizes.max()), "median": int(np.median(sizes)), "min": int(sizes.min())},
            "one_off_episodes": int((self.ep_one_off >= 0).sum()),
            "regime_epochs": [r for r, _ in EPOCHS],
            "outcomes": {o: int((self.ep_outcome == i).sum()) for i, o in enumerate(OUTCOMES)},
            "predictions": len(self.predictions), "causal_outcomes": int((self.ep_causal >= 0).sum()),
            "entry_categories": dict(sorted(cats.items())), "entry_statuses": dict(sorted(statuses.items())),
            "standing_lessons": sum(1 for p in self.entry_props.values() if p.get("level") == 0),
            "summaries": sum(1 for p in self.entry_props.values() if p.get("level") == 1),
            "causal_links": len(self.links), "quarantine_decisions": len(self.decisions),
            "distinct_embedded_texts": self.distinct_texts, "embed_seconds": self.embed_seconds,
        }


def code_version() -> dict[str, Any]:
    """What was measured: the commit and a digest of the working tree's learning loop, admission and
    embedder (the numbers move with them)."""
    root = Path(__file__).resolve().parents[1]
    files = sorted([*root.glob("grimoire/graph/learning/*.py"), *root.glob("cypher/learning/*.cypher"),
                    root / "grimoire/graph/knowledge/entries.py", root / "grimoire/graph/knowledge/admission.py",
                    root / "grimoire/graph/embeddings.py", root / "grimoire/graph/episodes.py"])
    digest = hashlib.sha1()
    for f in files:
        digest.update(f.read_bytes())
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        head = ""
    return {"git_head": head, "learning_sha1": digest.hexdigest()[:12],
            "learning_files": [str(f.relative_to(root)) for f in files]}


def seeded_agent(db: Database, w: Workload, embedder: Any) -> tuple[str, float]:
    """The schema, the benchmark's agent and a key for it, the workload seeded and the indexes online: the key
    and the seconds seeding took."""
    apply_schema(db, embedder.dimension, embedder.model_name)
    register(db, AgentIn(id=AGENT, name=AGENT, clade=CLADE), actor="bench")
    key, _ = create_key(db, AGENT, KeyIn(scopes=[KeyScope.read, KeyScope.write]), actor="bench")
    seeded_in = seed(db, w)
    print(f"  seeded in {seeded_in} s", flush=True)
    db.run("schema/await_indexes", seconds=600)
    return key, seeded_in


def seed(db: Database, w: Workload) -> float:
    t0 = time.perf_counter()
    for start in range(0, w.n_episodes, BATCH):
        db.run("testing/bulk_items", label="Episode", rows=w.episode_rows(start, min(start + BATCH, w.n_episodes)))
        if (start // BATCH) % 10 == 9:
            print(f"  episodes: {start + BATCH:,}/{w.n_episodes:,} ({time.perf_counter() - t0:.0f} s)", flush=True)
    n = len(w.entry_props)
    for start in range(0, n, BATCH):
        db.run("testing/bench_entries", rows=w.entry_rows(start, min(start + BATCH, n)))
    print(f"  entries: {n:,} ({time.perf_counter() - t0:.0f} s)", flush=True)
    db.run("testing/bench_links", rows=w.links)
    db.run("testing/bench_decisions", rows=w.decisions)
    return round(time.perf_counter() - t0, 1)


# ---------------------------------------------------------------------------------------------- reset


def fingerprint(db: Database) -> dict[str, Any]:
    counts = {f"{r['kind']}:{r['name']}": r["n"] for r in db.rows("testing/bench_fingerprint_counts")}
    digest = hashlib.sha256()
    for r in db.rows("testing/bench_fingerprint_entries"):
        digest.update(json.dumps([r["id"], sorted(r["props"])], default=str).encode())
    for r in db.rows("testing/bench_fingerprint_episodes", agent_id=AGENT):
        digest.update(json.dumps(list(r.values())).encode())
    return {"counts": counts, "digest": digest.hexdigest()}


def reset(db: Database, w: Workload, expected: dict[str, Any]) -> float:
    """Back to the seeded input; raises if the graph differs from it afterwards."""
    t0 = time.perf_counter()
    db.run("testing/bench_delete_unseeded")
    db.run("testing/bench_restore_episodes", agent_id=AGENT)
    ids = list(w.entry_props)
    for start in range(0, len(ids), BATCH):
        db.run("testing/bench_restore_entries",
               rows=[{"id": e, "props": w.entry_props[e]} for e in ids[start:start + BATCH]])
    db.run("testing/bench_restore_links", rows=[{"id": x["props"]["id"], "props": x["props"]} for x in w.links])
    got = fingerprint(db)
    if got != expected:
        diff = {k: (expected["counts"].get(k), got["counts"].get(k))
                for k in set(expected["counts"]) | set(got["counts"])
                if expected["counts"].get(k) != got["counts"].get(k)}
        raise RuntimeError(f"the reset did not restore the input: counts {diff}, "
                           f"digest {'same' if got['digest'] == expected['digest'] else 'differs'}")
    return round(time.perf_counter() - t0, 1)


# ---------------------------------------------------------------------------------------------- instrumentation


def _query_names() -> dict[str, str]:
    names = {}
    root = cypher.cypher_dir()
    for path in root.rglob("*.cypher"):
        name = str(path.relative_to(root).with_suffix(""))
        with suppress(ValueError):
            names[cypher.query(name)] = name
    return names


def _vector(x: Any) -> bool:
    return isinstance(x, list) and bool(x) and isinstance(x[0], float)


def _rows(params: dict[str, Any]) -> tuple[int, int]:
    """A statement's rows: its longest list parameter (what it UNWINDs; an embedding is not rows), 1 when
    it has none; and the items of the lists inside those rows (an entry's parent episodes, a reflection's
    deltas; not embeddings)."""
    lists = [v for v in params.values() if isinstance(v, list) and not _vector(v)]
    if not lists:
        return 1, 0
    rows = max(lists, key=len)
    nested = sum(len(x) for row in rows if isinstance(row, dict)
                 for x in row.values() if isinstance(x, list) and not _vector(x))
    return len(rows), nested


class Recorder:
    """Every statement and transaction the cycle runs, by phase: time per query or transaction
    function, each write transaction's rows per statement, and the embedder's time."""

    def __init__(self) -> None:
        self.names = _query_names()
        self.lock = threading.Lock()
        self.phase = PHASES[0]
        self.timings: dict[tuple[str, str], list[float]] = defaultdict(list)
        self.transactions: list[dict[str, Any]] = []

    def done(self, phase: str) -> None:
        """`phase` is over; the next one starts."""
        i = PHASES.index(phase)
        self.phase = PHASES[i + 1] if i + 1 < len(PHASES) else "finish"

    def timing(self, name: str, seconds: float) -> None:
        with self.lock:
            self.timings[(self.phase, name)].append(seconds)

    def transaction(self, name: str, statements: list[tuple[str, int, int]]) -> None:
        with self.lock:
            # A transaction's rows: its statements' rows but its one audit record's.
            self.transactions.append({"phase": self.phase, "work": name, "statements": list(statements),
                                      "rows": sum(r for n, r, _ in statements if n != "audit/record"),
                                      "nested_items": sum(n for _, _, n in statements),
                                      "largest_statement": max([r for _, r, _ in statements] or [0])})

    def report(self, phases: dict[str, float]) -> dict[str, Any]:
        largest = max(self.transactions, key=lambda t: t["rows"], default=None)
        over = [t for t in self.transactions if t["rows"] > GOAL_ROWS]
        by_phase: dict[str, Any] = {}
        for phase, seconds in phases.items():
            mine = {name: v for (p, name), v in self.timings.items() if p == phase}
            db = sum(sum(v) for name, v in mine.items() if name not in (EMBED, EMBED_TEXTS))
            embed = sum(mine.get(EMBED, []))
            top = sorted(((n, v) for n, v in mine.items() if n not in (EMBED, EMBED_TEXTS)),
                         key=lambda kv: -sum(kv[1]))[:8]
            by_phase[phase] = {
                "seconds": seconds, "database_seconds": round(db, 2), "embedder_seconds": round(embed, 2),
                "embedder_calls": len(mine.get(EMBED, [])), "embedder_texts": int(sum(mine.get(EMBED_TEXTS, []))),
                "other_seconds": round(seconds - db - embed, 2),
                "write_transactions": sum(1 for t in self.transactions if t["phase"] == phase),
                "top": {n: {"calls": len(v), "seconds": round(sum(v), 2), "max": round(max(v), 3)} for n, v in top},
            }
        return {
            "write_transactions": len(self.transactions),
            "largest_transaction_rows": largest["rows"] if largest else 0,
            "largest_transaction": largest,
            "largest_statement_rows": max((t["largest_statement"] for t in self.transactions), default=0),
            "largest_nested_items": max((t["nested_items"] for t in self.transactions), default=0),
            "transactions_over_1000_rows": len(over),
            "over_1000_by_work": dict(sorted(_count(f"{t['phase']}: {t['work']}" for t in over).items())),
            "largest_over_1000": sorted(over, key=lambda t: -t["rows"])[:5],
            "by_phase": by_phase,
        }


EMBED, EMBED_TEXTS = "embedder", "embedder texts"


class RecordingEmbedder:
    """The embedder, its calls timed (the Curator embeds new lessons, summaries and edits)."""

    def __init__(self, embedder: Any, recorder: Recorder) -> None:
        self._embedder, self._recorder = embedder, recorder

    def embed(self, texts: list[str]) -> Any:
        t0 = time.perf_counter()
        try:
            return self._embedder.embed(texts)
        finally:
            self._recorder.timing(EMBED, time.perf_counter() - t0)
            with self._recorder.lock:
                self._recorder.timings[(self._recorder.phase, EMBED_TEXTS)].append(float(len(texts)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._embedder, name)


def _count(items: Iterator[str] | list[str]) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for x in items:
        out[x] += 1
    return out


class _Tx:
    """A managed transaction that notes each statement's name and rows."""

    def __init__(self, tx: ManagedTransaction, names: dict[str, str],
                 statements: list[tuple[str, int, int]]) -> None:
        self._tx, self._names, self._statements = tx, names, statements

    def run(self, query: str, parameters: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        params = {**(parameters or {}), **kwargs}
        self._statements.append((self._names.get(query, query[:60]), *_rows(params)))
        return self._tx.run(query, parameters, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tx, name)


class RecordingDatabase(Database):
    """The Curator's database in the timed runs: the same driver calls, recorded by `Recorder`."""

    recorder: Recorder

    @contextmanager
    def timed(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.recorder.timing(name, time.perf_counter() - started)

    def write(self, work: Callable[[ManagedTransaction], Any]) -> Any:
        name = f"tx {getattr(work, '__module__', '?')}.{getattr(work, '__qualname__', '?')}"
        statements: list[tuple[str, int, int]] = []

        def wrapped(tx: ManagedTransaction) -> Any:
            statements.clear()  # a retried transaction counts once
            return work(_Tx(tx, self.recorder.names, statements))  # type: ignore[arg-type]

        with self.timed(name), self.session() as s:
            result = s.execute_write(wrapped)
        self.recorder.transaction(name, statements)
        return result

    def _data(self, query_name: str, params: dict[str, Any], *, read: bool) -> list[dict[str, Any]]:
        out = super()._data(query_name, params, read=read)
        if not read:
            self.recorder.transaction(f"run {query_name}", [(query_name, *_rows(params))])
        return out


def curator_for(db: Database, embedder: Any, recorder: Recorder | None = None) -> Curator:
    if recorder is not None:
        rdb = RecordingDatabase(db.target)
        rdb.recorder = recorder
        db, embedder = rdb, RecordingEmbedder(embedder, recorder)
    knowledge = Knowledge(db=db, embedder=embedder, reasoner=RuleBasedReasoner(), admission=AdmissionConfig(),
                          decay=DecayConfig())
    return Curator(Learning(knowledge, LearningConfig()))


# ---------------------------------------------------------------------------------------------- the measurements


def timed_cycle(db: Database, embedder: Any, now: int) -> dict[str, Any]:
    recorder = Recorder()
    curator = curator_for(db, embedder, recorder)
    load = os.getloadavg()[0]
    marks: list[tuple[str, float]] = []
    t0 = time.perf_counter()

    def on_phase(phase: str) -> None:
        marks.append((phase, time.perf_counter()))
        recorder.done(phase)

    report = curator.run(AGENT, clade=CLADE, actor="bench", now=now, on_phase=on_phase)
    total = time.perf_counter() - t0
    curator.learning.db.close()
    phases, last = {}, t0
    for phase, at in marks:
        phases[phase] = round(at - last, 2)
        last = at
    phases["finish"] = round(t0 + total - last, 2)
    cycle = db.fetch("learning/last_cycle", agent_id=AGENT)[0]["cycle"]
    return {"status": report.status, "seconds": round(total, 2), "phases": phases,
            "load_average_1m": [round(load, 2), round(os.getloadavg()[0], 2)],
            "counts": dict(sorted(report.counts.items())),
            "cycle": {k: v for k, v in sorted(cycle.items()) if isinstance(v, int | float) and not isinstance(v, bool)},
            **recorder.report(phases)}


def _retrieve(client: httpx.Client, q: str) -> float:
    t0 = time.perf_counter()
    resp = client.post("/retrieve", json={"text": q, "k": 10})
    ms = (time.perf_counter() - t0) * 1000
    assert resp.status_code == 200, resp.text
    return ms


def measure_idle(base: str, key: str, questions: list[str]) -> dict[str, Any]:
    """Closed loop, as bench/retrieval.py measures: the queries back to back, rounds of 200."""
    rounds = []
    load = os.getloadavg()[0]
    with httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=60) as client:
        for q in questions:  # warm the plans, the page cache and the JIT
            _retrieve(client, q)
        for r in range(ROUNDS):
            rounds.append(summary([_retrieve(client, q) for q in questions]))
            print(f"    idle round {r + 1}/{ROUNDS}: p50 {rounds[-1]['median']:.1f} ms, p95 {rounds[-1]['p95']:.1f} ms",
                  flush=True)
    return {"p95": statistics.median(x["p95"] for x in rounds),
            "median": statistics.median(x["median"] for x in rounds), "rounds": rounds,
            "load_average_1m": [round(load, 2), round(os.getloadavg()[0], 2)]}


def _load(client: httpx.Client, questions: list[str], stop: Callable[[], bool], t0: float,
          mode: str) -> list[tuple[float, float]]:
    """Queries until `stop()`: back to back (closed), or one every 1/RATE s whatever the answers
    (open: a stalled server keeps receiving requests, each timed from when it was due, so a stall
    counts once per request it delays, not once in all)."""
    samples: list[tuple[float, float]] = []
    lock = threading.Lock()
    if mode == "closed":
        i = 0
        while not stop():
            ms = _retrieve(client, questions[i % len(questions)])
            samples.append((round(time.perf_counter() - t0, 3), round(ms, 2)))
            i += 1
        return samples

    def one(q: str, due: float) -> None:
        resp = client.post("/retrieve", json={"text": q, "k": 10})
        ms = (time.perf_counter() - due) * 1000
        assert resp.status_code == 200, resp.text
        with lock:
            samples.append((round(due - t0, 3), round(ms, 2)))

    with ThreadPoolExecutor(max_workers=256) as pool:
        i = 0
        while not stop():
            due = t0 + i / RATE
            wait = due - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            pool.submit(one, questions[i % len(questions)], due)
            i += 1
    return sorted(samples)


def _stats(samples: list[tuple[float, float]], seconds: float) -> dict[str, Any]:
    times = [ms for _, ms in samples]
    s = summary(times)
    return {"p95": round(s["p95"], 2), "median": round(s["median"], 2),
            "p99": round(float(np.percentile(times, 99)), 2), "max": round(s["max"], 2), "queries": len(times),
            "over_1s": sum(t > 1000 for t in times),
            "seconds": round(seconds, 1)}


def measure_open_idle(base: str, key: str, questions: list[str]) -> dict[str, Any]:
    """Open loop at RATE requests per second for OPEN_IDLE_SECONDS, no cycle running."""
    load = os.getloadavg()[0]
    with httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=120,
                      limits=httpx.Limits(max_connections=256)) as client:
        for q in questions[:20]:
            _retrieve(client, q)
        t0 = time.perf_counter()
        samples = _load(client, questions, lambda: time.perf_counter() - t0 > OPEN_IDLE_SECONDS, t0, "open")
    out = {**_stats(samples, time.perf_counter() - t0), "load_average_1m": [round(load, 2),
                                                                          round(os.getloadavg()[0], 2)]}
    print(f"    idle, open loop at {RATE:g}/s: p50 {out['median']:.1f} ms, p95 {out['p95']:.1f} ms, "
          f"max {out['max']:.0f} ms (load {out['load_average_1m']})", flush=True)
    return out


def measure_during(base: str, key: str, questions: list[str], start_cycle: Callable[[], Any],
                   db: Database, mode: str) -> dict[str, Any]:
    """Runs `start_cycle` on a thread and the queries (`mode`: open or closed loop) until it returns;
    notes when each phase of the cycle was done (its node's done_<phase> flags, polled)."""
    done = threading.Event()
    outcome: dict[str, Any] = {}

    def cycle() -> None:
        t0 = time.perf_counter()
        try:
            outcome["result"] = start_cycle()
        except BaseException as exc:  # reported below
            outcome["error"] = repr(exc)
        outcome["seconds"] = round(time.perf_counter() - t0, 2)
        done.set()

    phases: dict[str, float] = {}

    def poll(t0: float) -> None:
        while not done.wait(0.5):
            rows = db.fetch("learning/last_cycle", agent_id=AGENT)
            c = rows[0]["cycle"] if rows else {}
            for p in PHASES:
                if c.get(f"done_{p}") and p not in phases:
                    phases[p] = round(time.perf_counter() - t0, 2)

    load = os.getloadavg()[0]
    with httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=120,
                      limits=httpx.Limits(max_connections=256)) as client:
        for q in questions[:20]:
            _retrieve(client, q)
        t0 = time.perf_counter()
        threads = [threading.Thread(target=cycle, daemon=True), threading.Thread(target=poll, args=(t0,), daemon=True)]
        for t in threads:
            t.start()
        samples = _load(client, questions, done.is_set, t0, mode)
        for t in threads:
            t.join()
    if "error" in outcome:
        raise RuntimeError(f"the cycle failed: {outcome['error']}")
    out = {**_stats(samples, outcome["seconds"]), "mode": mode, "cycle_seconds": outcome["seconds"],
           "phase_done_at": phases, "load_average_1m": [round(load, 2), round(os.getloadavg()[0], 2)],
           "samples": samples, "result": outcome.get("result")}
    print(f"    during the cycle ({outcome['seconds']:.0f} s, {out['queries']} queries, {mode} loop): "
          f"p50 {out['median']:.1f} ms, p95 {out['p95']:.1f} ms, p99 {out['p99']:.0f} ms, max {out['max']:.0f} ms, "
          f"{out['over_1s']} over 1 s (load {out['load_average_1m']})", flush=True)
    return out


def _rest_cycle(base: str, key: str) -> Callable[[], dict[str, Any]]:
    """A cycle as a client asks the service for one (POST /curator/cycles), however the service runs it."""
    def cycle() -> dict[str, Any]:
        with httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=1800) as client:
            resp = client.post("/curator/cycles", json={})
        assert resp.status_code == 200, resp.text
        body: dict[str, Any] = resp.json()
        return {"seconds": body["seconds"], "counts": body["counts"]}

    return cycle


def questions_for(w: Workload) -> list[str]:
    rng = np.random.default_rng(SEED + 1)
    forms = ["How did {tool} on {pair} do in {regime} markets?", "What should I avoid with {tool} on chain {chain}?",
             "Lessons about {pair} swaps when the market is {regime}", "Is {tool} safe for {pair} right now?",
             "What went wrong last time with {tool}?"]
    out = []
    for j in range(QUERIES):
        tool, chain, pair = w.keys[int(rng.choice(N_KEYS, p=w.weights[:N_KEYS] / w.weights[:N_KEYS].sum()))]
        out.append(forms[j % len(forms)].format(tool=tool, pair=pair, chain=chain,
                                                 regime=str(rng.choice(REGIMES)).replace("_", " ")))
    return out


def chart(result: dict[str, Any], during: dict[str, Any], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8), dpi=120, gridspec_kw={"width_ratios": [1, 2]})
    phases = result["phase_seconds"]
    names = list(phases)
    left.barh(names, [phases[n] for n in names], color="#4c72b0")
    left.invert_yaxis()
    left.set_xlabel("seconds (median of runs)")
    left.set_title(f"cycle {result['cycle_seconds']:.1f} s: {result['episodes']:,} episodes, "
                   f"{result['entries']:,} entries", fontsize=9)
    for y, n in enumerate(names):
        left.text(phases[n], y, f" {phases[n]:.1f}", va="center", fontsize=8)
    xs = [t for t, _ in during["samples"]]
    ys = [ms for _, ms in during["samples"]]
    right.scatter(xs, ys, s=4, alpha=0.5, color="#dd8452",
                  label=f"POST /retrieve during the cycle ({RATE:g}/s, open loop)")
    idle = result["retrieve_p95_idle_ms"]
    right.axhline(idle, color="#55a868", lw=1.2, label=f"idle p95 {idle:.0f} ms")
    right.axhline(GOAL_RATIO * idle, color="#c44e52", lw=1.2, ls="--", label=f"goal: 2x idle p95 ({2 * idle:.0f} ms)")
    right.axhline(during["p95"], color="#dd8452", lw=1.2, ls=":", label=f"p95 during {during['p95']:.0f} ms")
    for p, at in during["phase_done_at"].items():
        right.axvline(at, color="grey", lw=0.6)
        right.text(at, max(ys), f" {p}", rotation=90, va="top", fontsize=7)
    right.set_yscale("log")
    right.set_xlabel("seconds since the cycle started, when each request was due (vertical lines: a phase done)")
    right.set_ylabel("ms")
    right.set_title("retrieval latency while the service runs the cycle (its child process)", fontsize=9)
    right.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def _median_phases(runs: list[dict[str, Any]]) -> dict[str, float]:
    names = [p for p in (*PHASES, "finish") if all(p in r["phases"] for r in runs)]
    return {p: round(statistics.median(r["phases"][p] for r in runs), 2) for p in names}


def run() -> dict[str, Any]:
    scale = float(os.environ.get("BENCH_CURATOR_SCALE", "1"))
    episodes, entries = int(EPISODES * scale), int(ENTRIES * scale)
    rebuild = os.environ.get("BENCH_CURATOR_REBUILD", "1") != "0"
    runs_wanted = int(os.environ.get("BENCH_CURATOR_RUNS", str(RUNS)))
    embedder = get_embedder()
    now = now_ms()
    print(f"  generating {episodes:,} episodes and {entries:,} entries", flush=True)
    w = Workload(episodes, entries, embedder, now)
    code = code_version()
    out: dict[str, Any] = {}
    with bench_database(heap="2g", pagecache="1g") as db:
        db.slow_ms = float("inf")  # the slow-statement log: the runs record every statement's time instead
        key, seeded_in = seeded_agent(db, w, embedder)
        rebuilt_in = None
        if rebuild:
            print("  rebuilding the vector indexes (grimoire schema rebuild-vectors)", flush=True)
            t0 = time.monotonic()
            rebuild_vector_indexes(db, embedder.dimension)
            rebuilt_in = round(time.monotonic() - t0, 1)
        questions = questions_for(w)
        runs, resets = [], []
        # The scheduler is off: its periodic sweep would start cycles of its own.
        quiet = {"GRIMOIRE_SCHEDULER": "false", "GRIMOIRE_SLOW_QUERY_MS": "1000000"}
        with serve_api(db, **quiet) as base:
            db.run("testing/bench_mark_seed")  # after the API's start-up (it seeds the mental models)
            expected = fingerprint(db)
            settle(db)
            print("  retrieval, idle", flush=True)
            idle = measure_idle(base, key, questions)
            for r in range(runs_wanted):
                print(f"  cycle run {r + 1}/{runs_wanted}", flush=True)
                runs.append(timed_cycle(db, embedder, now))
                x = runs[-1]
                print(f"    {x['seconds']:.1f} s {x['phases']}; {x['write_transactions']} write transactions, "
                      f"largest {x['largest_transaction_rows']} rows (load {x['load_average_1m']})", flush=True)
                print(f"    operations: {x['counts']}", flush=True)
                for phase, b in x["by_phase"].items():
                    print(f"    {phase}: {b['seconds']} s = database {b['database_seconds']} + embedder "
                          f"{b['embedder_seconds']} ({b['embedder_texts']} texts) + other {b['other_seconds']}; "
                          + ", ".join(f"{n} {t['calls']}x {t['seconds']} s" for n, t in list(b["top"].items())[:4]),
                          flush=True)
                resets.append(reset(db, w, expected))
                print(f"    reset in {resets[-1]} s (the graph matches the seeded input)", flush=True)
                settle(db, limit=120)
            # Open loop, idle right before each cycle: the machine's other load drifts over minutes.
            print("  retrieval during a cycle in the service's child process (POST /curator/cycles)", flush=True)
            idles = [measure_open_idle(base, key, questions)]
            server_during = measure_during(base, key, questions, _rest_cycle(base, key), db, "open")
            resets.append(reset(db, w, expected))
            settle(db, limit=120)
            print("  retrieval, idle again", flush=True)
            idles.append(measure_open_idle(base, key, questions))
            idle_after = measure_idle(base, key, questions)
        print("  retrieval during a cycle on a thread of the API's process (GRIMOIRE_CURATOR_PROCESS=false)",
              flush=True)
        with serve_api(db, **quiet, GRIMOIRE_CURATOR_PROCESS="false") as base:
            settle(db, limit=120)
            idles.append(measure_open_idle(base, key, questions))
            thread_during = measure_during(base, key, questions, _rest_cycle(base, key), db, "open")
            resets.append(reset(db, w, expected))
        segments = vector_segments(db)
    seconds = [x["seconds"] for x in runs]
    cycle_seconds = statistics.median(seconds)
    idle_p95 = statistics.median(x["p95"] for x in idles)
    largest = max(x["largest_transaction_rows"] for x in runs)
    out = {
        "unit": "seconds per Curator cycle; ms per POST /retrieve over HTTP (hybrid, k 10, embedding included)",
        "command": "python -m bench curator",
        "code": code,
        "episodes": episodes, "entries": entries,
        "cycle_seconds": cycle_seconds,
        "cycle_seconds_runs": seconds,
        "phase_seconds": _median_phases(runs),
        "runs": len(runs),
        "largest_transaction_rows": largest,
        "retrieve_p95_idle_ms": round(idle_p95, 2),
        "retrieve_p95_during_ms": server_during["p95"],
        "retrieve_p99_during_ms": server_during["p99"],
        "retrieve_max_during_ms": server_during["max"],
        "retrieve_p95_during_ms_cycle_on_api_thread": thread_during["p95"],
        "retrieve_p95_idle_closed_loop_ms": round(idle["p95"], 2),
        "retrieve_p95_idle_closed_loop_after_ms": round(idle_after["p95"], 2),
        "goal": f"cycle_seconds < {GOAL_SECONDS:.0f}; retrieve_p95_during_ms <= {GOAL_RATIO:.0f} x "
                f"retrieve_p95_idle_ms; largest_transaction_rows <= {GOAL_ROWS}",
        "met": {"cycle": cycle_seconds < GOAL_SECONDS,
                "retrieval": server_during["p95"] <= GOAL_RATIO * idle_p95,
                "retrieval_vs_idle_just_before": server_during["p95"] <= GOAL_RATIO * idles[0]["p95"],
                "retrieval_cycle_on_api_thread": thread_during["p95"] <= GOAL_RATIO * idles[2]["p95"],
                "bounded_transactions": largest <= GOAL_ROWS},
        "input": {**w.describe(), "seeded_seconds": seeded_in, "vector_rebuild_seconds": rebuilt_in,
                  "vector_segments_at_end": segments, "all_episodes_unconsolidated": True,
                  "predictions_unreflected": True,
                  "embeddings": f"{w.distinct_texts} distinct texts embedded once (per key, per regime x outcome, "
                                "per category); each item's vector is its key's + its regime-outcome's or "
                                "category's + noise, normalised (see the module docstring)"},
        "reset": "between runs: delete every node the seed did not mark (the cycle's), set the episodes' "
                 "consolidation and the entries' and causal links' properties back to the seeded values, then "
                 "check a fingerprint (nodes per label, relationships per type, every entry's and link's "
                 "properties, every episode's consolidation) against the one taken before the first run",
        "reset_seconds": resets,
        "timed_runs": runs,
        "retrieval": {
            "open_loop_rate_per_second": RATE,
            "idle_open_loop": idles,
            "during_cycle_in_child_process": {k: v for k, v in server_during.items() if k != "samples"},
            "during_cycle_on_api_thread": {k: v for k, v in thread_during.items() if k != "samples"},
            "idle_closed_loop": idle, "idle_closed_loop_after": idle_after,
            "statistic": f"open loop: one request every {1 / RATE:g} s whatever the answers (so a stalled server "
                         "keeps being asked), each timed from when it was due; idle: 90 s right before each cycle "
                         "and once after, retrieve_p95_idle_ms is their median; during: every request due while "
                         "the cycle ran. Closed loop (as bench/retrieval.py: back to back, p95 per round of 200, "
                         "median of 3 rounds) only idle, for comparison with retrieval.json",
        },
        "cycle_clock": "the timed runs use the same `now` (the seed's); the API's runs use their own clock "
                       "(minutes later)",
        # How the service's cycle gives way to requests (graph/foreground.py, graph/background.py): the
        # timed runs do not (nothing to give way to).
        "service_pacing": {**LearningConfig.model_validate_json(os.environ.get("GRIMOIRE_LEARNING") or "{}").model_dump(
            include={"yield_seconds", "pause_ratio", "niceness", "switch_interval_ms"}),
            "headline": "the cycle in the service's child process at nice 19 (GRIMOIRE_CURATOR_PROCESS=true)"},
    }
    out["chart"] = chart(out, server_during, RESULTS / "curator.png").name
    return out
