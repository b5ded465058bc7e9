"""Leave-one-conversation-out on LoCoMo (issue 41, "measure generalisation, not fit").

Every candidate configuration of the full pipeline is asked every question once; then, five times, the candidate
with the best recall@10 on four conversations is chosen and scored on the fifth, which had no say in the choice.
What a conversation we have never seen can expect is the held-out mean, and how far to trust it the spread across
the five folds. The gap is what choosing on the four adds to the score on the four over the held-out fifth: the
price of fitting.

A candidate is kept over the shipped configuration only when its held-out gain (its recall@10 on each fold's
conversation, less the shipped one's) is larger on average than the spread of that gain across the folds: a change
that helps two conversations and hurts three is fit, not method. The selection and the rule are pure functions of
the per-question recalls, so they are tested without a database (tests/unit/test_locomo_loo.py)."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bench.locomo_eval import KS, Asked, summarize

SELECT_BY = "recall@10"
SHIPPED = "shipped"


@dataclass(frozen=True)
class Fold:
    held_out: int           # the conversation left out (its position in the file)
    chosen: str             # the candidate the other four chose
    tuned: float            # its SELECT_BY on the four
    scored: dict[str, Any]  # its summary on the fifth
    shipped: dict[str, Any]  # the shipped configuration's summary on the fifth


def _on(asked: Sequence[Asked], conversations: set[int]) -> list[Asked]:
    return [a for a in asked if a.conversation in conversations]


def folds(asked: Mapping[str, Sequence[Asked]], conversations: int, shipped: str = SHIPPED) -> list[Fold]:
    """One fold per conversation: the candidate best on the others (SELECT_BY; ties go to the shipped one, then by
    name), scored on it."""
    out = []
    for held in range(conversations):
        rest = set(range(conversations)) - {held}
        tuned = {name: summarize(_on(a, rest)).get(SELECT_BY, 0.0) for name, a in asked.items()}
        chosen = min(tuned, key=lambda n: (-tuned[n], n != shipped, n))
        out.append(Fold(held, chosen, tuned[chosen], summarize(_on(asked[chosen], {held})),
                        summarize(_on(asked[shipped], {held}))))
    return out


def spread(values: Sequence[float]) -> float:
    """The folds' standard deviation (population: the five are all there is)."""
    return statistics.pstdev(values) if len(values) > 1 else 0.0


def table(found: Sequence[Fold]) -> dict[str, Any]:
    """Mean and spread of the held-out scores, overall and by category, at each k; and the tuning gap."""
    out: dict[str, Any] = {}
    for k in KS:
        key = f"recall@{k}"
        values = [f.scored[key] for f in found]
        out[key] = {"mean": statistics.fmean(values), "spread": spread(values)}
        cats = sorted({c for f in found for c in f.scored.get(f"{key}_by_category", {})})
        out[f"{key}_by_category"] = {}
        for c in cats:
            per = [f.scored[f"{key}_by_category"][c] for f in found if c in f.scored.get(f"{key}_by_category", {})]
            out[f"{key}_by_category"][c] = {"mean": statistics.fmean(per), "spread": spread(per)}
    out[f"gap_{SELECT_BY}"] = statistics.fmean(f.tuned - f.scored[SELECT_BY] for f in found)
    return out


def verdicts(asked: Mapping[str, Sequence[Asked]], conversations: int,
             shipped: str = SHIPPED) -> dict[str, dict[str, Any]]:
    """Each candidate against the shipped configuration, conversation by conversation: the mean held-out gain at
    SELECT_BY, its spread, and whether the gain clears the spread (kept)."""
    base = [summarize(_on(asked[shipped], {c})).get(SELECT_BY, 0.0) for c in range(conversations)]
    out = {}
    for name, a in asked.items():
        if name == shipped:
            continue
        gains = [summarize(_on(a, {c})).get(SELECT_BY, 0.0) - base[c] for c in range(conversations)]
        mean, sd = statistics.fmean(gains), spread(gains)
        out[name] = {"gain_mean": round(mean, 4), "gain_spread": round(sd, 4),
                     "gains": [round(g, 4) for g in gains], "kept": mean > sd}
    return out


def report(asked: Mapping[str, Sequence[Asked]], ids: Sequence[str],
           candidates: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The leave-one-out section of locomo.json."""
    found = folds(asked, len(ids))
    return {
        "rule": "each fold chooses the candidate with the best recall@10 on four conversations and scores it on the "
                "fifth; a candidate is kept over the shipped configuration only when its mean held-out gain exceeds "
                "the spread (standard deviation) of that gain across the folds",
        "candidates": {n: dict(c) for n, c in candidates.items()},
        "folds": [{"held_out": ids[f.held_out], "chosen": f.chosen, f"tuned_{SELECT_BY}": round(f.tuned, 4),
                   "held_out_scores": f.scored, "shipped_held_out_scores": f.shipped} for f in found],
        "held_out": table(found),
        "shipped_per_conversation": table([Fold(f.held_out, SHIPPED, 0.0, f.shipped, f.shipped) for f in found]),
        "against_shipped": verdicts(asked, len(ids)),
    }


def chart(section: Mapping[str, Any], path: Any) -> Any:
    """Held-out recall@10 per fold and category, with the mean across folds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folds_ = section["folds"]
    cats = sorted(section["held_out"]["recall@10_by_category"])
    series = ["overall", *cats]
    fig, ax = plt.subplots(figsize=(9, 4.5), dpi=120)
    width = 0.8 / len(folds_)
    for i, f in enumerate(folds_):
        s = f["held_out_scores"]
        values = [s["recall@10"], *[s["recall@10_by_category"].get(c, 0.0) for c in cats]]
        ax.bar([x + i * width for x in range(len(series))], values, width, label=f"held out: {f['held_out']}")
    means = [section["held_out"]["recall@10"]["mean"],
             *[section["held_out"]["recall@10_by_category"][c]["mean"] for c in cats]]
    for x, m in enumerate(means):
        ax.hlines(m, x - width / 2, x + 0.8 - width / 2, colors="black", linewidth=1.5)
        ax.annotate(f"{m:.3f}", (x + 0.4 - width / 2, m), textcoords="offset points", xytext=(0, 3), ha="center",
                    fontsize=7)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(series))], series)
    ax.set_ylim(0, 1)
    ax.set_ylabel("held-out recall@10")
    ax.set_title("LoCoMo leave-one-conversation-out: each fold's held-out conversation (line: mean)")
    ax.legend(loc="upper right", fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
