"""Retrieval: the pipeline (pipeline.py) runs a mode (modes/: hybrid, fusion, vector, bm25,
four_factor, generative_agents, replay), a strategy that gathers candidates (candidate.py) from
the vector, BM25 and graph backends (backends.py), fuses them by RRF (fusion.py) and scores them
(rerank.py, MMR); every mode's score then goes through the final stages (stages.py): the
term-overlap rerank (term_overlap.py), the knowledge weighting hierarchy (weighting.py) and the
Zeigarnik boost (zeigarnik.py). The pipeline decides first whether and how much to retrieve
(decision.py) and ends with contrarian injection, the token budget (budget.py) and a
RetrievalResult (result.py); a retrieval for a decision returns its decision id, and feedback on
the decision teaches the agent's Generative Agents weights (feedback.py, by Hedge: hedge.py; kept
by weights.py). Filters (filters.py) include RAPTOR levels. POST /search is one backend at a time
over the same code (search.py). Constants are settings (config.py).

This package's public face is this module, and only it: every name below. Outside graph/retrieval/, code
imports these (tests/unit/test_architecture.py holds it), so a filter, a stage, the caller's reach or its
hormonal modulation added here reaches every caller: the /retrieve and /search routes, MCP, the Context
Governor (`Retriever.similar`), agent-memory recall (`Retriever.lexical`, `Retriever.retrieve`), crystal
pipelines. Every other module of the package is private to it."""

from grimoire.graph.retrieval.config import QueryUnderstandingConfig, RetrievalConfig
from grimoire.graph.retrieval.context import POOL
from grimoire.graph.retrieval.feedback import FeedbackResult, reward_of
from grimoire.graph.retrieval.feedback import feedback as learn_from_decision
from grimoire.graph.retrieval.filters import RetrievalFilters
from grimoire.graph.retrieval.lookup import LexicalHit, Similar
from grimoire.graph.retrieval.modes import names as mode_names
from grimoire.graph.retrieval.pipeline import Modulation, ModulationOf, Retriever, build, unmodulated
from grimoire.graph.retrieval.related import RelatedEpisode, related_to_entity
from grimoire.graph.retrieval.request import RetrievalRequest
from grimoire.graph.retrieval.result import Explanation, RetrievalResult, RetrievedItem
from grimoire.graph.retrieval.search import Kind as SearchKind
from grimoire.graph.retrieval.search import fulltext as search_fulltext
from grimoire.graph.retrieval.search import vector as search_vector
from grimoire.graph.retrieval.weights import Weights

__all__ = [
    "POOL", "Explanation", "FeedbackResult", "LexicalHit", "Modulation", "ModulationOf", "QueryUnderstandingConfig",
    "RelatedEpisode", "RetrievalConfig", "RetrievalFilters", "RetrievalRequest", "RetrievalResult", "RetrievedItem",
    "Retriever", "SearchKind", "Similar", "Weights", "build", "learn_from_decision", "mode_names",
    "related_to_entity", "reward_of", "search_fulltext", "search_vector", "unmodulated",
]
