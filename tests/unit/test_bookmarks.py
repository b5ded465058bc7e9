"""The bookmark chain's pure rules (graph/db/bookmarks.py, grimoire/client/base.py): what a header may hold, and how
a chain keeps the newest bookmarks (a session's or a response's replace what it started from; concurrent ones sit
side by side), as the driver's bookmark manager keeps its own. Across replicas: tests/integration/test_bookmarks.py."""

from __future__ import annotations

import httpx
import pytest
from neo4j import Bookmarks

from grimoire.client.base import BOOKMARK, Settings
from grimoire.graph.db.bookmarks import MAX_BOOKMARKS, BookmarkRefused, Chain, parse


def test_a_header_holds_bookmarks_repeated_or_comma_separated_each_once() -> None:
    assert parse(["FB:a1=, FB:b2", "FB:b2", " ", ""]) == ("FB:a1=", "FB:b2")
    assert parse([]) == ()


@pytest.mark.parametrize("value", ["FB:a b", "FB:a;b", "x" * 513, "é", ",".join(f"FB:{i}" for i in
                                                                               range(MAX_BOOKMARKS + 1))])
def test_anything_else_is_refused(value: str) -> None:
    with pytest.raises(BookmarkRefused):
        parse([value])


def test_a_chain_keeps_the_newest_and_concurrent_ones() -> None:
    chain = Chain(("FB:given",))
    kwargs: dict[str, object] = {}
    started = chain.opening(kwargs, {"FB:process"})
    assert isinstance(kwargs["bookmarks"], Bookmarks) and kwargs["bookmarks"].raw_values == frozenset({"FB:given"})
    assert chain.latest == ("FB:given",) and not chain.wrote  # a read echoes what it was given
    chain.record(started, Bookmarks.from_raw_values(["FB:given"]))  # a session that committed nothing
    assert not chain.wrote
    chain.record(started, Bookmarks.from_raw_values(["FB:w1"]))
    assert chain.latest == ("FB:w1",)
    # the next session starts from the process's bookmarks, which now hold w1: its commit replaces it
    chain.record(frozenset({"FB:w1"}), Bookmarks.from_raw_values(["FB:w2"]))
    assert chain.latest == ("FB:w2",)
    # two sessions that started together: neither follows the other, both are kept
    chain.record(frozenset({"FB:w1"}), Bookmarks.from_raw_values(["FB:w3"]))
    assert chain.latest == ("FB:w2", "FB:w3")


def _answer(value: str | None) -> httpx.Response:
    return httpx.Response(200, headers={BOOKMARK: value} if value else {})


def test_the_client_sends_the_newest_it_received_or_none_when_told() -> None:
    s = Settings("http://x", "k", 0, 0.1)
    assert s.headers(s.sending()) == {"X-API-Key": "k"}
    s.note(s.sending(), _answer("FB:w1"))
    sent = s.sending()
    assert s.headers(sent)[BOOKMARK] == "FB:w1"
    s.note(sent, _answer("FB:w2"))  # follows what it was sent with
    assert s.bookmarks == ("FB:w2",)
    s.note(sent, _answer("FB:w3"))  # an answer to a request sent beside it: both kept
    assert s.bookmarks == ("FB:w2", "FB:w3")
    s.note(s.sending(), _answer(None))  # an answer naming none changes nothing
    assert s.bookmarks == ("FB:w2", "FB:w3")
    plain = Settings("http://x", "k", 0, 0.1, causal=False, bookmark="FB:w1")
    plain.note(plain.sending(), _answer("FB:w9"))
    assert plain.sending() == () and plain.bookmarks == ("FB:w1",)
