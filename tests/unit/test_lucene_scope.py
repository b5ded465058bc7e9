"""The visibility rule as Lucene clauses over the scoped full-text indexes (graph/db/lucene.py): what narrows,
what cannot be trusted to, and the query each makes."""

from __future__ import annotations

from grimoire.graph.db.lucene import escape_lucene, matchable, phrase, scope_clauses, scoped
from grimoire.graph.visibility import EVERYONE, Visibility


def test_an_agent_is_narrowed_to_its_own_the_public_and_its_clade_s_shared() -> None:
    clauses = scope_clauses(Visibility.of("golem-1", "clade-a"))
    assert clauses == ['agent_id:"golem-1" scope:public (+scope:shared +clade:"clade-a")']


def test_the_admin_is_not_narrowed_but_its_agent_filter_is() -> None:
    assert scope_clauses(EVERYONE) == []
    assert scope_clauses(EVERYONE, "golem-2") == ['agent_id:"golem-2"']
    assert scope_clauses(Visibility.of("golem-1", "clade-a"), "golem-2") == [
        'agent_id:"golem-1" scope:public (+scope:shared +clade:"clade-a")', 'agent_id:"golem-2"']


def test_an_id_the_analyzer_would_empty_narrows_nothing() -> None:
    # "it" and "a" are English stop words, and one letter or digit alone is not trusted: no token might be left.
    assert scope_clauses(Visibility.of("it-2", "clade-a")) is None
    assert scope_clauses(EVERYONE, "the.a") is None
    assert scope_clauses(Visibility.of("golem-1", "clade-a"), "it") is None
    # A clade of stop words only: any shared item may come back (the Cypher rule keeps only the clade's).
    assert scope_clauses(Visibility.of("golem-1", "to-be")) == ['agent_id:"golem-1" scope:public scope:shared']
    # No agent (a caller that sees only what is public or shared) and no clade.
    assert scope_clauses(Visibility.of(None, None)) == ["scope:public"]


def test_what_the_analyzer_keeps() -> None:
    assert matchable("golem-1") and matchable("0xabc") and matchable("The-Oracle") and matchable("b_2")
    assert not matchable("a-1") and not matchable("it") and not matchable("x.y") and not matchable("")
    # words: stop words, punctuation, a possessive's "s", underscores alone, versus any other word in any script
    assert not any(matchable(w) for w in ("will", "is it", "?", "it's", "__", "to be or not to be"))
    assert matchable("don't") and matchable("预言机") and matchable("Ölpreis") and matchable("oracle?")


def test_a_phrase_quotes_what_is_special_inside_quotes() -> None:
    assert phrase('say "hi" \\ there') == '"say \\"hi\\" \\\\ there"'


def test_the_query_names_the_text_fields_and_adds_nothing_to_the_score() -> None:
    words = escape_lucene("oracle lag: ETH")
    assert scoped(words) == r"(text:(oracle lag\: ETH) content:(oracle lag\: ETH))"
    assert scoped(words, []) == scoped(words) and scoped(words, None) == scoped(words)
    assert scoped(words, ['agent_id:"golem-1"', "scope:public"]) == (
        r'+(text:(oracle lag\: ETH) content:(oracle lag\: ETH)) +(agent_id:"golem-1")^0 +(scope:public)^0')
