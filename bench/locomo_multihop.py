"""Issue 41, multi-hop: the vector second hop (Rocchio on embeddings, graph/retrieval/second_hop.py) and the question's
parts searched apart (graph/retrieval/decompose.py) against the shipped configuration, by leave-one-conversation-out on
LoCoMo (bench/locomo_tune.py runs them, bench/locomo_loo.py judges). Beside the overall verdict, each variant's gain in
the two weak categories conversation by conversation (mean and spread), since an option is kept only when its held-out
recall@10 gain clears the gain's spread and multi-hop does not lose. Writes bench/results/locomo_multihop.json
(`python -m bench.locomo_multihop`; not in `make bench`)."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from bench import locomo_loo, locomo_tune

NAMES = ("second hop, mean of 3, beta 0.75, weight 0.5", "second hop, mean of 3, beta 0.75, weight 1",
         "second hop, mean of 5, beta 1, weight 0.5", "second hop, mean of 1, beta 0.5, weight 0.5",
         "second hop, each of 3, beta 1, weight 0.5", "decomposition, weight 0.5", "decomposition, weight 1")
CATEGORIES = ("multi-hop", "open-domain")
KEY = "recall@10"


def category_gains(variants: Mapping[str, Mapping[str, Any]], categories: Sequence[str] = CATEGORIES,
                   shipped: str = locomo_loo.SHIPPED) -> dict[str, dict[str, Any]]:
    """Per variant and category: its recall@10 less the shipped one's on each conversation that asks that category,
    their mean and spread."""
    base = variants[shipped]["per_conversation"]
    out: dict[str, dict[str, Any]] = {}
    for name, v in variants.items():
        if name == shipped:
            continue
        out[name] = {}
        for c in categories:
            gains = [scores[f"{KEY}_by_category"][c] - base[conv][f"{KEY}_by_category"][c]
                     for conv, scores in v["per_conversation"].items()
                     if c in scores.get(f"{KEY}_by_category", {}) and c in base[conv].get(f"{KEY}_by_category", {})]
            out[name][c] = {"gain_mean": round(statistics.fmean(gains), 4) if gains else 0.0,
                            "gain_spread": round(locomo_loo.spread(gains), 4), "gains": [round(g, 4) for g in gains]}
    return out


def kept(against: Mapping[str, Any], by_category: Mapping[str, Any]) -> bool:
    """The rule: the held-out recall@10 gain clears its spread and multi-hop does not lose."""
    return bool(against["kept"]) and by_category["multi-hop"]["gain_mean"] >= 0


def run(names: Sequence[str] = NAMES) -> dict[str, Any]:
    out = locomo_tune.run(list(names))
    gains = category_gains(out["variants"])
    against = out["leave_one_out"]["against_shipped"]
    out["by_category_against_shipped"] = gains
    out["verdicts"] = {n: {"recall@10_gain": against[n]["gain_mean"], "spread": against[n]["gain_spread"],
                           **{f"{c}_gain": gains[n][c]["gain_mean"] for c in CATEGORIES},
                           "kept": kept(against[n], gains[n])} for n in gains}
    out["rule"] = ("kept on by default only when the mean held-out recall@10 gain over the shipped configuration "
                   "exceeds the spread of that gain across the five folds and multi-hop does not lose")
    return out


if __name__ == "__main__":
    import sys

    from bench.common import write_result

    # `--out NAME` writes bench/results/NAME.json instead (a second round beside the first).
    args, out = sys.argv[1:], "locomo_multihop"
    if args[:1] == ["--out"]:
        out, args = args[1], args[2:]
    print(write_result(out, run(args or NAMES)))
