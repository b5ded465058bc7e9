"""The co-occurrence count (graph/topology/cooccurrence.py) on hand-made episodes whose answer is known."""

from __future__ import annotations

from grimoire.graph.topology.cooccurrence import CoOccurrenceConfig, Episode, co_occurrences, consistent


def ep(i: str, block: int, *protocols: str) -> Episode:
    return Episode(i, block, frozenset(protocols))


def test_a_pair_of_episodes_within_the_window_co_occurs_and_one_beyond_it_does_not() -> None:
    pairs = co_occurrences([ep("1", 100, "A"), ep("2", 103, "B"), ep("3", 107, "C")], window=3)
    assert list(pairs) == [("A", "B")]
    p = pairs[("A", "B")]
    assert (p.count, p.episodes, p.first_block) == (1, {"1", "2"}, 100)
    assert set(co_occurrences([ep("1", 100, "A"), ep("2", 103, "B"), ep("3", 107, "C")], window=4)) == {
        ("A", "B"), ("B", "C")}


def test_one_episode_mentioning_both_is_no_co_occurrence_and_a_pair_counts_once() -> None:
    assert co_occurrences([ep("1", 100, "A", "B")], window=3) == {}
    pairs = co_occurrences([ep("1", 100, "A", "B"), ep("2", 101, "A", "B")], window=3)
    assert pairs[("A", "B")].count == 1  # (1: A, 2: B) and (1: B, 2: A) are one episode pair


def test_consistently_needs_the_count_and_the_share() -> None:
    cfg = CoOccurrenceConfig()
    thrice = [e for n in range(3) for e in (ep(f"a{n}", 1000 * n, "A"), ep(f"b{n}", 1000 * n + 2, "B"))]
    assert [(p.a, p.b, p.count, p.share) for p in consistent(thrice, cfg)] == [("A", "B", 3, 1.0)]
    assert consistent(thrice[:4], cfg) == []  # twice is a coincidence
    # A hub mentioned everywhere else too: under half of the two protocols' episodes co-occur.
    hub = thrice + [ep(f"h{n}", 50_000 + 1000 * n, "A") for n in range(8)]
    assert consistent(hub, cfg) == []
    assert [p.a for p in consistent(hub, CoOccurrenceConfig(min_share=0.4))] == ["A"]
