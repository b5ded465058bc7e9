"""The retrieval modes, by name. Each is a strategy (base.Mode): given the retrieval's context
(graph/retrieval/context.py) it returns the ranked, scored candidates; the pipeline does what
every mode shares before and after (graph/retrieval/pipeline.py). A new mode is a file with its
class and a line in REGISTRY; a request names it in `mode`."""

from __future__ import annotations

from grimoire.graph.errors import Invalid
from grimoire.graph.retrieval.modes.base import Mode, Needs
from grimoire.graph.retrieval.modes.four_factor import FourFactor
from grimoire.graph.retrieval.modes.generative_agents import GenerativeAgents
from grimoire.graph.retrieval.modes.hybrid import Hybrid
from grimoire.graph.retrieval.modes.recipe import Recipe
from grimoire.graph.retrieval.modes.replay import Replay

__all__ = ["DEFAULT", "REGISTRY", "Mode", "Needs", "UnknownMode", "get", "names"]

REGISTRY: dict[str, Mode] = {mode.name: mode for mode in (
    Hybrid(),                                    # vector + BM25 + graph, RRF, rerank, MMR
    Recipe("fusion", ("vector", "bm25")),        # vector + BM25 fused by RRF, nothing else
    Recipe("vector", ("vector",)),
    Recipe("bm25", ("bm25",), Needs.text),
    FourFactor(),
    GenerativeAgents(),
    Replay(),                                    # Mattar-Daw over episodes with a gain
)}
DEFAULT = "hybrid"


class UnknownMode(Invalid):
    """A request named a mode no strategy is registered for."""


def names() -> list[str]:
    return list(REGISTRY)


def get(name: str) -> Mode:
    try:
        return REGISTRY[name]
    except KeyError:
        raise UnknownMode(f"unknown mode {name!r}; one of {', '.join(REGISTRY)}") from None
