"""The Aave world loaded from ../shared/data: a real oracle replacement on both time axes, k-hop
against a plain breadth-first search over the same facts, and re-running the loaders."""

from __future__ import annotations

import json
import random
from collections import deque
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from graph.db.connection import Database
from graph.embeddings import Embedder
from graph.model.enums import REL_TYPES, Direction, Predicate
from graph.topology import traversal
from loaders.aave.load import load
from tests.conftest import ADMIN_KEY, DATA, counts

DEFI = DATA / "defi"
ADMIN = {"X-API-Key": ADMIN_KEY}
EVERYONE = {"admin": True, "viewer": "", "clade": ""}


def _replacement() -> tuple[dict, int]:
    """An Ethereum-market oracle replacement with a governance execution in the day before its
    commit, the previous oracle set long before, and no other change soon after."""
    records = json.loads((DEFI / "aave-address-book-history.json").read_text())
    controller = "0xdAbad81aF85554E9ae636395611C58F7eC1aAEc5.json"
    events = json.loads((DEFI / "aave-governance/1/events" / controller).read_text())
    payloads = json.loads((DEFI / "aave-governance/1/payloads" / controller).read_text())
    executed = {int(e["args"]["payloadId"]): int(e["blockNumber"])
                for e in events if e["eventName"] == "PayloadExecuted"}
    runs = sorted(((int(p["executedAt"]), executed[int(k)]) for k, p in payloads.items()
                   if p["executedAt"] and int(k) in executed))
    oracle = [r for r in records if r["field"] == "ORACLE"]
    for r in oracle:
        if r["market"] != "AaveV3Ethereum" or r["old"] is None:
            continue
        same = sorted((x for x in oracle if (x["market"], x["asset"]) == (r["market"], r["asset"])),
                      key=lambda x: x["committed_at"])
        i = same.index(r)
        before = [t for t, _ in runs if t <= r["committed_at"]]
        if not before or r["committed_at"] - before[-1] > 86_400:
            continue
        block = [b for t, b in runs if t == before[-1]][0]
        prev_ok = same[i - 1]["committed_at"] < r["committed_at"] - 30 * 86_400
        next_ok = i + 1 == len(same) or same[i + 1]["committed_at"] > r["committed_at"] + 30 * 86_400
        if prev_ok and next_ok:
            return r, block
    raise AssertionError("no suitable oracle replacement in the history")


def test_an_oracle_replacement_on_both_time_axes(admin_client: TestClient) -> None:
    rec, block = _replacement()
    reserve = f"reserve:{rec['market'].lower()} {rec['asset'].lower()}"
    old, new = f"1:{rec['old'].lower()}", f"1:{rec['new'].lower()}"
    committed = rec["committed_at"] * 1000

    def oracle(**params) -> list[str]:
        r = admin_client.get(f"/entities/{quote(reserve)}/facts", params={"predicate": "OracleDependency", **params})
        assert r.status_code == 200, r.text
        return [f["object"] for f in r.json()]

    assert oracle(block=block - 1) == [old]
    assert oracle(block=block) == [new]
    assert oracle(block=block + 1_000) == [new]
    # Before the address book recorded the change, Grimoire believed the old oracle still held at that block.
    assert oracle(block=block, known_at=committed - 1) == [old]
    assert oracle(block=block, known_at=committed) == [new]
    assert oracle(block=block - 1, known_at=committed) == [old]
    current = [f for f in admin_client.get(f"/entities/{quote(reserve)}/facts",
                                           params={"predicate": "OracleDependency", "block": block}).json()]
    assert current[0]["approximate"] is False and f"block {block}" in current[0]["valid_from_source"]
    # Through traversal too: which reserves depend on the new feed, before and after.
    hop = {"entity": new, "hops": 1, "direction": "in", "predicates": ["OracleDependency"]}
    after = admin_client.post("/topology/k-hop", json={**hop, "block": block}).json()
    before = admin_client.post("/topology/k-hop", json={**hop, "block": block - 1}).json()
    assert reserve in {x["id"] for x in after} and reserve not in {x["id"] for x in before}


def test_the_current_address_book_is_what_the_history_replays_to(aave: Database) -> None:
    from loaders.aave.address_book import read_all

    eth = next(f for f in read_all(DEFI / "aave-address-book/src/ts") if f.name == "AaveV3Ethereum")
    now = 10**10  # a block after everything
    for r in eth.reserves:
        reserve = f"reserve:aavev3ethereum {r.symbol.lower()}"
        facts = {(f["type"], f["name"]): f["object"] for f in traversal_facts(aave, reserve, now)}
        assert facts[("ORACLE_DEPENDENCY", None)] == f"1:{r.addresses['ORACLE'].lower()}", r.symbol
        assert facts[("CUSTOM", "AToken")] == f"1:{r.addresses['A_TOKEN'].lower()}", r.symbol


def traversal_facts(db: Database, entity: str, block: int) -> list[dict]:
    from graph.topology import facts

    return [f for f in facts.about(db, entity, block=block, known_at=None, visibility=EVERYONE)
            if f["subject"] == entity]


def _bfs(edges: list[dict], start: str, hops: int, direction: Direction, types: set[str]) -> dict[str, int]:
    adjacency: dict[str, set[str]] = {}
    for e in edges:
        if e["type"] not in types:
            continue
        if direction in (Direction.out, Direction.both):
            adjacency.setdefault(e["subject"], set()).add(e["object"])
        if direction in (Direction.in_, Direction.both):
            adjacency.setdefault(e["object"], set()).add(e["subject"])
    depth = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if depth[node] == hops:
            continue
        for nxt in adjacency.get(node, ()):
            if nxt not in depth:
                depth[nxt] = depth[node] + 1
                queue.append(nxt)
    depth.pop(start)
    return depth


def test_k_hop_equals_a_breadth_first_search(aave: Database) -> None:
    rng = random.Random(7)
    entities = sorted(r["id"] for r in aave.run("testing/entity_ids"))
    blocks = [0, 18_000_000, 19_000_000, 19_461_331, 20_000_000, 21_000_000, 22_000_000, 23_000_000]
    all_types = {REL_TYPES[p] for p in Predicate}
    checked = reached = 0
    for block in blocks:
        edges = aave.run("topology/facts_at_block", block=block, types=sorted(all_types))
        linked = sorted({e["subject"] for e in edges} | {e["object"] for e in edges})
        for start in rng.sample(linked, 10) + rng.sample(entities, 2):  # mostly entities with facts at the block
            direction = rng.choice(list(Direction))
            preds = rng.choice([[], [Predicate.OracleDependency, Predicate.CollateralBacking, Predicate.Custom],
                                [Predicate.PriceCorrelation, Predicate.CollateralBacking]])
            hops = rng.choice([1, 2, 3])
            types = {REL_TYPES[p] for p in preds} or all_types
            rows = traversal.k_hop(aave, start, block, hops=hops, direction=direction, predicates=preds,
                                   limit=10_000, visibility=EVERYONE)
            got = {r["id"]: r["depth"] for r in rows}
            assert got == _bfs(edges, start, hops, direction, types), (start, block, direction, preds, hops)
            for r in rows:  # each path is a chain of facts of the right length
                assert len(r["path"]) == r["depth"] + 1 and r["path"][0] == start and r["path"][-1] == r["id"]
            checked += 1
            reached += len(got)
    assert checked == 96 and reached > 500  # not a run of empty answers


def test_rerunning_the_loaders_changes_nothing(aave: Database, embedder: Embedder) -> None:
    def snapshot() -> tuple[dict, list]:
        c = counts(aave)
        c.pop("AuditRecord", None)  # each run's attempts are audited
        row = aave.run("testing/dump")[0]
        key = lambda x: json.dumps(x, sort_keys=True, default=str)  # noqa: E731
        return c, sorted(map(key, row["nodes"])) + sorted(map(key, row["relationships"]))

    before = snapshot()
    report = load(aave, embedder, DATA, progress=lambda items, *_: items)
    assert report.facts_created == 0 and report.facts_closed == 0 and report.invalidated == 0
    assert report.episodes_created == 0
    assert snapshot() == before


QUESTIONS = ["reserves_on_oracle", "facts_about", "oracle_history", "shortest_path", "information_lag",
             "distance_to_positions", "k_hop", "resolve_entity", "facts_at_block"]


@pytest.mark.parametrize("name", QUESTIONS)
def test_the_cypher_files_run_as_is_with_their_example_parameters(aave: Database, name: str) -> None:
    """What a person pastes into Neo4j Browser: the file's own :param lines, then the statement."""
    import re

    from graph.db import cypher
    from graph.settings import get_settings

    text = (get_settings().cypher_dir / "topology" / f"{name}.cypher").read_text()
    params = {}
    with aave.session() as s:
        for key, expr in re.findall(r"^:param (\w+) => (.*);$", text, re.M):
            params[key] = s.run(f"RETURN {expr} AS v").single()["v"]
        rows = s.run(cypher.query(f"topology/{name}"), params).data()
    assert rows, name  # each example asks something the loaded data answers
    if name == "facts_about":  # as known in November 2023, DAI's oracle at block 20M was still the first feed
        assert [r["object"] for r in rows if r["fact"]["type"] == "ORACLE_DEPENDENCY"] == [
            "1:0xaed0c38402a5d19df6e4c03f4e2dced6e29c1ee9"]
