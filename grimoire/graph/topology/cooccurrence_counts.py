"""The co-occurrence inference's counts, kept in the graph beside its watermark, so that a period counts only the
episodes recorded since the last one (graph/topology/inference.py runs it; graph/topology/cooccurrence.py says what
counts).

- The watermark (a CoOccurrenceMark node) is the last episode counted, by (recorded_at, id), with the window and
  protocol kinds the counts were made with: a run under another window or other kinds deletes the counts and counts
  everything again, as the first run does.
- The counts, per partition (graph/topology/inference.py's Partition) and chain: how many episodes mention each
  protocol (CoOccurrenceMentions), and for each protocol pair its co-occurring episode pairs, the episodes taking
  part, the episodes mentioning both and the first block (CoOccurrencePair). 'Consistently' needs nothing else.
- A run reads the new episodes a page at a time (a seek on recorded_at), the counted episodes within two windows of
  their blocks (a seek on block: cooccurrence.added says why two), and writes what the page adds with the watermark
  moved past it, in one transaction: a page is counted once or not at all, and the counts of everything equal a
  full count's (tests/integration/test_cooccurrence.py compares them). A run with nothing new writes nothing.
- The watermark stops at the settled past (`settle_seconds`: an ingest stamps a batch before embedding and committing
  it, so a later commit may carry an earlier stamp) and before an episode whose mentions the enrichment job still
  owes (graph/enrichment.py): counted without them, it would never be counted with them.
- An episode that begins to count behind the watermark (an import keeping its recorded time, a rollback restoring
  it, an un-archive, a scope widened) is counted at the next full count: every `recount_hours` (24) the counts are
  deleted and made again from every episode.
- An erasure deletes the counts that name an entity it removed (graph/audit/erasure.py: its id is erased text).
- An episode archived, erased or narrowed after it was counted stays in the counts until its pair reaches
  'consistently': a fact is inferred only after its pair is counted again, exactly, from the episodes as they are
  then (`exact`), and the pair's counts are set to those. So a fact never rests on an episode its partition no
  longer holds.
- The counts are the job's bookkeeping, as its lease is: numbers no answer shows, not items, so they carry no audit
  record (the facts they lead to are asserted and audited through the one assert path)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.ids import now_ms
from grimoire.graph.model.enums import Scope
from grimoire.graph.model.rows import Params, Record
from grimoire.graph.topology.cooccurrence import CoOccurrenceConfig, Counts, Episode, PairCount, added, counts, only

PAGE = 1_000        # new episodes per counting transaction
RESET_BATCH = 1_000
MARK = "topology.cooccurrence"


@dataclass(frozen=True)
class Partition:
    """Who may see the episodes, hence the fact: `agent_id` for private, `clade` for shared, neither for public."""

    scope: Scope
    agent_id: str | None
    clade: str | None

    def key(self, chain: str, *protocols: str) -> str:
        return "|".join((self.scope.value, self.agent_id or "", self.clade or "", chain, *protocols))

    def params(self, chain: str) -> dict[str, str]:
        return {"scope": self.scope.value, "agent_id": self.agent_id or "", "clade": self.clade or "",
                "chain": chain}

    @classmethod
    def of(cls, row: Record) -> Partition | None:
        """The partition an episode's row feeds, or None (private without an owner, shared without a clade: seen
        by no one else, so there is no partition to infer for)."""
        scope = Scope(row["scope"])
        part = cls(scope, (row["agent_id"] or None) if scope is Scope.private else None,
                   (row["clade"] or None) if scope is not Scope.public else None)
        if (scope is Scope.private and not part.agent_id) or (scope is Scope.shared and not part.clade):
            return None
        return part


Group = tuple[Partition, str]  # a partition and a chain


@dataclass(frozen=True)
class Mark:
    through_at: int = -1
    through_id: str = ""
    since: int | None = None  # when these counts began (the last full count's start)


def recount_due(at: Mark, now: int, config: CoOccurrenceConfig) -> bool:
    """Whether the counts are old enough to be made again from every episode (`recount_hours`)."""
    return at.since is not None and now - at.since >= config.recount_hours * 3_600_000


@dataclass
class CountReport:
    episodes: int = 0   # new episodes that fed a count
    read: int = 0       # new episodes the watermark passed
    pages: int = 0
    groups: set[Group] = field(default_factory=set)
    reset: bool = False


def _kinds(config: CoOccurrenceConfig) -> list[str]:
    return sorted(k.value for k in config.kinds)


def mark(db: Database, config: CoOccurrenceConfig) -> tuple[Mark, bool]:
    """The watermark, and whether the counts were made with this window and these kinds."""
    rows = db.rows("topology/cooccurrence_mark")
    if not rows:
        return Mark(), True
    r = rows[0]
    same = r["window_blocks"] == config.window_blocks and sorted(r["kinds"] or []) == _kinds(config)
    since = r["since"]
    return Mark(int(r["through_at"]), str(r["through_id"]), int(since) if since is not None else None), same


def reset(db: Database) -> None:
    while db.run("topology/cooccurrence_reset", limit=RESET_BATCH)[0]["deleted"]:
        pass


def _episode(r: Record) -> Episode:
    return Episode(r["id"], int(r["block"]), frozenset(r["protocols"]))


class BlockRange(TypedDict):
    """Blocks of one partition's chain to read counted episodes in (cypher/topology/cooccurrence_near.cypher)."""

    key: int
    scope: str
    agent_id: str
    clade: str
    chain: str
    lo: int
    hi: int


class MentionRow(TypedDict):
    """What a page adds to a protocol's mentions in one partition's chain (cooccurrence_count.cypher)."""

    id: str
    scope: str
    agent_id: str
    clade: str
    chain: str
    protocol: str
    n: int


class PairRow(TypedDict):
    """What a page adds to a protocol pair's counts in one partition's chain (cooccurrence_count.cypher)."""

    id: str
    scope: str
    agent_id: str
    clade: str
    chain: str
    a: str
    b: str
    count: int
    participants: int
    both: int
    first_block: int | None


def _ranges(groups: dict[Group, list[Episode]], reach: int) -> list[BlockRange]:
    """Each group's blocks within `reach` of a new episode's, merged into ranges."""
    out: list[BlockRange] = []
    for key, (group, episodes) in enumerate(groups.items()):
        part, chain = group
        spans: list[list[int]] = []
        for block in sorted({e.block for e in episodes}):
            if spans and block - reach <= spans[-1][1] + 1:
                spans[-1][1] = block + reach
            else:
                spans.append([block - reach, block + reach])
        out += [BlockRange(key=key, scope=part.scope.value, agent_id=part.agent_id or "", clade=part.clade or "",
                           chain=chain, lo=lo, hi=hi) for lo, hi in spans]
    return out


def _rows(groups: dict[Group, Counts]) -> tuple[list[MentionRow], list[PairRow]]:
    """The counting statement's rows: each protocol's mentions added, each pair's counts added."""
    mentions: list[MentionRow] = []
    pairs: list[PairRow] = []
    for (part, chain), c in groups.items():
        scope, agent, clade = part.scope.value, part.agent_id or "", part.clade or ""
        mentions += [MentionRow(id=part.key(chain, p), scope=scope, agent_id=agent, clade=clade, chain=chain,
                                protocol=p, n=n) for p, n in c.mentions.items() if n]
        pairs += [PairRow(id=part.key(chain, a, b), scope=scope, agent_id=agent, clade=clade, chain=chain, a=a, b=b,
                          count=p.count, participants=p.participants, both=p.both, first_block=p.first_block)
                  for (a, b), p in c.pairs.items()]
    return mentions, pairs


def count_new(db: Database, config: CoOccurrenceConfig, *, now: int | None = None,
              cancelled: Callable[[], bool] = lambda: False) -> CountReport:
    """Count the episodes recorded since the watermark, up to the settled past, a page per transaction."""
    report = CountReport()
    now = now if now is not None else now_ms()
    at, same = mark(db, config)
    if not same or recount_due(at, now, config):
        reset(db)
        at, report.reset = Mark(), True
    since = at.since if at.since is not None else now
    upto = now - int(config.settle_seconds * 1000)
    kinds, window = _kinds(config), config.window_blocks
    while not cancelled():
        rows = db.rows("topology/cooccurrence_new", kinds=kinds, after_at=at.through_at, after_id=at.through_id,
                       upto=upto, limit=PAGE)
        stop = next((i for i, r in enumerate(rows) if r["pending"]), None)
        page = rows if stop is None else rows[:stop]
        if not page:
            return report
        new: dict[Group, list[Episode]] = defaultdict(list)
        for r in page:
            part = Partition.of(r) if r["feeds"] and r["protocols"] else None
            if part is not None:
                new[(part, r["chain"])].append(_episode(r))
        near: dict[Group, list[Episode]] = defaultdict(list)
        ranges = _ranges(new, 2 * window)
        groups = list(new)
        if ranges:
            for r in db.rows("topology/cooccurrence_near", kinds=kinds, mark_at=at.through_at,
                             mark_id=at.through_id, ranges=ranges):
                if r["protocols"]:
                    near[groups[r["key"]]].append(_episode(r))
        mentions, pairs = _rows({g: added(eps, near[g], window) for g, eps in new.items()})
        last = page[-1]
        at = Mark(int(last["recorded_at"]), str(last["id"]), since)
        moved = {"through_at": at.through_at, "through_id": at.through_id, "window_blocks": window, "kinds": kinds,
                 "since": since, "recorded_at": now_ms()}
        db.write(_counting(mentions, pairs, moved))
        report.pages += 1
        report.read += len(page)
        report.episodes += sum(len(v) for v in new.values())
        report.groups |= set(new)
        if stop is not None or len(rows) < PAGE:
            return report
    return report


def _counting(mentions: list[MentionRow], pairs: list[PairRow], moved: Params) -> Callable[[Tx], None]:
    """A page's counts and the watermark past it: one transaction."""
    def count(tx: Tx) -> None:
        tx.run(cypher.query("topology/cooccurrence_count"), mentions=mentions, pairs=pairs, mark=moved).consume()

    return count


@dataclass(frozen=True)
class Candidate:
    """A pair whose kept counts reach 'consistently', not inferred yet."""

    id: str
    part: Partition
    chain: str
    a: str
    b: str
    kept: PairCount            # its counts as kept
    mentions: dict[str, int]   # the kept mentions of a and b


def candidates(db: Database, config: CoOccurrenceConfig) -> list[Candidate]:
    out = []
    for r in db.rows("topology/cooccurrence_candidates", min_count=config.min_count, min_share=config.min_share):
        part = Partition.of(r)
        if part is not None:
            out.append(Candidate(r["id"], part, r["chain"], r["a"], r["b"],
                                 PairCount(r["count"], r["participants"], r["both"], r["first_block"]),
                                 {r["a"]: r["mentions_a"], r["b"]: r["mentions_b"]}))
    return out


def exact(db: Database, c: Candidate, at: Mark, config: CoOccurrenceConfig) -> tuple[PairCount, float,
                                                                                  dict[str, int]]:
    """The pair counted again from the episodes as they are now (up to the watermark `at`): its counts, its share
    and how many episodes mention each of its two protocols."""
    episodes = [_episode(r) for r in db.rows("topology/cooccurrence_pair_episodes", a=c.a, b=c.b,
                                             mark_at=at.through_at, mark_id=at.through_id,
                                             **c.part.params(c.chain))]
    got = counts(only(episodes, c.a, c.b), config.window_blocks)
    pair = got.pairs.get((c.a, c.b), PairCount())
    got.pairs[(c.a, c.b)] = pair
    return pair, got.share((c.a, c.b)), {c.a: got.mentions[c.a], c.b: got.mentions[c.b]}


def settle(db: Database, settled: Sequence[tuple[Candidate, PairCount, dict[str, int], bool]]) -> None:
    """Each checked pair's counts set to its exact ones, and marked inferred when its fact is there; a pair whose
    counts held and whose fact is not there (its entities no longer visible) is left as it is."""
    rows = [{"id": c.id, "count": p.count, "participants": p.participants, "both": p.both,
             "first_block": p.first_block, "inferred": inferred,
             "mentions": [{"id": c.part.key(c.chain, protocol), "episodes": n} for protocol, n in mentions.items()]}
            for c, p, mentions, inferred in settled if inferred or p != c.kept or mentions != c.mentions]
    for start in range(0, len(rows), PAGE):
        db.run("topology/cooccurrence_settle", rows=rows[start:start + PAGE])


def full_count(db: Database, config: CoOccurrenceConfig) -> dict[Group, Counts]:
    """Every episode that can feed an inference counted at once, by partition and chain, read a page at a time: what
    the kept counts must equal once the watermark has passed every episode (and none changed since)."""
    episodes: dict[Group, list[Episode]] = defaultdict(list)
    after = ""
    while True:
        rows = db.rows("topology/cooccurrence_episodes", kinds=_kinds(config), after=after, limit=PAGE)
        for r in rows:
            part = Partition.of(r) if r["protocols"] else None
            if part is not None:
                episodes[(part, str(r["chain"] or ""))].append(_episode(r))
        if len(rows) < PAGE:
            return {g: counts(eps, config.window_blocks) for g, eps in episodes.items()}
        after = rows[-1]["id"]


def stored(db: Database) -> dict[Group, Counts]:
    """Every kept count, by partition and chain (for the tests' comparison with a full count)."""
    out: dict[Group, Counts] = defaultdict(Counts)
    for r in db.rows("topology/cooccurrence_stored_pairs"):
        part = Partition.of(r)
        if part is not None:
            out[(part, r["chain"])].pairs[(r["a"], r["b"])] = PairCount(
                int(r["count"]), int(r["participants"]), int(r["both"]), r["first_block"])
    for r in db.rows("topology/cooccurrence_stored_mentions"):
        part = Partition.of(r)
        if part is not None and r["episodes"]:
            out[(part, r["chain"])].mentions[r["protocol"]] = int(r["episodes"])
    return dict(out)
