"""The term-overlap rerank (spec: ColBERT-Style Reranking, rerank_by_term_overlap): each candidate's
score becomes 0.7 x score + 0.3 x overlap, where overlap is the sum of the IDF of the query's terms
the candidate's text contains over the number of query terms.

Terms are the query's words less the English stop words the full-text indexes drop; a term is
found in a text when a word of it has the same light stem (plural, -ed, -ing: the full-text
index stems with Porter, these are its commonest cases). The IDF comes from the corpus the caller
can see under the retrieval's filters: N, the visible items (graph/retrieval/reach.py counts them
for the backends anyway), and each term's document frequency counted through the full-text indexes
(cypher/retrieval/term_df.cypher), at most `idf_cap` documents per term. It is brought into [0, 1]
so the blend keeps the scale of the scores it blends into: idf = ln((N + 1) / (df + 1)) / ln(N + 1),
1 for a term no visible item holds, 0 for one every item holds (the spec's default IDF of an
unknown term, 1.0, is the first case)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from grimoire.graph.db.connection import Database
from grimoire.graph.db.lucene import STOP_WORDS, escape_lucene, scoped
from grimoire.graph.retrieval import backends

MAX_TERMS = 32
_WORD = re.compile(r"[a-z0-9]+")
PARAMS = ("labels", "viewer", "clade", "admin", "agent_id")


def stem(word: str) -> str:
    """A light stem: plural and -ed/-ing endings off, and a final e (pools -> pool, policies -> policy,
    depegged -> depeg, trading and trade -> trad)."""
    w = word
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 3 and w.endswith("es") and w[-3] in "sxz":
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in ("ing", "ed"):
        if len(w) > len(suffix) + 2 and w.endswith(suffix):
            w = w[:-len(suffix)]
            if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "lsz":
                w = w[:-1]  # depegg -> depeg
            break
    return w.removesuffix("e")


def words(text: str) -> list[str]:
    """Lower-case words (an apostrophe splits one: caroline's -> caroline, s)."""
    return _WORD.findall(text.lower())


def terms(text: str) -> list[str]:
    """The query's distinct terms, in order: stop words and single characters out (at most MAX_TERMS)."""
    out: list[str] = []
    for w in words(text):
        if len(w) > 1 and w not in STOP_WORDS and w not in out:
            out.append(w)
    return out[:MAX_TERMS]


def idf(df: Mapping[str, int], visible: int, query_terms: Sequence[str]) -> dict[str, float]:
    """Each term's IDF in [0, 1] over `visible` documents (a term missing from `df`: none holds it)."""
    n = max(visible, max(df.values(), default=0))
    if n <= 0:
        return {t: 1.0 for t in query_terms}
    norm = math.log(n + 1)
    return {t: math.log((n + 1) / (df.get(t, 0) + 1)) / norm for t in query_terms}


def overlap(text: str | None, query_terms: Sequence[str], term_idf: Mapping[str, float]) -> float:
    """The sum of the IDF of the query terms found in the text, over the number of query terms."""
    if not query_terms or not text:
        return 0.0
    stems = {stem(w) for w in words(text)}
    return sum(term_idf.get(t, 1.0) for t in query_terms if stem(t) in stems) / len(query_terms)


def blend(score: float, value: float, weight: float) -> float:
    """(1 - weight) x score + weight x overlap: 0.7 and 0.3 by default."""
    return (1.0 - weight) * score + weight * value


def document_frequencies(db: Database, query_terms: Sequence[str], cap: int,
                         params: dict[str, Any]) -> dict[str, int]:
    """Visible documents (of the searched kinds, the agent filter applied) holding each term, counted
    through the full-text indexes, at most `cap` hits per index and term."""
    if not query_terms:
        return {}
    required = backends.scope_of(params)
    by_query = {scoped(escape_lucene(t), required): t for t in query_terms}
    rows = db.rows("retrieval/term_df", terms=list(by_query), cap=cap, **{k: params[k] for k in PARAMS})
    return {by_query[r["term"]]: r["df"] for r in rows if r["term"] in by_query}
