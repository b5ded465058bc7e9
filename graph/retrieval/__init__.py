"""Hybrid retrieval: candidates from vector, BM25 and graph backends (backends.py), fused by RRF
(fusion.py), reranked (rerank.py), diversified by MMR and cut to a token budget (budget.py), with
the other scoring modes (modes.py), the adaptive decision and replay selection (decision.py);
pipeline.py puts them together. Constants are settings (config.py)."""
