"""cypher/retrieval/members_fulltext.cypher is exact_members.cypher and fulltext.cypher in one statement (the exact
path's reads before the query is embedded, graph/retrieval/context.py ONE_READ): each part must stay its own statement's
text, so that the visibility rule and the filters read there are the ones the two statements apply. That they answer
the same rows is tests/integration/test_retrieval_reach.py's."""

from __future__ import annotations

from tests.unit.cypher_lines import lines as _lines
from tests.unit.cypher_lines import projection as _projection


def test_the_members_part_is_exact_members_up_to_its_lists() -> None:
    members, both = _lines("retrieval/exact_members"), _lines("retrieval/members_fulltext")
    body = members[:members.index("WITH collect(i) AS ii, collect(a) AS aa") + 1]
    assert both[:len(body)] == body
    assert "reduce(x = [], l IN ii | x + l) AS ids, reduce(x = [], l IN aa | x + l) AS at" in both[len(body)]
    assert members[-1].endswith("AS epoch") and members[-1] in both[-1]  # the same counter


def test_the_bm25_part_is_fulltext_up_to_its_rows() -> None:
    fulltext, both = _lines("retrieval/fulltext"), _lines("retrieval/members_fulltext")
    body = fulltext[:fulltext.index("LIMIT $top") + 1]
    start = both.index(body[0])
    assert both[start:start + len(body)] == body
    returned = both[start + len(body)]
    assert returned.startswith("RETURN collect({id: n.id, score: score, kind: CASE WHEN n:Entry THEN 'entry' ELSE "
                               "'episode' END, item: ") and returned.endswith("}) AS hits")
    assert _projection(returned) == _projection(fulltext[-1])
    # Every filter the rows pass is fulltext's own: the visibility rule among them.
    rule = "($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))"
    assert sum(rule in line for line in both) == 1 and sum(rule in line for line in fulltext) == 1


def test_the_entities_part_is_entity_candidates_up_to_its_list() -> None:
    """members_fulltext_entities.cypher: members_fulltext.cypher's text, then entity_candidates.cypher's (its $query
    named $entity_query: BM25's is $query) up to its rows, collected (context.py ONE_ENTITY_READ)."""
    plain, both = _lines("retrieval/members_fulltext"), _lines("retrieval/members_fulltext_entities")
    assert both[:len(plain) - 1] == plain[:-1] and both[-1] == plain[-1] + ", entities"
    alone = [line.replace("$query", "$entity_query") for line in _lines("retrieval/entity_candidates")]
    body = alone[:-2]  # all but its RETURN and LIMIT: the name index, the visibility rule
    start = both.index(body[0])
    assert both[start - 1] == "CALL () {" and both[start:start + len(body)] == body
    assert both[start + len(body):start + len(body) + 4] == [
        "WITH en, score", "LIMIT $limit",
        "RETURN collect({id: en.id, name: en.name, symbol: en.symbol, aliases: en.aliases, score: score}) AS entities",
        "}"]
    assert alone[-2] == "RETURN en.id AS id, en.name AS name, en.symbol AS symbol, en.aliases AS aliases, score"
    assert alone[-1] == "LIMIT $limit"
