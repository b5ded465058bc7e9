"""Load the Aave world into the topology: every market of the address book, the Chainlink feeds,
governance v3 (contracts, and executed Ethereum payloads as episodes at their real blocks), and the
address-book history replayed in commit order so each replacement closes the fact it replaces.

Mapping (subject -predicate-> object):
  Pool -OracleDependency-> AaveOracle            Reserve -OracleDependency-> price feed (exclusive)
  Pool -CollateralBacking-> Reserve              Reserve -Custom:Underlying / AToken /
  Pool -TokenFlow-> Collector                        VariableDebtToken / InterestRateStrategy-> ...
  Pool -DeployedBy-> PoolAddressesProvider       Reserve -PriceCorrelation-> Reserve (same eMode)
  PoolConfigurator -GovernanceControl-> Pool     ACL admin -GovernanceControl-> configurator, oracle,
  PayloadsController -GovernanceControl-> executors   ACL manager, collector
Facts read from the current address book whose start is unknown are valid from block 0, marked
approximate. Re-running changes nothing: every id is derived from the source.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path

from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.episodes import ingest
from grimoire.graph.model.crystal.privacy import MemoryScope
from grimoire.graph.model.enums import EntityKind, EpisodeType, Predicate, Scope
from grimoire.graph.model.episode import EpisodeIn
from grimoire.graph.topology import entities as entity_ops
from grimoire.graph.topology import facts as fact_ops
from grimoire.graph.topology.facts import FactNotFound, Owner
from grimoire.graph.topology.freshness import FactConfig
from grimoire.graph.topology.model import EntityIn, FactIn
from grimoire.loaders.aave.address_book import RESERVE_FIELDS, SourceFile, chain_ids, read_all
from grimoire.loaders.aave.timeline import BlockClock, ExecutionMatcher, executions

AGENT = "loader-aave"
OWNER = Owner(AGENT, world=True)  # the loader's facts are world facts (graph/topology/facts.py)
CUSTOM_FIELD = {"UNDERLYING": "Underlying", "A_TOKEN": "AToken", "V_TOKEN": "VariableDebtToken",
                "INTEREST_RATE_STRATEGY": "InterestRateStrategy"}
FIELD_KIND = {"UNDERLYING": EntityKind.Token, "A_TOKEN": EntityKind.Token, "V_TOKEN": EntityKind.Token,
              "INTEREST_RATE_STRATEGY": EntityKind.Contract, "ORACLE": EntityKind.Oracle}
Progress = Callable[[Iterable, str, int], Iterable]


def _progress(items: Iterable, desc: str, total: int) -> Iterable:
    from tqdm import tqdm

    return tqdm(items, desc=desc, total=total, unit="row", leave=False)


def _fid(*parts: object) -> str:
    return "aave-" + hashlib.sha1("|".join(map(str, parts)).encode()).hexdigest()[:24]


def chain_entity(kind: EntityKind, chain: int, address: str, name: str | None = None,
                 symbol: str | None = None) -> EntityIn:
    return EntityIn(kind=kind, chain_id=chain, address=address, name=name, symbol=symbol)


def reserve_entity(market: str, symbol: str) -> EntityIn:
    return EntityIn(kind=EntityKind.Reserve, name=f"{market} {symbol}", symbol=symbol)


@dataclass
class Step:
    """One history change: facts to assert at a recorded time, or a fact to invalidate."""

    at: int                                   # recorded time, ms
    facts: list[FactIn] = field(default_factory=list)
    invalidate: tuple[str, int] | None = None  # (fact id, block)


@dataclass
class Plan:
    entities: dict[str, EntityIn] = field(default_factory=dict)
    facts: list[FactIn] = field(default_factory=list)   # current address book, recorded now
    history: list[Step] = field(default_factory=list)
    episodes: list[EpisodeIn] = field(default_factory=list)
    notes: Counter = field(default_factory=Counter)

    def add(self, e: EntityIn) -> str:
        self.entities.setdefault(e.canonical_id, e)
        return e.canonical_id

    def fact(self, subject: str, predicate: Predicate, obj: str, *, key: tuple, name: str | None = None,
             exclusive: bool | None = None, valid_from: int = 0, approximate: bool = True,
             source: str = "aave address book (start unknown)") -> FactIn:
        return FactIn(id=_fid(*key), subject=subject, predicate=predicate, name=name, object=obj,
                      exclusive=exclusive, valid_from=valid_from, approximate=approximate,
                      valid_from_source=source[:200], scope=Scope.public)


def _market_facts(plan: Plan, src: SourceFile, covered: set[tuple[str, str, str]]) -> None:
    chain, c, m = src.chain_id, src.constants, src.name
    assert chain is not None
    pool = plan.add(chain_entity(EntityKind.Pool, chain, c["POOL"], f"{m} Pool"))
    roles = {"POOL_CONFIGURATOR": (EntityKind.Contract, "PoolConfigurator"),
             "ORACLE": (EntityKind.Oracle, "AaveOracle"), "ACL_ADMIN": (EntityKind.Governance, "ACL admin"),
             "ACL_MANAGER": (EntityKind.Contract, "ACLManager"), "COLLECTOR": (EntityKind.Contract, "Collector"),
             "POOL_ADDRESSES_PROVIDER": (EntityKind.Contract, "PoolAddressesProvider")}
    ids = {k: plan.add(chain_entity(kind, chain, c[k], f"{m} {label}")) for k, (kind, label) in roles.items()
           if k in c}
    links = [(pool, Predicate.OracleDependency, "ORACLE"), (pool, Predicate.TokenFlow, "COLLECTOR"),
             (pool, Predicate.DeployedBy, "POOL_ADDRESSES_PROVIDER")]
    for subject, pred, role in links:
        if role in ids:
            plan.facts.append(plan.fact(subject, pred, ids[role], key=(m, pred, role)))
    if "POOL_CONFIGURATOR" in ids:
        plan.facts.append(plan.fact(ids["POOL_CONFIGURATOR"], Predicate.GovernanceControl, pool,
                                    key=(m, "configurator", "pool")))
    if "ACL_ADMIN" in ids:
        for role in ("POOL_CONFIGURATOR", "ORACLE", "ACL_MANAGER", "COLLECTOR"):
            if role in ids:
                plan.facts.append(plan.fact(ids["ACL_ADMIN"], Predicate.GovernanceControl, ids[role],
                                            key=(m, "acl_admin", role)))
    by_underlying: dict[str, str] = {}
    for r in src.reserves:
        reserve = plan.add(reserve_entity(m, r.symbol))
        plan.facts.append(plan.fact(pool, Predicate.CollateralBacking, reserve, key=(m, r.symbol, "backing")))
        if "UNDERLYING" in r.addresses:
            by_underlying[r.addresses["UNDERLYING"].lower()] = reserve
        for fld in RESERVE_FIELDS:
            if fld not in r.addresses:
                continue
            target = plan.add(_field_entity(fld, chain, r.addresses[fld], m, r.symbol))
            if (m, r.symbol, fld) in covered:
                continue  # the history replays this one with its real times
            pred, name = ((Predicate.OracleDependency, None) if fld == "ORACLE"
                          else (Predicate.Custom, CUSTOM_FIELD[fld]))
            plan.facts.append(plan.fact(reserve, pred, target, name=name, exclusive=True,
                                        key=(m, r.symbol, fld, r.addresses[fld].lower())))
    for mode in src.emodes:
        members = sorted({by_underlying[a.lower()] for a in mode.assets if a.lower() in by_underlying})
        for a, b in combinations(members, 2):
            plan.facts.append(plan.fact(a, Predicate.PriceCorrelation, b, key=(m, "emode", mode.id, a, b),
                                        source=f"aave address book eMode {mode.id} ({mode.label})"))


def _field_entity(fld: str, chain: int, address: str, market: str, symbol: str) -> EntityIn:
    if fld == "UNDERLYING":
        return chain_entity(EntityKind.Token, chain, address, symbol, symbol)
    if fld == "A_TOKEN":
        return chain_entity(EntityKind.Token, chain, address, f"{market} a{symbol}")
    if fld == "V_TOKEN":
        return chain_entity(EntityKind.Token, chain, address, f"{market} variableDebt{symbol}")
    if fld == "ORACLE":
        return chain_entity(EntityKind.Oracle, chain, address, f"{symbol} price feed")
    return chain_entity(EntityKind.Contract, chain, address, f"{market} {symbol} InterestRateStrategy")


def _feeds(plan: Plan, files: list[SourceFile], chains: dict[str, int]) -> None:
    for src in files:
        if not src.name.startswith("Chainlink"):
            continue
        chain = chains.get(src.name.removeprefix("Chainlink"))
        if chain is None:
            plan.notes["chainlink files without a known chain id"] += 1
            continue
        for name, address in src.constants.items():
            plan.add(chain_entity(EntityKind.Oracle, chain, address, f"Chainlink {name.replace('__', ' / ')}"))


def _governance(plan: Plan, files: list[SourceFile], gov_folder: Path) -> None:
    for src in files:
        if not src.name.startswith("GovernanceV3") or src.chain_id is None:
            continue
        c, chain = src.constants, src.chain_id
        ids = {k: plan.add(chain_entity(EntityKind.Governance, chain, v, f"{src.name} {k}"))
               for k, v in c.items() if k in ("GOVERNANCE", "PAYLOADS_CONTROLLER", "EXECUTOR_LVL_1", "EXECUTOR_LVL_2")}
        if "PAYLOADS_CONTROLLER" in ids:
            for lvl in ("EXECUTOR_LVL_1", "EXECUTOR_LVL_2"):
                if lvl in ids:
                    plan.facts.append(plan.fact(ids["PAYLOADS_CONTROLLER"], Predicate.GovernanceControl, ids[lvl],
                                                key=(src.name, "controller", lvl)))
        if "GOVERNANCE" in ids and "PAYLOADS_CONTROLLER" in ids:
            plan.facts.append(plan.fact(ids["GOVERNANCE"], Predicate.GovernanceControl, ids["PAYLOADS_CONTROLLER"],
                                        key=(src.name, "governance", "controller")))
    for ex in executions(gov_folder):
        when = datetime.fromtimestamp(ex.executed_at, UTC)
        mentions = [{"kind": "Governance", "chain_id": 1, "address": ex.controller}]
        mentions += [{"kind": "Contract", "chain_id": 1, "address": t} for t in dict.fromkeys(ex.targets)]
        plan.episodes.append(EpisodeIn(
            id=f"aave-gov-1-payload-{ex.payload_id}", agent_id=AGENT, scope=Scope.public, type=EpisodeType.action,
            text=(f"Aave governance v3 payload {ex.payload_id} executed on Ethereum at block {ex.block} "
                  f"({when:%Y-%m-%d %H:%M} UTC): {len(ex.targets)} action(s), "
                  + "; ".join(f"{s} on {t}" for s, t in zip(ex.signatures, ex.targets, strict=False))),
            chain="1", block=ex.block, valid_from=when, tool="aave-governance-v3", mentions=mentions))


def _history(plan: Plan, records: list[dict], markets: dict[str, SourceFile], clock: BlockClock,
             matcher: ExecutionMatcher) -> set[tuple[str, str, str]]:
    covered: set[tuple[str, str, str]] = set()
    current: dict[tuple[str, str, str], str] = {}  # what the replay holds: (market, asset, field) -> fact id
    for rec in sorted(records, key=lambda r: (r["committed_at"], r["market"], r["asset"], r["field"])):
        src = markets.get(rec["market"])
        if src is None or src.chain_id is None:
            plan.notes["history records of markets not in the address book"] += 1
            continue
        chain = src.chain_id
        if not clock.covers(chain):
            plan.notes[f"history records not replayed: no blocktime table for chain {chain}"] += 1
            continue
        key = (rec["market"], rec["asset"], rec["field"])
        covered.add(key)
        execution = matcher.before(chain, rec["committed_at"])
        if execution is not None:
            block, approximate = execution.block, False
            source = f"governance v3 payload {execution.payload_id} executed at block {execution.block}"
        else:
            block, approximate = clock.block_at(chain, rec["committed_at"]), True
            source = f"blocktime table at commit {rec['commit'][:10]}"
        at = rec["committed_at"] * 1000
        reserve = plan.add(reserve_entity(rec["market"], rec["asset"]))
        if rec["new"] is None:
            if key in current:
                plan.history.append(Step(at, invalidate=(current.pop(key), block)))
            continue
        target = plan.add(_field_entity(rec["field"], chain, rec["new"], rec["market"], rec["asset"]))
        pred, name = ((Predicate.OracleDependency, None) if rec["field"] == "ORACLE"
                      else (Predicate.Custom, CUSTOM_FIELD[rec["field"]]))
        fact = plan.fact(reserve, pred, target, name=name, exclusive=True, valid_from=block, approximate=approximate,
                         source=f"address-book commit {rec['commit'][:10]}; {source}",
                         key=("history", rec["market"], rec["asset"], rec["field"], rec["commit"], rec["new"].lower()))
        current[key] = fact.id  # type: ignore[assignment]
        plan.history.append(Step(at, facts=[fact]))
    return covered


def build_plan(data: Path) -> Plan:
    defi = data / "defi" if (data / "defi").exists() else data
    files = read_all(defi / "aave-address-book" / "src" / "ts")
    chains = chain_ids(files)
    markets = {f.name: f for f in files if f.reserves and "POOL" in f.constants and f.chain_id is not None}
    plan = Plan()
    _feeds(plan, files, chains)  # first, so feeds keep their Chainlink names
    clock = BlockClock(defi / "blocktime")
    matcher = ExecutionMatcher(1, executions(defi / "aave-governance" / "1"))
    records = json.loads((defi / "aave-address-book-history.json").read_text())
    covered = _history(plan, records, markets, clock, matcher)
    for src in markets.values():
        _market_facts(plan, src, covered)
    _governance(plan, files, defi / "aave-governance" / "1")
    return plan


@dataclass
class LoadReport:
    entities: int = 0
    facts_created: int = 0
    facts_unchanged: int = 0
    facts_closed: int = 0
    invalidated: int = 0
    episodes_created: int = 0
    notes: dict[str, int] = field(default_factory=dict)


def load(db: Database, embedder: Embedder, data: Path, *, freshness: FactConfig,
         progress: Progress = _progress, batch: int = 1_000) -> LoadReport:
    """`freshness`: the service's fact settings (settings.facts), so the loader closes what the service's own
    assertions would: its `multi_valued` predicates hold many objects at once, every other one closes the
    subject's active fact with another object."""
    plan = build_plan(data)
    report = LoadReport(notes=dict(plan.notes))
    ents = list(plan.entities.values())
    for start in progress(range(0, len(ents), batch), "entities", (len(ents) + batch - 1) // batch):
        entity_ops.upsert(db, ents[start:start + batch], actor=AGENT, public=True)  # public data: public
    report.entities = len(ents)

    def asserted(res: fact_ops.AssertResult) -> None:
        if res.missing_entities:
            raise RuntimeError(f"facts refer to unknown entities: {res.missing_entities[:5]}")
        report.facts_created += len(res.created)
        report.facts_unchanged += len(res.unchanged)
        report.facts_closed += res.closed

    # The history in commit order: runs of asserts in one call, each invalidation on its own.
    pending: list[tuple[FactIn, int]] = []

    def flush() -> None:
        if pending:
            asserted(fact_ops.assert_facts(db, [f for f, _ in pending], owner=OWNER, actor=AGENT,
                                           recorded_at=[t for _, t in pending], freshness=freshness))
            pending.clear()

    for step in progress(plan.history, "history", len(plan.history)):
        if step.invalidate is None:
            pending.extend((f, step.at) for f in step.facts)
            if len(pending) >= batch:
                flush()
            continue
        flush()
        try:
            fact_ops.invalidate(db, step.invalidate[0], step.invalidate[1], actor=AGENT, agent_id=AGENT, now=step.at)
            report.invalidated += 1
        except FactNotFound:
            pass  # already invalidated by an earlier run
    flush()
    for start in progress(range(0, len(plan.facts), batch), "address book", (len(plan.facts) + batch - 1) // batch):
        asserted(fact_ops.assert_facts(db, plan.facts[start:start + batch], owner=OWNER, actor=AGENT,
                                       freshness=freshness))
    if plan.episodes:
        # the chain's public record (governance payloads executed), not an agent's autobiographical memory: public
        # as written, for every agent's topology reads
        result = ingest(db, embedder, plan.episodes, actor=AGENT, memory_scope=MemoryScope.as_written)
        report.episodes_created = len(result.created)
    return report
