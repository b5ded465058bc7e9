"""One category's selection within its budget (S3.2): its candidates, ranked, go in by progressive disclosure
(graph/context/disclosure.py); episodes are masked first (the newest in full, the next as one line, the rest
left out); an item longer than its category's compression threshold goes in as one line only. The block's own
tags are paid for out of the category's budget, so a category never spends more than it was given."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from grimoire.graph.context.categories import ContextCategory
from grimoire.graph.context.disclosure import disclose, mask
from grimoire.graph.context.items import Item


@dataclass(frozen=True)
class Line:
    """A candidate as it would be rendered: its ref and both lines with their tokens."""

    item: Item
    ref: str
    full: str
    summary: str
    full_tokens: int
    summary_tokens: int


@dataclass
class Selection:
    category: ContextCategory
    budget: int
    overhead: int
    full: list[Line] = field(default_factory=list)
    summarized: list[Line] = field(default_factory=list)
    excluded: list[tuple[Line, str]] = field(default_factory=list)
    hungry: bool = False        # the budget, not the rules, kept something out or short
    parts: tuple[int, int] | None = None   # episodes: the tags of the full block and of the one-line block

    @property
    def tags(self) -> int:
        """The tokens of the block tags actually rendered (the budget reserved them all)."""
        if not self.included:
            return 0
        if self.parts is None:
            return self.overhead
        return (self.parts[0] if self.full else 0) + (self.parts[1] if self.summarized else 0)

    @property
    def included(self) -> int:
        return len(self.full) + len(self.summarized)

    @property
    def tokens(self) -> int:
        used = sum(x.full_tokens for x in self.full) + sum(x.summary_tokens for x in self.summarized)
        return used + self.tags


def select(category: ContextCategory, lines: Sequence[Line], budget: int, overhead: int, *,
           threshold: int | None = None, masking: tuple[int, int] | None = None,
           parts: tuple[int, int] | None = None) -> Selection:
    """`lines` best first (episodes: any order, masking sorts them newest first); `threshold`: a full line of
    more tokens goes in as one line only; `masking`: (full, summary) slots; `parts`: the tags of two blocks that
    make up `overhead` (episodes)."""
    out = Selection(category, budget, overhead, parts=parts)
    if not lines:
        return out
    if budget <= overhead:
        out.excluded = [(x, f"the category's budget ({budget} tokens) does not cover its block's tags ({overhead})")
                        for x in lines]
        out.hungry = budget > 0
        return out
    pool, full_ok = list(lines), {x.ref for x in lines}
    if masking is not None:
        masked = mask(lines, lambda x: x.item.at, *masking)
        pool, full_ok = masked.full + masked.summarized, {x.ref for x in masked.full}
        out.excluded += [(x, f"observation masking: older than the {sum(masking)} newest") for x in masked.left_out]
    if threshold is not None:
        full_ok = {x.ref for x in pool if x.ref in full_ok and x.full_tokens <= threshold}
    shown = disclose(pool, budget - overhead, lambda x: x.full_tokens, lambda x: x.summary_tokens,
                     lambda x: x.ref in full_ok)
    out.full, out.summarized = shown.full, shown.summarized
    out.excluded += shown.excluded
    out.hungry = bool(shown.excluded) or any(x.ref in full_ok for x in shown.summarized)
    return out
