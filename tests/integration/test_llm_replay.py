"""The two checks that need a language model (issue 39), with the service's cheap tier (GRIMOIRE_REASONER_URL) at a
local fake chat server answering deterministically:

- Loop 3's replay gate (context-governor.md:894): a poor decision replayed under each alternative policy; the
  mutation staged only when the replay's quality beats the decision's by more than 0.15, with its improvement; a
  malformed answer or a model that is down stages nothing (and no 500). Without a model every alternative is staged
  (tests/integration/test_context_feedback.py, test_loop3_stages_mutations_that_later_outcomes_validate_or_refute).
- Consistency by regenerating (grimoire.md:319, 323): a Curator promotion asks for three restatements of the claim;
  their mean pairwise cosine with it is the consistency, and under 0.5 the promotion is held."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from grimoire.graph.context.feedback import Outcome
from grimoire.graph.context.governor import Request
from grimoire.graph.context.reasoning import Provider, normalize
from grimoire.graph.db.connection import Database
from grimoire.graph.embeddings import Embedder
from grimoire.graph.ids import now_ms
from grimoire.graph.knowledge.llm import Breaker, ChatClient
from grimoire.graph.model.enums import MarketRegime
from tests.conftest import ADMIN_KEY, Api, Neo4jUnderTest
from tests.fake_chat import FakeChat, dead_url, good_content

AGENT, CLADE = "replayer", "clade-replay"
QUERY = "swap ETH for USDC on Uniswap"
REASONING = "The pool looked deep enough.\n\nI will swap all 40 ETH at once."
MISSING = "no causal explanation"


@pytest.fixture
def fake() -> Iterator[FakeChat]:
    with FakeChat().running() as f:
        yield f


@contextmanager
def service(db: Database, server: Neo4jUnderTest, embedder: Embedder, url: str | None) -> Iterator[Api]:
    from fastapi.testclient import TestClient

    from grimoire.api.app import create_app

    settings = server.settings(admin_key=ADMIN_KEY, reasoner_url=url, reasoner_model="cheap-model",
                               reasoner_timeout_seconds=2.0)
    with TestClient(create_app(settings, db=db, embedder=embedder)) as c:
        yield Api(c, db)


def answering(quality: str) -> Callable[[str], str]:
    """The replay question answered with `quality` (verbatim), every other question as a good model would."""
    return lambda prompt: quality if '"quality"' in prompt else good_content(prompt)


def poor_decisions(api: Api, n: int = 3) -> None:
    """`n` decisions in the bear regime at quality 0.2, each saying it missed a causal explanation."""
    governor = api.client.app.state.services.context
    chain = normalize(Provider.text, model="agent-model", text=REASONING)
    for _ in range(n):
        ws = governor.assemble(AGENT, CLADE, Request(regime=MarketRegime.bear, query=QUERY), prefer_kept=False)
        governor.feedback(AGENT, CLADE, Outcome(ws.id, quality=0.2, missing=(MISSING,), reasoning=chain), actor="t")


def stage(api: Api) -> list[str]:
    r = api.client.post(f"/agents/{AGENT}/context/mutations/stage", headers=api.headers(AGENT, CLADE))
    assert r.status_code == 200, r.text
    staged: list[str] = r.json()["staged"]
    return staged


def mutations(api: Api) -> list[dict[str, Any]]:
    r = api.client.get(f"/agents/{AGENT}/context/mutations", headers=api.headers(AGENT, CLADE))
    assert r.status_code == 200, r.text
    out: list[dict[str, Any]] = r.json()
    return out


def replays(fake: FakeChat) -> list[str]:
    return [b["messages"][-1]["content"] for b, _ in fake.requests if '"quality"' in b["messages"][-1]["content"]]


def test_a_replay_over_the_gate_stages_the_mutation_with_its_improvement(
        db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder, fake: FakeChat) -> None:
    fake.behaviour, fake.script = "script", answering('{"quality": 0.8}')
    with service(db, neo4j_server, embedder, fake.url) as api:
        poor_decisions(api)
        staged = stage(api)
        listing = {m["id"]: m for m in mutations(api)}
        assert len(staged) == 2 and {listing[m]["kind"] for m in staged} == {"boost_missing", "causal_over_playbook"}
        for m in staged:
            assert listing[m]["status"] == "staged" and listing[m]["confidence"] == pytest.approx(0.2)
            assert listing[m]["replay_quality"] == pytest.approx(0.8)
            assert listing[m]["quality_improvement"] == pytest.approx(0.6)
        # the model saw the decision as recorded and what the alternative changes
        asked = replays(fake)
        assert len(asked) == 2   # the worst decision's two replays passed: the other two's would only be skipped
        boost = next(p for p in asked if "alternative: boost_missing" in p)
        assert MISSING in boost and "I will swap all 40 ETH at once." in boost
        assert "recorded outcome quality: 0.200" in boost and "causal_edges:" in boost and "(more)" in boost
        # the staging's audit record names the replays' outcomes, in the transaction that staged
        records = api.client.get(f"/agents/{AGENT}/audit", headers=api.headers(AGENT, CLADE),
                                 params={"item": staged[0]}).json()
        assert records and records[0]["action"] == "context.mutation.stage"
        assert "replayed:" in records[0]["summary"] and "0.800 > 0.200 + 0.15" in records[0]["summary"]


def test_a_kind_whose_replay_passed_is_not_asked_about_again(
        db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder, fake: FakeChat) -> None:
    """Decision by decision, worst first: the worst's boost_missing passes and its causal_over_playbook does not; the
    next's causal_over_playbook passes. Three questions, not six (the third decision's kinds are both taken, and the
    second's boost_missing too), and the same two mutations staged as asking all six would."""
    asked: list[str] = []

    def script(prompt: str) -> str:
        if '"quality"' not in prompt:
            return good_content(prompt)
        kind = "boost_missing" if "alternative: boost_missing" in prompt else "causal_over_playbook"
        asked.append(kind)
        first_causal = kind == "causal_over_playbook" and asked.count(kind) == 1
        return '{"quality": 0.3}' if first_causal else '{"quality": 0.8}'

    fake.behaviour, fake.script = "script", script
    with service(db, neo4j_server, embedder, fake.url) as api:
        poor_decisions(api)
        decisions = [d["id"] for d in sorted(
            api.client.get(f"/agents/{AGENT}/context/decisions", headers=api.headers(AGENT, CLADE)).json(),
            key=lambda d: d["id"])]
        staged = stage(api)
        listing = {m["id"]: m for m in mutations(api)}
        assert asked == ["boost_missing", "causal_over_playbook", "causal_over_playbook"]
        assert len(replays(fake)) == 3
        assert {listing[m]["kind"] for m in staged} == {"boost_missing", "causal_over_playbook"}
        sources = {listing[m]["kind"]: listing[m]["source_decision"] for m in staged}
        assert sources["boost_missing"] != sources["causal_over_playbook"] and set(sources.values()) < set(decisions)
        assert all(listing[m]["replay_quality"] == pytest.approx(0.8) for m in staged)
        # the next run asks nothing: every (kind, regime) of the poor decisions is staged
        before = len(fake.requests)
        assert stage(api) == [] and len(fake.requests) == before


@pytest.mark.parametrize("answer", ['{"quality": 0.3}', '{"quality": 0.35}', "I would say 0.9", '{"quality": 1.5}',
                                    '{"quality": "0.9"}'])
def test_a_replay_under_the_gate_or_without_a_number_stages_nothing(
        db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder, fake: FakeChat, answer: str) -> None:
    """Under 0.2 + 0.15, at it (the gate is strict), or no number in [0, 1]: nothing staged, by the route or the
    scheduler's job."""
    fake.behaviour, fake.script = "script", answering(answer)
    with service(db, neo4j_server, embedder, fake.url) as api:
        poor_decisions(api)
        assert stage(api) == []
        assert len(replays(fake)) == 6
        scored = answer in ('{"quality": 0.3}', '{"quality": 0.35}')
        decisions = api.client.get(f"/agents/{AGENT}/context/decisions", headers=api.headers(AGENT, CLADE)).json()
        records = api.client.get(f"/agents/{AGENT}/audit", headers=api.headers(AGENT, CLADE),
                                 params={"item": decisions[0]["id"]}).json()
        replay_records = [r for r in records if r["action"] == "context.mutation.stage"]
        if scored:   # the replays' outcome audited with the decisions' marks: each is replayed once
            assert len(replay_records) == 1 and "staged 0 policy mutations" in replay_records[0]["summary"]
            assert "0.200 + 0.15" in replay_records[0]["summary"]
        else:        # no score: nothing changed, and the decisions are asked about again next run
            assert replay_records == []
        report = api.client.app.state.services.context.loops()
        assert "0 mutations staged" in report and mutations(api) == []
        assert len(replays(fake)) == (6 if scored else 12)


def test_a_model_that_is_down_stages_nothing_until_it_is_back(
        db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder, fake: FakeChat) -> None:
    with service(db, neo4j_server, embedder, dead_url()) as api:
        poor_decisions(api)
        assert stage(api) == []
        assert mutations(api) == []
    fake.behaviour, fake.script = "script", answering('{"quality": 0.8}')
    with service(db, neo4j_server, embedder, fake.url) as api:   # the same decisions, replayed now
        assert len(stage(api)) == 2 and len(replays(fake)) == 2   # the first decision's two pass: no more asked


def test_without_a_model_every_alternative_is_staged(db: Database, neo4j_server: Neo4jUnderTest,
                                                     embedder: Embedder) -> None:
    with service(db, neo4j_server, embedder, None) as api:
        assert api.client.app.state.services.context.replayer is None
        poor_decisions(api)
        staged = stage(api)
        listing = {m["id"]: m for m in mutations(api)}
        assert len(staged) == 2 and all(listing[m]["replay_quality"] is None for m in staged)
        assert all(listing[m]["quality_improvement"] is None for m in staged)


# ------------------------------------------------------------------------------------------- consistency

CLAIM = "When Aave utilisation passes 92% then cut leverage to 1.5x within 10 blocks"
SAME = ["If Aave utilisation goes above 92%, reduce leverage to 1.5x within 10 blocks.",
        "Once utilisation on Aave exceeds 92%, cut leverage down to 1.5x inside 10 blocks.",
        "When Aave utilization is over 92%, lower leverage to 1.5x within ten blocks."]
ASTRAY = ["The moon orbits the earth every 27 days.", "Bananas ripen faster in a paper bag.",
          "Medieval castles had thick stone walls."]
PROMOTER, PCLADE = "consistent", "clade-cons"


def restating(answers: list[str]) -> Callable[[str], str]:
    """Each restatement question answered with the next of `answers`, every other question as a good model would."""
    turn = iter(answers * 10)
    return lambda prompt: json.dumps({"restatement": next(turn)}) if '"restatement"' in prompt else good_content(prompt)


def promote_cycle(api: Api) -> tuple[dict[str, Any], dict[str, Any]]:
    """A heuristic voted up to 0.7, then a Curator cycle: the entry after it, and its PROMOTE or HOLD operation."""
    h = api.headers(PROMOTER, PCLADE)
    r = api.client.post("/entries", headers=h, json={"id": "h-claim", "category": "Heuristic", "content": CLAIM})
    assert r.status_code in (200, 201), r.text
    confidence = r.json().get("confidence") or api.client.get("/entries/h-claim", headers=h).json()["confidence"]
    while confidence < 0.7 - 1e-9:
        r = api.client.post("/entries/h-claim/upvote", headers=h)
        assert r.status_code == 200, r.text
        confidence = r.json()["confidence"]
    return curate(api)


def curate(api: Api, later_ms: int = 60_000) -> tuple[dict[str, Any], dict[str, Any]]:
    """An episode (something new for the Curator), then a Curator cycle of the promoter's: h-claim after it, and its
    operations by name."""
    h = api.headers(PROMOTER, PCLADE)
    r = api.client.post("/episodes", headers=h, json={"type": "observation", "text": "Aave utilisation read 88%"})
    assert r.status_code == 201, r.text
    report = api.client.app.state.services.curator.run(PROMOTER, clade=PCLADE, actor="test", now=now_ms() + later_ms)
    assert report.status == "complete"
    ops = api.client.get(f"/curator/cycles/{report.cycle['id']}/operations", headers=h)
    assert ops.status_code == 200, ops.text
    mine = {op["op"]: op for op in ops.json() if op["entry_id"] == "h-claim"}
    return api.client.get("/entries/h-claim", headers=h).json(), mine


def test_a_consistent_claim_is_promoted_with_its_consistency(
        db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder, fake: FakeChat) -> None:
    fake.behaviour, fake.script = "script", restating(SAME)
    with service(db, neo4j_server, embedder, fake.url) as api:
        entry, ops = promote_cycle(api)
    asked = [b for b, _ in fake.requests if '"restatement"' in b["messages"][-1]["content"]]
    assert len(asked) == 3 and all(CLAIM in b["messages"][-1]["content"] for b in asked)
    assert all(b["temperature"] > 0 for b in asked)   # sampled: three answers may differ
    assert "PROMOTE" in ops and "HOLD" not in ops
    assert entry["status"] == "active" and entry["in_playbook"] is True
    assert entry["quality_consistency"] == pytest.approx(0.92, abs=0.03)
    assert entry.get("promotion_held") in (None, False)


def test_an_inconsistent_claim_is_held_and_not_asked_about_again(
        db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder, fake: FakeChat) -> None:
    fake.behaviour, fake.script = "script", restating(ASTRAY)
    with service(db, neo4j_server, embedder, fake.url) as api:
        entry, ops = promote_cycle(api)
        assert "PROMOTE" not in ops and "HOLD" in ops
        assert ops["HOLD"]["reason"].startswith("consistency 0.") and "< 0.5: promotion held" in ops["HOLD"]["reason"]
        assert entry["status"] == "candidate" and not entry.get("in_playbook")
        assert entry["promotion_held"] is True and entry["quality_consistency"] < 0.2
        assert CLAIM not in api.client.get("/playbook", headers=api.headers(PROMOTER, PCLADE)).text
        # the same content is not restated again: the next cycle holds it without asking (nor a second HOLD)
        before = len(fake.requests)
        _, again = promote_cycle(api)
        assert again == {} and not [b for b, _ in fake.requests[before:]
                                    if '"restatement"' in b["messages"][-1]["content"]]


def test_a_model_that_is_down_promotes_nothing_and_the_cycle_completes(
        db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder) -> None:
    with service(db, neo4j_server, embedder, dead_url()) as api:
        entry, ops = promote_cycle(api)
    assert ops == {} and entry["status"] == "candidate" and entry.get("quality_consistency") == 1.0


def test_without_a_model_the_evidence_signal_stands(db: Database, neo4j_server: Neo4jUnderTest,
                                                    embedder: Embedder) -> None:
    with service(db, neo4j_server, embedder, None) as api:
        entry, ops = promote_cycle(api)
    assert "PROMOTE" in ops and entry["in_playbook"] is True
    assert entry["quality_consistency"] == 1.0 and entry.get("promotion_held") is None


def test_an_outage_one_user_saw_is_remembered_by_the_others_until_the_model_is_back(
        db: Database, neo4j_server: Neo4jUnderTest, embedder: Embedder, fake: FakeChat) -> None:
    """One breaker per configured model (graph/knowledge/llm.py): Loop 3's replay finds the model failing (HTTP 500);
    the Reasoner admitting an entry and the Curator's consistency check, in this cycle and the next, fall back without
    asking it. When the rest is over the first question is the probe; the model answers, and every user asks again."""
    now = [1_000.0]
    breaker = Breaker.of(ChatClient(fake.url, "cheap-model"))
    breaker.clock = lambda: now[0]
    fake.behaviour = "error"
    with service(db, neo4j_server, embedder, fake.url) as api:
        poor_decisions(api)
        assert stage(api) == [] and breaker.state == "open"
        seen = len(fake.requests)
        assert seen >= 1 and len(replays(fake)) <= 1   # the first question failed; no other was asked
        h = api.headers(PROMOTER, PCLADE)
        r = api.client.post("/entries", headers=h, json={"id": "h-other", "category": "Heuristic",
                                                          "content": "Split orders over 20 ETH on Uniswap"})
        assert r.status_code == 201 and r.json()["reasoner"] == "rule-based (fallback: HTTP 500)"
        entry, ops = promote_cycle(api)              # a Curator cycle: the promotion waits, nothing asked
        assert ops == {} and entry["status"] == "candidate"
        entry, ops = curate(api, 120_000)             # and the next
        assert ops == {} and len(fake.requests) == seen
        now[0] += breaker.retry_after_seconds + 1
        fake.behaviour, fake.script = "script", restating(SAME)
        entry, ops = curate(api, 180_000)             # the model is back: noticed, and the claim checked
        assert breaker.state == "closed" and "PROMOTE" in ops and entry["status"] == "active"
        assert len([b for b, _ in fake.requests[seen:] if '"restatement"' in b["messages"][-1]["content"]]) == 3
