"""Relations inferred from co-occurring episodes (grimoire.md line 759; graph/topology/inference.py): protocols
whose episodes co-occur within 3 blocks, consistently, get an inferred TokenFlow through the assert path; 4 blocks
apart is no co-occurrence; episodes feed only their own partition's inference, so a private episode never informs
a shared fact, and a confidential one informs nothing."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from grimoire.graph.db.connection import Database
from grimoire.graph.topology import inference
from grimoire.graph.topology.cooccurrence import CoOccurrenceConfig
from grimoire.graph.topology.freshness import FactConfig
from tests.conftest import Api

BLOCKS = (1_000, 2_000, 3_000)  # three occasions: the default 'consistently'


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
    report = inference.infer(db)
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
    again = inference.infer(db)
    assert again.created == 0 and again.pairs == 1, again
    [same] = _inferred(api, h, "pool:alpha")
    assert same["reinforcements"] is None and same["last_reinforced"] == fact["last_reinforced"]
    assert len([a for a in db.rows("testing/audit_records") if a["action"] == "fact.assert"]) == 1
    # The window is a setting: at 4 blocks the far pair co-occurs too.
    wider = inference.infer(db, FactConfig(co_occurrence=CoOccurrenceConfig(window_blocks=4)))
    assert wider.created == 1, wider
    [far] = _inferred(api, h, "pool:delta")
    assert (far["subject"], far["object"]) == ("pool:delta", "pool:gamma")


def test_fewer_occasions_than_consistently_infer_nothing(api: Api, db: Database) -> None:
    h = api.headers("cooc-b", "cooc-x")
    _episodes(api, h, "thrice", "one", "two", gap=1)
    assert inference.infer(db, FactConfig(co_occurrence=CoOccurrenceConfig(min_count=4))).created == 0
    assert _inferred(api, h, "pool:one") == []
    assert inference.infer(db).created == 1


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
    report = inference.infer(db)
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
