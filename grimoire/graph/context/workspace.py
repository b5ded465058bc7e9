"""The CognitiveWorkspace (context-governor.md S2.1): what the Governor hands an agent for one decision — the
entries of each category, as they are disclosed (in full or as one line), with the reasons per category
(AssemblyReason: tokens allocated and used, items included and excluded, and why)."""

from __future__ import annotations

from dataclasses import dataclass, field

from grimoire.graph.context.categories import ContextCategory
from grimoire.graph.context.disclosure import Disclosure


@dataclass(frozen=True)
class ContextEntry:
    id: str
    category: ContextCategory
    text: str                  # as disclosed: the full text, or its one-line summary
    tokens: int                # of its rendered line
    disclosure: Disclosure = Disclosure.full
    ref: str = ""              # its short name in the rendered text (h1, e2, …): what a response cites
    score: float = 0.0         # its attention score (graph/context/attention.py)
    source: str = "grimoire"   # grimoire | caller | service
    tag: str = ""              # the element it is rendered as (heuristic, episode, …): its citation's type
    since: int = 0             # since when it holds in this form (ms): its place among the citations
    dominant: str | None = None   # the part of its score that weighed most (pragmatic, epistemic, affective, …)


@dataclass(frozen=True)
class AssemblyReason:
    category: ContextCategory
    tokens_allocated: int
    tokens_used: int
    items_included: int
    items_excluded: int
    reason: str
    excluded: tuple[tuple[str, str], ...] = ()   # (id, why), the first few


@dataclass
class Workspace:
    entries: dict[ContextCategory, list[ContextEntry]] = field(default_factory=dict)
    reasons: list[AssemblyReason] = field(default_factory=list)
    overhead: int = 0          # the blocks' own tags

    @property
    def total_tokens(self) -> int:
        return self.overhead + sum(e.tokens for es in self.entries.values() for e in es)

    def entries_for(self, category: ContextCategory) -> list[ContextEntry]:
        return self.entries.get(category, [])

    def all(self) -> list[ContextEntry]:
        return [e for es in self.entries.values() for e in es]
