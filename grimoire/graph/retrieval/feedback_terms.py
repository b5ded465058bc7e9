"""Pseudo-relevance feedback on BM25 (issue 41, "open-domain": RM3's expansion with few parameters): the words
the first BM25 hits share, beyond the query's own, searched again at a lower weight, as one more list fused by RRF.

A question asks in its words and the evidence answers in others ("What does Melanie do to destress?" — "running
clears my head"): the best hits hold some of the answer's words, and the words they have in common tell what the
question is about. Each candidate term is weighed by how much of the top `docs` hits it makes up (its share of each
hit's words, times that hit's BM25 score over the hits' sum) and by its IDF over what the caller sees
(graph/retrieval/term_overlap.py: so a speaker's name on every turn, or "really", weighs nothing); the `terms` best
are added to the query, each boosted `weight` x its weight over the best one's. Only the caller's own hits feed it
and the second search has the first's scope: it sees nothing the first could not."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from grimoire.graph.db.lucene import STOP_WORDS
from grimoire.graph.retrieval import term_overlap as to

MIN_CHARS = 3  # shorter words say little about a topic


def candidate_terms(texts: Sequence[str], scores: Sequence[float], query: str) -> dict[str, float]:
    """Each word of the hits (not a stop word, not one of the query's by stem) with its relevance-model weight:
    sum over hits of (its count in the hit / the hit's words) x (the hit's score / the scores' sum)."""
    asked = {to.stem(t) for t in to.terms(query)}
    total = sum(max(s, 0.0) for s in scores) or 1.0
    weights: dict[str, float] = {}
    for text, score in zip(texts, scores, strict=True):
        found = [w for w in to.words(text) if len(w) >= MIN_CHARS and w not in STOP_WORDS and to.stem(w) not in asked]
        if not found:
            continue
        for w, n in Counter(found).items():
            weights[w] = weights.get(w, 0.0) + n / len(found) * max(score, 0.0) / total
    return weights


def expansion(weights: Mapping[str, float], term_idf: Mapping[str, float], terms: int,
              weight: float) -> list[tuple[str, float]]:
    """The `terms` best candidates by relevance weight x IDF, each with its boost (`weight` for the best, the
    others in proportion); none with no weight left."""
    scored = {t: w * term_idf.get(t, 1.0) for t, w in weights.items()}
    best = sorted((t for t in scored if scored[t] > 0), key=lambda t: (-scored[t], t))[:terms]
    if not best:
        return []
    top = scored[best[0]]
    return [(t, round(weight * scored[t] / top, 4)) for t in best]
