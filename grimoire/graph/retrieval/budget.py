"""The context budget: results in ranked order while they fit the token budget (a result that
does not fit is skipped, a shorter one after it may still go in). Tokens are counted one way
everywhere: the embedding model's own tokenizer, without special tokens."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from grimoire.graph.retrieval.candidate import Candidate

Counter = Callable[[Sequence[str]], list[int]]  # token counts of several texts at once


def whitespace_tokens(texts: Sequence[str]) -> list[int]:
    return [len(text.split()) for text in texts]


def cut(items: Sequence[Candidate], budget: int | None,
        count: Counter) -> tuple[list[Candidate], list[Candidate]]:
    """(kept, cut); each item gets its `tokens` (counted in one call: the tokenizer batches)."""
    kept, dropped, used = [], [], 0
    for item, tokens in zip(items, count([item.text or "" for item in items]), strict=True):
        item.tokens = tokens
        if budget is None or used + tokens <= budget:
            kept.append(item)
            used += tokens
        else:
            dropped.append(item)
    return kept, dropped
