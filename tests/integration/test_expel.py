"""ExpeL's outer loop (grimoire.md:1386-1395, graph/learning/expel.py): the 10th episode recorded within a strategy
has the scheduler distil it, a pattern across 3 or more of its episodes is ADDed as an Insight at 0.5, and the
strategy's count starts again; 9 episodes, a re-sent one, or another strategy's do nothing. The Curator cycle still
distils the same episodes into the Heuristic PLAYBOOK.md is compiled from."""

from __future__ import annotations

from typing import Any

from tests.conftest import Api

AGENT, CLADE = "golem-expel", "clade-expel"


def _episode(i: int, *, strategy: str = "dca", tool: str = "uniswap-swap", outcome: str = "positive",
             scope: str = "private") -> dict[str, Any]:
    return {"id": f"xp-{strategy}-{tool}-{i}", "type": "action", "tool": tool, "chain": "1", "token_pair": "WETH/USDC",
            "regime": "bull", "strategy": strategy, "outcome": outcome, "gain": 4.0 if outcome == "positive" else -4.0,
            "scope": scope, "text": f"{tool} of WETH/USDC under {strategy}, try {i}: {outcome}"}


def _post(api: Api, h: dict[str, str], *episodes: dict[str, Any]) -> None:
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": list(episodes)})
    assert r.status_code == 201, r.text


def _counter(api: Api, strategy: str = "dca") -> dict[str, Any]:
    rows = api.db.rows("learning/strategy_counter", agent_id=AGENT, strategy=strategy)
    assert len(rows) == 1, rows
    return dict(rows[0]["counter"])


def _expel_cycles(api: Api, h: dict[str, str]) -> list[dict[str, Any]]:
    r = api.client.get("/curator/cycles", headers=h)
    assert r.status_code == 200, r.text
    return [c for c in r.json() if c.get("kind") == "expel"]


def _run_job(api: Api) -> str | None:
    scheduler = api.client.app.state.services.scheduler
    scheduler.trigger("curator.expel")  # False when ingest asked already: one run
    assert "curator.expel" in scheduler.run_due()  # beside the lazy enrichment an ingest triggered
    job = scheduler.job("curator.expel")
    assert job.last_error is None, job.last_error
    return job.last_result


def test_the_tenth_episode_of_a_strategy_distils_it_into_an_insight_at_half_confidence(api: Api) -> None:
    h = api.headers(AGENT, CLADE)
    scheduler = api.client.app.state.services.scheduler
    # Nine episodes of the strategy (seven swaps that all went well, two supplies), one at a time and re-sent.
    nine = [_episode(i) for i in range(7)] + [_episode(i, tool="aave-supply") for i in range(2)]
    for ep in nine:
        _post(api, h, ep)
    _post(api, h, *nine[:3])                       # re-sent: created nothing, counts nothing
    _post(api, h, *[_episode(i, strategy="other") for i in range(5)])  # another strategy's count
    assert _counter(api)["episodes"] == 9 and _counter(api, "other")["episodes"] == 5
    assert not scheduler.job("curator.expel").triggered   # ingest asked for no run
    assert _run_job(api) == "0 distillations"
    assert _expel_cycles(api, h) == [] and _counter(api)["episodes"] == 9

    _post(api, h, _episode(7))                     # the 10th
    assert scheduler.job("curator.expel").triggered     # ingest asked the scheduler for a run
    assert _run_job(api) == "1 distillations"
    [cycle] = _expel_cycles(api, h)
    assert cycle["strategy"] == "dca" and cycle["status"] == "complete" and cycle["trigger"] == "episodes"
    counter = _counter(api)
    assert counter["episodes"] == 0 and counter["distillations"] == 1 and counter["through"] == cycle["through"]
    assert "open" not in counter and _counter(api, "other")["episodes"] == 5
    ops = api.client.get(f"/curator/cycles/{cycle['id']}/operations", headers=h).json()
    [add] = [op for op in ops if op["op"] == "ADD"]  # the swaps' pattern; two supplies are no cluster
    assert add["category"] == "Insight" and add["episode_count"] == 8
    insight = api.client.get(f"/entries/{add['entry_id']}", headers=h).json()
    assert insight["category"] == "Insight" and insight["confidence"] == 0.5, insight
    assert insight["scope"] == "private" and insight["strategy"] == "dca"
    assert insight["content"].startswith("Within strategy dca: Use uniswap-swap for WETH/USDC on chain 1")
    assert sorted(insight["parent_episode_ids"]) == sorted(f"xp-dca-uniswap-swap-{i}" for i in range(8))
    # Audited in the operations' transaction, and the distillation's opening and closing too.
    audit = api.client.get(f"/agents/{AGENT}/audit", headers=api.admin, params={"limit": 500}).json()
    actions = {r["action"] for r in (audit if isinstance(audit, list) else audit["records"])}
    assert {"curator.expel_open", "curator.expel", "curator.expel_complete"} <= actions, actions
    # Another agent, of the same clade, sees none of it.
    mate = api.headers("golem-expel-mate", CLADE)
    assert api.client.get(f"/entries/{add['entry_id']}", headers=mate).status_code == 404

    # The episodes were left to the Curator cycle: it still distils them into a Heuristic (PLAYBOOK.md's kind).
    report = api.client.post("/curator/cycles", headers=h).json()
    cycle_ops = api.client.get(f"/curator/cycles/{report['cycle']['id']}/operations", headers=h).json()
    assert {op["category"] for op in cycle_ops if op["op"] == "ADD"} == {"Heuristic"}, cycle_ops
    assert "kind" not in report["cycle"]

    # Ten more: the Insight is confirmed (UPVOTE), not added again.
    _post(api, h, *[_episode(i) for i in range(8, 18)])
    assert _run_job(api) == "1 distillations"
    second = next(c for c in _expel_cycles(api, h) if c["seq"] == 2)
    ops = api.client.get(f"/curator/cycles/{second['id']}/operations", headers=h).json()
    assert [(op["op"], op["entry_id"]) for op in ops] == [("UPVOTE", add["entry_id"])], ops
    assert _counter(api)["episodes"] == 0


def test_the_count_and_what_add_writes_are_settings(db, neo4j_server, embedder) -> None:
    from fastapi.testclient import TestClient

    from grimoire.api.app import create_app
    from tests.conftest import ADMIN_KEY

    settings = neo4j_server.settings(admin_key=ADMIN_KEY, learning={"expel_every": 3, "expel_add": "lesson"})
    with TestClient(create_app(settings, db=db, embedder=embedder)) as c:
        api = Api(c, db)
        h = api.headers(AGENT, CLADE)
        _post(api, h, *[_episode(i, outcome="negative") for i in range(3)])
        assert _run_job(api) == "1 distillations"
        [cycle] = _expel_cycles(api, h)
        ops = c.get(f"/curator/cycles/{cycle['id']}/operations", headers=h).json()
        assert [(op["op"], op["category"]) for op in ops] == [("ADD", "Warning")], ops


def test_a_distillation_stopped_midway_is_resumed_and_adds_nothing_twice(api: Api) -> None:
    from grimoire.graph.learning import expel

    h = api.headers(AGENT, CLADE)
    learning = api.client.app.state.services.curator.learning
    _post(api, h, *[_episode(i) for i in range(10)])
    rows = api.db.rows("learning/strategy_counter", agent_id=AGENT, strategy="dca")
    # Opened by a replica that then died, before it wrote anything else.
    opened = expel._open(learning, rows[0]["counter"], rows[0]["latest"], CLADE, "curator", None)
    assert _counter(api)["open"] == opened.id
    _post(api, h, _episode(10))                    # recorded meanwhile: counts toward the next distillation
    assert _run_job(api) == "1 distillations"
    [cycle] = _expel_cycles(api, h)
    assert cycle["id"] == opened.id and cycle["status"] == "complete" and cycle["through"] == opened.through
    ops = api.client.get(f"/curator/cycles/{cycle['id']}/operations", headers=h).json()
    assert [(op["op"], op["category"], op["episode_count"]) for op in ops] == [("ADD", "Insight", 10)], ops
    counter = _counter(api)
    assert counter["episodes"] == 1 and "open" not in counter   # the 11th still counts
    assert _run_job(api) == "0 distillations"


def test_a_rolled_back_ingest_counts_no_more(api: Api) -> None:
    """The count moves back with a rollback of the ingest that raised it (and forward again when that rollback is
    undone): nine episodes, a tenth rolled back, is nine, and no distillation is due."""
    h = api.headers(AGENT, CLADE)
    _post(api, h, *[_episode(i) for i in range(9)])
    r = api.client.post("/episodes/batch", headers=h, json={"episodes": [_episode(9), _episode(10)]})
    assert r.status_code == 201, r.text
    [ingest] = r.json()["audit_ids"]
    assert _counter(api)["episodes"] == 11
    undone = api.client.post(f"/agents/{AGENT}/rollback", headers=api.admin, json={"record": ingest})
    assert undone.status_code == 200, undone.text
    assert api.client.get(f"/episodes/{_episode(9)['id']}", headers=h).status_code == 404
    assert _counter(api)["episodes"] == 9
    assert _run_job(api) == "0 distillations" and _expel_cycles(api, h) == []
    again = api.client.post(f"/agents/{AGENT}/rollback", headers=api.admin,
                            json={"undo": undone.json()["rollback_id"]})
    assert again.status_code == 200, again.text
    assert _counter(api)["episodes"] == 11
    assert api.client.get(f"/episodes/{_episode(9)['id']}", headers=h).status_code == 200
