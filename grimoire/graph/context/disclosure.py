"""Progressive disclosure and observation masking (context-governor.md S3.2).

Disclosure: items in rank order enter in full while the category's tokens stay within 70% of its budget; past
that, as one-line summaries while fewer than 95% are used; the rest are excluded (retrievable on demand). One
rule is added to the spec's so that a category never exceeds its budget: a summary that would cross 100% is
excluded too.

Masking: the newest `full` episodes verbatim, the next `summary` as one line each, the rest left out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Generic, TypeVar

FULL_SHARE = 0.70
SUMMARY_SHARE = 0.95

T = TypeVar("T")


class Disclosure(StrEnum):
    full = "full"
    summary = "summary"
    excluded = "excluded"


@dataclass
class Disclosed(Generic[T]):
    full: list[T] = field(default_factory=list)
    summarized: list[T] = field(default_factory=list)
    excluded: list[tuple[T, str]] = field(default_factory=list)  # with why
    tokens: int = 0


def disclose(items: Sequence[T], budget: int, full_tokens: Callable[[T], int],
             summary_tokens: Callable[[T], int], full_allowed: Callable[[T], bool] = lambda _: True) -> Disclosed[T]:
    """Items (best first) split into full, summarized and excluded within `budget` tokens. An item that
    `full_allowed` refuses (masked to one line, or longer than its compression threshold) can only be summarized."""
    out: Disclosed[T] = Disclosed()
    full_cap, summary_cap = int(budget * FULL_SHARE), int(budget * SUMMARY_SHARE)
    for item in items:
        whole = full_tokens(item)
        if full_allowed(item) and out.tokens + whole <= full_cap:
            out.full.append(item)
            out.tokens += whole
            continue
        if out.tokens < summary_cap:
            short = summary_tokens(item)
            if out.tokens + short <= budget:
                out.summarized.append(item)
                out.tokens += short
                continue
            out.excluded.append((item, "its summary would exceed the category's budget"))
            continue
        out.excluded.append((item, f"the category's budget is {SUMMARY_SHARE:.0%} used"))
    return out


@dataclass
class Masked(Generic[T]):
    full: list[T]
    summarized: list[T]
    left_out: list[T]


def mask(episodes: Sequence[T], at: Callable[[T], int], full: int = 3, summary: int = 7) -> Masked[T]:
    """The newest `full` verbatim, the next `summary` as one line, the rest left out (newest first)."""
    newest = sorted(episodes, key=at, reverse=True)
    return Masked(newest[:full], newest[full:full + summary], newest[full + summary:])
