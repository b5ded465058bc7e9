"""cypher/retrieval/items_neighbours.cypher is items.cypher and graph_neighbours.cypher in one statement (the exact
path's reads once the vector ranking is known, graph/retrieval/context.py ONE_GRAPH_READ): each part must stay its own
statement's text, so that the visibility rule and the filters read there are the ones the two statements apply. That
they answer the same rows is tests/integration/test_retrieval_reach.py's."""

from __future__ import annotations

from tests.unit.cypher_lines import lines as _lines
from tests.unit.cypher_lines import projection as _projection


def _part(name: str, returned: str) -> None:
    alone, both = _lines(name), _lines("retrieval/items_neighbours")
    body = alone[:-1]  # all but its RETURN: the rows, their filters, their order
    start = both.index(body[0])
    assert both[start:start + len(body)] == body
    row = both[start + len(body)]
    assert row.startswith(returned) and _projection(row) == _projection(alone[-1])
    assert both[start - 1] == "CALL () {" and both[start + len(body) + 1] == "}"


KIND = "kind: CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END"


def test_the_items_part_is_items_up_to_its_list() -> None:
    _part("retrieval/items", f"RETURN collect({{id: n.id, {KIND}, item: ")


def test_the_neighbours_part_is_graph_neighbours_up_to_its_list() -> None:
    _part("retrieval/graph_neighbours",
          "RETURN collect({id: n.id, score: score, seed_rank: seed_rank, via: via, order_key: order_key, "
          f"{KIND}, item: ")
    rule = "$admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade)"
    both = _lines("retrieval/items_neighbours")
    assert sum(rule in line for line in both) == 2  # the items' rule and the neighbours': each its own statement's
    assert _lines("retrieval/items_neighbours")[-1] == "RETURN items, neighbours"
