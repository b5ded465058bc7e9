"""The context budget: results in ranked order while they fit the token budget (a result that
does not fit is skipped, a shorter one after it may still go in). Tokens are counted one way
everywhere: the embedding model's own tokenizer, without special tokens."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

Counter = Callable[[str], int]


def whitespace_tokens(text: str) -> int:
    return len(text.split())


def cut(items: Sequence[dict[str, Any]], budget: int | None, count: Counter) -> tuple[list[dict], list[dict]]:
    """(kept, cut); each item gets its `tokens`."""
    kept, dropped, used = [], [], 0
    for item in items:
        item["tokens"] = count(item["text"] or "")
        if budget is None or used + item["tokens"] <= budget:
            kept.append(item)
            used += item["tokens"]
        else:
            dropped.append(item)
    return kept, dropped
