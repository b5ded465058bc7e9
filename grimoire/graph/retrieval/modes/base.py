"""What a retrieval mode is: a name, what the request must give it, and how it turns a
retrieval's context into ranked, scored candidates. The pipeline does the rest, the same for
every mode: the query's embedding and the adaptive decision before, contrarian injection, the
token budget, bookkeeping and the presentation after (graph/retrieval/pipeline.py)."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from grimoire.graph.retrieval.candidate import Candidate
    from grimoire.graph.retrieval.context import Context


class Needs(StrEnum):
    query = "query"      # text or a vector
    text = "text"        # text (a full-text search cannot take a vector)
    nothing = "nothing"  # neither: the mode selects on its own (replay)


class Mode(Protocol):
    @property
    def name(self) -> str:
        """What a request calls it (`mode`)."""
        ...

    @property
    def needs(self) -> Needs:
        """What the request must give it."""
        ...

    def candidates(self, ctx: Context) -> list[Candidate]:
        """The candidates best first, each with its `score` (and the `factors` of it); those the
        mode cuts on the way go to `ctx.cut`, each with its reason in `cut`."""
        ...
