"""The Admission Gate's two ways to find a candidate's neighbours (graph/knowledge/neighbours.py): a
vector-index query per candidate and one scan of what the owner sees. Same neighbours, same
similarities and confidences, the same visibility partition; the gate picks the scan for a large batch."""

from __future__ import annotations

import numpy as np
import pytest

from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.ids import now_ms
from grimoire.graph.knowledge import neighbours
from grimoire.graph.knowledge.admission import AdmissionConfig
from grimoire.graph.knowledge.entries import Knowledge, admit
from grimoire.graph.model.entry import EntryIn
from grimoire.graph.model.enums import EntryCategory, Scope
from grimoire.graph.visibility import Visibility

TOPICS = ["gas on Ethereum mainnet", "Aave health factor", "Uniswap v3 ranges", "stablecoin depegs",
          "oracle lag on Arbitrum", "bridge delays to Base"]
ADVICE = ["spikes during CPI releases", "falls below 10 gwei at night", "needs a buffer above 1.5",
          "narrow ranges earn more fees in calm markets", "widen when volatility rises", "exit before weekends"]


def _corpus() -> list[EntryIn]:
    out = []
    for i, topic in enumerate(TOPICS):
        for j, advice in enumerate(ADVICE):
            n = i * len(ADVICE) + j  # every owner with every scope
            owner = ["golem-1", "golem-2", "golem-3"][n % 3]
            scope = [Scope.private, Scope.shared, Scope.public][(n // 3) % 3]
            out.append(EntryIn(id=f"n-{i}-{j}", agent_id=owner, scope=scope, category=EntryCategory.Insight,
                               content=f"{topic} {advice}"))
    return out


@pytest.fixture
def stored(db: Database, embedder: Embedder) -> list[EntryIn]:
    # The corpus is the neighbours the two searches must agree on; its advice is generic on purpose (most of it
    # has the rule-based future utility 0.3, which the gate's default rejects), so it is stored with a failing
    # factor only flagged and the composite bands deciding (GRIMOIRE_ADMISSION per_factor flag).
    k = Knowledge(db=db, embedder=embedder, admission=AdmissionConfig(per_factor="flag"))
    corpus, written = _corpus(), []
    for owner, clade in (("golem-1", "clade-a"), ("golem-2", "clade-a"), ("golem-3", "clade-b")):
        mine = [e for e in corpus if e.agent_id == owner]
        decisions = admit(k, mine, actor="test", clade=clade, merge=False)
        written += [e for e, d in zip(mine, decisions, strict=True) if d.result.writes_entry]
    assert len(written) >= 30  # the gate turns a few near-repeats down
    return written


def _questions(embedder: Embedder) -> np.ndarray:
    texts = [f"{t} {a} again" for t in TOPICS for a in ADVICE[::2]] + ["liquidations", "weekend gas"]
    return embedder.embed(texts)


def test_the_scan_finds_what_the_index_finds(db: Database, embedder: Embedder, stored: list[EntryIn]) -> None:
    asked = neighbours.Asked(Visibility.of("golem-1", "clade-a"), now_ms(), 0.05)
    vectors = _questions(embedder)
    by_index = neighbours.IndexSearch(db).nearest(asked, vectors)
    by_scan = neighbours.Scan(db).nearest(asked, vectors)
    assert len(by_index) == len(by_scan) == len(vectors)
    for a, b in zip(by_index, by_scan, strict=True):
        assert len(a) == len(b) == neighbours.NEIGHBOURS
        assert [n.id for n in a] == [n.id for n in b]
        for x, y in zip(a, b, strict=True):
            assert x.similarity == pytest.approx(y.similarity, abs=1e-4)
            assert x.effective_confidence == pytest.approx(y.effective_confidence, abs=1e-6)
            assert x.content == y.content


def test_both_keep_to_what_the_owner_sees(db: Database, embedder: Embedder, stored: list[EntryIn]) -> None:
    by_id = {e.id: e for e in stored}
    view = Visibility.of("golem-1", "clade-a")
    visible = {e.id for e in stored if view.sees({"agent_id": e.agent_id, "scope": e.scope.value,
                                                  "clade": {"golem-3": "clade-b"}.get(e.agent_id, "clade-a")})}
    assert 0 < len(visible) < len(stored)
    asked = neighbours.Asked(view, now_ms(), 0.05)
    vectors = _questions(embedder)
    for search in (neighbours.IndexSearch(db), neighbours.Scan(db)):
        found = {n.id for row in search.nearest(asked, vectors) for n in row}
        assert found <= visible, (search.name, sorted(found - visible))
        # golem-2's private entries and golem-3's shared ones (another clade) never come back
        assert not any(by_id[i].agent_id == "golem-2" and by_id[i].scope == Scope.private for i in found)
        assert not any(by_id[i].agent_id == "golem-3" and by_id[i].scope == Scope.shared for i in found)


def test_a_large_batch_is_scanned_a_small_one_queried(db: Database, embedder: Embedder,
                                                       stored: list[EntryIn]) -> None:
    asked = neighbours.Asked(Visibility.of("golem-1", "clade-a"), now_ms(), 0.05)
    assert isinstance(neighbours._strategy(db, asked, neighbours.MIN_SCAN - 1), neighbours.IndexSearch)
    assert isinstance(neighbours._strategy(db, asked, neighbours.MIN_SCAN), neighbours.Scan)


def test_the_gate_decides_the_same_either_way(db: Database, embedder: Embedder, stored: list[EntryIn],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    k = Knowledge(db=db, embedder=embedder)
    # Paraphrases (merged), repeats (rejected as duplicates) and new lessons, 60 of them: the scan's size.
    candidates = [EntryIn(id=f"c-{i}", agent_id="golem-1", category=EntryCategory.Insight,
                          content=[f"{TOPICS[i % 6]} {ADVICE[i % 6]}", f"{TOPICS[i % 6]} {ADVICE[i % 6]} (seen again)",
                                   f"lesson {i}: {TOPICS[i % 6]} after {ADVICE[(i + 1) % 6]}"][i % 3])
                  for i in range(60)]
    # A paraphrase of golem-1's own private entry: the one a candidate of its may merge into (issue 36: a
    # candidate merges only into an entry of its owner and scope; the others' paraphrases are weighed, not merged).
    candidates.append(EntryIn(id="c-own", agent_id="golem-1", category=EntryCategory.Insight,
                              content="Ethereum mainnet gas spikes whenever CPI data is released"))  # cosine 0.94
    scanned = admit(k, candidates, actor="test", clade="clade-a", dry_run=True)
    monkeypatch.setattr(neighbours, "MIN_SCAN", 10_000)
    queried = admit(k, candidates, actor="test", clade="clade-a", dry_run=True)
    outcomes = [d.result.outcome.value for d in scanned]
    assert outcomes == [d.result.outcome.value for d in queried]
    assert [d.result.target_id for d in scanned] == [d.result.target_id for d in queried]
    # the batch exercises the gate's kinds of answer, each found from neighbours
    assert {"skipped", "merged", "rejected"} <= set(outcomes) and any(o.startswith("admitted") for o in outcomes)
    own = {e.id for e in stored if e.agent_id == "golem-1" and e.scope == Scope.private}
    assert {d.result.target_id for d in scanned if d.result.outcome.value == "merged"} <= own
