"""Relations inferred from co-occurring episodes (grimoire.md line 759; graph/topology/inference.py): protocols
whose episodes co-occur within 3 blocks, consistently, get an inferred TokenFlow through the assert path; 4 blocks
apart is no co-occurrence; episodes feed only their own partition's inference, so a private episode never informs
a shared fact, and a confidential one informs nothing."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.topology import cooccurrence_counts as counts_kept
from grimoire.graph.topology import inference
from grimoire.graph.topology.cooccurrence import CoOccurrenceConfig
from grimoire.graph.topology.freshness import FactConfig
from tests.conftest import Api

BLOCKS = (1_000, 2_000, 3_000)  # three occasions: the default 'consistently'


def cfg(**co_occurrence: Any) -> FactConfig:
    """The inference's settings, with no settle time: what a test wrote just before is counted."""
    return FactConfig(co_occurrence=CoOccurrenceConfig(**{"settle_seconds": 0.0, **co_occurrence}))


def _episodes(api: Api, h: dict[str, str], tag: str, a: str, b: str, gap: int, scope: str = "public",
              text: str = "", base: int = 0) -> None:
    """On each occasion, one episode mentioning pool `a` and another, `gap` blocks later, mentioning pool `b`
    (`base` blocks after the occasions' blocks: groups far apart do not co-occur with each other)."""
    eps = [{"id": f"{tag}-{n}-{side}", "type": "observation", "scope": scope, "chain": "1",
            "block": base + block + off,
            "text": f"{text} {tag} saw activity on {name} at occasion {n}",
            "mentions": [{"kind": "Pool", "name": name}]}
           for n, block in enumerate(BLOCKS) for side, name, off in (("a", a, 0), ("b", b, gap))]
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": eps})
    assert r.status_code in (200, 201), r.text


def _inferred(api: Api, h: dict[str, str], entity: str) -> list[dict[str, Any]]:
    r = api.client.get(f"/entities/{quote(entity)}/facts", headers=h, params={"predicate": "TokenFlow"})
    if r.status_code == 404:  # an entity the viewer cannot see: nothing about it either
        return []
    assert r.status_code == 200, r.text
    return [f for f in r.json() if f["inferred"] == "co_occurrence"]


def test_episodes_within_three_blocks_infer_a_relation_and_four_blocks_apart_do_not(api: Api, db: Database) -> None:
    h = api.headers("cooc-a", "cooc-x")
    _episodes(api, h, "near", "alpha", "beta", gap=3)
    _episodes(api, h, "far", "gamma", "delta", gap=4, base=100)
    report = inference.infer(db, cfg())
    assert report.created == 1 and report.pairs == 1, report
    [fact] = _inferred(api, h, "pool:alpha")
    assert (fact["subject"], fact["predicate"], fact["object"]) == ("pool:alpha", "TokenFlow", "pool:beta")
    assert fact["co_occurrences"] == 3 and fact["valid_from"] == BLOCKS[0] and fact["valid_to"] is None
    assert fact["confidence"] == 0.3 and fact["valid_from_source"] == "inferred: co_occurrence"
    assert fact["scope"] == "public"
    assert _inferred(api, h, "pool:gamma") == [] and _inferred(api, h, "pool:delta") == []
    # Audited in the assertion's transaction, by the inference.
    records = [a for a in db.rows("testing/audit_records") if a["action"] == "fact.assert"]
    assert [(a["actor"], a["target_ids"]) for a in records] == [("co-occurrence", [fact["fact_id"]])]
    # Idempotent: a second pass over the same episodes changes nothing, not even a reinforcement.
    again = inference.infer(db, cfg())
    assert again.created == 0 and again.episodes == 0, again
    [same] = _inferred(api, h, "pool:alpha")
    assert same["reinforcements"] is None and same["last_reinforced"] == fact["last_reinforced"]
    assert len([a for a in db.rows("testing/audit_records") if a["action"] == "fact.assert"]) == 1
    # The window is a setting: at 4 blocks the far pair co-occurs too.
    wider = inference.infer(db, cfg(window_blocks=4))
    assert wider.created == 1 and wider.recounted, wider
    [far] = _inferred(api, h, "pool:delta")
    assert (far["subject"], far["object"]) == ("pool:delta", "pool:gamma")


def test_fewer_occasions_than_consistently_infer_nothing(api: Api, db: Database) -> None:
    h = api.headers("cooc-b", "cooc-x")
    _episodes(api, h, "thrice", "one", "two", gap=1)
    assert inference.infer(db, cfg(min_count=4)).created == 0
    assert _inferred(api, h, "pool:one") == []
    # Nothing new since: the kept counts reach the default 'consistently'.
    later = inference.infer(db, cfg())
    assert later.created == 1 and later.episodes == 0, later


def test_a_private_episode_never_feeds_a_shared_fact(api: Api, db: Database) -> None:
    a, mate, other = (api.headers("cooc-pa", "cooc-x"), api.headers("cooc-pm", "cooc-x"),
                      api.headers("cooc-pc", "cooc-y"))
    # Across partitions: a's private episodes mention north, its clade mate's shared ones south, 1 block later.
    _episodes(api, a, "mixed-a", "north", "north", gap=0, scope="private")
    _episodes(api, mate, "mixed-m", "south", "south", gap=1, scope="shared")
    # Within one partition each: a's private pair, the clade's shared pair, a's confidential pair.
    _episodes(api, a, "own", "east", "west", gap=2, scope="private", base=100)
    _episodes(api, mate, "clade", "up", "down", gap=2, scope="shared", base=200)
    _episodes(api, a, "secret", "left", "right", gap=2, scope="shared", base=300,
              text="signer 4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
    report = inference.infer(db, cfg())
    assert report.created == 2, report
    # No fact joins north and south: the private episodes fed nothing the clade's shared ones did.
    for h in (a, mate):
        assert _inferred(api, h, "pool:north") == [] and _inferred(api, h, "pool:south") == []
    # a's private pair: a's private fact, seen by a alone.
    [own] = _inferred(api, a, "pool:east")
    assert (own["scope"], own["agent_id"], own["object"]) == ("private", "cooc-pa", "pool:west")
    assert _inferred(api, mate, "pool:east") == [] and _inferred(api, other, "pool:east") == []
    # The clade's shared pair: a shared fact of the clade, not seen outside it.
    [shared] = _inferred(api, a, "pool:down")
    assert (shared["scope"], shared["clade"], shared["object"]) == ("shared", "cooc-x", "pool:up")
    assert _inferred(api, mate, "pool:down") and _inferred(api, other, "pool:down") == []
    # The confidential episodes (kept private, as their text holds a key) inferred nothing at all.
    assert _inferred(api, a, "pool:left") == [] and _inferred(api, api.admin, "pool:left") == []


def _snapshot(db: Database) -> list[str]:
    row = db.run("testing/dump")[0]
    key = lambda x: json.dumps(x, sort_keys=True, default=str)  # noqa: E731
    return sorted(map(key, row["nodes"])) + sorted(map(key, row["relationships"]))


def test_a_period_counts_what_is_new_and_the_counts_equal_a_full_count(api: Api, db: Database) -> None:
    """The watermark (graph/topology/cooccurrence_counts.py): a run counts the episodes recorded since the last
    one, near old ones included, and the kept counts equal a fresh count of every episode; a run with nothing new
    writes nothing; episodes recorded within the settle time wait for a later run."""
    h, mate = api.headers("cooc-w", "cooc-x"), api.headers("cooc-wm", "cooc-x")
    _episodes(api, h, "w1", "red", "blue", gap=1)                       # thrice: consistent
    _episodes(api, mate, "w2", "green", "cyan", gap=2, scope="shared")  # the clade's own partition
    first = inference.infer(db, cfg())
    assert first.episodes == 12 and first.created == 2, first
    config = cfg().co_occurrence
    assert counts_kept.stored(db) == counts_kept.full_count(db, config)
    # A run with nothing new writes nothing: not the counts, not the watermark, no audit record.
    before = _snapshot(db)
    idle = inference.infer(db, cfg())
    assert (idle.episodes, idle.pairs, idle.created) == (0, 0, 0), idle
    assert _snapshot(db) == before
    # New episodes, beside the old ones (a third protocol one block from each occasion's red and blue episodes;
    # blue again two blocks after) and far from them (a pair of its own): counted with their old neighbours.
    near = [{"id": f"w3-{n}-{name}", "type": "observation", "scope": "public", "chain": "1", "block": block + off,
             "text": f"w3 saw activity on {name} at occasion {n}", "mentions": [{"kind": "Pool", "name": name}]}
            for n, block in enumerate(BLOCKS) for name, off in (("violet", 2), ("blue", 3))]
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": near})
    assert r.status_code in (200, 201), r.text
    _episodes(api, h, "w4", "amber", "olive", gap=0, base=50_000)
    second = inference.infer(db, cfg())
    assert second.episodes == 12, second
    assert counts_kept.stored(db) == counts_kept.full_count(db, config)
    kept = counts_kept.stored(db)
    public = next(c for (part, chain), c in kept.items() if part.scope.value == "public" and chain == "1")
    assert public.pairs[("pool:blue", "pool:red")].count == 6  # the old pair thrice, a new blue near each red
    assert public.pairs[("pool:blue", "pool:violet")].count > 0 and ("pool:amber", "pool:olive") in public.pairs
    # red and violet, blue and violet, amber and olive: each consistent now, each its fact.
    assert second.created == 3, second
    assert {(f["subject"], f["object"]) for f in _inferred(api, h, "pool:blue")} == {
        ("pool:blue", "pool:red"), ("pool:blue", "pool:violet")}
    # Recorded within the settle time: not counted yet, and the watermark waits before them.
    _episodes(api, h, "w5", "teal", "plum", gap=1, base=90_000)
    waiting = inference.infer(db, cfg(settle_seconds=3_600))
    assert waiting.episodes == 0, waiting
    assert counts_kept.stored(db) != counts_kept.full_count(db, config)
    assert inference.infer(db, cfg()).episodes == 6
    assert counts_kept.stored(db) == counts_kept.full_count(db, config)


def _operators(db: Database, name: str, **params: Any) -> list[str]:
    with db.session() as s:
        plan = s.run("EXPLAIN " + cypher.query(name), params).consume().plan

    def walk(p: Any) -> list[str]:
        return [f"{p['operatorType']} {p.get('args', {}).get('Details', '')}",
                *(o for c in p.get("children", []) for o in walk(c))]

    return walk(plan)


def test_a_period_seeks_the_new_episodes_and_their_neighbours(db: Database) -> None:
    """What a period reads: the episodes since the watermark by the recorded_at index, the counted ones near them by
    the block index; neither scans the episodes."""
    kinds = ["Pool"]
    new = _operators(db, "topology/cooccurrence_new", kinds=kinds, after_at=1, after_id="", upto=2, limit=1000)
    near = _operators(db, "topology/cooccurrence_near", kinds=kinds, mark_at=1, mark_id="", ranges=[
        {"key": 0, "scope": "public", "agent_id": "", "clade": "", "chain": "1", "lo": 1, "hi": 7}])
    for ops, index in ((new, "Episode(recorded_at)"), (near, "Episode(block)")):
        assert any("IndexSeek" in o and index in o for o in ops), ops
        assert not any(o.startswith(("NodeByLabelScan", "AllNodesScan")) for o in ops), ops


def test_an_episode_that_begins_to_count_behind_the_watermark_is_counted_at_the_next_full_count(
        api: Api, db: Database) -> None:
    """`recount_hours`: episodes whose scope is widened after the watermark passed them (as an import keeping its
    recorded time, a rollback or an un-archive would make them count) are not in the kept counts of their new
    partition until the counts are made again from every episode; a run past `recount_hours` does that."""
    h = api.headers("cooc-r", "cooc-x")
    _episodes(api, h, "r1", "iron", "zinc", gap=1, scope="private")
    config = cfg().co_occurrence
    first = inference.infer(db, cfg())
    assert first.episodes == 6 and counts_kept.stored(db) == counts_kept.full_count(db, config)
    db.run("testing/set_scope", ids=[f"r1-{n}-{side}" for n in range(3) for side in "ab"], scope="public")
    assert inference.infer(db, cfg()).episodes == 0  # behind the watermark: not read again
    assert counts_kept.stored(db) != counts_kept.full_count(db, config)
    again = inference.infer(db, cfg(recount_hours=0))  # the full count is due
    assert again.recounted and again.episodes >= 6, again
    assert counts_kept.stored(db) == counts_kept.full_count(db, config)
    public = {part.scope.value for part, _ in counts_kept.stored(db)}
    assert "public" in public


def test_an_erasure_deletes_the_counts_that_name_an_entity_it_removed(api: Api, db: Database) -> None:
    """A removed entity's id is erased text (graph/audit/erasure.py): the counts naming it go in the erasure's
    transaction; the others stay."""
    from grimoire.graph.audit import erasure
    from grimoire.graph.ids import now_ms

    h = api.headers("cooc-e", "cooc-x")
    _episodes(api, h, "e1", "kappa", "lambda", gap=1, scope="private")
    _episodes(api, h, "e2", "mu", "nu", gap=1, scope="private", base=500)
    inference.infer(db, cfg())

    def named(entity: str) -> bool:
        return any(entity in pair or entity in c.mentions for c in counts_kept.stored(db).values() for pair in c.pairs)

    assert named("pool:kappa") and named("pool:mu")
    gone = erasure.Erasure(id="erasure-1", agent_id="cooc-e", actor="cooc-e", at=now_ms(), ids=[],
                           entities=["pool:kappa"])
    db.write(lambda tx: erasure.redact(tx, gone))
    assert not named("pool:kappa") and named("pool:mu")
