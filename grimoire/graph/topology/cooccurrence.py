"""Co-occurrence of protocols in episodes (grimoire.md, "Graph Maintenance", source 2): "if episodes involving
protocol A consistently co-occur with episodes involving protocol B within a 3-block window, that implies a
TokenFlow or OracleDependency relationship". Pure: the counting, at once (`counts`) or what new episodes add
(`added`); graph/topology/cooccurrence_counts.py keeps the counts in the graph and graph/topology/inference.py
asserts what they find.

Within one visibility partition and one chain (block numbers of two chains say nothing about each other), a
*co-occurrence* of protocols A and B is a pair of distinct episodes, one mentioning A and the other B, whose blocks
are at most `window_blocks` apart. An episode that mentions both is not one on its own: the document speaks of
episodes co-occurring. "Consistently" is the project's own reading (the document gives no number): at least
`min_count` such episode pairs, and at least `min_share` of the episodes mentioning A or B taking part in one — so a
hub mentioned by every episode (a governance controller) does not relate to everything near it.

The relation inferred is TokenFlow: of the document's two it is the one a subject holds many of, so an inference
never closes a stated fact (an OracleDependency would close the subject's oracle). Its direction is not inferred: the
subject is the smaller id.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

from pydantic import BaseModel, Field

from grimoire.graph.model.enums import EntityKind

WINDOW_BLOCKS = 3  # grimoire.md line 759
PROTOCOL_KINDS = (EntityKind.Contract, EntityKind.Pool, EntityKind.Oracle, EntityKind.Vault, EntityKind.Governance,
                  EntityKind.Bridge, EntityKind.Reserve)


class CoOccurrenceConfig(BaseModel):
    enabled: bool = Field(default=True, description="run the inference on the scheduler")
    window_blocks: int = Field(default=WINDOW_BLOCKS, ge=0, le=1_000,
                               description="two episodes co-occur when their blocks are at most this far apart")
    min_count: int = Field(default=3, ge=1, le=1_000_000,
                           description="'consistently': at least this many co-occurring episode pairs")
    min_share: float = Field(default=0.5, ge=0, le=1,
                             description="'consistently': at least this share of the episodes mentioning either "
                                         "protocol co-occur with one of the other's")
    confidence: float = Field(default=0.3, gt=0, le=1, description="the inferred fact's confidence")
    interval_minutes: float = Field(default=30.0, gt=0, le=7 * 24 * 60, description="how often the inference runs")
    settle_seconds: float = Field(
        default=300.0, ge=0, le=86_400,
        description="episodes recorded this recently wait for the next run: an ingest stamps a batch before it "
                    "embeds and commits it, so an older stamp may commit after a newer one, and the watermark must "
                    "not pass an episode still in flight")
    recount_hours: float = Field(
        default=24.0, ge=0, le=24 * 30,
        description="the counts are made again from every episode this often (0: every run): an episode that "
                    "begins to count behind the watermark (an import keeping its recorded time, a rollback, an "
                    "un-archive, a scope widened) is counted then")
    kinds: list[EntityKind] = Field(default_factory=lambda: list(PROTOCOL_KINDS), min_length=1,
                                    max_length=len(EntityKind),
                                    description="the entity kinds that count as protocols (tokens do not: a token "
                                                "is mentioned beside everything)")


@dataclass(frozen=True)
class Episode:
    id: str
    block: int
    protocols: frozenset[str]


@dataclass
class Pair:
    """Protocols `a` < `b`: their co-occurring episode pairs, the episodes in them, the first block seen."""

    a: str
    b: str
    count: int = 0
    episodes: set[str] = field(default_factory=set)
    first_block: int | None = None
    share: float = 0.0


def co_occurrences(episodes: Sequence[Episode], window: int) -> dict[tuple[str, str], Pair]:
    """Every pair of protocols with at least one co-occurrence among `episodes` (one partition, one chain)."""
    eps = sorted(episodes, key=lambda e: (e.block, e.id))
    pairs: dict[tuple[str, str], Pair] = {}
    for i, first in enumerate(eps):
        for j in range(i + 1, len(eps)):
            second = eps[j]
            if second.block - first.block > window:
                break
            keys = {(min(a, b), max(a, b)) for a in first.protocols for b in second.protocols if a != b}
            for key in keys:  # one episode pair counts once for a protocol pair, whichever mentions which
                p = pairs.get(key) or pairs.setdefault(key, Pair(*key))
                p.count += 1
                p.episodes.update((first.id, second.id))
                p.first_block = first.block if p.first_block is None else min(p.first_block, first.block)
    return pairs


def consistent(episodes: Sequence[Episode], config: CoOccurrenceConfig) -> list[Pair]:
    """The pairs that co-occur consistently (module docstring), each with its share, by protocol ids."""
    mentioning: dict[str, set[str]] = defaultdict(set)
    for e in episodes:
        for p in e.protocols:
            mentioning[p].add(e.id)
    out: list[Pair] = []
    for pair in co_occurrences(episodes, config.window_blocks).values():
        pair.share = len(pair.episodes) / len(mentioning[pair.a] | mentioning[pair.b])
        if pair.count >= config.min_count and pair.share >= config.min_share:
            out.append(pair)
    return sorted(out, key=lambda pair: (pair.a, pair.b))


@dataclass
class PairCount:
    """A protocol pair's numbers within one partition and chain: its co-occurring episode pairs, the episodes
    taking part in one, the episodes mentioning both protocols, the first block of a co-occurrence."""

    count: int = 0
    participants: int = 0
    both: int = 0
    first_block: int | None = None

    def add(self, more: PairCount) -> None:
        self.count += more.count
        self.participants += more.participants
        self.both += more.both
        if more.first_block is not None:
            self.first_block = more.first_block if self.first_block is None else min(self.first_block,
                                                                                      more.first_block)


@dataclass
class Counts:
    """What one partition's chain's episodes add up to: each protocol pair's PairCount, and how many episodes
    mention each protocol. A pair's share (`consistent`) is participants / (mentions of a + of b - both)."""

    pairs: dict[tuple[str, str], PairCount] = field(default_factory=dict)
    mentions: Counter[str] = field(default_factory=Counter)

    def add(self, more: Counts) -> None:
        for key, pair in more.pairs.items():
            self.pairs.setdefault(key, PairCount()).add(pair)
        self.mentions.update(more.mentions)

    def share(self, key: tuple[str, str]) -> float:
        pair = self.pairs.get(key) or PairCount()
        mentioning = self.mentions[key[0]] + self.mentions[key[1]] - pair.both
        return pair.participants / mentioning if mentioning else 0.0


def _mentions(episodes: Sequence[Episode], into: Counts) -> None:
    for e in episodes:
        into.mentions.update(e.protocols)
        for key in combinations(sorted(e.protocols), 2):
            into.pairs.setdefault(key, PairCount()).both += 1


def counts(episodes: Sequence[Episode], window: int) -> Counts:
    """The counts of all of a partition's chain's episodes at once (a full count)."""
    out = Counts()
    for key, p in co_occurrences(episodes, window).items():
        out.pairs[key] = PairCount(p.count, len(p.episodes), 0, p.first_block)
    _mentions(episodes, out)
    return out


def added(new: Sequence[Episode], old: Sequence[Episode], window: int) -> Counts:
    """What the `new` episodes add to the counts of the episodes counted before, given `old`: every counted episode
    of the partition's chain within two windows of a new one's block (more is harmless). An episode pair with a new
    one is within one window of it; whether an old episode took part in a pair before depends on its own
    neighbours, within one window of it: so within two of the new one. The pairs and participants among the old
    episodes alone are the same with and without the new ones, and cancel; so the result is exact, and the
    counts of everything equal the old counts plus these (tests/unit/test_cooccurrence.py)."""
    out = Counts()
    before = co_occurrences(old, window)
    for key, p in co_occurrences([*old, *new], window).items():
        was = before.get(key)
        count = p.count - (was.count if was else 0)
        participants = len(p.episodes) - (len(was.episodes) if was else 0)
        if count or participants:
            # The first block among these pairs: the old ones among them were counted already, no earlier.
            out.pairs[key] = PairCount(count, participants, 0, p.first_block)
    _mentions(new, out)
    return out


def only(episodes: Sequence[Episode], a: str, b: str) -> list[Episode]:
    """The episodes mentioning `a` or `b`, each with those two of its protocols: all a pair's exact count needs."""
    keep = frozenset((a, b))
    return [Episode(e.id, e.block, e.protocols & keep) for e in episodes if e.protocols & keep]
