"""A scripted agent life through the learning loop: hundreds of episodes over 400 ticks with outcomes,
a regime change that contradicts an earlier lesson, predictions and their verification, and several
Curator cycles — with exactly which entries each cycle adds, votes on, promotes, edits, demotes,
archives and compresses, and the rendered PLAYBOOK.md."""

from __future__ import annotations

from typing import Any

import pytest

from grimoire.graph.ids import now_ms

AGENT, CLADE = "golem-life", "clade-life"
HOUR = 3_600_000
DAY = 24 * HOUR


class Life:
    def __init__(self, api) -> None:
        self.api = api
        self.h = api.headers(AGENT, CLADE)
        self.curator = api.client.app.state.services.curator
        # The life's expected operations were written with a failing factor only flagged (GRIMOIRE_ADMISSION
        # per_factor flag); test_the_default_gate_writes_a_cycles_use_and_avoid_lessons shows the default.
        self.curator.learning.knowledge.admission.per_factor = "flag"
        self.start = now_ms()
        self.n = 0

    def episodes(self, ticks: range, tool: str | None, pair: str | None, regime: str, outcomes: str,
                 **extra: Any) -> list[str]:
        """`outcomes`: one letter per episode, + positive, - negative, . neutral; ticks spread over `ticks`."""
        body, ids = [], []
        step = max(1, len(ticks) // max(1, len(outcomes)))
        for i, o in enumerate(outcomes):
            self.n += 1
            tick = ticks.start + i * step
            outcome = {"+": "positive", "-": "negative", ".": "neutral"}[o]
            verb = {"+": "filled with a gain", "-": "lost money", ".": "observed"}[o]
            text = (f"{tool or 'market'} on {pair or 'the market'} at tick {tick} in a {regime} market: "
                    f"the action {verb}")
            ep = {"id": f"ep-{self.n:04d}", "type": "action" if tool else "observation", "text": text,
                  "tool": tool, "chain": "1", "token_pair": pair, "tick": tick, "regime": regime,
                  "outcome": outcome, "gain": {"+": 10.0, "-": -8.0, ".": 0.0}[o], **extra}
            body.append({k: v for k, v in ep.items() if v is not None})
            ids.append(ep["id"])
        r = self.api.client.post("/episodes/batch", headers=self.h, json={"episodes": body})
        assert r.status_code == 201, r.text
        return ids

    def cycle(self, hours: float) -> dict[str, Any]:
        report = self.curator.run(AGENT, clade=CLADE, actor="test", now=self.start + int(hours * HOUR))
        assert report.status == "complete"
        return self.ops(report.cycle["id"])

    def ops(self, cycle_id: str) -> dict[str, Any]:
        r = self.api.client.get(f"/curator/cycles/{cycle_id}/operations", headers=self.h)
        assert r.status_code == 200, r.text
        by: dict[str, list[dict[str, Any]]] = {}
        for op in r.json():
            by.setdefault(op["op"], []).append(op)
        return by

    def entry(self, entry_id: str) -> dict[str, Any]:
        r = self.api.client.get(f"/entries/{entry_id}", headers=self.h, params={"include_archived": True})
        assert r.status_code == 200, r.text
        return r.json()

    def playbook(self) -> str:
        r = self.api.client.get("/playbook", headers=self.h)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/markdown")
        return r.text


def _one(ops: dict[str, Any], kind: str, **match: Any) -> dict[str, Any]:
    found = [op for op in ops.get(kind, []) if all(op.get(k) == v or op["detail"].get(k) == v
                                                   for k, v in match.items())]
    assert len(found) == 1, (kind, match, ops.get(kind))
    return found[0]


def _entries_of(ops: dict[str, Any], kind: str) -> set[str]:
    return {op["entry_id"] for op in ops.get(kind, [])}


@pytest.fixture
def life(api) -> Life:
    return Life(api)


def test_the_documents_pruning_quality_archives_a_lesson_contradicted_not_one_untested(life: Life, api, db) -> None:
    """grimoire.md:1444, the default rule: quality = confidence x validated / (validated + contradicted + 1). A lesson
    no outcome has tested yet has no verdict and is kept (the formula would give every lesson 0 at birth); once an
    outcome contradicts it, it scores 0 and, read fewer than twice, the next cycle's DECAY prunes it; a warning
    never is."""
    life.episodes(range(1, 50), "uniswap-swap", "WETH/USDC", "bull", "+++++-++++")
    life.episodes(range(1, 50), "aave-supply", "USDC", "bull", "-----")
    c1 = life.cycle(1)
    heuristic, warning = (_one(c1, "ADD", lesson_key=k)["entry_id"]
                          for k in ("uniswap-swap|1|WETH/USDC", "aave-supply|1|USDC"))
    assert "PRUNE" not in c1 and life.entry(heuristic)["status"] == "candidate"
    for entry in (heuristic, warning):
        r = api.client.post(f"/entries/{entry}/downvote", headers=life.h)
        assert r.status_code == 200, r.text
    life.episodes(range(51, 100), "curve-swap", "USDC/DAI", "bull", "++")  # ticks for the next cycle to run on
    c2 = life.cycle(2)
    prune = _one(c2, "PRUNE", entry_id=heuristic)
    assert "quality 0.000 < 0.05" in prune["reason"]
    assert life.entry(heuristic)["status"] == "archived" and life.entry(warning)["status"] == "active"
    assert warning not in _entries_of(c2, "PRUNE")


def test_the_default_gate_writes_a_cycles_use_and_avoid_lessons(life: Life, api) -> None:
    """The default gate (per_factor reject): the cycle's two lessons share a template ("Use uniswap-swap for
    WETH/USDC ...", "Avoid aave-supply for USDC ...", cosine 0.66) but not a subject, so neither contradicts the
    other (the rule-based Reasoner's same_subject) and both are written; a contradiction would have cut the second's
    factual confidence to 0.3, which the document's "> 0.3" rejects."""
    life.curator.learning.knowledge.admission.per_factor = "reject"
    life.episodes(range(1, 50), "uniswap-swap", "WETH/USDC", "bull", "+++++-++++")
    life.episodes(range(1, 50), "aave-supply", "USDC", "bull", "-----")
    c1 = life.cycle(1)
    written = [op["entry_id"] for op in c1["ADD"] if op.get("entry_id")]
    assert len(c1["ADD"]) == 2 and len(written) == 2
    assert {life.entry(e)["category"] for e in written} == {"Heuristic", "Warning"}


def test_a_life_through_several_cycles(life: Life, api, db, monkeypatch) -> None:
    # This life follows lessons through votes over cycles: it prunes on the stored quality_score (prune_rule
    # artifact), as it was written against; the document's rule is the test above's.
    monkeypatch.setattr(life.curator.learning.config, "prune_rule", "artifact")
    swap, aave, curve = "uniswap-swap|1|WETH/USDC", "aave-supply|1|USDC", "curve-swap|1|USDC/DAI"
    # Ticks 1-50, a bull market: swaps mostly go well, Aave supplies lose money.
    life.episodes(range(1, 50), "uniswap-swap", "WETH/USDC", "bull", "+++++-++++")
    life.episodes(range(1, 50), "aave-supply", "USDC", "bull", "-----")
    life.episodes(range(1, 50), "curve-swap", "USDC/DAI", "bull", "++")          # too few to teach
    c1 = life.cycle(1)
    heuristic = _one(c1, "ADD", lesson_key=swap)
    warning = _one(c1, "ADD", lesson_key=aave)
    assert heuristic["category"] == "Heuristic" and warning["category"] == "Warning"
    assert set(c1) == {"ADD", "COMPRESS", "PROMOTE", "PROPAGATE"}, sorted(c1)
    assert {op["detail"]["lesson_key"] for op in c1["COMPRESS"]} == {swap, aave}
    h, w = heuristic["entry_id"], warning["entry_id"]
    got = life.entry(h)
    assert got["content"] == "Use uniswap-swap for WETH/USDC on chain 1: 9 of 10 outcomes positive, mean gain +8.2."
    assert got["confidence"] == 0.5 and got["status"] == "candidate" and got["evidence_regime"] == "bull"
    assert len(got["parent_episode_ids"]) == 10
    # A warning is active at once and offered to the clade, its scope unchanged (only its owner widens it);
    # the heuristic waits for 0.7.
    assert _entries_of(c1, "PROMOTE") == {w} and _entries_of(c1, "PROPAGATE") == {w}
    assert c1["PROPAGATE"][0]["detail"] == {"proposed": True, "scope": "shared"}
    assert life.entry(w)["scope"] == "private" and life.entry(w)["status"] == "active"
    mate = api.headers("golem-life-mate", CLADE)
    assert api.client.get(f"/entries/{w}", headers=mate).status_code == 404
    summary = _one(c1, "COMPRESS", lesson_key=swap)
    s = life.entry(summary["entry_id"])
    assert s["level"] == 1 and s["confidence"] == pytest.approx(0.6 * 0.9) and s["category"] == "Insight"
    assert len(s["parent_episode_ids"]) == 10
    # The two curve swaps wait, unconsolidated, for company; the others are consolidated.
    assert life.api.client.get("/episodes/ep-0016", headers=life.h).json()["consolidated"] is False
    assert life.api.client.get("/episodes/ep-0001", headers=life.h).json()["consolidated"] is True

    # Ticks 51-100: swaps keep going well (an upvote); two more curve swaps make a cluster of four.
    life.episodes(range(51, 100), "uniswap-swap", "WETH/USDC", "bull", "+++++-")
    life.episodes(range(51, 100), "curve-swap", "USDC/DAI", "bull", "++")
    c2 = life.cycle(2)
    assert _entries_of(c2, "UPVOTE") == {h} and _one(c2, "NET", entry_id=h)["after_confidence"] == 0.6
    curve_h = _one(c2, "ADD", lesson_key=curve)["entry_id"]
    assert "PROMOTE" not in c2 or h not in _entries_of(c2, "PROMOTE")

    # Ticks 101-150: more good swaps; four predictions informed by the curve heuristic come back:
    # three right with good outcomes, one wrong with a bad one (Reflexion: 3 up and 1 down).
    life.episodes(range(101, 150), "uniswap-swap", "WETH/USDC", "bull", "++++")
    for i, (expected, actual, outcome) in enumerate([(20, 25, "+"), (20, 10, "+"), (30, 40, "+"), (20, -60, "-")]):
        life.episodes(range(110 + i, 111 + i), f"probe-{i}", "USDC/DAI", "bull", outcome,
                      prediction={"expected": expected, "actual": actual, "tolerance": 50, "informed_by": [curve_h]})
    reflections = db.fetch("testing/reflections", agent_id=AGENT)
    assert [r["verdict"] for r in reflections] == ["correct", "correct", "correct", "wrong"]
    c3 = life.cycle(3)
    assert _one(c3, "NET", entry_id=h)["after_confidence"] == 0.7
    net = _one(c3, "NET", entry_id=curve_h)
    assert net["detail"]["ups"] == 3 and net["detail"]["downs"] == 1 and net["detail"]["net"] == 2
    assert net["after_confidence"] == pytest.approx(0.7)
    assert _entries_of(c3, "PROMOTE") >= {h, curve_h}
    validate = _one(c3, "VALIDATE", entry_id=curve_h)
    assert validate["detail"]["net"] == 2 and validate["after_confidence"] == pytest.approx(0.7 * 1.05 ** 2)
    assert life.entry(h)["in_playbook"] is True and life.entry(h)["status"] == "active"
    text = life.playbook()
    assert text.index("Use curve-swap") < text.index("Use uniswap-swap")  # by confidence: 0.77 before 0.70
    assert "## Global" in text and "### Warnings" in text and "Avoid aave-supply" in text
    assert life.playbook() == text  # stable: the same graph, the same bytes

    # Ticks 151-200: the regime turns bear and swaps lose money — a lesson learnt in a bull market
    # is contradicted: it is refined to hold in bull regimes, and the opposite lesson is added for bear.
    life.episodes(range(151, 200), "uniswap-swap", "WETH/USDC", "bear", "-+----")
    c4 = life.cycle(4)
    edit = _one(c4, "EDIT", entry_id=h)
    assert edit["detail"]["market_regime"] == "bull"
    bear = _one(c4, "ADD", lesson_key=swap)
    assert bear["category"] == "Warning" and "DOWNVOTE" not in c4
    edited = life.entry(h)
    assert edited["market_regime"] == "bull" and edited["revision"] == 2 and edited["confidence"] == 0.7
    assert edited["content"].endswith("(holds in bull regimes).")
    versions = api.client.get(f"/entries/{h}/versions", headers=life.h).json()
    assert [v["revision"] for v in versions] == [1] and versions[0]["content"] == got["content"]
    assert life.entry(bear["entry_id"])["market_regime"] == "bear"

    # Ticks 201-250: back in a bull market the swaps now fail too: the (bull) lesson is downvoted by its
    # cluster, and by two decisions it informed that went wrong; it falls under 0.4 and leaves the playbook.
    life.episodes(range(201, 250), "uniswap-swap", "WETH/USDC", "bull", "----")
    for i in range(2):
        life.episodes(range(230 + i, 231 + i), f"probe-h{i}", "WETH/USDC", "bull", "-",
                      prediction={"expected": 30, "actual": -40, "tolerance": 50, "informed_by": [h]})
    c5 = life.cycle(5)
    assert _entries_of(c5, "DOWNVOTE") == {h}
    net = _one(c5, "NET", entry_id=h)
    assert (net["detail"]["ups"], net["detail"]["downs"]) == (0, 3)
    assert net["after_confidence"] == pytest.approx(0.7 - 3 * 0.15)
    assert _one(c5, "DEMOTE", entry_id=h)
    after = life.entry(h)
    assert after["status"] == "candidate" and after["in_playbook"] is False
    assert after["confidence"] == pytest.approx((0.7 - 0.45) * 0.9 ** 2)
    assert "Use uniswap-swap" not in life.playbook()

    # Weeks later, with a little new experience each time: what nothing reinforces falls under 0.1; after
    # three cycles in a row it is archived — but never a warning.
    for k, hours in enumerate((60 * 24, 61 * 24, 62 * 24)):
        life.episodes(range(300 + 10 * k, 309 + 10 * k), "gmx-perp", "ETH/USD", "sideways", ".")
        ck = life.cycle(hours)
    assert h in _entries_of(ck, "ARCHIVE") and life.entry(h)["status"] == "archived"
    assert w not in _entries_of(ck, "ARCHIVE") and life.entry(w)["status"] == "active"
    assert life.entry(w)["consecutive_low_confidence"] == 3

    cycles = api.client.get("/curator/cycles", headers=life.h).json()
    assert [c["seq"] for c in cycles] == [8, 7, 6, 5, 4, 3, 2, 1] and all(c["status"] == "complete" for c in cycles)
    events = api.client.get("/events", headers=life.h, params={"type": "CuratorCycleComplete"}).json()
    assert len(events) == 8
    first = events[0]["payload"]
    assert first["entries_promoted"] == 1 and first["heuristics_proposed"] == 1 and first["entries_pruned"] == 0


def test_a_cycle_with_nothing_new_changes_nothing(life: Life, api, db) -> None:
    life.episodes(range(1, 50), "uniswap-swap", "WETH/USDC", "bull", "+++++")
    life.cycle(1)
    before = db.fetch("testing/dump")
    report = life.curator.run(AGENT, clade=CLADE, actor="test", now=life.start + 2 * HOUR)
    assert report.status == "up_to_date"
    r = api.client.post("/curator/cycles", headers=life.h)
    assert r.status_code == 200 and r.json()["status"] == "up_to_date"
    assert db.fetch("testing/dump") == before


def _state(db) -> list[Any]:
    """Every entry's and episode's learning state, and every operation (ids and effects)."""
    return db.fetch("testing/learning_state")


def _life_for_interruption(life: Life) -> None:
    life.episodes(range(1, 50), "uniswap-swap", "WETH/USDC", "bull", "+++++-++++")
    life.episodes(range(1, 50), "aave-supply", "USDC", "bull", "-----")
    life.cycle(1)
    life.episodes(range(51, 100), "uniswap-swap", "WETH/USDC", "bear", "--+---")
    life.episodes(range(51, 100), "aave-supply", "USDC", "bull", "----")


@pytest.mark.parametrize("stop_after", ["reflexion", "distill", "net", "promote"])
def test_a_cycle_killed_halfway_ends_where_an_uninterrupted_one_does(api, db, stop_after: str) -> None:
    from grimoire.graph.learning.cycle import Interrupted
    from tests.conftest import Api, clean_database

    life = Life(api)
    _life_for_interruption(life)
    life.cycle(2)
    whole = _state(db)
    start = life.start

    clean_database(db)  # the same service on a clean graph: the same life again, killed halfway this time
    life = Life(Api(api.client, db))
    life.start = start
    _life_for_interruption(life)
    with pytest.raises(Interrupted):
        life.curator.run(AGENT, clade=CLADE, actor="test", now=life.start + 2 * HOUR, stop_after=stop_after)
    report = life.curator.run(AGENT, clade=CLADE, actor="test", now=life.start + 99 * HOUR)
    assert report.status == "complete" and report.resumed
    assert _state(db) == whole


def _life_with_a_large_cluster(life: Life) -> None:
    # 35 episodes, over `batch` (12): marked 9 or 10 with the cluster's operations, then 12, 12 and the last 1 or 2
    life.episodes(range(1, 90), "uniswap-swap", "WETH/USDC", "bull", "++++-+++++" * 3 + "+++-+")
    life.episodes(range(1, 90), "aave-supply", "USDC", "bull", "----")


def test_a_cycle_killed_while_it_consolidates_a_large_cluster_ends_where_an_uninterrupted_one_does(
        api, db, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cluster of more episodes than a transaction holds is consolidated in several transactions after
    its operations; killed between them, the re-run consolidates the rest of it (even fewer than three)
    and plans nothing of it again."""
    from grimoire.graph.learning import distill
    from grimoire.graph.learning.cycle import Interrupted
    from tests.conftest import Api, clean_database

    life = Life(api)
    monkeypatch.setattr(life.curator.learning.config, "batch", 12)
    _life_with_a_large_cluster(life)
    life.cycle(1)
    whole = _state(db)
    assert all(s == [True] for kind, _, s in (r.values() for r in whole) if kind == "episode")
    start = life.start

    clean_database(db)
    life = Life(Api(api.client, db))
    life.start = start
    _life_with_a_large_cluster(life)
    marks = {"n": 0}
    mark = distill._mark

    def killed_before_the_last(tx, ids, cycle):  # aave's mark, then uniswap's 4: dies before its last
        marks["n"] += 1
        if marks["n"] == 5:
            raise Interrupted("killed while consolidating")
        return mark(tx, ids, cycle)

    monkeypatch.setattr(distill, "_mark", killed_before_the_last)
    with pytest.raises(Interrupted):
        life.curator.run(AGENT, clade=CLADE, actor="test", now=life.start + HOUR)
    left = [r for r in _state(db) if r["kind"] == "episode" and r["state"] == [False]]
    assert 0 < len(left) < 3  # too few to be a cluster of their own: consolidated as the rest of theirs
    monkeypatch.setattr(distill, "_mark", mark)
    report = life.curator.run(AGENT, clade=CLADE, actor="test", now=life.start + 99 * HOUR)
    assert report.status == "complete" and report.resumed
    assert _state(db) == whole
