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
over the same code (search.py). Constants are settings (config.py)."""
