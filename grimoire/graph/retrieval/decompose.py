"""A question's parts searched apart (issue 41, multi-hop; RetrievalConfig.multihop, off by default): decomposition
without a language model.

A question that joins clauses ("which schools did he play in and how many years was he there") or coordinates things
("what have Caroline and Melanie both painted", "what have Melanie and her kids made") asks for evidence about each
part, and one search of the whole finds the part its words favour. The split is syntactic and small: clauses joined by
"and"/"but" (or a comma) before a question word, and a coordination ("A and B", "A, B or C", "both A and B") in which at
least one conjunct is a thing the query names (an entity the graph knows, found as the graph backend finds them) and
each other is a name or a determiner and a word ("her kids"). Each part keeps the rest of the question; each is
searched by BM25 and by the vector ranking (as the query is: graph/retrieval/second_hop.py `ranked_by`), and the
parts' lists are fused by RRF into one list, fused beside the others at `decompose_weight`. A question with one part
adds nothing."""

from __future__ import annotations

import re
from collections.abc import Sequence

from grimoire.graph.retrieval import backends, second_hop
from grimoire.graph.retrieval import term_overlap as to
from grimoire.graph.retrieval.context import Context

DECOMPOSED = "decomposed"  # the list's name
_QUESTION_WORD = r"(?:what|when|where|who|whom|whose|which|why|how)"
_CLAUSES = re.compile(rf",?\s+(?:and|but)\s+(?={_QUESTION_WORD}\b)|,\s*(?={_QUESTION_WORD}\b)", re.IGNORECASE)
_DETERMINERS = r"(?:a|an|the|her|his|their|my|your|our|its|this|that|these|those)"
_JOINS = re.compile(r"\b(?:and|or|but)\b|,", re.IGNORECASE)
_BOTH = re.compile(r"\s*\bboth\b", re.IGNORECASE)
_POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)
_ASKING = {"what", "when", "where", "who", "whom", "whose", "which", "why", "how"}


def _searchable(text: str) -> bool:
    """Whether a part has a word to search besides its question word ("... and why" has none)."""
    return any(t not in _ASKING for t in to.terms(text))


def clauses(text: str) -> list[str]:
    """The clauses a question joins with "and"/"but" (or a comma) before a question word; those with no word to
    search ("... and why") left out."""
    found = [c.strip(" ,") for c in _CLAUSES.split(text)]
    return [c for c in found if _searchable(c)]


def coordinated(text: str, names: Sequence[str]) -> list[str]:
    """Per conjunct of the first coordination naming one of `names`: the text with the coordination replaced by that
    conjunct ("both" dropped; a possessive on the last conjunct given to each). One part (the text) when none."""
    known = sorted({n.strip() for n in names if n.strip()}, key=len, reverse=True)
    if not known:
        return [text]
    name = r"\b(?:" + "|".join(re.escape(n) for n in known) + r")\b"
    conjunct = rf"(?:{name}|\b{_DETERMINERS}\s+[\w-]+)(?:['’]s\b)?"
    pattern = re.compile(rf"(?:\bboth\s+)?{conjunct}(?:\s*,\s*{conjunct})*\s*,?\s+(?:and|or)\s+(?:both\s+)?{conjunct}",
                         re.IGNORECASE)
    lowered = {n.lower() for n in known}
    for m in pattern.finditer(text):
        span = re.sub(r"^both\s+", "", m.group(0), flags=re.IGNORECASE)
        parts = [p.strip() for p in re.split(r"\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+(?:both\s+)?", span,
                                              flags=re.IGNORECASE) if p.strip()]
        if len(parts) < 2 or not any(_POSSESSIVE.sub("", p).lower() in lowered for p in parts):
            continue
        if _POSSESSIVE.search(parts[-1]):
            parts = [p if _POSSESSIVE.search(p) else f"{p}'s" for p in parts]
        return [_BOTH.sub("", f"{text[:m.start()]}{p}{text[m.end():]}").strip() for p in parts]
    return [text]


def parts(text: str, names: Sequence[str], most: int) -> list[str]:
    """The question's parts (each clause, each coordinated thing), at most `most`; none when it has only one."""
    out = list(dict.fromkeys(p for c in clauses(text) for p in coordinated(c, names) if _searchable(p)))
    return out[:most] if len(out) > 1 else []


def _named(ctx: Context, text: str) -> list[str]:
    """The things the query names that the caller may see, as the words the text names them by: the graph backend's
    lookup (graph/retrieval/backends.py `named_entities`, its query, its candidates and its whole-word check)."""
    possessives = ctx.config.query.possessives
    query = backends.entity_query(text, possessives)
    if not query:
        return []
    rows = ctx.db.rows("retrieval/entity_candidates", query=query, limit=backends.ENTITY_CANDIDATES,
                       **ctx.visibility.params())
    return list(dict.fromkeys(n for _, names in backends.naming(rows, text, possessives) for n in names))


def decomposed(ctx: Context) -> dict[str, list[str]]:
    """The parts' BM25 and vector lists fused into one, best first (none when off or the question has one part)."""
    cfg, text = ctx.config.multihop, ctx.req.text
    if not cfg.decompose or not text or not _JOINS.search(text):
        return {}
    found = parts(text, _named(ctx, text), cfg.decompose_max)
    if not found:
        return {}
    per, reach = ctx.config.per_backend, ctx.reach().result()
    words = [ctx.submit(backends.bm25, ctx.db, p, per, ctx.params, ctx.config.candidates_factor, reach)
             for p in found]
    rankings = [second_hop.ranked_by(ctx, ctx.embedding.of(p), per) for p in found]
    rankings += [f.result() for f in words]
    rows = second_hop.fused_rows([r for r in rankings if r], ctx.config.rrf_k, cfg.top)
    return {DECOMPOSED: ctx.note(DECOMPOSED, rows)} if rows else {}


def weights(ctx: Context) -> dict[str, float]:
    return {DECOMPOSED: ctx.config.multihop.decompose_weight}
