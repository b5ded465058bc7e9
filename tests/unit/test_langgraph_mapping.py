"""GrimoireStore's pure parts (clients/python/grimoire/client/integrations/langgraph.py): an item's text and back,
LangGraph's filter operators, namespace matching; the store on the service is tests/integration/
test_langgraph_store.py."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from langgraph.store.base import ListNamespacesOp, MatchCondition

from grimoire.client.integrations.langgraph import TOKEN, digest, list_namespaces_of, matches, parse, text_of

AT = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


def test_an_items_text_reads_back_and_foreign_episodes_do_not() -> None:
    ns = ("golem-1", "prefs")
    text = text_of(ns, "food", {"likes": "ramen", "n": 2}, 3, AT, AT)
    assert text.startswith(f"{TOKEN}{digest(ns, 'food')} ")
    stored = parse(f"lg-{digest(ns, 'food')}-3-abcd1234", text)
    assert stored is not None and (stored.namespace, stored.key, stored.value, stored.revision) == (
        ns, "food", {"likes": "ramen", "n": 2}, 3)
    assert parse("ep-1", text) is None                      # not the store's id
    assert parse("lg-x-1-y", "Gas fell to 6 gwei") is None  # not the store's text
    forged = text.replace('"food"', '"drink"')              # the token no longer names its key
    assert parse("lg-x-1-y", forged) is None
    tomb = parse("lg-x-4-y", text_of(ns, "food", None, 4, AT, AT))
    assert tomb is not None and tomb.value is None


@pytest.mark.parametrize(("flt", "expected"), [
    ({"color": "red"}, True), ({"color": "blue"}, False), ({"score": {"$gt": 4}}, True),
    ({"score": {"$gte": 4.5, "$lt": 5}}, True), ({"score": {"$lte": 4}}, False), ({"color": {"$ne": "red"}}, False),
    ({"missing": {"$ne": "x"}}, True), ({"missing": "x"}, False), ({"meta.kind": "x"}, True),
    ({"meta": {"kind": "x"}}, True), ({"score": {"$gt": "a"}}, False), (None, True)])
def test_filters_as_langgraphs(flt: dict[str, object] | None, expected: bool) -> None:
    assert matches({"color": "red", "score": 4.5, "meta": {"kind": "x"}}, flt) is expected


def test_an_unknown_operator_is_refused() -> None:
    with pytest.raises(ValueError, match=r"\$in"):
        matches({"a": 1}, {"a": {"$in": [1]}})


def test_namespaces_by_prefix_suffix_wildcard_depth_and_page() -> None:
    spaces = [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "c", "f"), ("b", "a", "f")]

    def listed(*conditions: MatchCondition, depth: int | None = None, limit: int = 100,
               offset: int = 0) -> list[tuple[str, ...]]:
        return list_namespaces_of(spaces, ListNamespacesOp(conditions or None, depth, limit, offset))

    assert listed(MatchCondition("prefix", ("a", "*"))) == [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "c", "f")]
    assert listed(MatchCondition("suffix", ("*", "f"))) == [("a", "c", "f"), ("b", "a", "f")]
    assert listed(depth=2) == [("a", "b"), ("a", "c"), ("b", "a")]
    assert listed(limit=1, offset=1) == [("a", "b", "d", "e")]
    assert listed(MatchCondition("prefix", ("a", "b", "c", "d"))) == []
