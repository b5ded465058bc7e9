"""Turn-level recall@k on LoCoMo (categories 1-4), one memory per conversation, through the same
retrieval code the API serves."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from graph.retrieval.filters import RetrievalFilters
from graph.retrieval.pipeline import RetrievalRequest, Retriever
from graph.visibility import Visibility
from loaders.locomo import CATEGORIES, Conversation

KS = (5, 10, 20)
MODES = {"vector": "vector", "bm25": "bm25", "vector+bm25 (RRF)": "fusion", "full pipeline": "hybrid"}  # label: mode


def evaluate(retriever: Retriever, conversations: Sequence[Conversation], modes: dict[str, str] = MODES,
             progress: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for label, mode in modes.items():
        hits = {k: [] for k in KS}
        by_cat: dict[str, list[float]] = {}
        started = time.perf_counter()
        asked = 0
        for conv in conversations:
            view = Visibility(conv.agent_id, "")
            for q in conv.questions:
                if q.category not in (1, 2, 3, 4):
                    continue
                req = RetrievalRequest(text=q.question, mode=mode, k=max(KS), no_budget=True,
                                       filters=RetrievalFilters(kinds=["episodes"], agent_id=conv.agent_id))
                got = [r.id for r in retriever.retrieve(req, view, conv.agent_id).results]
                evidence = set(q.evidence)
                for k in KS:
                    hits[k].append(len(evidence & set(got[:k])) / len(evidence))
                by_cat.setdefault(CATEGORIES[q.category], []).append(len(evidence & set(got[:10])) / len(evidence))
                asked += 1
        out[label] = {f"recall@{k}": sum(v) / len(v) for k, v in hits.items()}
        out[label]["recall@10_by_category"] = {c: sum(v) / len(v) for c, v in sorted(by_cat.items())}
        out[label]["questions"] = asked
        out[label]["seconds"] = round(time.perf_counter() - started, 1)
        if progress:
            print(f"  {label}: " + ", ".join(f"R@{k} {out[label][f'recall@{k}']:.3f}" for k in KS), flush=True)
    return out
