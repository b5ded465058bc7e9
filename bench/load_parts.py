"""The pure parts of the load benchmark (bench/load.py): the question pool, a level's statistics from the raw
samples, the results' shape, the ratios and the goals. No database, no locust: the locustfile imports the pool
from here, and tests/unit/test_bench_load.py tests the rest."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

PROFILES = ("retrieval", "mixed", "memory")
LEVELS = (1, 4, 16, 64)
REFUSED = (503, 429)  # overload and per-key limits: answered, not served
GOALS = {"ratio": 2.0, "p95_served_ms": 1_000.0, "refused_p95_ms": 50.0, "fairness": 2.0}


@dataclass
class QuestionPool:
    """Draws every item once, in a shuffled order, before any is drawn again: each question at most once per
    level and profile while `drawn <= len(items)`. Past that, a new shuffled pass begins (repeats, counted)."""

    items: Sequence[Any]
    seed: int = 0
    drawn: int = 0
    _order: list[int] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        if not self.items:
            raise ValueError("an empty question pool")
        self._rng = random.Random(self.seed)

    def next(self) -> Any:
        if not self._order:
            self._order = list(range(len(self.items)))
            self._rng.shuffle(self._order)
        self.drawn += 1
        return self.items[self._order.pop()]

    def report(self) -> dict[str, Any]:
        repeated = max(0, self.drawn - len(self.items))
        return {"pool": len(self.items), "drawn": self.drawn, "repeated": repeated, "exhausted": repeated > 0}


def _pct(values: Sequence[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 2) if values else None


def window(samples: Iterable[dict[str, Any]], start: float, seconds: float) -> list[dict[str, Any]]:
    """The samples whose request started in [start, start + seconds): the warm-up before is discarded."""
    return [s for s in samples if start <= s["t"] < start + seconds]


def level_stats(samples: Sequence[dict[str, Any]], seconds: float) -> dict[str, Any]:
    """One level's figures from its measured samples ({t, kind, status, ms}): served (2xx) requests' throughput
    and p50/p95/p99, the refused (503/429) share and p95, server errors (5xx other than 503), and other failures
    (other 4xx, no answer)."""
    served = [s["ms"] for s in samples if 200 <= s["status"] < 300]
    refused = [s["ms"] for s in samples if s["status"] in REFUSED]
    server_errors = sum(1 for s in samples if s["status"] >= 500 and s["status"] != 503)
    total = len(samples)
    by_kind: dict[str, list[float]] = {}
    for s in samples:
        if 200 <= s["status"] < 300:
            by_kind.setdefault(s["kind"], []).append(s["ms"])
    return {
        "throughput_per_s": round(len(served) / seconds, 2) if seconds > 0 else 0.0,
        "p50_ms": _pct(served, 50), "p95_ms": _pct(served, 95), "p99_ms": _pct(served, 99),
        "refused_share": round(len(refused) / total, 4) if total else 0.0,
        "refused_p95_ms": _pct(refused, 95),
        "requests": total, "served": len(served), "refused": len(refused),
        "refused_by_status": {str(c): sum(1 for s in samples if s["status"] == c) for c in REFUSED},
        "server_errors": server_errors,
        "other_failures": total - len(served) - len(refused) - server_errors,
        "by_kind": {k: {"served": len(v), "per_s": round(len(v) / seconds, 2) if seconds > 0 else 0.0,
                        "p50_ms": _pct(v, 50), "p95_ms": _pct(v, 95)} for k, v in sorted(by_kind.items())},
    }


def phase_key(tree: str, profile: str, level: int) -> str:
    return f"{tree}/{profile}/{level}"


def shape(phases: dict[str, dict[str, Any]], levels: Sequence[int] = LEVELS,
          profiles: Sequence[str] = PROFILES) -> dict[str, Any]:
    """profiles.{p}.levels.{"n"} (this tree) and profiles.{p}.before.levels.{"n"} (the commit before), with the
    acknowledged-but-lost episodes and the server errors summed per tree; a level not measured is left out."""
    out: dict[str, Any] = {}
    totals = {"after": {"lost": 0, "server_errors": 0}, "before": {"lost": 0, "server_errors": 0}}
    for profile in profiles:
        entry: dict[str, Any] = {"levels": {}, "before": {"levels": {}}}
        for tree, target in (("after", entry), ("before", entry["before"])):
            for level in levels:
                phase = phases.get(phase_key(tree, profile, level))
                if phase is None:
                    continue
                target["levels"][str(level)] = phase["stats"]
                totals[tree]["lost"] += phase.get("lost", 0)
                totals[tree]["server_errors"] += phase["stats"]["server_errors"]
        out[profile] = entry
    for profile in profiles:
        out[profile]["before"].update(totals["before"])
    return {"profiles": out, **totals["after"]}


def ratios(profiles: dict[str, Any], levels: Sequence[str] = ("16", "64")) -> dict[str, dict[str, float | None]]:
    """After / before served throughput per profile at the given levels (None when either is missing or zero)."""
    out: dict[str, dict[str, float | None]] = {}
    for name, p in profiles.items():
        out[name] = {}
        for level in levels:
            after = p["levels"].get(level, {}).get("throughput_per_s")
            before = p["before"]["levels"].get(level, {}).get("throughput_per_s")
            out[name][level] = round(after / before, 2) if after and before else None
    return out


def goals(result: dict[str, Any]) -> dict[str, Any]:
    """The issue's four goals, each met (a boolean) beside the numbers it was judged on."""
    rs = result["ratios"]
    throughput = {f"{p}@{n}": rs.get(p, {}).get(n) for p in ("retrieval", "mixed") for n in ("16", "64")}
    top = {p: result["profiles"][p]["levels"].get("64", {}) for p in result["profiles"]}
    served = {p: s.get("p95_ms") for p, s in top.items()}
    refused = {p: s.get("refused_p95_ms") for p, s in top.items()}
    fair = result.get("fairness", {})
    alone, flood = fair.get("quiet_p95_alone_ms"), fair.get("quiet_p95_during_flood_ms")
    return {
        "throughput_2x_before": {
            "met": all(v is not None and v >= GOALS["ratio"] for v in throughput.values()), "ratios": throughput},
        "at_64_served_p95_le_1s_refused_p95_le_50ms": {
            "met": all(v is not None and v <= GOALS["p95_served_ms"] for v in served.values())
            and all(v is None or v <= GOALS["refused_p95_ms"] for v in refused.values()),
            "served_p95_ms": served, "refused_p95_ms": refused},
        "fairness_quiet_p95_within_2x": {
            "met": alone is not None and flood is not None and flood <= GOALS["fairness"] * alone,
            "alone_ms": alone, "during_flood_ms": flood},
        "nothing_lost_no_5xx": {"met": result["lost"] == 0 and result["server_errors"] == 0,
                                "lost": result["lost"], "server_errors": result["server_errors"]},
    }
