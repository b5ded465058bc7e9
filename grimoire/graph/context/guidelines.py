"""Failure-driven compression guidelines (context-governor.md S3.8, after ACON). When a decision went badly and
what it missed was in a category the workspace had compressed (items cut to one line or left out by the budget,
or the category shrunk by compaction), a guideline is learned for that category, task type and regime: its text
says what was lost, and while it holds the category is kept whole — its items are not cut to one line by the
compression thresholds and compaction does not shrink it. Guidelines live in the policy, so each one learned is a
revision (audited, rollback-able) and the policy's history shows when it came.

The spec has a language model write the text; without one here, the text is composed from the failure itself."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from grimoire.graph.context.categories import ContextCategory
from grimoire.graph.ids import uuid7


class Guideline(BaseModel):
    """The spec's CompressionGuideline, as the policy keeps it (a policy of old kept only a text: the rest unset)."""

    id: str | None = None
    category: str | None = None
    task_type: str | None = None
    regime: str | None = None
    text: str
    created_at: int | None = None     # ms
    trigger_count: int = 0
    prevented_failures: int = 0


def applies(g: Guideline, task: str | None, regime: str | None) -> bool:
    """A guideline holds for its task type and regime (one learned without either holds for any)."""
    return g.task_type in (None, task) and g.regime in (None, regime)


def protected(guidelines: Iterable[Guideline], task: str | None, regime: str | None) -> frozenset[ContextCategory]:
    return frozenset(ContextCategory(g.category) for g in guidelines
                     if g.category is not None and g.category in ContextCategory.__members__
                     and applies(g, task, regime))


def learn(category: ContextCategory, task: str | None, regime: str | None, *, original_tokens: int,
          compressed_tokens: int, lost: str, impact: str, now: int) -> Guideline:
    """A guideline from one failure (the fields of the spec's CompressionGuideline)."""
    where = " ".join(x for x in (f"{task} decisions" if task else "decisions",
                                 f"in a {regime} market" if regime else "") if x)
    text = (f"For {where}, keep {category.value} whole: compressing it ({original_tokens} → {compressed_tokens} "
            f"tokens) lost {lost!r}, and the decision {impact}.")
    return Guideline(id=uuid7(), category=category.value, task_type=task, regime=regime, text=text, created_at=now)
