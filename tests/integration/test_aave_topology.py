"""The Aave world loaded from ../shared/data: a real oracle replacement on both time axes, k-hop
against a plain breadth-first search over the same facts, and re-running the loaders."""

from __future__ import annotations

import json
import random
from collections import deque
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.model.enums import REL_TYPES, Direction, Predicate
from grimoire.graph.topology import traversal
from grimoire.graph.visibility import Visibility
from grimoire.loaders.aave.load import load
from tests.conftest import ADMIN_KEY, DATA, Neo4jUnderTest, counts

DEFI = DATA / "defi"
ADMIN = {"X-API-Key": ADMIN_KEY}
EVERYONE = Visibility.everything()


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
    from grimoire.loaders.aave.address_book import read_all

    eth = next(f for f in read_all(DEFI / "aave-address-book/src/ts") if f.name == "AaveV3Ethereum")
    now = 10**10  # a block after everything
    for r in eth.reserves:
        reserve = f"reserve:aavev3ethereum {r.symbol.lower()}"
        facts = {(f["type"], f["name"]): f["object"] for f in traversal_facts(aave, reserve, now)}
        assert facts[("ORACLE_DEPENDENCY", None)] == f"1:{r.addresses['ORACLE'].lower()}", r.symbol
        assert facts[("CUSTOM", "AToken")] == f"1:{r.addresses['A_TOKEN'].lower()}", r.symbol


def traversal_facts(db: Database, entity: str, block: int) -> list[dict]:
    from grimoire.graph.topology import facts

    return [f.model_dump(mode="json") for f in facts.about(db, entity, block=block, known_at=None,
                                                           visibility=EVERYONE) if f.subject == entity]


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
            got = {r.id: r.depth for r in rows}
            assert got == _bfs(edges, start, hops, direction, types), (start, block, direction, preds, hops)
            for r in rows:  # each path is a chain of facts of the right length
                assert len(r.path) == r.depth + 1 and r.path[0] == start and r.path[-1] == r.id
            checked += 1
            reached += len(got)
    assert checked == 96 and reached > 500  # not a run of empty answers


def test_rerunning_the_loaders_changes_nothing(aave: Database, embedder: Embedder,
                                               neo4j_server: Neo4jUnderTest) -> None:
    def snapshot() -> tuple[dict, list]:
        c = counts(aave)
        c.pop("AuditRecord", None)  # each run's attempts are audited
        row = aave.run("testing/dump")[0]
        key = lambda x: json.dumps(x, sort_keys=True, default=str)  # noqa: E731
        return c, sorted(map(key, row["nodes"])) + sorted(map(key, row["relationships"]))

    before = snapshot()
    report = load(aave, embedder, DATA, freshness=neo4j_server.settings().facts, progress=lambda items, *_: items)
    assert report.facts_created == 0 and report.facts_closed == 0 and report.invalidated == 0
    assert report.episodes_created == 0
    assert snapshot() == before


QUESTIONS = ["reserves_on_oracle", "facts_about", "oracle_history", "shortest_path", "information_lag",
             "distance_to_positions", "k_hop", "resolve_entity", "facts_at_block"]
ALL_TYPES = sorted(REL_TYPES[p] for p in Predicate)
DAI_RESERVE = "reserve:aavev3ethereum dai"
ETHEREUM_POOL = "1:0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2"


def _executions() -> list[tuple[int, int, int]]:
    """Every executed Ethereum governance payload, from the raw data: (executed at, block, payload id)."""
    out = []
    folder = DEFI / "aave-governance/1"
    for payloads_file in sorted((folder / "payloads").glob("*.json")):
        events = json.loads((folder / "events" / payloads_file.name).read_text())
        blocks = {int(e["args"]["payloadId"]): int(e["blockNumber"]) for e in events
                  if e["eventName"] == "PayloadExecuted"}
        for key, p in json.loads(payloads_file.read_text()).items():
            if int(p.get("id", key)) in blocks and p.get("executedAt"):
                out.append((int(p["executedAt"]), blocks[int(p.get("id", key))], int(p.get("id", key))))
    return sorted(out)


def _history(market: str, asset: str, field: str) -> list[dict]:
    records = json.loads((DEFI / "aave-address-book-history.json").read_text())
    return sorted((r for r in records if (r["market"], r["asset"], r["field"]) == (market, asset, field)),
                  key=lambda r: r["committed_at"])


def _expect_reserves_on_oracle(db: Database, rows: list[dict], p: dict) -> None:
    # From the raw history: the feed is the one Aave V3 Ethereum's DAI took in March 2024, no other reserve's.
    records = json.loads((DEFI / "aave-address-book-history.json").read_text())
    assert {(r["market"], r["asset"]) for r in records
            if r["field"] == "ORACLE" and (r["new"] or "").lower() == p["oracle"][2:]} == {("AaveV3Ethereum", "DAI")}
    assert rows[0] == {"reserve": "AaveV3Ethereum DAI", "hops": 1, "through": ["OracleDependency"]}
    # Every reserve within three hops of the feed, at its distance, as a breadth-first search finds them.
    edges = db.run("topology/facts_at_block", block=p["block"], types=ALL_TYPES)
    reach = _bfs(edges, p["oracle"], 3, Direction.both, set(ALL_TYPES))
    reserves = {r["reserve"]: r["hops"] for r in rows}
    assert len(reserves) == len(rows)
    assert {f"reserve:{name.lower()}": hops for name, hops in reserves.items()} == {
        n: d for n, d in reach.items() if n.startswith("reserve:")}
    assert [(r["hops"], r["reserve"]) for r in rows] == sorted((r["hops"], r["reserve"]) for r in rows)
    assert {r["hops"] for r in rows} == {1, 3} and len(rows) == 68
    assert all(len(r["through"]) == r["hops"] for r in rows)


def _expect_facts_about(db: Database, rows: list[dict], p: dict) -> None:
    # What the address-book history had recorded for the reserve by then (every field's latest value).
    known = {}
    for field in ("UNDERLYING", "ORACLE", "A_TOKEN", "V_TOKEN", "INTEREST_RATE_STRATEGY"):
        known[field] = [r for r in _history("AaveV3Ethereum", "DAI", field)
                        if r["committed_at"] * 1000 <= p["known_at"]][-1]["new"].lower()
    label = {"UNDERLYING": "Underlying", "ORACLE": "ORACLE_DEPENDENCY", "A_TOKEN": "AToken",
             "V_TOKEN": "VariableDebtToken", "INTEREST_RATE_STRATEGY": "InterestRateStrategy"}
    got = {(r["fact"]["name"] if r["fact"]["type"] == "CUSTOM" else r["fact"]["type"]): r["object"] for r in rows}
    assert got == {label[f]: f"1:{a}" for f, a in known.items()}
    assert got["ORACLE_DEPENDENCY"] == "1:0xaed0c38402a5d19df6e4c03f4e2dced6e29c1ee9"  # the first feed
    assert all(r["subject"] == DAI_RESERVE for r in rows)


def _expect_oracle_history(db: Database, rows: list[dict], p: dict) -> None:
    records = _history("AaveV3Ethereum", "DAI", "ORACLE")
    assert [r["old"] for r in records][0] is None and len(records) == 3
    feeds = [f"1:{r['new'].lower()}" for r in records]
    commits = [r["committed_at"] for r in records]
    executions = {t: (block, pid) for t, block, pid in _executions()}
    # Each replacement's valid time is the block of the payload executed within the day before its commit.
    starts = [18_126_097]  # the first listing: the block the blocktime table gives for its commit (approximate)
    for commit in commits[1:]:
        t = max(t for t in executions if t <= commit)
        assert commit - t <= 86_400
        starts.append(executions[t][0])
    assert starts[1:] == [19_461_331, 22_617_415]
    got = [(r["oracle"], r["valid_from"], r["valid_to"], r["recorded_at"].to_native().timestamp(),
            r["believed_until"] and r["believed_until"].to_native().timestamp(), r["approximate"]) for r in rows]
    assert got == [
        # each feed as first believed, open, until the next commit; then closed at the next start
        (feeds[0], starts[0], None, commits[0], commits[1], True),
        (feeds[0], starts[0], starts[1], commits[1], None, True),
        (feeds[1], starts[1], None, commits[1], commits[2], False),
        (feeds[1], starts[1], starts[2], commits[2], None, False),
        (feeds[2], starts[2], None, commits[2], None, False),
    ]


def _expect_shortest_path(db: Database, rows: list[dict], p: dict) -> None:
    edges = db.run("topology/facts_at_block", block=p["block"], types=ALL_TYPES)
    reach = _bfs(edges, p["from"], 8, Direction.both, set(ALL_TYPES))
    [row] = rows
    assert row["depth"] == reach[p["to"]] == 3
    assert row["path"][0] == p["from"] and row["path"][-1] == p["to"] and len(row["path"]) == 4
    linked = {(e["subject"], e["object"]) for e in edges}
    for a, b, fact in zip(row["path"][:-1], row["path"][1:], row["facts"], strict=True):
        assert {fact["subject"], fact["object"]} == {a, b} and (fact["subject"], fact["object"]) in linked


def _expect_information_lag(db: Database, rows: list[dict], p: dict) -> None:
    # From the raw data: each Ethereum-market oracle change whose commit follows a payload execution
    # within a day, the lag from that execution to the commit.
    records = json.loads((DEFI / "aave-address-book-history.json").read_text())
    executed = [t for t, _, _ in _executions()]
    lags: dict[str, list[float]] = {}
    seen = set()
    for r in records:
        if r["field"] != "ORACLE" or r["new"] is None or not r["market"].startswith("AaveV3Ethereum"):
            continue
        before = [t for t in executed if t <= r["committed_at"]]
        key = (r["market"], r["asset"], r["commit"], r["new"].lower())
        if before and r["committed_at"] - before[-1] <= 86_400 and key not in seen:
            seen.add(key)
            lags.setdefault(r["market"], []).append((r["committed_at"] - before[-1]) / 3600)
    expected = sorted(((m, len(x), sum(x) / len(x), min(x), max(x)) for m, x in lags.items()), key=lambda e: -e[1])
    assert [r["market"] for r in rows] == [e[0] for e in expected] == [
        "AaveV3Ethereum", "AaveV3EthereumLido", "AaveV3EthereumEtherFi", "AaveV3EthereumHorizon"]
    for r, (_, changes, mean, low, high) in zip(rows, expected, strict=True):
        assert r["changes"] == changes
        assert [r["mean_lag_hours"], r["min_lag_hours"], r["max_lag_hours"]] == pytest.approx(
            [mean, low, high], abs=0.051)  # rounded to a tenth
    assert rows[0]["changes"] == 76 and rows[0]["max_lag_hours"] == 22.4


def _expect_distance_to_positions(db: Database, rows: list[dict], p: dict) -> None:
    edges = db.run("topology/facts_at_block", block=p["block"], types=ALL_TYPES)
    reach = _bfs(edges, p["event"], 3, Direction.both, set(ALL_TYPES))
    # The Aave V3 Ethereum pool depends directly on its AaveOracle.
    assert rows == [{"distance": min(reach[x] for x in p["positions"])}] == [{"distance": 1}]


def _expect_k_hop(db: Database, rows: list[dict], p: dict) -> None:
    edges = db.run("topology/facts_at_block", block=p["block"], types=p["types"])
    assert {r["id"]: r["depth"] for r in rows} == _bfs(edges, p["id"], p["hops"], Direction.both, set(p["types"]))
    assert len(rows) == 326 and [r["depth"] for r in rows] == sorted(r["depth"] for r in rows)
    linked = {(e["subject"], e["object"]) for e in edges} | {(e["object"], e["subject"]) for e in edges}
    for r in rows:
        assert len(r["path"]) == r["depth"] + 1 and r["path"][0] == p["id"] and r["path"][-1] == r["id"]
        assert all(step in linked for step in zip(r["path"][:-1], r["path"][1:], strict=True)), r["id"]


def _expect_resolve_entity(db: Database, rows: list[dict], p: dict) -> None:
    # WETH is the symbol of a token on many chains: every answer is an exact match (score 2), the
    # first ten of them by id, Ethereum's among them.
    with db.session() as s:
        exact = sorted(r["id"] for r in s.run("MATCH (e:Entity) WHERE e.symbol = 'WETH' OR e.name = 'WETH' "
                                              "OR 'WETH' IN e.aliases RETURN e.id AS id"))
    assert len(exact) > p["limit"] == len(rows) == 10
    assert [r["entity"]["id"] for r in rows] == exact[:10] == [
        "100:0x6a023ccd1ff6f2045c3309768ead9e68f978f6e1", "1088:0x420000000000000000000000000000000000000a",
        "10:0x4200000000000000000000000000000000000006", "11155111:0xc558dbdd856501fcd9aaf1e62eae57a9f0629a3c",
        "11155420:0x4200000000000000000000000000000000000006", "137:0x7ceb23fd6bc0add59e62ac25578270cff1b9f619",
        "146:0x50c42deacd8fc9773493ed674b675be577f2634b", "1868:0x4200000000000000000000000000000000000006",
        "1:0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", "324:0x5aea5775959fbc2557cc8789bc1bf90a239d9a91"]
    assert all(r["score"] == 2.0 and r["entity"]["symbol"] == "WETH" and r["entity"]["kind"] == "Token"
               for r in rows)


def _expect_facts_at_block(db: Database, rows: list[dict], p: dict) -> None:
    from collections import Counter

    assert Counter(r["type"] for r in rows) == {
        "CUSTOM": 1212, "COLLATERAL_BACKING": 426, "PRICE_CORRELATION": 401, "ORACLE_DEPENDENCY": 341,
        "GOVERNANCE_CONTROL": 187, "DEPLOYED_BY": 38, "TOKEN_FLOW": 38}
    # At block 20,000,000 (May 2024) DAI's feed is the one payload 80 set at block 19,461,331.
    assert [r["object"] for r in rows if r["subject"] == DAI_RESERVE and r["type"] == "ORACLE_DEPENDENCY"] == [
        "1:0xaeb897e1dc6bbdced3b9d551c71a8cf172f27ac4"]
    # Each pool has one addresses provider and one collector.
    pools = [r["subject"] for r in rows if r["type"] == "DEPLOYED_BY"]
    assert len(set(pools)) == 38 and sorted(pools) == sorted(r["subject"] for r in rows if r["type"] == "TOKEN_FLOW")


EXPECTATIONS = {name: globals()[f"_expect_{name}"] for name in QUESTIONS}


@pytest.mark.parametrize("name", QUESTIONS)
def test_the_cypher_files_run_as_is_with_their_example_parameters(aave: Database, name: str) -> None:
    """What a person pastes into Neo4j Browser: the file's own :param lines, then the statement;
    each answers what the loaded data (and, where it can be, the raw data) says it should."""
    import re

    from grimoire.graph.db import cypher
    from grimoire.graph.db.cypher import cypher_dir

    text = (cypher_dir() / "topology" / f"{name}.cypher").read_text()
    params = {}
    with aave.session() as s:
        for key, expr in re.findall(r"^:param (\w+) => (.*);$", text, re.M):
            params[key] = s.run(f"RETURN {expr} AS v").single()["v"]
        rows = s.run(cypher.query(f"topology/{name}"), params).data()
    assert rows, name
    EXPECTATIONS[name](aave, rows, params)
