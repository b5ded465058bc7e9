"""Retrieval experiments on LoCoMo under leave-one-conversation-out (issue 41; bench/locomo_loo.py): the
conversations are loaded once, then each variant of the retrieval configuration runs the full pipeline over all of
them; five folds each choose the best variant on four conversations and score it on the fifth, and each variant is
set against the shipped configuration conversation by conversation (kept only when its mean gain exceeds the
gain's spread). Writes bench/results/locomo_tune.json (`python -m bench locomo_tune`, or
`python -m bench.locomo_tune NAME ...` for some; not in `make bench`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from bench import locomo_loo
from bench.locomo_eval import ask, summarize
from bench.server import bench_database
from grimoire.graph.embeddings import get_embedder
from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.retrieval.pipeline import build
from grimoire.graph.schema import apply_schema
from grimoire.loaders import locomo

# name: overrides of RetrievalConfig (merged into the defaults); "baseline" is the configuration as shipped.
VARIANTS: dict[str, dict[str, Any]] = {
    "baseline": {},
    "no MMR reorder": {"mmr_lambda": 1.0},
    "graph weight 0.5": {"backend_weights": {"vector": 1.0, "bm25": 1.0, "graph": 0.5}},
    "MMR ratio relevance (before issue 22)": {"mmr_relevance": "ratio"},
    "fused order only": {"rerank": {"rrf": 1.0, "effective_confidence": 0.0, "quality": 0.0, "recency": 0.0,
                                    "regime_match": 0.0}},
}


def _only(**query: Any) -> dict[str, Any]:
    """One query-understanding candidate on its own: the others off."""
    return {"query": {"time_windows": False, "time_telling": False, "short_context": False, **query}}


# Issue 22 point 2, query understanding (graph/retrieval/understood.py): each candidate on its own (over the
# pipeline without any), then the shipped combination less one kept candidate, or with one that was not kept.
VARIANTS |= {
    "no query understanding (before issue 22 point 2)": _only(),
    "time windows only": _only(time_windows=True),
    "time windows only, 3 days slack": _only(time_windows=True, slack_days=3.0),
    "time windows only, 7 days slack": _only(time_windows=True, slack_days=7.0),
    "time telling only": _only(time_telling=True),
    "short-turn context only": _only(short_context=True),
    "short-turn context only, 60 chars": _only(short_context=True, short_chars=60),
    "short-turn context only, weight 0.5": _only(short_context=True, context_weight=0.5),
    "short-turn context only, 120 chars, weight 0.5": _only(short_context=True, short_chars=120, context_weight=0.5),
    "entity lists only": _only(entity_lists=True),
    "entity lists only, two or more entities": _only(entity_lists=True, entity_min=2),
    "entity focus only": _only(entity_focus=True),
    "possessive names only": _only(possessives=True),
    "entity focus and possessive names only": _only(entity_focus=True, possessives=True),
    "without time windows": {"query": {"time_windows": False}},
    "without time telling": {"query": {"time_telling": False}},
    "without short-turn context": {"query": {"short_context": False}},
    "short-turn context 60 chars": {"query": {"short_chars": 60}},
    "short-turn context 100 chars": {"query": {"short_chars": 100}},
    "with entity focus": {"query": {"entity_focus": True}},
    "with entity lists, two or more entities": {"query": {"entity_lists": True, "entity_min": 2}},
}

# Issue 41, open-domain and multi-hop: pseudo-relevance feedback on BM25 (graph/retrieval/feedback_terms.py).
VARIANTS |= {
    "with BM25 feedback": {"query": {"feedback": True}},
    "with BM25 feedback, 3 hits read": {"query": {"feedback": True, "feedback_docs": 3}},
    "with BM25 feedback, 10 hits read": {"query": {"feedback": True, "feedback_docs": 10}},
    "with BM25 feedback, weight 0.5": {"query": {"feedback": True, "feedback_weight": 0.5}},
    "with BM25 feedback, 5 words": {"query": {"feedback": True, "feedback_terms": 5}},
    "with BM25 feedback, 20 words": {"query": {"feedback": True, "feedback_terms": 20}},
}

# Issue 41, multi-hop and open-domain: what lies around the candidates (graph/retrieval/neighbourhood.py), the
# hierarchical thread score and the expansion to the hits' neighbours, each a list fused by RRF.
VARIANTS |= {
    "threads, max": {"neighbourhood": {"threads": True}},
    "threads, sum": {"neighbourhood": {"threads": True, "thread_score": "sum"}},
    "threads, max, 3 turns either way": {"neighbourhood": {"threads": True, "thread_hops": 3}},
    "expansion, weight 0.5": {"neighbourhood": {"expand": True}},
    "threads, max, and expansion": {"neighbourhood": {"threads": True, "expand": True}},
    # The second round, after every one above lost on every fold: the lists at a quarter of a backend's weight.
    "threads, max, weight 0.25": {"neighbourhood": {"threads": True, "thread_weight": 0.25}},
    "threads, max, 3 turns either way, weight 0.25": {"neighbourhood": {"threads": True, "thread_hops": 3,
                                                                         "thread_weight": 0.25}},
    "expansion, weight 0.25": {"neighbourhood": {"expand": True, "expand_weight": 0.25}},
}

# Issue 41, multi-hop: a vector second hop (Rocchio on embeddings, graph/retrieval/second_hop.py) and the question's
# parts searched apart (graph/retrieval/decompose.py), each a list fused by RRF (bench/locomo_multihop.py).
VARIANTS |= {
    "second hop, mean of 3, beta 0.75, weight 0.5": {"multihop": {"second_hop": True}},
    "second hop, mean of 3, beta 0.75, weight 1": {"multihop": {"second_hop": True, "hop_weight": 1.0}},
    "second hop, mean of 5, beta 1, weight 0.5": {"multihop": {"second_hop": True, "hop_from": 5, "hop_beta": 1.0}},
    "second hop, mean of 1, beta 0.5, weight 0.5": {"multihop": {"second_hop": True, "hop_from": 1,
                                                                 "hop_beta": 0.5}},
    "second hop, each of 3, beta 1, weight 0.5": {"multihop": {"second_hop": True, "hop_each": True,
                                                               "hop_beta": 1.0}},
    "decomposition, weight 0.5": {"multihop": {"decompose": True}},
    "decomposition, weight 1": {"multihop": {"decompose": True, "decompose_weight": 1.0}},
    # The second round: the second hop lighter, the decomposition heavier.
    "second hop, each of 3, beta 1, weight 0.25": {"multihop": {"second_hop": True, "hop_each": True,
                                                                "hop_beta": 1.0, "hop_weight": 0.25}},
    "decomposition, weight 2": {"multihop": {"decompose": True, "decompose_weight": 2.0}},
}

# Issue 39: the final score as grimoire.md line 325 gives it, effective confidence x quality x relevance.
VARIANTS |= {
    "final score as product": {"rerank_form": "product"},
}


def merged(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in overrides.items():
        out[k] = merged(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def config_of(overrides: dict[str, Any]) -> RetrievalConfig:
    return RetrievalConfig.model_validate(merged(RetrievalConfig().model_dump(), overrides))


def run(names: list[str] | None = None) -> dict[str, Any]:
    from bench.locomo import DEFAULT  # bench.locomo imports this module's catalogue

    chosen = {n: VARIANTS[n] for n in (names or list(VARIANTS)) if n != "baseline"}
    embedder = get_embedder()
    source = Path(os.environ.get("GRIMOIRE_LOCOMO", DEFAULT))
    out: dict[str, Any] = {"data": source.name, "variants": {}}
    with bench_database() as db:
        apply_schema(db, embedder.dimension, embedder.model_name)
        conversations = locomo.load(db, embedder, source)
        asked = {locomo_loo.SHIPPED: ask(build(db, embedder), conversations, "hybrid")}
        for i, (name, overrides) in enumerate(chosen.items(), start=1):
            print(f"  [{i}/{len(chosen)}] {name}", flush=True)
            asked[name] = ask(build(db, embedder, config_of(overrides)), conversations, "hybrid")
    ids = [c.sample_id for c in conversations]
    for name, found in asked.items():
        # Each conversation's own scores too: the held-out score of every variant on every fold, not only the one
        # each fold chose (recall@5 and the categories per fold, for a variant set against the shipped one).
        out["variants"][name] = {"overrides": VARIANTS.get(name, {}), "all": summarize(found),
                                 "per_conversation": {ids[n]: summarize([a for a in found if a.conversation == n])
                                                      for n in range(len(ids))}}
    out["leave_one_out"] = locomo_loo.report(asked, ids, {n: VARIANTS.get(n, {}) for n in asked})
    return out


if __name__ == "__main__":
    from bench.common import write_result

    # `--out NAME` writes bench/results/NAME.json instead (a subset's run beside the full catalogue's).
    args = sys.argv[1:]
    out = "locomo_tune"
    if args[:1] == ["--out"]:
        out, args = args[1], args[2:]
    print(write_result(out, run(args)))
