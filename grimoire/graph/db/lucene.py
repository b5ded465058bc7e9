"""Full-text queries are data: Lucene syntax in a query is searched for, not interpreted. Every
full-text index query escapes its text here first (retrieval's BM25 backend and /search, entity
resolution). A query over the scoped indexes (episodes, entries) names the text field and requires the
caller's scope of each hit (`scoped`, `scope_clauses`)."""

from __future__ import annotations

import re

from grimoire.graph.visibility import Visibility

# Lucene's English stop words (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET): the words the English full-text indexes do not
# hold (graph/retrieval/term_overlap.py drops them from a query's terms; an id made only of them leaves no token).
STOP_WORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of",
    "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
})
_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
_LUCENE_OPERATORS = re.compile(r"\b(AND|OR|NOT|TO)\b")


def escape_lucene(text: str) -> str:
    """Every Lucene operator becomes a plain character, and AND/OR/NOT/TO plain words."""
    escaped = _LUCENE_SPECIAL.sub(r"\\\1", text)
    return _LUCENE_OPERATORS.sub(lambda m: m.group(1).lower(), escaped)


# The text the scoped full-text indexes search (an episode's `text`, an entry's `content`): their other fields are
# the owner's (cypher/schema/fulltext_indexes.cypher), never searched for words.
TEXT_FIELDS = ("text", "content")


def scoped(query: str, required: list[str] | None = None) -> str:
    """An escaped `query` over the text fields, each of the `required` clauses (`scope_clauses`)
    required of every hit with a boost of 0: they narrow the hits and add nothing to a score, so
    the BM25 scores are the text's alone. The caller makes sure the words are `matchable`: the parser drops a
    clause the analyzer empties, and the scope alone would match everything in it."""
    text = "(" + " ".join(f"{field}:({query})" for field in TEXT_FIELDS) + ")"
    return " ".join([f"+{text}", *(f"+({clause})^0" for clause in required)]) if required else text


def scope_clauses(visibility: Visibility, agent_id: str | None = None) -> list[str] | None:
    """The rule as Lucene clauses over the owner fields the scoped full-text indexes hold beside the text
    (`agent_id`, `scope`, `clade`: cypher/schema/fulltext_indexes.cypher), each to be required of a hit, with
    `agent_id` the request's agent filter. The clauses let through a superset of what the rule does (an id is
    analysed like text: `golem-1` is matched as the phrase "golem 1"), so that the index hands back the items the
    caller may see, best first, and the rule in the Cypher still decides. `[]`: nothing to narrow (the admin
    without a filter). None: no clause can be trusted to (an id the analyzer would reduce to no token at all);
    search the whole index and let the Cypher filter, as before the indexes were scoped."""
    clauses = []
    if not visibility.admin:
        if visibility.viewer and not matchable(visibility.viewer):
            return None
        shared = (f"(+scope:shared +clade:{phrase(visibility.clade)})"
                  if matchable(visibility.clade) else "scope:shared" if visibility.clade else "")
        owner = f"agent_id:{phrase(visibility.viewer)}" if visibility.viewer else ""
        clauses.append(" ".join(c for c in (owner, "scope:public", shared) if c))
    if agent_id is not None:
        if not matchable(agent_id):
            return None
        clauses.append(f"agent_id:{phrase(agent_id)}")
    return clauses


def matchable(value: str) -> bool:
    """Whether the English analyzer surely keeps a token of `value`: a run of word characters with a letter or
    digit in it, two or more long, that is not a stop word (a conservative reading of its tokenizer, which may join
    such runs into longer tokens but never drops one; only an apostrophe's "s" is stripped). Words of which it keeps
    none would leave a scoped query nothing but its scope: every item the caller sees."""
    return any(len(t) > 1 and t not in STOP_WORDS and any(c.isalnum() for c in t)
               for t in re.findall(r"\w+", value.lower()))


def phrase(value: str) -> str:
    """`value` as a quoted Lucene phrase (only the quote and the backslash are special inside one)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
