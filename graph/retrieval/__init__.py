"""Retrieval: the pipeline (pipeline.py) runs a mode (modes/: hybrid, fusion, vector, bm25,
four_factor, generative_agents, replay), a strategy that gathers candidates (candidate.py) from
the vector, BM25 and graph backends (backends.py), fuses them by RRF (fusion.py) and scores them
(rerank.py, MMR); the pipeline decides first whether and how much to retrieve (decision.py) and
ends with contrarian injection, the token budget (budget.py) and a RetrievalResult (result.py).
POST /search is one backend at a time over the same code (search.py). Constants are settings
(config.py)."""
