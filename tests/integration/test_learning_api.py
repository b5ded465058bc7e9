"""The learning loop's edges: the Reasoner it distils with (a language model at a fake chat server, and
the rules when that model answers junk, too late or not at all — the cycle's event says which), the
scheduler running cycles every N ticks, the CLI, and what one agent may see of another's learning."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from grimoire.graph.settings import PROJECT_ROOT
from tests import fake_chat
from tests.conftest import ADMIN_KEY, Api
from tests.fake_chat import FakeChat, dead_url
from tests.integration.mcp_live import Live, live_fixture  # noqa: F401  (the fixture)

SWAPS = [{"id": f"sw-{i}", "type": "action", "tool": "uniswap-swap", "chain": "1", "token_pair": "WETH/USDC",
          "regime": "bull", "tick": i, "outcome": "positive", "gain": 5.0,
          "text": f"uniswap-swap on WETH/USDC at tick {i}: filled with a gain"} for i in range(5)]


@pytest.fixture
def fake() -> Iterator[FakeChat]:
    with FakeChat().running() as f:
        yield f


def _app(db, neo4j_server, embedder, **settings):
    from fastapi.testclient import TestClient

    from grimoire.api.app import create_app

    return TestClient(create_app(neo4j_server.settings(admin_key=ADMIN_KEY, **settings), db=db, embedder=embedder))


@pytest.mark.parametrize(("behaviour", "fallback"), [
    ("good", None), ("junk", "junk: not JSON"), ("slow", "timeout"), ("down", "connection refused")])
def test_a_cycle_distils_with_the_language_model_or_says_why_it_did_not(
        db, neo4j_server, embedder, fake: FakeChat, behaviour: str, fallback: str | None) -> None:
    fake.behaviour = "good" if behaviour == "down" else behaviour
    fake.delay = 2.0
    url = dead_url() if behaviour == "down" else fake.url
    with _app(db, neo4j_server, embedder, reasoner_url=url, reasoner_model="fake-model",
              reasoner_timeout_seconds=0.5) as c:
        api = Api(c, db)
        h = api.headers("golem-lm", "clade-lm")
        assert c.post("/episodes/batch", headers=h, json={"episodes": SWAPS}).status_code == 201
        report = c.post("/curator/cycles", headers=h).json()
        assert report["status"] == "complete"
        ops = c.get(f"/curator/cycles/{report['cycle']['id']}/operations", headers=h).json()
        [add] = [op for op in ops if op["op"] == "ADD"]
        # the lesson no prediction validated yet is pruned by the same cycle (grimoire.md:1444): archived, still read
        lesson = c.get(f"/entries/{add['entry_id']}", headers=h, params={"include_archived": True}).json()
        [event] = c.get("/events", headers=h, params={"type": "CuratorCycleComplete"}).json()
    payload = event["payload"]
    assert payload["reasoner"] == "language-model:fake-model"
    if fallback is None:
        assert lesson["content"] == fake_chat.GOOD_LESSON and payload["reasoner_fallbacks"] == []
        assert any('"category"' in body["messages"][-1]["content"] for body, _ in fake.requests)
    else:
        assert lesson["content"] == "Use uniswap-swap for WETH/USDC on chain 1: 5 of 5 outcomes positive, mean gain +5."
        assert [f for f in payload["reasoner_fallbacks"] if f.startswith(fallback)], payload


def test_every_fifty_ticks_the_scheduler_runs_a_cycle(db, neo4j_server, embedder) -> None:
    with _app(db, neo4j_server, embedder, scheduler_enabled=True) as c:
        api = Api(c, db)
        h = api.headers("golem-ticks", "clade-t")
        early = [dict(ep, id=f"t-{i}", tick=i) for i, ep in enumerate(SWAPS[:3])]
        assert c.post("/episodes/batch", headers=h, json={"episodes": early}).status_code == 201
        time.sleep(1.0)
        assert c.get("/curator/cycles", headers=h).json() == []  # tick 2: not yet
        late = [dict(ep, id=f"t-{50 + i}", tick=50 + i) for i, ep in enumerate(SWAPS[:2])]
        assert c.post("/episodes/batch", headers=h, json={"episodes": late}).status_code == 201
        deadline = time.monotonic() + 60
        while not (cycles := c.get("/curator/cycles", headers=h).json()) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert [(x["trigger"], x["tick"]) for x in cycles] == [("ticks", 51)]
        jobs = {j["name"] for j in c.get("/scheduler/jobs", headers=api.admin).json()["jobs"]}
        assert {"curator.sweep", "curator.ticks"} <= jobs


def test_the_cli_runs_a_cycle_and_writes_the_playbook(live: Live, tmp_path) -> None:
    # through the client against the running service (api/cli_remote.py), as the admin
    api = live.api
    h = api.headers("golem-cli", "clade-c")
    assert api.client.post("/episodes/batch", headers=h, json={"episodes": SWAPS}).status_code == 201
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "GRIMOIRE_"))}
    env |= {"GRIMOIRE_URL": live.url, "GRIMOIRE_API_KEY": ADMIN_KEY}

    def grimoire(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "grimoire.api.cli", *args], env=env, cwd=PROJECT_ROOT,
                              capture_output=True, text=True, timeout=300)

    ran = grimoire("curator", "run", "--agent", "golem-cli")
    assert ran.returncode == 0, ran.stderr
    assert '"status": "complete"' in ran.stdout and '"ADD": 1' in ran.stdout
    out = tmp_path / "PLAYBOOK.md"
    book = grimoire("playbook", "--agent", "golem-cli", "--out", str(out))
    assert book.returncode == 0, book.stderr
    assert out.read_text() == api.client.get("/playbook", headers=h).text
    assert out.read_text().startswith("# PLAYBOOK.md — golem-cli\n")
    assert grimoire("playbook", "--agent", "nobody").returncode == 2


def test_one_agent_never_sees_another_agents_learning(api) -> None:
    """Cycles, their operations, the playbook and entry versions are the owner's (and the admin's)."""
    owner, other = api.headers("golem-own", "clade-x"), api.headers("golem-other", "clade-x")
    assert api.client.post("/episodes/batch", headers=owner, json={"episodes": SWAPS}).status_code == 201
    cycle = api.client.post("/curator/cycles", headers=owner).json()["cycle"]["id"]
    assert api.client.get("/curator/cycles", headers=other).json() == []
    assert api.client.get("/curator/cycles", headers=other, params={"agent_id": "golem-own"}).status_code == 403
    assert api.client.get(f"/curator/cycles/{cycle}/operations", headers=other).status_code == 404
    assert api.client.get(f"/curator/cycles/{cycle}/operations", headers=owner).json()
    assert api.client.get(f"/curator/cycles/{cycle}/operations", headers=api.admin).json()
    assert api.client.get("/playbook", headers=other, params={"agent_id": "golem-own"}).status_code == 403
    assert "golem-own" not in api.client.get("/playbook", headers=other).text
    assert api.client.post("/curator/cycles", headers=other, json={"agent_id": "golem-own"}).status_code == 403
    [op] = [o for o in api.client.get(f"/curator/cycles/{cycle}/operations", headers=owner).json() if o["op"] == "ADD"]
    edited = api.client.post(f"/entries/{op['entry_id']}/edit", headers=owner,
                             json={"content": "Use uniswap-swap for WETH/USDC on chain 1 in bull markets only."})
    assert edited.status_code == 200, edited.text
    assert api.client.get(f"/entries/{op['entry_id']}/versions", headers=other).status_code == 404
    assert len(api.client.get(f"/entries/{op['entry_id']}/versions", headers=owner).json()) == 1
    assert api.client.post(f"/entries/{op['entry_id']}/edit", headers=other,
                           json={"content": "hijacked"}).status_code in (403, 404)


def test_a_strategy_past_psr_0_9_is_packaged_with_its_playbook_section(api, monkeypatch) -> None:
    h, other = api.headers("golem-dca", "clade-d"), api.headers("golem-nosy", "clade-d")
    curator = api.client.app.state.services.curator
    # The lesson is followed over three cycles of votes before any prediction validates it: pruned on its stored
    # quality_score (prune_rule artifact), not the document's quality, which is 0 until a validation.
    monkeypatch.setattr(curator.learning.config, "prune_rule", "artifact")

    def dca(start: int, outcomes: str, strategy: str = "eth-dca", tool: str = "dca-buy") -> None:
        eps = [{"id": f"{strategy}-{start + i}", "type": "action", "tool": tool, "chain": "1", "token_pair": "ETH/USDC",
                "strategy": strategy, "regime": "bull", "tick": start + i,
                "outcome": "positive" if o == "+" else "negative", "gain": 3.0 if o == "+" else -2.0,
                "importance": "critical" if o == "!" else "routine",
                "text": f"{tool} bought ETH at tick {start + i} for {strategy}"} for i, o in enumerate(outcomes)]
        assert api.client.post("/episodes/batch", headers=h, json={"episodes": eps}).status_code == 201

    for k in range(3):  # three cycles: the lesson is added, then upvoted twice to 0.7
        dca(100 * k, "++++++++-+" if k == 0 else "+++++++++")
        dca(100 * k + 50, "+-!" if k == 0 else "-!-", strategy="lp-chase", tool="lp-add")
        assert curator.run("golem-dca", clade="clade-d", actor="test").status == "complete"
    listed = {s["strategy"]: s for s in api.client.get("/strategies", headers=h).json()}
    assert listed["eth-dca"]["decided"] == 28 and listed["eth-dca"]["positives"] == 27
    assert listed["eth-dca"]["psr"] == pytest.approx(27 / 28) and listed["eth-dca"]["eligible"] is True
    assert listed["lp-chase"]["eligible"] is False and listed["lp-chase"]["safety_failures"] == 3
    package = api.client.get("/strategies/eth-dca/package", headers=h)
    assert package.status_code == 200, package.text
    body = package.json()
    assert [x["content"] for x in body["heuristics"]] == [
        "Use dca-buy for ETH/USDC on chain 1: 9 of 10 outcomes positive, mean gain +2.5."]
    assert body["playbook_section"].startswith("## Strategy: eth-dca\n") and "Use dca-buy" in body["playbook_section"]
    assert "## Strategy: eth-dca" in api.client.get("/playbook", headers=h).text
    assert api.client.get("/strategies/eth-dca/package", headers=h).json()["digest"] == body["digest"]
    assert api.client.get("/strategies/lp-chase/package", headers=h).status_code == 409
    assert api.client.get("/strategies/nothing/package", headers=h).status_code == 404
    assert api.client.get("/strategies", headers=other).json() == []
    assert api.client.get("/strategies", headers=other, params={"agent_id": "golem-dca"}).status_code == 403
    assert api.client.get("/strategies/eth-dca/package", headers=other,
                          params={"agent_id": "golem-dca"}).status_code == 403


def test_an_episode_recording_a_decisions_outcome_teaches_the_retrieval_weights(api) -> None:
    h = api.headers("golem-hedge", "clade-h")
    assert api.client.post("/episodes/batch", headers=h, json={"episodes": SWAPS}).status_code == 201
    r = api.client.post("/retrieve", headers=h, json={"text": "uniswap swaps on WETH/USDC", "k": 3,
                                                      "mode": "generative_agents", "for_decision": True})
    assert r.status_code == 200, r.text
    decision = r.json()["decision_id"]
    before = api.client.get("/retrieve/weights", headers=h).json()
    outcome = {"id": "sw-outcome", "type": "action", "tool": "uniswap-swap", "outcome": "positive", "tick": 9,
               "decision_id": decision, "text": "the swap the retrieval informed filled with a gain"}
    assert api.client.post("/episodes", headers=h, json=outcome).status_code == 201
    after = api.client.get("/retrieve/weights", headers=h).json()
    assert after["updates"] == before["updates"] + 1
    assert api.client.post("/episodes", headers=h, json=outcome).status_code == 201  # re-sent: nothing new
    assert api.client.get("/retrieve/weights", headers=h).json()["updates"] == after["updates"]
