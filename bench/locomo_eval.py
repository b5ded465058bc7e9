"""Turn-level recall@k on LoCoMo (categories 1-4), one memory per conversation, through the same
retrieval code the API serves, with the tuning discipline of issue 22: every parameter is chosen on
the tuning conversations (the first three) and reported separately on the check conversations (the
last two), per category and overall; a change is kept only if it helps both."""

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
TUNE, CHECK = "tune", "check"
TUNE_CONVERSATIONS = 3  # the first three tune; the rest check


@dataclass(frozen=True)
class Asked:
    """One question's turn-level recall at each k."""

    conversation: int  # its conversation's position in the file, from 0
    category: str
    recall: dict[int, float]


def part_of(conversation: int) -> str:
    return TUNE if conversation < TUNE_CONVERSATIONS else CHECK


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
    """Per method: the results over every conversation, and `split`: the same over the tuning and the check
    conversations."""
    results: dict[str, Any] = {}
    split: dict[str, dict[str, Any]] = {TUNE: {}, CHECK: {}}
    for label, mode in modes.items():
        started = time.perf_counter()
        asked = ask(retriever, conversations, mode)
        results[label] = {**summarize(asked), "seconds": round(time.perf_counter() - started, 1)}
        for part in (TUNE, CHECK):
            split[part][label] = summarize([a for a in asked if part_of(a.conversation) == part])
        if progress:
            print(f"  {label}: " + ", ".join(f"R@{k} {results[label][f'recall@{k}']:.3f}" for k in KS)
                  + f" (tune R@10 {split[TUNE][label].get('recall@10', 0):.3f}, "
                  f"check R@10 {split[CHECK][label].get('recall@10', 0):.3f}, "
                  f"check R@5 {split[CHECK][label].get('recall@5', 0):.3f})", flush=True)
    return {"results": results, "split": split}
