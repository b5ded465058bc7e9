"""The co-occurrence count (graph/topology/cooccurrence.py) on hand-made episodes whose answer is known."""

from __future__ import annotations

import random

from grimoire.graph.topology.cooccurrence import (
    CoOccurrenceConfig,
    Counts,
    Episode,
    added,
    co_occurrences,
    consistent,
    counts,
    only,
)


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


def _world(seed: int, n: int = 120) -> list[Episode]:
    """Episodes at random blocks (many within a window of each other), each mentioning up to three of five
    protocols, some none."""
    rng = random.Random(seed)
    names = ["A", "B", "C", "D", "E"]
    return [ep(f"e{i:03d}", rng.randrange(0, 200), *rng.sample(names, rng.randrange(0, 4))) for i in range(n)]


def _as_dict(c: Counts) -> tuple[dict[tuple[str, str], tuple[int, int, int, int | None]], dict[str, int]]:
    return ({k: (p.count, p.participants, p.both, p.first_block) for k, p in c.pairs.items()},
            {k: n for k, n in c.mentions.items() if n})


def test_counting_in_steps_adds_up_to_the_full_count() -> None:
    """The watermark's promise (graph/topology/cooccurrence_counts.py): the counts of the episodes so far, plus what
    each later batch adds given the counted episodes within two windows of it, equal a count of all at once; the
    batches' order is the recording order, not the blocks'."""
    for seed in range(20):
        episodes = _world(seed)
        window = 3 + seed % 3
        kept = Counts()
        counted: list[Episode] = []
        cuts = sorted(random.Random(seed).sample(range(1, len(episodes)), 4))
        for lo, hi in zip([0, *cuts], [*cuts, len(episodes)], strict=True):
            new = episodes[lo:hi]
            blocks = [e.block for e in new]
            near = [e for e in counted if any(abs(e.block - b) <= 2 * window for b in blocks)]
            kept.add(added(new, near, window))
            counted += new
        assert _as_dict(kept) == _as_dict(counts(episodes, window)), seed


def test_the_old_neighbours_must_reach_two_windows() -> None:
    """Why two: an old episode whose only co-occurrence partner was already counted takes part already; seen
    without that partner (one window only), the new pair would count it as a new participant."""
    old = [ep("o1", 100, "A"), ep("o2", 103, "B")]   # o2 takes part (with o1) already
    new = [ep("n1", 106, "A")]                       # n1 pairs with o2 (3 blocks), not with o1 (6)
    full = counts([*old, *new], 3).pairs[("A", "B")]
    kept = counts(old, 3)
    kept.add(added(new, old, 3))                     # o1 is within two windows of n1: seen
    assert (kept.pairs[("A", "B")].count, kept.pairs[("A", "B")].participants) == (full.count, full.participants)
    short = counts(old, 3)
    short.add(added(new, [old[1]], 3))               # one window only: o2 seems a new participant
    assert short.pairs[("A", "B")].participants == full.participants + 1


def test_a_pairs_share_from_the_counts_is_consistents() -> None:
    episodes = _world(7)
    full = counts(episodes, 3)
    for pair in co_occurrences(episodes, 3).values():
        mentioning = {e.id for e in episodes if pair.a in e.protocols or pair.b in e.protocols}
        assert full.share((pair.a, pair.b)) == len(pair.episodes) / len(mentioning)


def test_one_pair_counted_from_its_two_protocols_episodes_alone() -> None:
    """A pair's exact check reads only the episodes mentioning one of its protocols: its numbers are the same."""
    episodes = _world(11)
    full = counts(episodes, 3)
    for a, b in [("A", "B"), ("C", "E"), ("B", "D")]:
        alone = counts(only(episodes, a, b), 3)
        assert _as_dict(alone)[0].get((a, b)) == _as_dict(full)[0].get((a, b))
        assert (alone.mentions[a], alone.mentions[b], alone.share((a, b))) == (
            full.mentions[a], full.mentions[b], full.share((a, b)))


def test_the_full_count_is_due_every_recount_hours() -> None:
    from grimoire.graph.topology.cooccurrence import CoOccurrenceConfig
    from grimoire.graph.topology.cooccurrence_counts import Mark, recount_due

    day = CoOccurrenceConfig(recount_hours=24)
    assert not recount_due(Mark(5, "e", since=None), 10**12, day)  # nothing counted yet: the first count is full
    assert not recount_due(Mark(5, "e", since=0), 24 * 3_600_000 - 1, day)
    assert recount_due(Mark(5, "e", since=0), 24 * 3_600_000, day)
    assert recount_due(Mark(5, "e", since=100), 100, CoOccurrenceConfig(recount_hours=0))
