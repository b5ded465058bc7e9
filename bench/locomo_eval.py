"""Turn-level recall@k on LoCoMo (categories 1-4), one memory per conversation, through the same
retrieval code the API serves, per category and overall. Each answer keeps its conversation, so that
settings are chosen by leave-one-conversation-out (bench/locomo_loo.py, issue 41)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from grimoire.graph.retrieval.filters import RetrievalFilters
from grimoire.graph.retrieval.pipeline import RetrievalRequest, Retriever
from grimoire.graph.visibility import Visibility
from grimoire.loaders.locomo import CATEGORIES, Conversation

KS = (5, 10, 20)
MODES = {"vector": "vector", "bm25": "bm25", "vector+bm25 (RRF)": "fusion", "full pipeline": "hybrid"}  # label: mode


@dataclass(frozen=True)
class Asked:
    """One question's turn-level recall at each k."""

    conversation: int  # its conversation's position in the file, from 0
    category: str
    recall: dict[int, float]


def ask(retriever: Retriever, conversations: Sequence[Conversation], mode: str) -> list[Asked]:
    out = []
    for n, conv in enumerate(conversations):
        view = Visibility(conv.agent_id, "")
        for q in conv.questions:
            if q.category not in (1, 2, 3, 4):
                continue
            req = RetrievalRequest(text=q.question, mode=mode, k=max(KS), no_budget=True,
                                   filters=RetrievalFilters(kinds=["episodes"], agent_id=conv.agent_id))
            got = [r.id for r in retriever.retrieve(req, view, conv.agent_id).results]
            evidence = set(q.evidence)
            out.append(Asked(n, CATEGORIES[q.category],
                             {k: len(evidence & set(got[:k])) / len(evidence) for k in KS}))
    return out


def summarize(asked: Sequence[Asked]) -> dict[str, Any]:
    """recall@5/10/20 overall and by category (recall@10_by_category kept as before), and how many questions."""
    if not asked:
        return {"questions": 0}
    out: dict[str, Any] = {f"recall@{k}": sum(a.recall[k] for a in asked) / len(asked) for k in KS}
    for k in KS:
        by: dict[str, list[float]] = {}
        for a in asked:
            by.setdefault(a.category, []).append(a.recall[k])
        out[f"recall@{k}_by_category"] = {c: sum(v) / len(v) for c, v in sorted(by.items())}
    out["questions"] = len(asked)
    return out


def evaluate(retriever: Retriever, conversations: Sequence[Conversation], modes: dict[str, str] = MODES,
             progress: bool = True) -> dict[str, Any]:
    """Per method: the results over every conversation."""
    results: dict[str, Any] = {}
    for label, mode in modes.items():
        started = time.perf_counter()
        asked = ask(retriever, conversations, mode)
        results[label] = {**summarize(asked), "seconds": round(time.perf_counter() - started, 1)}
        if progress:
            print(f"  {label}: " + ", ".join(f"R@{k} {results[label][f'recall@{k}']:.3f}" for k in KS), flush=True)
    return {"results": results}
